// index_put_(input, [i0, i1, ...], values, accumulate) with several index tensors (PyPTO's indices tuple):
// element t of the k index vectors names the slice input[i0[t], i1[t], ..., :]. Written as the one-index form
// (elaborate_gather.cpp) over the input's first k axes merged into one: the row i0 * m1 * ... + i1 * ... of
// input reshaped to [m0 * ... * m(k-1), rest...]; an index outside its axis makes the row -1, which writes
// nothing (the one-index rule). PyPTO's shape rule: input rank + 1 = k + values rank, values
// [t, input.shape[k:]...].
#include <fmt/format.h>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/index_put_int64.h"
#include "compiler/frontend/shape_rules.h"

namespace ptoc::fe {

EV Elaborator::index_put_several(const Call& c, const EV& a, const Expr& il) {
  const Value x = p_.values[size_t(a.value)];
  const size_t k = il.items.size(), rank = x.shape.size();
  if (k > rank) {
    err(il.off, il.len, fmt::format("index_put_ takes at most one index tensor per axis of the input (rank {}), got {}",
                                    rank, k));
    return EV::poison();
  }
  std::vector<EV> ids;
  for (const auto& item : il.items) {
    EV ix = index_arg(c, item.get(), "index");
    if (!ix.ok()) return EV::poison();
    const Value& iv = p_.values[size_t(ix.value)];
    if (iv.shape.size() != 1) {
      err(item->off, item->len, "'" + c.fn + "' index must be a vector (rank 1), '" + text_of(*item) + "' has shape " +
                                    shape_str(iv.shape),
          "PyPTO's rule: each index tensor is one-dimensional");
      return EV::poison();
    }
    if (!ids.empty() && !provably_equal(iv.shape[0], p_.values[size_t(ids[0].value)].shape[0])) {
      err(item->off, item->len, "'" + c.fn + "' index tensors must have one extent: '" + text_of(*item) + "' has " +
                                    iv.shape[0].str() + ", the first " +
                                    p_.values[size_t(ids[0].value)].shape[0].str(),
          "PyPTO's rule: the index tensors have the same shape (no broadcast)");
      return EV::poison();
    }
    ids.push_back(ix);
  }
  std::vector<int64_t> m(k);
  int64_t rows = 1;
  for (size_t j = 0; j < k; ++j) {
    auto n = x.shape[j].as_const();
    if (!n || !provably_equal(x.valid[j], x.shape[j])) {
      err(c.fo, c.fl, fmt::format("'{}' with {} index tensors needs axes 0 to {} of '{}' static and whole, it has "
                                  "shape {} valid {}", c.fn, k, k - 1, text_of(*c.args[0]), shape_str(x.shape),
                                  shape_str(x.valid)),
          "the indexed axes are not split (PyPTO's rule)");
      return EV::poison();
    }
    m[j] = *n;
    rows *= *n;
  }
  EV src = tensor_arg(c, c.args[2], "its values");
  auto accumulate = bool_arg(c, 3, false);
  if (!src.ok() || !accumulate || !check_nz(src, *c.args[2], c.fn)) return EV::poison();
  if (auto e = index_put_int64_error(x.dtype, *accumulate, text_of(*c.args[0]))) {
    err(c.fo, c.fl, e->first, e->second);
    return EV::poison();
  }
  Int64Lowering int64_ops(int64_lowering_, x.dtype == DType::int64);  // its compares, selects and sums
  const Value sv = p_.values[size_t(src.value)];
  const DimExpr t = p_.values[size_t(ids[0].value)].shape[0];
  Shape want{t};
  for (size_t j = k; j < rank; ++j) want.push_back(x.shape[j]);
  bool same = sv.shape.size() == want.size();
  for (size_t j = 0; same && j < want.size(); ++j) same = provably_equal(sv.shape[j], want[j]);
  if (!same) {
    err(c.args[2]->off, c.args[2]->len,
        fmt::format("'{}' values must be {} (one row per index entry, the input's axes after the {} indexed ones), "
                    "'{}' has shape {}", c.fn, shape_str(want), k, text_of(*c.args[2]), shape_str(sv.shape)),
        "PyPTO's rule: input rank + 1 = index tensors + values rank");
    return EV::poison();
  }
  // The merged row, -1 where any index is outside its axis: rank-1 ops, tiled whole (up to 4096 entries).
  const Expr& e = c.e;
  struct Restore {
    TileState* ts;
    std::optional<VecTile> saved;
    ~Restore() { ts->vec = saved; }
  } restore{ts_, ts_->vec};
  VecTile row_tile;
  row_tile.shape = {std::min<int64_t>(t.as_const() ? *t.as_const() : 4096, 4096)};
  if (ts_->vec) row_tile.loc = ts_->vec->loc;
  ts_->vec = row_tile;
  EV flat = ids[0];
  for (size_t j = 1; j < k && flat.ok(); ++j) {
    flat = binary(OpKind::Mul, flat, EV::number(double(m[j]), true), e, e, c.fo, c.fl, c.fn);
    if (flat.ok()) flat = binary(OpKind::Add, flat, ids[j], e, e, c.fo, c.fl, c.fn);
  }
  EV bad = EV::poison();
  for (size_t j = 0; j < k && flat.ok(); ++j) {
    EV lo = binary(OpKind::Lt, ids[j], EV::number(0, true), e, e, c.fo, c.fl, c.fn);
    EV hi = binary(OpKind::Ge, ids[j], EV::number(double(m[j]), true), e, e, c.fo, c.fl, c.fn);
    if (!lo.ok() || !hi.ok()) return EV::poison();
    EV out = binary(OpKind::LogicalOr, lo, hi, e, e, c.fo, c.fl, c.fn);
    bad = j == 0 ? out : binary(OpKind::LogicalOr, bad, out, e, e, c.fo, c.fl, c.fn);
    if (!bad.ok()) return EV::poison();
  }
  if (!flat.ok()) return EV::poison();
  const int row = select3(bad.value, const_like(-1, DType::int32, 1, c.fo, c.fl), flat.value, c.fo, c.fl);
  ts_->vec = restore.saved;
  Shape rs{DimExpr(rows)}, rv{DimExpr(rows)};
  for (size_t j = k; j < rank; ++j) {
    rs.push_back(x.shape[j]);
    rv.push_back(x.valid[j]);
  }
  const int xr = reshape_to(a.value, rs, rv, c.fo);
  const Value xrv = p_.values[size_t(xr)];
  if (!check_scatter(c, xrv, 0, p_.values[size_t(row)], *il.items[0], sv, *c.args[2])) return EV::poison();
  if (!*accumulate && !t.as_const()) {
    err(il.items[0]->off, il.items[0]->len,
        "index_put_ needs a static number of indices, '" + text_of(*il.items[0]) + "' has " + t.str(),
        "later writes win: the positions are ranked over a static extent");
    return EV::poison();
  }
  EV r = scatter_into(c, xr, 0, row, src.value, !*accumulate);
  if (!r.ok()) return EV::poison();
  return EV::tensor(reshape_to(r.value, x.shape, x.valid, c.fo));
}

}  // namespace ptoc::fe
