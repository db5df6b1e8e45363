// The task preflight (issue 12: a crafted bundle is refused before it runs, not stopped mid-run).
// Before the first kernel call, walk the whole control flow once for the bound dims and, for every
// task, evaluate its kernel's leaf program on the task's arguments without moving a byte ("dry"):
// every GM window a load or store would move must lie inside one mapped block of the run's GM
// (a spec tensor or a temp slab, as the GM guard checks at every move), and every local-memory
// operand must lie inside its buffer, with the tile it touches inside the buffer and the valid
// extents of a GM move within its tile (else the move writes past its buffer and, with a crafted
// extent, past the core's local memory). The GM guard still checks every move while running.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/control_flow.h"
#include "runtime/program/compiled_program.h"

namespace ptoc::runtime {

struct PreflightStats {
  uint64_t tasks = 0;       // tasks checked
  uint64_t gm_windows = 0;  // GM windows checked
  uint64_t local_tiles = 0; // local-memory operands checked
  uint64_t local_windows = 0;  // local-memory footprints checked (leaf_footprint.h)
};

// "" when every task of the walk passes, else what is wrong and where ("kernel 'k' (root 'f'
// instance 3, task 7): ..."). Kernels without a leaf program (older bundles) are skipped. Throws
// ControlFlowError when the walk itself fails (as the run would).
// `task_budget` > 0 stops (passing) after that many tasks: for the fuzz target, whose random
// bundles may walk for long; a run checks every task.
std::string preflight_tasks(const CompiledProgram& p, const DimExpr::Env& dims, const ControlFlowOptions& cfo,
                            PreflightStats* stats = nullptr, uint64_t task_budget = 0);

}  // namespace ptoc::runtime
