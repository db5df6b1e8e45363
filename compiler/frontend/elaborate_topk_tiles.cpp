// topk over a sorted axis split by the vec_tile, PyPTO's way (MERGE_SORT: "k <= TileShape[-1]", the tail
// axis may be split): each tile of the axis selects its own k candidates (select_k on a view of the
// tile), their indices shifted by the tile's offset; the candidates of all tiles are concatenated in
// tile order and the merge selects the k best of them, carrying each candidate's original index.
// The order rule is the single-tile one: larger (smaller) values first, equal values by the lower
// original index. It holds across tiles because that order is total: the global k best under it are
// each among the k best of their own tile. The merge runs in a vec_tile of its own whose last entry
// is the candidate count (PyPTO merges the candidates in one tile too).
#include <algorithm>
#include <cmath>

#include "compiler/frontend/elaborate_topk_tiles.h"

#include "compiler/frontend/elaborate_call.h"
#include "runtime/core/resource_limits.h"

namespace ptoc::fe {

int64_t select_steps(int64_t n, int64_t k, int64_t tile) {
  if (tile >= n || tile <= 0) return k;
  const int64_t whole = n / tile, tail = n % tile;
  int64_t steps;
  if (__builtin_mul_overflow(whole, std::min(k, tile), &steps) ||
      __builtin_add_overflow(steps, std::min(k, tail) + k, &steps))
    return INT64_MAX;
  return steps;
}

bool check_select_steps(Elaborator& el, const Elaborator::Call& c, const std::string& what, int axis, int64_t n,
                        int64_t k, int64_t tile) {
  const int64_t cap = limits::get(limits::Id::select_steps);
  const int64_t steps = select_steps(n, k, tile);
  if (steps <= cap) return true;
  const std::string ax = std::to_string(axis);
  const std::string count = steps == INT64_MAX ? "more than 9.2e18" : std::to_string(steps);
  std::string msg, fix;
  if (tile >= n) {
    msg = what + " selects " + std::to_string(k) + " of " + std::to_string(n) + " elements along axis " + ax +
          ": " + count + " selection steps";
  } else {
    const int64_t tiles = n / tile + (n % tile != 0);
    msg = what + " splits its sorted axis " + ax + " (" + std::to_string(n) + ") into " + std::to_string(tiles) +
          " tiles of the vec_tile's " + std::to_string(tile) + ": " + std::to_string(k) +
          " candidates per tile and a merge of " + std::to_string(k) + " are " + count + " selection steps";
    // The smallest entry that fits: at most cap / k - 1 tiles (each k steps) besides the merge.
    const int64_t most_tiles = k > 0 ? cap / k - 1 : 0;
    if (most_tiles >= 1) {
      const int64_t entry = std::max(k, n / most_tiles + (n % most_tiles != 0));
      fix = "set the vec_tile's entry " + ax + " to at least " + std::to_string(std::min(entry, n)) + " (fewer tiles)";
    } else {
      fix = "set the vec_tile's entry " + ax + " to the whole axis (" + std::to_string(n) + ")";
    }
  }
  // The largest k that fits this tile (argsort's k is its whole axis: none).
  int64_t smaller = k < n || tile < n ? k - 1 : 0;
  while (smaller >= 1 && select_steps(n, smaller, tile) > cap) --smaller;
  if (smaller >= 1) fix += std::string(fix.empty() ? "" : ", or ") + "use k <= " + std::to_string(smaller);
  el.err(c.fo, c.fl,
         msg + ", more than the select_steps limit of " + std::to_string(cap) +
             " (each step is written out as about ten tile ops)",
         fix + (fix.empty() ? "" : "; or ") + limits::raise_hint(limits::Id::select_steps));
  return false;
}

namespace {

// k selection steps over candidates `cv` whose original int32 indices are `ci`: the extreme not yet
// taken, and among candidates equal to it the lowest original index (so ties keep the lower index).
std::optional<std::pair<int, int>> merge_k(Elaborator& el, const Elaborator::Call& c, int cv, int ci, int64_t k, bool largest);

}  // namespace

std::optional<std::pair<int, int>> select_k_tiled(Elaborator& el, const Elaborator::Call& c, int value, int64_t k, bool largest,
                                                  int64_t tile) {
  auto& p_ = el.p_;
  auto emit = [&](Op op, DType dt, Shape sh, Shape va, int o, int l) { return el.emit(std::move(op), dt, sh, va, o, l); };
  const Value x = p_.values[size_t(value)];
  const size_t rank = x.shape.size();
  const int last = int(rank) - 1;
  const int64_t n = *x.shape[size_t(last)].as_const();
  const Expr& e = c.e;
  std::vector<int> cand_vals, cand_idxs;
  for (int64_t off = 0; off < n; off += tile) {
    const int64_t w = std::min(tile, n - off);
    Op v;
    v.kind = OpKind::View;
    v.inputs = {value};
    v.shape = x.shape;
    v.shape[size_t(last)] = DimExpr(w);
    v.offsets.assign(rank, DimExpr(0));
    v.offsets[size_t(last)] = DimExpr(off);
    Shape va = x.valid;
    va[size_t(last)] = DimExpr(w);
    int part = emit(v, x.dtype, v.shape, va, c.fo, c.fl);
    auto r = el.select_k(c, part, last, std::min(k, w), largest);
    if (!r) return std::nullopt;
    int idx = r->second;
    if (off > 0) {
      EV shifted = el.binary(OpKind::Add, EV::tensor(idx), EV::number(double(off), true), e, e, c.fo, c.fl, c.fn);
      if (!shifted.ok()) return std::nullopt;
      idx = shifted.value;
      p_.values[size_t(idx)].dtype = DType::int32;
    }
    cand_vals.push_back(r->first);
    cand_idxs.push_back(idx);
  }
  auto join = [&](const std::vector<int>& parts, DType dt) {
    Shape sh = p_.values[size_t(parts[0])].shape, va = p_.values[size_t(parts[0])].valid;
    int64_t len = 0;
    for (int p : parts) len += *p_.values[size_t(p)].shape[size_t(last)].as_const();
    sh[size_t(last)] = DimExpr(len);
    va[size_t(last)] = DimExpr(len);
    Op cat;
    cat.kind = OpKind::Concat;
    cat.inputs = parts;
    cat.axes = {last};
    return emit(cat, dt, sh, va, c.fo, c.fl);
  };
  const int cv = join(cand_vals, x.dtype), ci = join(cand_idxs, DType::int32);
  const int64_t m = *p_.values[size_t(cv)].shape[size_t(last)].as_const();
  // The merge: the candidate axis whole in its tile.
  std::optional<VecTile> saved = el.ts_->vec;
  el.ts_->vec->shape[size_t(last)] = m;
  auto merged = merge_k(el, c, cv, ci, k, largest);
  el.ts_->vec = saved;
  return merged;
}

namespace {

std::optional<std::pair<int, int>> merge_k(Elaborator& el, const Elaborator::Call& c, int cv, int ci, int64_t k, bool largest) {
  auto& p_ = el.p_;
  auto emit = [&](Op op, DType dt, Shape sh, Shape va, int o, int l) { return el.emit(std::move(op), dt, sh, va, o, l); };
  const Value x = p_.values[size_t(cv)];
  const size_t rank = x.shape.size();
  const int last = int(rank) - 1;
  const Expr& e = c.e;
  double lo = -INFINITY, hi = INFINITY;
  if (x.dtype == DType::int32) { lo = -2147483648.0; hi = 2147483647.0; }
  if (x.dtype == DType::int8) { lo = -128; hi = 127; }
  if (x.dtype == DType::uint8) { lo = 0; hi = 255; }
  auto full = [&](double fill, DType dt) {
    Op f;
    f.kind = OpKind::Full;
    f.shape.assign(rank, DimExpr(1));
    f.fill = fill;
    f.dtype = dt;
    return emit(f, dt, f.shape, f.shape, c.fo, c.fl);
  };
  const int no_index = full(2147483647.0, DType::int32);
  std::vector<int> vals, idxs;
  std::optional<EV> taken;
  for (int64_t s = 0; s < k; ++s) {
    EV cur = EV::tensor(cv);
    if (taken) {
      Op w;
      w.kind = OpKind::Where;
      w.inputs = {taken->value, full(largest ? lo : hi, x.dtype), cv};
      cur = EV::tensor(emit(w, x.dtype, x.shape, x.valid, c.fo, c.fl));
    }
    int best = el.reduce_keepdim(largest ? OpKind::Amax : OpKind::Amin, cur.value, last, c.fo, c.fl);
    EV cand = el.binary(OpKind::Eq, cur, EV::tensor(best), e, e, c.fo, c.fl, c.fn);
    if (taken) {
      EV free = el.unary(OpKind::LogicalNot, *taken, e, c.fo, c.fn);
      cand = el.binary(OpKind::LogicalAnd, cand, free, e, e, c.fo, c.fl, c.fn);
    }
    if (!cand.ok()) return std::nullopt;
    Op w;
    w.kind = OpKind::Where;
    w.inputs = {cand.value, ci, no_index};
    const Value& iv = p_.values[size_t(ci)];
    int masked = emit(w, DType::int32, iv.shape, iv.valid, c.fo, c.fl);
    int idx = el.reduce_keepdim(OpKind::Amin, masked, last, c.fo, c.fl);
    vals.push_back(best);
    idxs.push_back(idx);
    if (s + 1 < k) {
      EV hit = el.binary(OpKind::Eq, EV::tensor(ci), EV::tensor(idx), e, e, c.fo, c.fl, c.fn);
      taken = taken ? el.binary(OpKind::LogicalOr, *taken, hit, e, e, c.fo, c.fl, c.fn) : hit;
      if (!taken->ok()) return std::nullopt;
    }
  }
  auto join = [&](const std::vector<int>& parts, DType dt) {
    if (parts.size() == 1) return parts[0];
    Shape sh = p_.values[size_t(parts[0])].shape, va = p_.values[size_t(parts[0])].valid;
    sh[size_t(last)] = DimExpr(int64_t(parts.size()));
    va[size_t(last)] = DimExpr(int64_t(parts.size()));
    Op cat;
    cat.kind = OpKind::Concat;
    cat.inputs = parts;
    cat.axes = {last};
    return emit(cat, dt, sh, va, c.fo, c.fl);
  };
  return std::make_pair(join(vals, x.dtype), join(idxs, DType::int32));
}

}  // namespace

}  // namespace ptoc::fe
