// A root function's leaf tasks against the 65 535 a task id can number (task_id_limit.cpp).
#pragma once
#include <string>

#include "compiler/diag.h"
#include "compiler/ir.h"
#include "compiler/passes/tile_graph.h"

namespace ptoc {

// False, with one located error, when `tr` has more subgraphs (leaf tasks) than kMaxTasksPerRoot.
bool check_task_id_limit(const Program& prog, const RootTemplate& rt, const TileRoot& tr, DiagEngine& diags);

}  // namespace ptoc
