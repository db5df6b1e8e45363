// A topological order of a subgraph's ops that keeps few tiles live at once, for the groups whose creation
// order does not fit on chip. Tile expansion emits an op over all of its tiles before the next op starts
// (x * x over the four [4, 4096] chunks of a 16384-wide row, then the four partial sums), so in creation
// order every chunk of a split reduction is live until the reduction reaches it: hc_pre's scope at gear 256
// needed 256 KiB of UB. Sinking each producer to just before its first consumer runs every chunk's chain
// (load, square, partial sum, store) to its end before the next chunk starts, as PyPTO's out-of-order
// scheduler does: one chunk is live at a time. Only tried where the usual orders overflow, so every
// subgraph that fitted before keeps its order and its bytes.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "compiler/passes/tile_graph.h"

namespace ptoc::tiling {

struct Builder;

// `ops` (one group, any order) in an order that respects every edge among them (tile and GM hazards) and
// runs each producer as late as its first consumer allows.
std::vector<int> low_peak_order(const Builder& b, const std::vector<int>& ops);

// Whether low_peak_order(ops) fits every on-chip memory; its peak in `peak` and the order in `order`.
bool fits_in_low_peak_order(const Builder& b, const std::vector<int>& ops, std::array<int64_t, 6>* peak = nullptr,
                            std::vector<int>* order = nullptr);

}  // namespace ptoc::tiling
