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
// operand whose element offset is a constant points inside its buffer with its tile (and, when
// the valid extents are constants too, with the rows they walk). "" when the program passes,
// else "leaf program instruction N (FN): ..." . Call it on a verified program (verify_leaf_program).
std::string verify_leaf_tiles(const LeafProgram& p);

// True when `e` reads no argument and no local: its value is known at load.
bool constant_expr(const Expr& e);
// True when a call's local-memory footprint depends on the task's arguments or the kernel's
// locals (a buffer offset or a valid extent that is not a constant): only the run's preflight can
// check it; verify_leaf_tiles has checked every other call.
bool tiles_depend_on_args(const Instr& call);

}  // namespace ptoc::leaf
