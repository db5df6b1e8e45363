// On-chip placement of local tensors (specs/README.md "Local tensors": "the compiler decides").
//
// A local tensor lives in a GM workspace unless every access to it falls in the
// root function it is declared in and its writes tile it: then a read is the
// concat of the written values (a guillotine cut of the tensor into the written
// boxes: PyPTO's `t = pypto.tensor([2m, 2m]); t[0:m, 0:m] = a; ...` becomes
// concat([concat([a, z], 1), concat([c, d], 1)], 0)), which the tiling keeps in
// UB like any value, and the GM writes are dropped when the root ends. Anything
// else keeps the GM workspace, whose semantics are the reference: a write with a
// run-time offset or extent, a partial value, overlapping writes, a gap that only
// the zero fill covers, a read in another root (a nested loop or run-time branch
// follows the writes: it may read the tensor), or a vec_tile of another rank at the read.
#include <algorithm>
#include <functional>
#include <memory>
#include <set>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

void Elaborator::track_local(const Binding& b) {
  LocalTrack t;
  t.seq = seq_;
  t.first_root = p_.roots.size();
  local_tracks_[b.tensor] = std::move(t);
}

void Elaborator::note_local_write(const Binding& b, int value, const Shape& offsets, std::vector<int> op_ids,
                                  bool fill) {
  auto it = local_tracks_.find(b.tensor);
  if (it == local_tracks_.end()) return;
  LocalTrack& t = it->second;
  t.cached = -1;
  if (t.seq != seq_) t.gm_needed = true;  // written in a nested root: only GM carries it
  for (int o : op_ids) t.ops.push_back(o);
  if (t.opaque) return;
  const Value& v = p_.values[size_t(value)];
  LocalPiece pc;
  pc.value = value;
  pc.fill = fill;
  for (size_t i = 0; i < b.shape.size() && !t.opaque; ++i) {
    auto o = offsets[i].as_const();
    auto e = v.shape[i].as_const();
    auto full = const_difference(v.valid[i], v.shape[i]);
    auto whole = b.shape[i].as_const();
    if (!o || !e || !full || *full != 0 || !whole || *o < 0 || *o + *e > *whole) {
      t.opaque = true;
      break;
    }
    pc.lo.push_back(*o);
    pc.hi.push_back(*o + *e);
  }
  if (!t.opaque) t.pieces.push_back(std::move(pc));
}

namespace {

// A guillotine plan: a leaf is one written piece; a node concatenates two halves along an axis.
struct Cut {
  int piece = -1;
  int axis = -1;
  std::unique_ptr<Cut> a, b;
  std::vector<int64_t> lo, hi;
};

template <class Piece>
std::unique_ptr<Cut> plan_cut(const std::vector<Piece>& ps, const std::vector<int>& idx,
                              const std::vector<int64_t>& lo, const std::vector<int64_t>& hi) {
  auto c = std::make_unique<Cut>();
  c->lo = lo;
  c->hi = hi;
  if (idx.empty()) return nullptr;
  if (idx.size() == 1) {
    if (ps[size_t(idx[0])].lo != lo || ps[size_t(idx[0])].hi != hi) return nullptr;
    c->piece = idx[0];
    return c;
  }
  for (size_t a = 0; a < lo.size(); ++a) {
    std::vector<int64_t> cuts;
    for (int i : idx)
      if (ps[size_t(i)].hi[a] > lo[a] && ps[size_t(i)].hi[a] < hi[a]) cuts.push_back(ps[size_t(i)].hi[a]);
    std::sort(cuts.begin(), cuts.end());
    for (int64_t at : cuts) {
      std::vector<int> left, right;
      bool clean = true;
      for (int i : idx) {
        if (ps[size_t(i)].hi[a] <= at) left.push_back(i);
        else if (ps[size_t(i)].lo[a] >= at) right.push_back(i);
        else clean = false;
      }
      if (!clean) continue;
      std::vector<int64_t> mid_hi = hi, mid_lo = lo;
      mid_hi[a] = at;
      mid_lo[a] = at;
      auto l = plan_cut(ps, left, lo, mid_hi);
      auto r = l ? plan_cut(ps, right, mid_lo, hi) : nullptr;
      if (!l || !r) return nullptr;
      c->axis = int(a);
      c->a = std::move(l);
      c->b = std::move(r);
      return c;
    }
  }
  return nullptr;
}

}  // namespace

std::optional<int> Elaborator::onchip_read(const Binding& b, int loc_off) {
  auto it = local_tracks_.find(b.tensor);
  if (it == local_tracks_.end()) return std::nullopt;
  LocalTrack& t = it->second;
  if (t.gm_needed) return std::nullopt;
  if (t.cached >= 0) return t.cached;
  auto fall_back = [&]() -> std::optional<int> {
    t.gm_needed = true;
    return std::nullopt;
  };
  if (t.seq != seq_ || t.opaque) return fall_back();
  // The pieces after the fill must tile the tensor: disjoint, their volumes summing to its volume.
  std::vector<int> idx;
  for (size_t i = 0; i < t.pieces.size(); ++i)
    if (!t.pieces[i].fill) idx.push_back(int(i));
  std::vector<int64_t> lo(b.shape.size(), 0), hi;
  for (const auto& d : b.shape) hi.push_back(*d.as_const());  // const: checked at the first write
  if (idx.empty()) return fall_back();
  int64_t volume = 1, sum = 0;
  for (size_t a = 0; a < hi.size(); ++a) volume *= hi[a];
  for (size_t x = 0; x < idx.size(); ++x) {
    const auto& p = t.pieces[size_t(idx[x])];
    int64_t v = 1;
    for (size_t a = 0; a < hi.size(); ++a) v *= p.hi[a] - p.lo[a];
    sum += v;
    for (size_t y = 0; y < x; ++y) {
      const auto& q = t.pieces[size_t(idx[y])];
      bool meet = true;
      for (size_t a = 0; a < hi.size(); ++a) meet = meet && p.lo[a] < q.hi[a] && q.lo[a] < p.hi[a];
      if (meet) return fall_back();
    }
  }
  if (sum != volume) return fall_back();
  auto plan = plan_cut(t.pieces, idx, lo, hi);
  if (!plan) return fall_back();
  if (plan->piece < 0 && (!ts_->vec || ts_->vec->shape.size() != b.shape.size())) return fall_back();
  const DType dt = p_.tensors[size_t(b.tensor)].dtype;
  std::function<int(const Cut&)> build = [&](const Cut& c) -> int {
    if (c.piece >= 0) return t.pieces[size_t(c.piece)].value;
    int l = build(*c.a), r = build(*c.b);
    Shape sh;
    for (size_t a = 0; a < c.lo.size(); ++a) sh.push_back(DimExpr(c.hi[a] - c.lo[a]));
    Op op;
    op.kind = OpKind::Concat;
    op.inputs = {l, r};
    op.axes = {c.axis};
    return emit(op, dt, sh, sh, loc_off);
  };
  t.cached = build(*plan);
  return t.cached;
}

void Elaborator::locals_need_gm() {
  // Only a tensor a name still binds can be read by what follows (a static loop copy's are gone).
  std::set<int> visible;
  if (names_)
    for (const auto& [n, b] : *names_)
      if (b.is_local_tensor()) visible.insert(b.tensor);
  for (auto& [tensor, t] : local_tracks_)
    if (t.seq == seq_ && visible.count(tensor)) t.gm_needed = true;
}

void Elaborator::drop_onchip_writes() {
  // The writes of every track dropped here, sorted, taken out in one pass over the run and the roots:
  // a find per op per track was quadratic in a long run (an unroll gear of local tensors).
  std::vector<int> writes;
  size_t first_root = p_.roots.size();
  for (auto it = local_tracks_.begin(); it != local_tracks_.end();) {
    LocalTrack& t = it->second;
    if (t.seq != seq_) {
      ++it;
      continue;
    }
    if (!t.gm_needed && !t.ops.empty()) {
      // Its writes are in the current run, or in a root flushed since it was declared (a nested loop
      // or branch after its last use ended that root).
      writes.insert(writes.end(), t.ops.begin(), t.ops.end());
      first_root = std::min(first_root, t.first_root);
      // No op touches the workspace any more: keep its declaration (indices stay), one element large.
      auto& decl = p_.tensors[size_t(it->first)];
      for (auto& d : decl.shape) d = DimExpr(1);
    }
    it = local_tracks_.erase(it);
  }
  if (writes.empty()) return;
  std::sort(writes.begin(), writes.end());
  auto drop = [&](std::vector<int>& ops) {
    ops.erase(std::remove_if(ops.begin(), ops.end(),
                             [&](int o) { return std::binary_search(writes.begin(), writes.end(), o); }),
              ops.end());
  };
  drop(seq_->run);
  for (size_t r = first_root; r < p_.roots.size(); ++r) drop(p_.roots[r].ops);
}

}  // namespace ptoc::fe
