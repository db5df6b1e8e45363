// The on-chip liveness model shared by the tiling passes' fit checks
// (peak_bytes, partition's overflow report) and the buffer planner
// (buffer_plan.cpp), so that a subgraph the tiler accepted always gets
// addresses and both report the same numbers.
//
// A tile occupies its size rounded up to the memory's alignment from its first
// to its last touch in op order. One exception makes the model as tight as
// PyPTO's: an op that reads each element of a source before writing the same
// element of its result (elementwise ops, same-width casts) may write its
// result in place, into the buffer of a source whose last touch is that op;
// the result then costs nothing at that op (it takes the source's bytes over).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/diag.h"
#include "compiler/passes/tile_graph.h"

namespace ptoc {

// The source tile whose buffer `op` may write its result into, or -1. Only
// ops whose every output element depends on the same element of that source
// and is written after it is read: unary and binary elementwise ops (the
// aliased source has the result's shape; a broadcast operand never does) and
// casts between types of one width. Never reductions, transposes, concat,
// full, copies or cube ops, nor the device forms that use the result buffer as
// scratch before every source element is read (gelu, silu; div, and a sub
// whose first operand is a literal or a column/scalar broadcast, against a
// column/scalar broadcast or a literal: pto_device_ops.h pto_dev_vbins).
// Liveness is the caller's part: the source must die at `op` and the result
// must be first touched there.
int in_place_source(const TileRoot& root, const TileOp& op);

// One tile's live range over a list of ops (positions in that list).
struct TileLive {
  int tile = -1;
  int first = 0, last = 0;
  int64_t bytes = 0;    // LocalTile::bytes()
  int64_t padding = 0;  // aligned size - bytes
  int inherits = -1;    // tile whose buffer this one takes over in place at `first` (-1: none)
  int64_t size() const { return bytes + padding; }
};

// Live ranges of every on-chip tile `ops` touch (GM tiles skipped), in first-touch
// order, with the in-place takeovers. `align` per MemKind; a takeover needs equal
// aligned sizes in one memory. `inplace` false: no takeovers (the plain model).
std::vector<TileLive> tile_lives(const TileRoot& root, const std::vector<int>& ops,
                                 const std::array<int64_t, 6>& align, bool inplace = true);

// Whether tile `l` holds bytes of its own at position `pos` (a takeover holds
// none at its first position: those bytes are still its source's).
inline bool holds_at(const TileLive& l, int pos) {
  return l.first <= pos && pos <= l.last && !(l.inherits >= 0 && pos == l.first);
}

// The position in `ops` where memory `mem` holds the most bytes, and those bytes.
struct PeakPoint {
  int pos = -1;
  int64_t bytes = 0;
};
PeakPoint peak_point(const TileRoot& root, const std::vector<TileLive>& lives, MemKind mem, int n_ops);

// How a tile is named in a diagnostic: the spec value it holds ("xf"), the
// tensor it loads ("load of x"), or the op that makes it ("'mul' result").
std::string tile_label(const Program& prog, const TileRoot& root, const std::vector<int>& ops, int tile);

// "[32, 768] fp32"
std::string tile_shape_text(const LocalTile& t);

// The live buffers of memory `mem` at position `pos`, largest first, as
// "xf [32, 768] fp32 98304; mu [8, 1] fp32 32"; also returns their total.
std::string live_buffer_list(const Program& prog, const TileRoot& root, const std::vector<int>& ops,
                             const std::vector<TileLive>& lives, MemKind mem, int pos, int64_t* total = nullptr);

// The smallest vec_tile change that makes the buffers live at `pos` fit `cap`:
// the extent of the tile's widest axis scaled down (tiles whose extent on that
// axis is the op's scale with it, the others stay). Empty when there is no
// vec_tile or no extent fits. E.g. "vec_tile [24, 768] at line 12 fits (needs 147552 bytes)".
// `verify` (when given) re-tiles with a proposed shape: a proposal it refuses is not printed, the next
// smaller one is tried (a few at most), so the hint never names a tile that overflows in turn.
using VecTileCheck = std::function<bool(const std::vector<int64_t>& from, const std::vector<int64_t>& to)>;
std::string fitting_vec_tile(const Program& prog, const TileRoot& root, const std::vector<int>& ops,
                             const std::vector<TileLive>& lives, MemKind mem, int pos, int64_t cap,
                             const std::array<int64_t, 6>& align, const VecTileCheck& verify = {});

// Whether an overflow ("does not fit") was already reported at `loc`: each op
// and statement is reported once, not once per tile instance or leaf.
bool overflow_reported(const DiagEngine& diags, SrcLoc loc);

}  // namespace ptoc
