// The local-memory footprint of a leaf-program call (issue 12: a crafted tile extent must not
// overflow UB/L1/L0): which buffer operand holds the call's R x C tile (the first two integer
// template parameters) and which integer operands are its valid extents (from the task's
// arguments). Used by the load-time check below and by the run's preflight
// (runtime/task_preflight.h), which evaluates the offsets and extents per task.
#pragma once
#include <string>

#include "runtime/program/leaf_program.h"

namespace ptoc::leaf {

struct TileUse {
  int buf = -1, vr = -1, vc = -1;  // operand indices; -1: the call has no such tile
};
// The calls whose tile the kernels walk row by row up to (vr, vc) with row pitch C; reductions,
// transposes, copies, extracts and TMMAD have none here (their pointers are still checked).
TileUse tile_use(Fn f);

// Load-time check, no arguments needed: every call's tile fits its buffer, and every buffer
// operand whose element offset is a constant points inside its buffer with its tile. "" when
// the program passes, else "leaf program instruction N (FN): ..." .
std::string verify_leaf_tiles(const LeafProgram& p);

}  // namespace ptoc::leaf
