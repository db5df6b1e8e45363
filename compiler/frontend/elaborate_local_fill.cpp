// The zero fill of a local tensor whose window is shared between iterations.
//
// A local tensor reads as zero where it was never written (specs/README.md "Local
// tensors"). With a window per loop instance the workspace's initial zeros give
// that. Inside a loop whose trip count is a run-time value the iterations share
// one window (elaborate_state.cpp), so each iteration must clear it: the fill
// is emitted just before the tensor's first use, and not at all when that use
// writes the whole tensor (the common `t[0:a, 0:b] = ...; t[...] = ...` cover
// starts with a partial write, so only a whole first write saves it). A nested
// loop or run-time branch ends the current root function: pending fills are
// emitted before it, in the root where the tensor was declared.
#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

void Elaborator::defer_zero_fill(const Binding& b, SrcLoc loc, int len) {
  PendingFill f;
  f.b = b;
  f.seq = seq_;
  f.loc = loc;
  f.len = len;
  zero_fills_[b.tensor] = std::move(f);
}

void Elaborator::settle_zero_fill(const Binding& b, bool whole_write) {
  auto it = zero_fills_.find(b.tensor);
  if (it == zero_fills_.end()) return;
  PendingFill f = it->second;
  zero_fills_.erase(it);
  if (whole_write) return;
  const DType dt = p_.tensors[size_t(f.b.tensor)].dtype;
  // The fill's tile: the one in force when it has the tensor's rank, else rows of the last axis.
  TileState saved_ts = *ts_;
  if (!ts_->vec || ts_->vec->shape.size() != f.b.shape.size()) {
    VecTile vt;
    vt.shape.assign(f.b.shape.size(), 1);
    auto last = f.b.shape.back().as_const();
    vt.shape.back() = last ? std::min<int64_t>(*last, 4096) : 64;
    vt.loc = f.loc;
    ts_->vec = vt;
    ts_->vec_broken = false;
  }
  PosMapPtr saved = pos_;
  SrcLoc saved_loc = cur_loc_;
  pos_.reset();
  cur_loc_ = f.loc;
  Op op;
  op.kind = OpKind::Full;
  op.shape = f.b.shape;
  op.fill = 0.0;
  op.dtype = dt;
  int zeros = emit(op, dt, f.b.shape, f.b.shape, 0, f.len);
  fill_full_op_ = int(p_.ops.size()) - 1;
  local_assemble(f.b, zeros, Shape(f.b.shape.size(), DimExpr(0)), 0, f.len);
  pos_ = saved;
  cur_loc_ = saved_loc;
  *ts_ = saved_ts;
}

void Elaborator::settle_zero_fills() {
  locals_need_gm();
  std::vector<Binding> here;
  for (const auto& [t, f] : zero_fills_)
    if (f.seq == seq_) here.push_back(f.b);
  for (const auto& b : here) settle_zero_fill(b, false);
}

void Elaborator::drop_zero_fills() {
  drop_onchip_writes();
  for (auto it = zero_fills_.begin(); it != zero_fills_.end();)
    it = it->second.seq == seq_ ? zero_fills_.erase(it) : std::next(it);
}

}  // namespace ptoc::fe
