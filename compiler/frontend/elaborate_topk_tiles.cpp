// topk and argsort as native row sorts, PyPTO's MERGE_SORT (per-tile sort, k kept, merge): each tile of
// the sorted (last) axis sorts its valid part (SortValues / SortIndices, indices reported from the tile's
// offset on); the candidates of all tiles are concatenated in tile order and the merge sorts them again,
// carrying each candidate's original index (the tie-break and the index returned; a pad of a tile with
// fewer valid elements than k has index -1 and is no candidate). The order is total (NaN above every
// number, equal values by the lower original index), so the global k best are each among the k best of
// their own tile and the merge returns exactly the whole-axis result. Many tiles merge as a tree (groups of
// at most max(tile, 2k) candidates, k kept of each), so no merge row is longer than a tile or 2k. Every
// sort runs in a vec_tile whose last entry is its whole row (PyPTO sorts a tile's row, then merges).
#include <algorithm>
#include <cmath>

#include "compiler/frontend/elaborate_topk_tiles.h"

#include "compiler/frontend/elaborate_call.h"
#include "runtime/core/resource_limits.h"

namespace ptoc::fe {

int64_t select_steps(int64_t n, int64_t tile) {
  if (tile >= n || tile <= 0) return 1;
  const int64_t tiles = n / tile + (n % tile != 0);
  return tiles == INT64_MAX ? INT64_MAX : tiles + 1;
}

bool check_select_steps(Elaborator& el, const Elaborator::Call& c, const std::string& what, int axis, int64_t n,
                        int64_t k, int64_t tile) {
  const int64_t cap = limits::get(limits::Id::select_steps);
  const int64_t steps = select_steps(n, tile);
  if (steps <= cap) return true;
  const std::string ax = std::to_string(axis);
  const int64_t tiles = steps - 1;
  // The smallest entry that fits: at most cap - 1 tiles besides the merge.
  const int64_t most_tiles = std::max<int64_t>(1, cap - 1);
  const int64_t entry = std::max(k, n / most_tiles + (n % most_tiles != 0));
  el.err(c.fo, c.fl,
         what + " splits its sorted axis " + ax + " (" + std::to_string(n) + ") into " + std::to_string(tiles) +
             " tiles of the vec_tile's " + std::to_string(tile) + ": " + std::to_string(steps) +
             " sorts with the merge, more than the select_steps limit of " + std::to_string(cap),
         "set the vec_tile's entry " + ax + " to at least " + std::to_string(std::min(entry, n)) +
             " (fewer tiles); or " + limits::raise_hint(limits::Id::select_steps));
  return false;
}

namespace {

// One sort op of `x` (and the carried indices `carried`, or -1) keeping k along the last axis, in a
// vec_tile whose last entry is the whole row.
int emit_sort(Elaborator& el, const Elaborator::Call& c, OpKind kind, int x, int carried, int64_t k, bool largest,
              int64_t base) {
  const Value xv = el.p_.values[size_t(x)];
  const int last = int(xv.shape.size()) - 1;
  Op op;
  op.kind = kind;
  op.inputs = {x};
  if (carried >= 0) op.inputs.push_back(carried);
  op.axes = {last, largest ? 1 : 0, int(base)};
  Shape sh = xv.shape, va = xv.valid;
  sh[size_t(last)] = DimExpr(k);
  va[size_t(last)] = DimExpr(k);
  std::optional<VecTile> saved = el.ts_->vec;
  if (el.ts_->vec && el.ts_->vec->shape.size() == xv.shape.size())
    el.ts_->vec->shape[size_t(last)] = *xv.shape[size_t(last)].as_const();
  const int r = el.emit(op, kind == OpKind::SortValues ? xv.dtype : DType::int32, sh, va, c.fo, c.fl);
  el.ts_->vec = saved;
  return r;
}

}  // namespace

std::optional<std::pair<int, int>> sort_k(Elaborator& el, const Elaborator::Call& c, int value, int64_t k, bool largest,
                                          int64_t tile, bool values) {
  auto& p_ = el.p_;
  const Value x = p_.values[size_t(value)];
  const size_t rank = x.shape.size();
  const int last = int(rank) - 1;
  const int64_t n = *x.shape[size_t(last)].as_const();
  if (tile >= n)
    return std::make_pair(values ? emit_sort(el, c, OpKind::SortValues, value, -1, k, largest, 0) : -1,
                          emit_sort(el, c, OpKind::SortIndices, value, -1, k, largest, 0));
  const DimExpr xvalid = x.valid[size_t(last)];
  std::vector<int> cand_vals, cand_idxs;
  for (int64_t off = 0; off < n; off += tile) {
    const int64_t w = std::min(tile, n - off);
    // The tile's valid part: the axis's valid extent past the offset, clamped to the tile.
    DimExpr tv = min(max(xvalid - DimExpr(off), DimExpr(0)), DimExpr(w));
    if (auto s = tv.as_const(); s && *s <= 0) break;  // no valid element here or after
    Op v;
    v.kind = OpKind::View;
    v.inputs = {value};
    v.shape = x.shape;
    v.shape[size_t(last)] = DimExpr(w);
    v.offsets.assign(rank, DimExpr(0));
    v.offsets[size_t(last)] = DimExpr(off);
    Shape va = x.valid;
    va[size_t(last)] = tv;
    v.valid = va;
    const int part = el.emit(v, x.dtype, v.shape, va, c.fo, c.fl);
    const int64_t kt = std::min(k, w);
    cand_vals.push_back(emit_sort(el, c, OpKind::SortValues, part, -1, kt, largest, off));
    cand_idxs.push_back(emit_sort(el, c, OpKind::SortIndices, part, -1, kt, largest, off));
  }
  if (cand_vals.empty())  // no valid element at all: the pads of one sort of the first tile
    return std::make_pair(emit_sort(el, c, OpKind::SortValues, value, -1, k, largest, 0),
                          emit_sort(el, c, OpKind::SortIndices, value, -1, k, largest, 0));
  auto join = [&](const std::vector<int>& parts, DType dt) {
    if (parts.size() == 1) return parts[0];
    Shape sh = p_.values[size_t(parts[0])].shape, va = p_.values[size_t(parts[0])].valid;
    int64_t len = 0;
    for (int p : parts) len += *p_.values[size_t(p)].shape[size_t(last)].as_const();
    sh[size_t(last)] = DimExpr(len);
    va[size_t(last)] = DimExpr(len);
    Op cat;
    cat.kind = OpKind::Concat;
    cat.inputs = parts;
    cat.axes = {last};
    std::optional<VecTile> saved = el.ts_->vec;
    if (el.ts_->vec && el.ts_->vec->shape.size() == rank) el.ts_->vec->shape[size_t(last)] = len;
    const int r = el.emit(cat, dt, sh, va, c.fo, c.fl);
    el.ts_->vec = saved;
    return r;
  };
  // A merge tree: consecutive candidate lists merged in groups of at most `cap` candidates (the larger
  // of the tile and 2k: each group's tile holds no more than a first-level sort's), k kept of each,
  // until one merge takes the rest. The carried indices keep the order exact at every level.
  const int64_t cap = std::max(tile, 2 * k);
  auto extent = [&](int v) { return *p_.values[size_t(v)].shape[size_t(last)].as_const(); };
  for (;;) {
    int64_t total = 0;
    for (int v : cand_vals) total += extent(v);
    if (total <= cap || cand_vals.size() <= 2) break;
    std::vector<int> next_vals, next_idxs;
    for (size_t g = 0; g < cand_vals.size();) {
      std::vector<int> gv{cand_vals[g]}, gi{cand_idxs[g]};
      int64_t len = extent(cand_vals[g]);
      for (++g; g < cand_vals.size() && len + extent(cand_vals[g]) <= cap; ++g) {
        gv.push_back(cand_vals[g]);
        gi.push_back(cand_idxs[g]);
        len += extent(cand_vals[g]);
      }
      if (gv.size() == 1) {  // a list alone: carried to the next level as it is
        next_vals.push_back(gv[0]);
        next_idxs.push_back(gi[0]);
        continue;
      }
      const int mv = join(gv, x.dtype), mi = join(gi, DType::int32);
      const int64_t kept = std::min(k, len);
      next_vals.push_back(emit_sort(el, c, OpKind::SortValues, mv, mi, kept, largest, 0));
      next_idxs.push_back(emit_sort(el, c, OpKind::SortIndices, mv, mi, kept, largest, 0));
    }
    if (next_vals.size() == cand_vals.size()) break;  // no group formed: merge what there is
    cand_vals = std::move(next_vals);
    cand_idxs = std::move(next_idxs);
  }
  const int cv = join(cand_vals, x.dtype), ci = join(cand_idxs, DType::int32);
  return std::make_pair(emit_sort(el, c, OpKind::SortValues, cv, ci, k, largest, 0),
                        emit_sort(el, c, OpKind::SortIndices, cv, ci, k, largest, 0));
}

}  // namespace ptoc::fe
