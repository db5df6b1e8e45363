// The stable text form of the tile level (`ptoc --dump-after=STAGE` for the stages from
// build_tile_roots on): per root function its tiles, tile ops and subgraphs, and, once the backend
// has run, each leaf plan's step order, pipes and buffer addresses.
#pragma once
#include <string>
#include <vector>

#include "compiler/passes/leaf_plan.h"
#include "compiler/passes/tiling.h"

namespace ptoc {

std::string print_tile_roots(const std::vector<TileRoot>& roots, const std::vector<LeafPlan>& plans);

}  // namespace ptoc
