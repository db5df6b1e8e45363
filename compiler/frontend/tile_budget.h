// The static tile count of each root function, bounded before tiling: the
// tiler materialises every tile of a root, so `N: 2^31` under a [16, 1024]
// vec_tile would otherwise allocate until memory runs out.
#pragma once
#include <cstdint>

#include "compiler/frontend/reporter.h"
#include "compiler/ir.h"

namespace ptoc::fe {

// Tiles one op of the program makes in its root: for a vector op the tile grid
// over its largest operand, for a matmul the L0 grid over M, N and K. Symbolic
// extents count one tile (their loops run at run time). Saturates at INT64_MAX.
int64_t op_tile_count(const Program& p, const Op& op);
// Reports, at its largest op, every root function whose tiles exceed the tiles_per_root limit.
void check_tile_budget(const Program& p, Reporter& r);

}  // namespace ptoc::fe
