// Tiles have static shapes: every vector op, reduction, matmul and assemble of a root function
// works on values whose extents are constants once the root's compile-time symbols (an unroll
// gear's factor) are bound. A whole tensor of dynamic extent at the top level of the body (no
// dynamic loop slicing it) has none, and the tiler refuses it; `ptoc check` says so first, at the
// same place and with the same words, so check and compile never disagree.
#pragma once
#include "compiler/frontend/reporter.h"
#include "compiler/ir.h"

namespace ptoc::fe {

void check_static_tile_shapes(const Program& p, Reporter& r);

}  // namespace ptoc::fe
