// gather, scatter, index_add and index_put_ by an int32 index tensor, written as existing ops: the index is
// compared with a ramp over the indexed axis (a one-hot mask one rank up), the mask selects, and a sum
// over the extra axis collects. So the index may be any int32 value (an input or computed on the
// device), and the evaluator, tiling, kernels and cost model need nothing new. The extra axis is last:
//   gather(input, dim, index)      out[..j..] = input[..index[..j..]..] (dim moved last; rank 3 with its
//                                  two leading axes merged): sum(where(index[p, j, 1] == ramp[1, 1, n],
//                                  input[p, 1, n], 0), -1)
//   index_add(input, dim, index, source, alpha=1)  (dim moved first)
//                                  input[m] + sum_t(where(index[t] == m, alpha * source[t], 0)):
//                                  duplicates accumulate
//   y = index_put_(input, [index], values, accumulate=false)  rows along dim 0; the last write of a
//                                  row wins (PyPTO leaves duplicates unspecified); accumulate=true is
//                                  index_add along dim 0
//   scatter(input, dim, index, src, reduce=None)  (dim moved last) the last j aiming at an element wins
//                                  (an amax over the ramp of j), or reduce=add / multiply folds every hit in
// An index outside the axis selects nothing: gather reads 0 there, the others skip it.
// The rank-up intermediates get their own vec_tile: the user's entries, the compared axis whole, the
// others halved (that axis last) until a tile holds at most kMaskTileElems elements.
#include <algorithm>
#include <cmath>

#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/elaborator.h"
#include "compiler/frontend/index_put_int64.h"
#include "compiler/frontend/scoped_tiles.h"

namespace ptoc::fe {

namespace {

constexpr int64_t kMaskTileElems = 8192;

// want[i] clipped to the static extents, then the largest entry halved until the tile fits.
// Entries from `kept` on (default: the last, the compared / summed axis of a mask) are halved only once
// the ones before are 1: a reduction along a split axis keeps a partial per tile.
std::optional<VecTile> fit_tile(const std::optional<VecTile>& user, const Shape& shape, std::vector<int64_t> want,
                                size_t kept = 0, bool whole = false) {
  if (!user) return std::nullopt;  // no tile in force: the first op reports it
  // A mask (`whole`) starts from its whole static extents, not the user's entries: a small user tile
  // times the compared axis would give thousands of tiny tiles, every one live in the fused leaf.
  for (size_t i = 0; i < want.size(); ++i)
    if (auto n = shape[i].as_const()) want[i] = std::max<int64_t>(1, whole ? *n : std::min(want[i], *n));
  auto elems = [&] {
    int64_t p = 1;
    for (int64_t w : want) p *= w;
    return p;
  };
  if (kept == 0 || kept > want.size()) kept = want.size() - 1;
  while (elems() > kMaskTileElems) {
    auto it = std::max_element(want.begin(), want.begin() + long(kept));
    if (it == want.begin() + long(kept) || *it <= 1) it = std::max_element(want.begin() + long(kept), want.end());
    if (*it <= 1) break;
    *it = (*it + 1) / 2;
  }
  VecTile t;
  t.shape = std::move(want);
  t.loc = user->loc;
  return t;
}

}  // namespace

int Elaborator::swap_axes(int v, int i, int j, int loc_off, int loc_len) {
  if (i == j) return v;
  const Value x = p_.values[size_t(v)];
  Shape sh = x.shape, va = x.valid;
  std::swap(sh[size_t(i)], sh[size_t(j)]);
  std::swap(va[size_t(i)], va[size_t(j)]);
  Op op;
  op.kind = OpKind::Transpose;
  op.inputs = {v};
  op.axes = {std::min(i, j), std::max(i, j)};
  return emit(op, x.dtype, sh, va, loc_off, loc_len);
}

int Elaborator::sum_drop(int v, int axis, int loc_off, int loc_len) {
  const Value in = p_.values[size_t(v)];
  Op op;
  op.kind = OpKind::Sum;
  op.inputs = {v};
  op.axes = {axis};
  op.keepdim = false;
  Shape sh = in.shape, va = in.valid;
  sh.erase(sh.begin() + axis);
  va.erase(va.begin() + axis);
  return emit(op, in.dtype, sh, va, loc_off, loc_len);
}

int Elaborator::select3(int cond, int a, int b, int loc_off, int loc_len) {
  const Value& cv = p_.values[size_t(cond)];
  const Value& av = p_.values[size_t(a)];
  const Value& bv = p_.values[size_t(b)];
  Broadcast ab = broadcast(av.shape, av.valid, bv.shape, bv.valid);
  Broadcast all = broadcast(cv.shape, cv.valid, ab.shape, ab.valid);
  Op w;
  w.kind = OpKind::Where;
  w.inputs = {cond, a, b};
  const DType dt = av.dtype;
  return emit(w, dt, all.shape, all.valid, loc_off, loc_len);
}

int Elaborator::const_like(double v, DType dt, size_t rank, int loc_off, int loc_len) {
  Op f;
  f.kind = OpKind::Full;
  f.shape.assign(rank, DimExpr(1));
  f.fill = v;
  f.dtype = dt;
  return emit(f, dt, f.shape, f.shape, loc_off, loc_len);
}

// The index argument: a tensor of int32 or int64 (PyPTO's DT_INT32, DT_INT64; an input or a computed
// value), ND. An int64 index becomes int32 with saturation: a valid index is < 2^31 (PyPTO: shape sizes
// fit INT32_MAX), and one beyond stays out of range (it selects nothing) instead of wrapping into it.
EV Elaborator::index_arg(const Call& c, const Expr* x, const std::string& what) {
  EV a = tensor_arg(c, x, what);
  if (!a.ok() || !check_nz(a, *x, c.fn)) return EV::poison();
  const DType dt = p_.values[size_t(a.value)].dtype;
  if (dt == DType::int64) return rounded_cast(a, DType::int32, -1, true, *x, x->off, x->len);
  if (dt != DType::int32) {
    err(x->off, x->len, "'" + c.fn + "' " + what + " must be int32, '" + text_of(*x) + "' is " +
                            std::string(dtype_name(dt)) + " (int64 is taken too)",
        "insert cast(" + text_of(*x) + ", int32)");
    return EV::poison();
  }
  return a;
}

std::optional<Elaborator::IndexOpArgs> Elaborator::input_dim_index_args(const Call& c) {
  IndexOpArgs r;
  r.a = catalog_input(c);
  if (!r.a.ok()) return std::nullopt;
  r.x = p_.values[size_t(r.a.value)];
  r.rank = r.x.shape.size();
  auto dim = axis_arg(c.args[1], r.rank, "dim");
  if (!dim) return std::nullopt;
  r.dim = *dim;
  r.ix = index_arg(c, c.args[2], "index");
  if (!r.ix.ok()) return std::nullopt;
  r.iv = p_.values[size_t(r.ix.value)];
  return r;
}

EV Elaborator::call_gather(const Call& c) {
  auto args = input_dim_index_args(c);
  if (!args) return EV::poison();
  const EV a = args->a, ix = args->ix;
  const Value x = args->x, iv = args->iv;
  const size_t rank = args->rank;
  const std::optional<int> dim = args->dim;
  const Expr& ie = *c.args[2];
  if (iv.shape.size() != rank) {
    err(ie.off, ie.len, "gather's index must have the input's rank " + std::to_string(rank) + ", '" + text_of(ie) +
                            "' has shape " + shape_str(iv.shape),
        "PyPTO's rule: index.dim == input.dim; the result has the index's shape");
    return EV::poison();
  }
  if (rank > 3) {
    err(c.fo, c.fl, "gather of a rank-" + std::to_string(rank) + " value is not supported; ranks 1 to 3 are",
        "reshape to rank 3 or less first");
    return EV::poison();
  }
  const size_t d = size_t(*dim);
  auto n = x.shape[d].as_const();
  if (!n || !provably_equal(x.valid[d], x.shape[d])) {
    err(c.args[1]->off, c.args[1]->len, "gather needs axis " + std::to_string(d) + " of '" + text_of(*c.args[0]) +
                                            "' static and whole, it has shape " + shape_str(x.shape) + " valid " +
                                            shape_str(x.valid),
        "PyPTO's rule: the gathered axis of the input is not split");
    return EV::poison();
  }
  for (size_t i = 0; i < rank; ++i) {
    if (i == d || provably_equal(iv.shape[i], x.shape[i])) continue;
    auto ci = iv.shape[i].as_const(), cx = x.shape[i].as_const();
    if (!ci || !cx || *ci > *cx) {
      err(ie.off, ie.len, "gather's index has " + iv.shape[i].str() + " on axis " + std::to_string(i) + ", the input " +
                              x.shape[i].str() + "; it must not exceed the input's extent",
          "PyPTO's rule: index.shape[i] <= input.shape[i] for i != dim");
      return EV::poison();
    }
  }
  const int last = int(rank) - 1;
  const std::optional<VecTile> user = ts_->vec;
  std::vector<int64_t> ut = user && user->shape.size() == rank ? user->shape : std::vector<int64_t>(rank, 1 << 20);
  std::swap(ut[d], ut[size_t(last)]);
  int out = -1;
  {
    // In the layout with dim last: X [P..., N], I [P..., J].
    Shape tsh = iv.shape;
    std::swap(tsh[d], tsh[size_t(last)]);
    ScopedTiles swapped(ts_, fit_tile(user, tsh, ut));
    int X = swap_axes(a.value, int(d), last, c.fo, c.fl);
    int I = swap_axes(ix.value, int(d), last, c.fo, c.fl);
    Value xv = p_.values[size_t(X)];
    Value ivt = p_.values[size_t(I)];
    // The leading block of X that the index covers.
    bool smaller = false;
    Shape vs = xv.shape, vv = xv.valid;
    for (size_t i = 0; i + 1 < rank; ++i)
      if (!provably_equal(ivt.shape[i], xv.shape[i])) {
        smaller = true;
        vs[i] = ivt.shape[i];
        vv[i] = simplify(min_in(ivt.shape[i], xv.valid[i], ranges(), sym_ranges(), divisible_));
      }
    if (smaller) {
      Op w;
      w.kind = OpKind::View;
      w.inputs = {X};
      w.shape = vs;
      w.offsets.assign(rank, DimExpr(0));
      w.valid = vv;
      X = emit(w, xv.dtype, vs, vv, c.fo, c.fl);
      xv = p_.values[size_t(X)];
    }
    // Rank 3: the two leading axes merged (the middle one static and whole), so that the mask is rank 3:
    // a rank-4 mask needs a reshape the tiling gets wrong (failing/reshape_rank4_middle_one.yaml).
    size_t wr = rank;
    std::vector<int64_t> wt = ut;
    Shape back_shape, back_valid;
    if (rank == 3) {
      if (!xv.shape[1].as_const() || !provably_equal(xv.valid[1], xv.shape[1]) ||
          !provably_equal(ivt.valid[1], ivt.shape[1])) {
        err(c.fo, c.fl, "gather of rank 3 needs its middle axis (with dim moved last) static and whole in the input "
                        "and the index; '" + text_of(*c.args[0]) + "' has shape " + shape_str(x.shape) + " valid " +
                        shape_str(x.valid),
            "slice whole blocks of that axis");
        return EV::poison();
      }
      back_shape = ivt.shape;
      back_valid = {combine_valid(ivt.valid[0], xv.valid[0]), ivt.shape[1], ivt.valid[2]};
      const DimExpr mid = ivt.shape[1];
      X = reshape_to(X, {simplify(xv.shape[0] * mid), xv.shape[2]}, {simplify(xv.valid[0] * mid), xv.valid[2]}, c.fo);
      xv = p_.values[size_t(X)];
      I = reshape_to(I, {simplify(ivt.shape[0] * mid), ivt.shape[2]}, {simplify(ivt.valid[0] * mid), ivt.valid[2]},
                     c.fo);
      ivt = p_.values[size_t(I)];
      wr = 2;
      wt = {std::min<int64_t>(int64_t(1) << 20, ut[0] * ut[1]), ut[2]};
    }
    const int wl = int(wr) - 1;
    // One rank up: [P, J, N].
    Shape ms = ivt.shape;
    ms.push_back(DimExpr(*n));
    std::vector<int64_t> mt(wt.begin(), wt.end());
    mt.push_back(*n);
    {
      ScopedTiles up(ts_, fit_tile(user, ms, mt, 0, true));
      Shape s1 = ivt.shape, v1 = ivt.valid;
      s1.insert(s1.end() - 1, DimExpr(1));
      v1.insert(v1.end() - 1, DimExpr(1));
      int I3 = swap_axes(reshape_to(I, s1, v1, c.fo), wl, wl + 1, c.fo, c.fl);  // [P, J, 1]
      Shape s2 = xv.shape, v2 = xv.valid;
      s2.insert(s2.end() - 1, DimExpr(1));
      v2.insert(v2.end() - 1, DimExpr(1));
      int X3 = reshape_to(X, s2, v2, c.fo);  // [P, 1, N]
      int io = iota(wl + 1, *n, wr + 1, DType::int32, c.e, c.fo, c.fl);
      if (io < 0) return EV::poison();
      EV mask = binary(OpKind::Eq, EV::tensor(I3), EV::tensor(io), c.e, c.e, c.fo, c.fl, c.fn);
      if (!mask.ok()) return EV::poison();
      int w = select3(mask.value, X3, const_like(0, x.dtype, wr + 1, c.fo, c.fl), c.fo, c.fl);
      out = sum_drop(w, wl + 1, c.fo, c.fl);
    }
    if (rank == 3) out = reshape_to(out, back_shape, back_valid, c.fo);
    out = swap_axes(out, int(d), last, c.fo, c.fl);
  }
  return EV::tensor(out);
}

// The sum over t of where(index[t] == m, source[t], 0) (or the last t's source when `last_wins`), as
// [M, R...] with dim first; `hit` (if asked) counts the t that selected row m, int32 [M, 1...].
std::optional<int> Elaborator::scatter_rows(const Call& c, int X, int idx, int S, bool last_wins, int* hit,
                                            const std::vector<int64_t>& ut) {
  const Value xv = p_.values[size_t(X)];
  const size_t rank = xv.shape.size();
  const Value sv = p_.values[size_t(S)];
  const DimExpr T = sv.shape[0];
  const auto M = xv.shape[0].as_const();
  const std::optional<VecTile> user = ts_->vec;
  int Sl = S;  // [R..., T]
  {
    Shape ls = sv.shape;
    std::rotate(ls.begin(), ls.begin() + 1, ls.end());
    std::vector<int64_t> lt(ut.begin(), ut.end());
    std::rotate(lt.begin(), lt.begin() + 1, lt.end());
    ScopedTiles rot(ts_, fit_tile(user, ls, lt));
    for (size_t i = 0; i + 1 < rank; ++i) Sl = swap_axes(Sl, int(i), int(i) + 1, c.fo, c.fl);
  }
  Shape ms = {DimExpr(*M)};
  for (size_t i = 1; i < rank; ++i) ms.push_back(xv.shape[i]);
  ms.push_back(T);
  std::vector<int64_t> mt = {ut[0]};
  for (size_t i = 1; i < rank; ++i) mt.push_back(ut[i]);
  mt.push_back(ut[0]);
  ScopedTiles up(ts_, fit_tile(user, ms, mt, 0, true));
  const Value slv = p_.values[size_t(Sl)];
  Shape s1 = slv.shape, v1 = slv.valid;
  s1.insert(s1.begin(), DimExpr(1));
  v1.insert(v1.begin(), DimExpr(1));
  int S3 = reshape_to(Sl, s1, v1, c.fo);  // [1, R..., T]
  const Value iv = p_.values[size_t(idx)];
  Shape s2(rank, DimExpr(1)), v2(rank, DimExpr(1));
  s2.push_back(iv.shape[0]);
  v2.push_back(iv.valid[0]);
  int I3 = reshape_to(idx, s2, v2, c.fo);  // [1, 1..., T]
  int io = iota(0, *M, rank + 1, DType::int32, c.e, c.fo, c.fl);  // [M, 1..., 1]
  if (io < 0) return std::nullopt;
  EV mask = binary(OpKind::Eq, EV::tensor(io), EV::tensor(I3), c.e, c.e, c.fo, c.fl, c.fn);  // [M, 1..., T]
  if (!mask.ok()) return std::nullopt;
  int sel = mask.value;
  if (last_wins) {
    auto tn = T.as_const();
    int tp = iota(int(rank), *tn, rank + 1, DType::int32, c.e, c.fo, c.fl);  // [1, ..., T]
    if (tp < 0) return std::nullopt;
    int cand = select3(sel, tp, const_like(-1, DType::int32, rank + 1, c.fo, c.fl), c.fo, c.fl);
    int lastt = reduce_keepdim(OpKind::Amax, cand, int(rank), c.fo, c.fl);  // [M, 1..., 1]
    EV s = binary(OpKind::Eq, EV::tensor(tp), EV::tensor(lastt), c.e, c.e, c.fo, c.fl, c.fn);
    if (!s.ok()) return std::nullopt;
    sel = s.value;
  }
  if (hit) {
    const Value& selv = p_.values[size_t(sel)];
    Op ci;
    ci.kind = OpKind::Cast;
    ci.inputs = {sel};
    ci.dtype = DType::int32;
    *hit = sum_drop(emit(ci, DType::int32, selv.shape, selv.valid, c.fo, c.fl), int(rank), c.fo, c.fl);
  }
  int w = select3(sel, S3, const_like(0, sv.dtype, rank + 1, c.fo, c.fl), c.fo, c.fl);
  return sum_drop(w, int(rank), c.fo, c.fl);
}

// Checks shared by index_add and index_put_: input [.., M, ..] (M static and whole on dim), index an
// int32 vector [T], source/values the input's shape with T on dim and the input's dtype.
bool Elaborator::check_scatter(const Call& c, const Value& x, int d, const Value& iv, const Expr& ie, const Value& sv,
                               const Expr& se) {
  const size_t rank = x.shape.size();
  if (rank > 3) {
    err(c.fo, c.fl, "'" + c.fn + "' of a rank-" + std::to_string(rank) + " value is not supported; ranks 1 to 3 are",
        "reshape to rank 3 or less first");
    return false;
  }
  if (iv.shape.size() != 1) {
    err(ie.off, ie.len, "'" + c.fn + "' index must be a vector (rank 1), '" + text_of(ie) + "' has shape " +
                            shape_str(iv.shape),
        "PyPTO's rule: a one-dimensional index, one entry per slice of the source");
    return false;
  }
  if (sv.dtype != x.dtype) {
    err(se.off, se.len, "'" + c.fn + "' source must have the input's dtype " + std::string(dtype_name(x.dtype)) +
                            ", '" + text_of(se) + "' is " + std::string(dtype_name(sv.dtype)),
        "insert cast(" + text_of(se) + ", " + std::string(dtype_name(x.dtype)) + ")");
    return false;
  }
  if (sv.shape.size() != rank) {
    err(se.off, se.len, "'" + c.fn + "' source must have the input's rank " + std::to_string(rank) + ", '" +
                            text_of(se) + "' has shape " + shape_str(sv.shape));
    return false;
  }
  if (!provably_equal(sv.shape[size_t(d)], iv.shape[0])) {
    err(se.off, se.len, "'" + c.fn + "' source has " + sv.shape[size_t(d)].str() + " on axis " + std::to_string(d) +
                            " but the index has " + iv.shape[0].str() + " entries",
        "one index entry per slice of the source along dim");
    return false;
  }
  for (size_t i = 0; i < rank; ++i)
    if (int(i) != d && !provably_equal(sv.shape[i], x.shape[i])) {
      err(se.off, se.len, "'" + c.fn + "' source has " + sv.shape[i].str() + " on axis " + std::to_string(i) +
                              ", the input " + x.shape[i].str() + "; they must be equal off dim (PyPTO's rule)");
      return false;
    }
  auto m = x.shape[size_t(d)].as_const();
  if (!m || !provably_equal(x.valid[size_t(d)], x.shape[size_t(d)])) {
    err(c.fo, c.fl, "'" + c.fn + "' needs axis " + std::to_string(d) + " of '" + text_of(*c.args[0]) +
                        "' static and whole, it has shape " + shape_str(x.shape) + " valid " + shape_str(x.valid),
        "PyPTO's rule: the indexed axis of the input is not split");
    return false;
  }
  return true;
}

EV Elaborator::scatter_into(const Call& c, int xin, int d, int idx, int src, bool last_wins) {
  const Value x = p_.values[size_t(xin)];
  const size_t rank = x.shape.size();
  const std::optional<VecTile> user = ts_->vec;
  std::vector<int64_t> ut = user && user->shape.size() == rank ? user->shape : std::vector<int64_t>(rank, 1 << 20);
  std::swap(ut[0], ut[size_t(d)]);
  int out = -1;
  {
    Shape tsh = x.shape;
    std::swap(tsh[0], tsh[size_t(d)]);
    ScopedTiles swapped(ts_, fit_tile(user, tsh, ut));
    int X = swap_axes(xin, 0, d, c.fo, c.fl);
    int S = swap_axes(src, 0, d, c.fo, c.fl);
    int hit = -1;
    auto g = scatter_rows(c, X, idx, S, last_wins, last_wins ? &hit : nullptr, ut);
    if (!g) return EV::poison();
    if (last_wins) {
      EV h = binary(OpKind::Gt, EV::tensor(hit), EV::number(0, true), c.e, c.e, c.fo, c.fl, c.fn);
      if (!h.ok()) return EV::poison();
      out = select3(h.value, *g, X, c.fo, c.fl);
    } else {
      EV s = binary(OpKind::Add, EV::tensor(X), EV::tensor(*g), c.e, c.e, c.fo, c.fl, c.fn);
      if (!s.ok()) return EV::poison();
      out = s.value;
    }
    out = swap_axes(out, 0, d, c.fo, c.fl);
  }
  return EV::tensor(out);
}

EV Elaborator::call_index_add(const Call& c) {
  EV a = catalog_input(c);
  if (!a.ok()) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  auto dim = axis_arg(c.args[1], x.shape.size(), "dim");
  if (!dim) return EV::poison();
  EV ix = index_arg(c, c.args[2], "index");
  EV src = tensor_arg(c, c.args[3], "its source");
  if (!ix.ok() || !src.ok() || !check_nz(src, *c.args[3], c.fn)) return EV::poison();
  if (!check_scatter(c, x, *dim, p_.values[size_t(ix.value)], *c.args[2], p_.values[size_t(src.value)], *c.args[3]))
    return EV::poison();
  if (c.args[4]) {
    EV al = expr(*c.args[4]);
    if (!al.ok()) return EV::poison();
    if (!al.is_scalar()) {
      err(c.args[4]->off, c.args[4]->len, "index_add alpha is a number, got the tensor '" + text_of(*c.args[4]) + "'");
      return EV::poison();
    }
    if (!dtype_is_float(x.dtype) && al.scalar != double(int64_t(al.scalar))) {
      err(c.args[4]->off, c.args[4]->len, "index_add of an integer tensor takes an integer alpha, got '" +
                                              text_of(*c.args[4]) + "'");
      return EV::poison();
    }
    if (al.scalar != 1) {
      src = binary(OpKind::Mul, src, EV::number(al.scalar, al.is_int), *c.args[3], *c.args[4], c.fo, c.fl, c.fn);
      if (!src.ok()) return EV::poison();
    }
  }
  return scatter_into(c, a.value, *dim, ix.value, src.value, false);
}

// y = index_put_(input, [index], values, accumulate=false): rows along dim 0 (one index tensor).
EV Elaborator::call_index_put(const Call& c) {
  EV a = catalog_input(c);
  if (!a.ok()) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  const Expr* il = c.args[1];
  const Expr* ie = il;
  if (il->kind == Expr::Kind::List) {
    if (il->items.size() > 1) return index_put_several(c, a, *il);  // elaborate_index_put.cpp
    if (il->items.empty()) {
      err(il->off, il->len, "index_put_ takes at least one index tensor, got []", "index_put_(x, [rows], values)");
      return EV::poison();
    }
    ie = il->items[0].get();
  }
  EV ix = index_arg(c, ie, "index");
  EV src = tensor_arg(c, c.args[2], "its values");
  auto accumulate = bool_arg(c, 3, false);
  if (!ix.ok() || !src.ok() || !accumulate || !check_nz(src, *c.args[2], c.fn)) return EV::poison();
  const Value iv = p_.values[size_t(ix.value)];
  if (auto e = index_put_int64_error(x.dtype, *accumulate, text_of(*c.args[0]))) {
    err(c.fo, c.fl, e->first, e->second);
    return EV::poison();
  }
  if (!check_scatter(c, x, 0, iv, *ie, p_.values[size_t(src.value)], *c.args[2])) return EV::poison();
  Int64Lowering int64_ops(int64_lowering_, x.dtype == DType::int64);  // its compares, selects and sums
  if (!*accumulate && !iv.shape[0].as_const()) {
    err(ie->off, ie->len, "index_put_ needs a static number of indices, '" + text_of(*ie) + "' has " +
                              iv.shape[0].str(),
        "later writes win: the positions are ranked over a static extent");
    return EV::poison();
  }
  return scatter_into(c, a.value, 0, ix.value, src.value, !*accumulate);
}

}  // namespace ptoc::fe

namespace ptoc::fe {

// scatter(input, dim, index, src, reduce=None) (and scatter_, bound by name): with dim moved last,
// input [P, N], index [P, J], src [P, J] (its leading block) or a number. The mask [P, J, N] is
// index[p, j] == n; with no reduce the last j aiming at (p, n) wins (an amax over the ramp of j), with
// add / multiply every j aiming there is summed / multiplied in. Elements nothing aims at keep input's.
EV Elaborator::call_scatter(const Call& c) {
  auto args = input_dim_index_args(c);
  if (!args) return EV::poison();
  const EV a = args->a, ix = args->ix;
  const Value x = args->x, iv = args->iv;
  const size_t rank = args->rank;
  const std::optional<int> dim = args->dim;
  const Expr& ie = *c.args[2];
  if (rank > 4) {  // the mask is one rank up, and values have at most 4 axes (rank 4 merges two axes)
    err(c.fo, c.fl, "'" + c.fn + "' of a rank-" + std::to_string(rank) + " value is not supported; ranks 1 to 4 are",
        "reshape to rank 4 or less first");
    return EV::poison();
  }
  if (iv.shape.size() != rank) {
    err(ie.off, ie.len, "'" + c.fn + "' index must have the input's rank " + std::to_string(rank) + ", '" +
                            text_of(ie) + "' has shape " + shape_str(iv.shape),
        "PyPTO's rule: the index has the input's dimensions");
    return EV::poison();
  }
  const size_t d = size_t(*dim);
  auto n = x.shape[d].as_const();
  if (!n || !provably_equal(x.valid[d], x.shape[d])) {
    err(c.args[1]->off, c.args[1]->len, "'" + c.fn + "' needs axis " + std::to_string(d) + " of '" +
                                            text_of(*c.args[0]) + "' static and whole, it has shape " +
                                            shape_str(x.shape) + " valid " + shape_str(x.valid),
        "PyPTO's rule: the dim axis of the input is not split");
    return EV::poison();
  }
  for (size_t i = 0; i < rank; ++i)
    if (i != d && !provably_equal(iv.shape[i], x.shape[i])) {
      err(ie.off, ie.len, "'" + c.fn + "' index has " + iv.shape[i].str() + " on axis " + std::to_string(i) +
                              ", the input " + x.shape[i].str() + "; ptoc needs them equal off dim",
          "slice the input to the index's block, scatter, and assemble it back");
      return EV::poison();
    }
  auto jn = iv.shape[d].as_const();
  if (!jn) {
    err(ie.off, ie.len, "'" + c.fn + "' index needs a static extent on dim, '" + text_of(ie) + "' has " +
                            iv.shape[d].str());
    return EV::poison();
  }
  // reduce: none, add or multiply (PyPTO's strings "add" / "multiply", or the bare names).
  int mode = 0;
  if (const Expr* re = c.args[4]) {
    if (re->kind == Expr::Kind::Name && (re->name == "add" || re->name == "multiply")) {
      mode = re->name == "add" ? 1 : 2;
    } else if (!(re->kind == Expr::Kind::Name && (re->name == "None" || re->name == "none"))) {
      err(re->off, re->len, "'" + c.fn + "' reduce must be add or multiply, got '" + text_of(*re) + "'",
          "write reduce=add or reduce=multiply (or the strings \"add\", \"multiply\"), or leave it out");
      return EV::poison();
    }
  }
  const Expr& se = *c.args[3];
  EV sv = expr(se);
  if (!sv.ok()) return EV::poison();
  if (sv.is_tensor()) {
    if (!check_nz(sv, se, c.fn)) return EV::poison();
    const Value& s = p_.values[size_t(sv.value)];
    if (s.dtype != x.dtype) {
      err(se.off, se.len, "'" + c.fn + "' src must have the input's dtype " + std::string(dtype_name(x.dtype)) +
                              ", '" + text_of(se) + "' is " + std::string(dtype_name(s.dtype)),
          "insert cast(" + text_of(se) + ", " + std::string(dtype_name(x.dtype)) + ")");
      return EV::poison();
    }
    bool fits = s.shape.size() == rank;
    for (size_t i = 0; fits && i < rank; ++i) {
      auto cs = s.shape[i].as_const(), ci = iv.shape[i].as_const();
      fits = provably_equal(s.shape[i], iv.shape[i]) || (cs && ci && *cs >= *ci);
    }
    if (!fits) {
      err(se.off, se.len, "'" + c.fn + "' src must cover the index: shape " + shape_str(iv.shape) + " or larger, '" +
                              text_of(se) + "' has " + shape_str(s.shape),
          "PyPTO's rule: index.size(d) <= src.size(d) on every axis");
      return EV::poison();
    }
  } else if (!std::isfinite(sv.scalar) || (!dtype_is_float(x.dtype) && sv.scalar != std::floor(sv.scalar))) {
    err(se.off, se.len, "'" + c.fn + "' src number must be finite" +
                            std::string(dtype_is_float(x.dtype) ? "" : " and an integer") + ", got '" + text_of(se) + "'",
        "PyPTO's rule: no INF/NAN");
    return EV::poison();
  }
  // Rank 4 (the mask would be rank 5): two adjacent axes other than dim are merged, the inner one static and
  // whole in the input, the index and src, so the scatter below is of rank 3; the result is reshaped back.
  int av = a.value, ixv = ix.value, svv = sv.is_tensor() ? sv.value : -1;
  std::optional<VecTile> user = ts_->vec;
  if (rank == 4) {
    const size_t m0 = d >= 2 ? 0 : 2;  // merged: m0 and m0 + 1
    auto whole_inner = [&](const Value& v) {
      return v.shape[m0 + 1].as_const() && provably_equal(v.valid[m0 + 1], v.shape[m0 + 1]);
    };
    const Value* sp = sv.is_tensor() ? &p_.values[size_t(sv.value)] : nullptr;
    if (!whole_inner(x) || !whole_inner(iv) ||
        (sp && (!provably_equal(sp->shape[m0], iv.shape[m0]) || !provably_equal(sp->shape[m0 + 1], iv.shape[m0 + 1]) ||
                !whole_inner(*sp)))) {
      err(c.fo, c.fl, "'" + c.fn + "' of rank 4 along dim " + std::to_string(d) + " merges axes " +
                          std::to_string(m0) + " and " + std::to_string(m0 + 1) + ": axis " + std::to_string(m0 + 1) +
                          " must be static and whole in the input, the index and src, and src must have the index's "
                          "extents on both; '" + text_of(*c.args[0]) + "' has shape " + shape_str(x.shape) +
                          " valid " + shape_str(x.valid) + ", the index " + shape_str(iv.shape) + " valid " +
                          shape_str(iv.valid) + (sp ? ", src " + shape_str(sp->shape) : std::string()),
          "slice whole blocks of axis " + std::to_string(m0 + 1) + ", or view src to the index's shape");
      return EV::poison();
    }
    auto merge = [&](int v) {
      const Value vv = p_.values[size_t(v)];
      Shape sh, va;
      for (size_t i = 0; i < 4; ++i) {
        if (i == m0 + 1) continue;
        sh.push_back(i == m0 ? simplify(vv.shape[i] * vv.shape[i + 1]) : vv.shape[i]);
        va.push_back(i == m0 ? simplify(vv.valid[i] * vv.shape[i + 1]) : vv.valid[i]);
      }
      return reshape_to(v, sh, va, c.fo);
    };
    av = merge(av);
    ixv = merge(ixv);
    if (svv >= 0) svv = merge(svv);
    if (user && user->shape.size() == 4) {
      VecTile t = *user;
      const int64_t inner = std::min<int64_t>(t.shape[m0 + 1], *x.shape[m0 + 1].as_const());
      t.shape[m0] = t.shape[m0] * std::max<int64_t>(1, inner);
      t.shape.erase(t.shape.begin() + long(m0) + 1);
      user = t;
    }
  }
  const bool merged4 = rank == 4;
  const Value x4 = x;
  const size_t rank3 = merged4 ? 3 : rank, d3 = merged4 && d >= 2 ? d - 1 : d;
  return scatter_body(c, rank3, d3, av, ixv, svv, sv, user, *n, *jn, mode, merged4 ? &x4 : nullptr);
}

// The scatter of call_scatter once its arguments are checked (and a rank 4 merged to rank 3): input av,
// index ixv, src svv (or the number sv), along d; the result reshaped to `back4` when one is given.
EV Elaborator::scatter_body(const Call& c, size_t rank, size_t d, int av, int ixv, int svv, const EV& sv,
                            const std::optional<VecTile>& user, int64_t n_, int64_t jn_, int mode, const Value* back4) {
  const std::optional<int64_t> n = n_, jn = jn_;
  const Value x = p_.values[size_t(av)];
  const int last = int(rank) - 1;
  std::vector<int64_t> ut = user && user->shape.size() == rank ? user->shape : std::vector<int64_t>(rank, 1 << 20);
  std::swap(ut[d], ut[size_t(last)]);
  Shape tsh = x.shape;
  std::swap(tsh[d], tsh[size_t(last)]);
  ScopedTiles swapped(ts_, fit_tile(user, tsh, ut));
  int X = swap_axes(av, int(d), last, c.fo, c.fl);
  int I = swap_axes(ixv, int(d), last, c.fo, c.fl);
  int S = -1;
  if (sv.is_tensor()) {
    S = swap_axes(svv, int(d), last, c.fo, c.fl);
    const Value st = p_.values[size_t(S)];
    const Value it = p_.values[size_t(I)];
    bool bigger = false;
    for (size_t i = 0; i < rank; ++i) bigger |= !provably_equal(st.shape[i], it.shape[i]);
    if (bigger) {  // the leading block of src that the index covers
      Shape vv = it.shape;
      for (size_t i = 0; i < rank; ++i)
        vv[i] = simplify(min_in(it.shape[i], st.valid[i], ranges(), sym_ranges(), divisible_));
      Op w;
      w.kind = OpKind::View;
      w.inputs = {S};
      w.shape = it.shape;
      w.offsets.assign(rank, DimExpr(0));
      w.valid = vv;
      S = emit(w, st.dtype, it.shape, vv, c.fo, c.fl);
    }
  }
  const Value itv = p_.values[size_t(I)];
  // One rank up: [P, J, N], the compared axis N last and whole, J (reduced) in the middle.
  Shape ms = itv.shape;
  ms.push_back(DimExpr(*n));
  std::vector<int64_t> mt(ut.begin(), ut.end());
  mt.push_back(*n);
  int val = -1, hit = -1;
  {
    ScopedTiles up(ts_, fit_tile(user, ms, mt, rank - 1, true));  // the reduced J and the compared N kept whole
    auto column = [&](int v) {  // [P, J] -> [P, J, 1] (via [P, 1, J]: a trailing size-1 reshape is miscompiled)
      const Value vv = p_.values[size_t(v)];
      Shape s1 = vv.shape, v1 = vv.valid;
      s1.insert(s1.end() - 1, DimExpr(1));
      v1.insert(v1.end() - 1, DimExpr(1));
      return swap_axes(reshape_to(v, s1, v1, c.fo), last, last + 1, c.fo, c.fl);
    };
    int io = iota(last + 1, *n, rank + 1, DType::int32, c.e, c.fo, c.fl);  // [1, 1, N]
    if (io < 0) return EV::poison();
    EV mask = binary(OpKind::Eq, EV::tensor(column(I)), EV::tensor(io), c.e, c.e, c.fo, c.fl, c.fn);
    if (!mask.ok()) return EV::poison();
    int sel = mask.value;
    if (mode == 0) {
      int jp = iota(last, *jn, rank + 1, DType::int32, c.e, c.fo, c.fl);  // [1, J, 1]
      if (jp < 0) return EV::poison();
      int cand = select3(sel, jp, const_like(-1, DType::int32, rank + 1, c.fo, c.fl), c.fo, c.fl);
      int lastj = reduce_keepdim(OpKind::Amax, cand, last, c.fo, c.fl);  // [P, 1, N]
      EV s = binary(OpKind::Eq, EV::tensor(jp), EV::tensor(lastj), c.e, c.e, c.fo, c.fl, c.fn);
      if (!s.ok()) return EV::poison();
      sel = s.value;
    }
    if (mode == 0) {  // how many writes reach (p, n): none keeps input's element
      const Value& selv = p_.values[size_t(sel)];
      Op ci;
      ci.kind = OpKind::Cast;
      ci.inputs = {sel};
      ci.dtype = DType::int32;
      hit = sum_drop(emit(ci, DType::int32, selv.shape, selv.valid, c.fo, c.fl), last, c.fo, c.fl);  // [P, N]
    }
    const int src3 = S >= 0 ? column(S) : const_like(sv.scalar, x.dtype, rank + 1, c.fo, c.fl);
    int w = select3(sel, src3, const_like(mode == 2 ? 1 : 0, x.dtype, rank + 1, c.fo, c.fl), c.fo, c.fl);
    if (mode == 2) {
      Op pr;
      pr.kind = OpKind::Prod;
      pr.inputs = {w};
      pr.axes = {last};
      pr.keepdim = false;
      const Value wv = p_.values[size_t(w)];
      Shape sh = wv.shape, va = wv.valid;
      sh.erase(sh.begin() + last);
      va.erase(va.begin() + last);
      val = emit(pr, wv.dtype, sh, va, c.fo, c.fl);
    } else {
      val = sum_drop(w, last, c.fo, c.fl);
    }
  }
  EV out;
  if (mode == 0) {
    EV h = binary(OpKind::Gt, EV::tensor(hit), EV::number(0, true), c.e, c.e, c.fo, c.fl, c.fn);
    if (!h.ok()) return EV::poison();
    out = EV::tensor(select3(h.value, val, X, c.fo, c.fl));
  } else {
    out = binary(mode == 1 ? OpKind::Add : OpKind::Mul, EV::tensor(X), EV::tensor(val), c.e, c.e, c.fo, c.fl, c.fn);
    if (!out.ok()) return EV::poison();
  }
  const int back = swap_axes(out.value, int(d), last, c.fo, c.fl);
  if (!back4) return EV::tensor(back);
  return EV::tensor(reshape_to(back, back4->shape, back4->valid, c.fo));
}

}  // namespace ptoc::fe
