// The check behind an overflow hint's vec_tile proposal: the program is tiled again with the proposed tile
// in place of the written one, and the proposal is printed only when that tiling has no error. A proposal
// from arithmetic alone (scale the live buffers by the smaller extent) misled where a smaller tile makes
// more tiles live at once: hc_pre's scope over a 16384-wide split reduction was told to use [3, 4096],
// which overflows in turn (issue 13).
#pragma once
#include <cstdint>
#include <vector>

#include "compiler/diag.h"
#include "compiler/ir.h"
#include "compiler/passes/tiling.h"

namespace ptoc {

// Whether `prog` tiles for `plat` without an error once every op tiled by the vec_tile statement at `loc`
// with shape `from` takes `to` instead (other gears' shapes of that statement stay). False inside such a
// check (no nested re-tiling).
bool vec_tile_proposal_fits(const Program& prog, const Platform& plat, SrcLoc loc, const std::vector<int64_t>& from,
                            const std::vector<int64_t>& to);

}  // namespace ptoc
