// scatter_update(cache, -2, index, src) whose index is computed on the device: ops of the spec produce it
// (an arange, a cast, arithmetic on another tensor, a workspace an earlier root wrote), so the control flow
// cannot read its slots before the kernels run. The rows are then placed on the device by the scatter of
// elaborate_gather.cpp along the slot axis of the whole cache read as a value, and the result is assembled
// back into the cache: rank 2 [M, d] as it is, rank 4 [NB, BS, 1, d] through [NB * BS, d].
// Ordering: the index is a value, so its producers run before the scatter (data dependencies, or the GM
// dependency on the workspace it was read from); the cache's earlier writes and reads are ordered by its
// GM tensor. As in scatter, the later row wins on a duplicate slot and a slot outside [0, M) writes nothing.
// Cost: the mask is d x (b * s) x M elements, so the cache needs a static slot count M, at most kMaxMask.
#include <fmt/format.h>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/scoped_tiles.h"
#include "compiler/frontend/shape_rules.h"

namespace ptoc::fe {

namespace {
constexpr int64_t kMaxMask = int64_t(1) << 24;  // d * rows * slots compared on the device

// The rank-2 tile of the lowering (rank 4's [t, 1, 1, d] as [t, d]); nullopt keeps the user's.
std::optional<VecTile> rank2_tile(const TileState& ts) {
  if (!ts.vec || ts.vec->shape.size() != 4) return std::nullopt;
  VecTile t = *ts.vec;
  const auto& s = ts.vec->shape;
  t.shape = {s[0] * s[1], s.back()};
  return t;
}
}  // namespace

EV Elaborator::scatter_update_computed(const Call& c, int t, const Shape& cache, const EV& ix, const EV& src,
                                       const Expr& xe) {
  const TensorDecl td = p_.tensors[size_t(t)];
  const size_t rank = cache.size();
  const Expr& ie = *c.args[2];
  const Value iv = p_.values[size_t(ix.value)];
  const int64_t rows = *iv.shape[0].as_const() * *iv.shape[1].as_const();
  const auto m = simplify(rank == 4 ? cache[0] * cache[1] : cache[0]).as_const();
  const auto d = cache[rank - 1].as_const();
  if (!m || !d) {
    err(ie.off, ie.len,
        "scatter_update's index '" + text_of(ie) + "' is computed on the device, so the slots are compared there "
            "and the cache needs static dims; '" + td.name + "' has shape " + shape_str(cache),
        "give the cache static dims, or read the slots from an input (a view of an int32 or int64 input: the "
        "control flow reads them as run-time values)");
    return EV::poison();
  }
  if (*d * rows * *m > kMaxMask) {
    err(ie.off, ie.len,
        fmt::format("scatter_update's index '{}' is computed on the device: {} rows into {} slots of {} compares "
                    "{} elements, more than {}", text_of(ie), rows, *m, *d, *d * rows * *m, kMaxMask),
        "read the slots from an input (a view of an int32 or int64 input), or update the cache in smaller blocks");
    return EV::poison();
  }
  const std::optional<VecTile> user_tile = ts_->vec;  // as written (rank 4 stays rank 4)
  const ScopedTiles tile(ts_, rank2_tile(*ts_));
  // The cache as a value [M, d] (the in-place input and the output are one GM tensor).
  // Into a value: v itself (the result is assembled into the workspace t; no copy is needed).
  EV cur = scatter_value_ >= 0 ? EV::tensor(scatter_value_) : expr(xe);
  if (!cur.ok() || !cur.is_tensor()) return EV::poison();
  int cv = cur.value;
  const Shape flat{DimExpr(*m), DimExpr(*d)};
  if (rank == 4) cv = reshape_to(cv, flat, flat, c.fo);
  // The index [b, s] as int32 [rows, d] (the same slot down each row's columns).
  EV idx = ix;
  if (iv.dtype == DType::int64) idx = rounded_cast(ix, DType::int32, -1, true, ie, ie.off, ie.len);
  if (!idx.ok()) return EV::poison();
  const Shape col{DimExpr(rows), DimExpr(1)};
  const int ic = reshape_to(idx.value, col, col, c.fo);
  Op z;
  z.kind = OpKind::Full;
  z.shape = {DimExpr(1), DimExpr(*d)};
  z.fill = 0;
  z.dtype = DType::int32;
  const int zeros = emit(z, DType::int32, z.shape, z.shape, c.fo, c.fl);
  EV ifull = binary(OpKind::Add, EV::tensor(ic), EV::tensor(zeros), ie, ie, c.fo, c.fl, "scatter_update");
  if (!ifull.ok()) return EV::poison();
  // src [rows, d].
  const Shape rs{DimExpr(rows), DimExpr(*d)};
  const int sv = rank == 4 ? reshape_to(src.value, rs, rs, c.fo) : src.value;
  // The user's tile (rank 4: [t, 1, 1, d]) as [rows tile, d].
  const std::optional<VecTile> user = ts_->vec;
  EV out = scatter_body(c, 2, 0, cv, ifull.value, sv, EV::tensor(sv), user, *m, rows, 0, nullptr);
  if (!out.ok()) return EV::poison();
  int res = out.value;
  if (rank == 4) {
    ts_->vec = user_tile;  // the reshaped result and its assemble are rank 4
    res = reshape_to(res, cache, cache, c.fo);
  }
  Op as;
  as.kind = OpKind::Assemble;
  as.inputs = {res};
  as.tensor = t;
  as.offsets.assign(rank, DimExpr(0));
  emit(as, td.dtype, {}, {}, c.fo, c.fl);
  written_.insert(t);
  if (seq_) seq_->tensor_refs.erase(t);  // later reads see the new rows
  scatter_done_ = true;
  return EV::poison();  // a statement: nothing is bound
}

}  // namespace ptoc::fe
