// Family conditions of copied matmul blocks from block 0 and the deltas (block_family_proof.h).
#include "compiler/passes/block_family_proof.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

namespace {

bool is_write(const TileOp& op) { return op.kind == TileOpKind::CopyOut || op.kind == TileOpKind::FixOut; }

// Member 0's writes of one tensor, as check_gm bounds them (empty writes skipped).
struct TensorBox {
  bool any = false;
  std::vector<int64_t> lo, hi;
};

}  // namespace

bool copied_blocks_meet_family_conditions(const TileRoot& r, const TileFamily& f, const BlockCopies& c) {
  const int B = f.members, P = f.ops_per;
  if (f.segments.size() != 1 || f.segments[0].op_begin != 0 || f.segments[0].tile_begin != 0 || P != c.ops_per ||
      f.tiles_per != c.tiles_per || int(c.copied.size()) != B || int(c.delta.size()) != B ||
      int(c.operand.size()) != P || B < 2)
    return false;
  for (int k = 1; k < B; ++k)
    if (!c.copied[size_t(k)]) return false;
  constexpr size_t W = size_t(BlockOperand::W);
  std::set<int> written, read;
  std::map<int, TensorBox> boxes;  // tensor -> member 0's write bounding box
  int writes = 0;
  size_t rank = 0;
  for (int j = 0; j < P; ++j) {
    const TileOp& op = r.ops[size_t(j)];
    if (op.seq != double(op.id) || op.id != j) return false;  // a copy's seq is its id (emit order)
    if (op.kind == TileOpKind::CopyIn) read.insert(op.gm.tensor);
    if (!is_write(op)) continue;
    if (c.operand[size_t(j)] != BlockOperand::W || op.gm.offset.size() != op.gm.extent.size()) return false;
    written.insert(op.gm.tensor);
    ++writes;
    rank = op.gm.offset.size();
    TensorBox& tb = boxes[op.gm.tensor];
    std::vector<int64_t> lo, ext;
    bool empty = false;
    for (const DimExpr& x : op.gm.offset) {
      auto v = x.as_const();
      if (!v) return false;
      lo.push_back(*v);
    }
    for (const DimExpr& x : op.gm.extent) {
      auto v = gm_extent_bound(x);
      if (!v) return false;
      ext.push_back(*v);
      empty |= *v == 0;
    }
    if (empty) continue;
    for (size_t d = 0; d < lo.size(); ++d) {
      if (!tb.any) {
        tb.lo.push_back(lo[d]);
        tb.hi.push_back(lo[d] + ext[d]);
      } else {
        tb.lo[d] = std::min(tb.lo[d], lo[d]);
        tb.hi[d] = std::max(tb.hi[d], lo[d] + ext[d]);
      }
    }
    tb.any = true;
  }
  for (int t : read)
    if (written.count(t)) return false;
  if (writes > 16) return false;
  if (writes == 0) return true;
  // Every write moves by the member's W delta: one per axis.
  for (int k = 1; k < B; ++k)
    if (c.delta[size_t(k)][W].size() != rank) return false;
  // The W deltas flat, member by member (member 0's zero): the sweep reads them O(B log B) times,
  // and each member's own vector was a cache miss apiece.
  std::vector<int64_t> w_delta(size_t(B) * rank, 0);
  for (int k = 1; k < B; ++k)
    std::copy(c.delta[size_t(k)][W].begin(), c.delta[size_t(k)][W].end(), w_delta.begin() + ptrdiff_t(size_t(k) * rank));
  auto delta = [&](int k, size_t d) { return w_delta[size_t(k) * rank + d]; };
  for (const auto& [t, tb] : boxes) {
    if (!tb.any || tb.lo.size() != rank) continue;
    // Swept along the axis with the most distinct starts, as check_gm does.
    // (Counted in a sorted vector: a set of B starts was a node per member.)
    size_t axis = 0, best = 0;
    std::vector<int64_t> starts(static_cast<size_t>(B));
    for (size_t d = 0; d < rank; ++d) {
      for (int k = 0; k < B; ++k) starts[size_t(k)] = tb.lo[d] + delta(k, d);
      std::sort(starts.begin(), starts.end());
      const size_t distinct = size_t(std::unique(starts.begin(), starts.end()) - starts.begin());
      if (distinct > best) best = distinct, axis = d;
    }
    // Sorted as (delta, member) pairs: the keys in place, not looked up per comparison.
    std::vector<std::pair<int64_t, int>> keyed(static_cast<size_t>(B));
    for (int k = 0; k < B; ++k) keyed[size_t(k)] = {delta(k, axis), k};
    std::sort(keyed.begin(), keyed.end());
    std::vector<int> order(static_cast<size_t>(B));
    for (int k = 0; k < B; ++k) order[size_t(k)] = keyed[size_t(k)].second;
    for (size_t i = 0; i < order.size(); ++i) {
      const int a = order[i];
      for (size_t j = i + 1; j < order.size() && tb.lo[axis] + delta(order[j], axis) < tb.hi[axis] + delta(a, axis); ++j) {
        const int b = order[j];
        bool apart = false;
        for (size_t d = 0; d < rank && !apart; ++d)
          apart = tb.hi[d] + delta(b, d) <= tb.lo[d] + delta(a, d) || tb.hi[d] + delta(a, d) <= tb.lo[d] + delta(b, d);
        if (!apart) return false;
      }
    }
  }
  return true;
}

}  // namespace ptoc::tiling
