#include "compiler/passes/partition_live_profile.h"

#include <algorithm>
#include <iterator>

#include "compiler/passes/buffer_liveness.h"

namespace ptoc::tiling {

namespace {

constexpr int64_t kNone = INT64_MIN / 4;  // no op of the group beneath

bool none(int64_t v) { return v <= kNone / 2; }

template <class F>
void for_touched(const TileOp& op, F&& f) {
  for (int s : op.srcs) f(s);
  if (op.dst >= 0) f(op.dst);
}

// A tile's first and last op in one group, or in the union of two (a view, not built).
struct SpanView {
  const std::unordered_map<int, std::pair<int, int>>* a = nullptr;
  const std::unordered_map<int, std::pair<int, int>>* c = nullptr;
  bool get(int t, int& first, int& last) const {
    bool found = false;
    for (auto* m : {a, c}) {
      if (!m) continue;
      auto it = m->find(t);
      if (it == m->end()) continue;
      first = found ? std::min(first, it->second.first) : it->second.first;
      last = found ? std::max(last, it->second.second) : it->second.second;
      found = true;
    }
    return found;
  }
};

}  // namespace

GroupLiveProfile::GroupLiveProfile(const TileRoot& root, const std::array<int64_t, 6>& align, int n_ops)
    : r_(root), align_(align), n_(n_ops), tree_(size_t(n_ops), -1), spans_(size_t(n_ops)) {
  // A takeover moves its result's start by one position; with one writer per such result no second
  // takeover can start at that position, so each tile's term depends on its own first op only.
  std::vector<int> writers(r_.tiles.size(), 0);
  for (int o = 0; o < n_; ++o)
    if (r_.ops[size_t(o)].dst >= 0) ++writers[size_t(r_.ops[size_t(o)].dst)];
  for (int o = 0; o < n_ && incremental_; ++o) {
    const TileOp& op = r_.ops[size_t(o)];
    if (op.dst >= 0 && writers[size_t(op.dst)] > 1 && in_place_source(r_, op) >= 0) incremental_ = false;
  }
}

int64_t GroupLiveProfile::aligned(int tile) const {
  const LocalTile& lt = r_.tiles[size_t(tile)];
  const int64_t a = std::max<int64_t>(1, align_[size_t(lt.mem)]);
  return (lt.bytes() + a - 1) / a * a;
}

GroupLiveProfile::Bytes GroupLiveProfile::widen(const Sums& s) {
  Bytes b{};
  for (int k = 0; k < kMems; ++k) b[size_t(k) + 1] = none(s[size_t(k)]) ? 0 : s[size_t(k)];
  return b;
}

int GroupLiveProfile::new_node() {
  int id;
  if (!free_nodes_.empty()) {
    id = free_nodes_.back();
    free_nodes_.pop_back();
  } else {
    id = int(nodes_.size());
    nodes_.emplace_back();
  }
  Node& x = nodes_[size_t(id)];
  x = Node{};
  x.max.fill(kNone);
  return id;
}

void GroupLiveProfile::pull(int node) {
  Node& x = nodes_[size_t(node)];
  Sums best;
  best.fill(x.member ? 0 : kNone);
  for (int ch : {x.left, x.right})
    if (ch >= 0)
      for (int k = 0; k < kMems; ++k) best[size_t(k)] = std::max(best[size_t(k)], nodes_[size_t(ch)].max[size_t(k)]);
  for (int k = 0; k < kMems; ++k) x.max[size_t(k)] = none(best[size_t(k)]) ? kNone : best[size_t(k)] + x.tag[size_t(k)];
}

int GroupLiveProfile::add(int node, int lo, int hi, int ql, int qr, int mem, int64_t v) {
  if (qr < lo || hi < ql) return node;
  if (node < 0) node = new_node();
  if (ql <= lo && hi <= qr) {
    Node& x = nodes_[size_t(node)];
    x.tag[size_t(mem)] += v;
    if (!none(x.max[size_t(mem)])) x.max[size_t(mem)] += v;
    return node;
  }
  const int mid = lo + (hi - lo) / 2;
  const int l = add(nodes_[size_t(node)].left, lo, mid, ql, qr, mem, v);
  nodes_[size_t(node)].left = l;
  const int rt = add(nodes_[size_t(node)].right, mid + 1, hi, ql, qr, mem, v);
  nodes_[size_t(node)].right = rt;
  pull(node);
  return node;
}

int GroupLiveProfile::mark(int node, int lo, int hi, int pos) {
  if (node < 0) node = new_node();
  if (lo == hi) {
    nodes_[size_t(node)].member = true;
  } else {
    const int mid = lo + (hi - lo) / 2;
    if (pos <= mid) {
      const int l = mark(nodes_[size_t(node)].left, lo, mid, pos);
      nodes_[size_t(node)].left = l;
    } else {
      const int rt = mark(nodes_[size_t(node)].right, mid + 1, hi, pos);
      nodes_[size_t(node)].right = rt;
    }
  }
  pull(node);
  return node;
}

void GroupLiveProfile::free_tree(int node) {
  if (node < 0) return;
  free_tree(nodes_[size_t(node)].left);
  free_tree(nodes_[size_t(node)].right);
  free_nodes_.push_back(node);
}

void GroupLiveProfile::drop(int group) {
  free_tree(tree_[size_t(group)]);
  tree_[size_t(group)] = -1;
  TileSpan().swap(spans_[size_t(group)]);
}

template <class Span>
bool GroupLiveProfile::taken_in_place(int t, const Span& span) const {
  int f = 0, l = 0;
  if (!span.get(t, f, l)) return false;
  const TileOp& op = r_.ops[size_t(f)];
  if (op.dst != t) return false;
  const int c = in_place_source(r_, op);
  int cf = 0, cl = 0;
  return c >= 0 && span.get(c, cf, cl) && cl == f && aligned(c) == aligned(t);
}

void GroupLiveProfile::ensure(int group, const std::vector<int>& members) {
  if (tree_[size_t(group)] >= 0 || members.empty()) return;
  TileSpan& span = spans_[size_t(group)];
  span.clear();
  for (int o : members)
    for_touched(r_.ops[size_t(o)], [&](int tile) {
      auto [it, fresh] = span.try_emplace(tile, o, o);
      if (!fresh) it->second.second = o;  // members ascend
    });
  int t = -1;
  for (int o : members) t = mark(t, 0, n_ - 1, o);
  const SpanView view{&span, nullptr};
  for (auto& [tile, fl] : span) {
    const int mem = int(r_.tiles[size_t(tile)].mem);
    if (mem < 1 || mem > kMems) continue;
    const int64_t b = aligned(tile);
    t = add(t, 0, n_ - 1, fl.first, fl.second, mem - 1, b);
    if (taken_in_place(tile, view)) t = add(t, 0, n_ - 1, fl.first, fl.first, mem - 1, -b);
  }
  tree_[size_t(group)] = t;
}

int GroupLiveProfile::corrections(int ga, int gc) {
  const TileSpan& A = spans_[size_t(ga)];
  const TileSpan& C = spans_[size_t(gc)];
  const SpanView va{&A, nullptr}, vc{&C, nullptr}, vu{&A, &C};
  const TileSpan& fewer = A.size() <= C.size() ? A : C;
  const TileSpan& more = &fewer == &A ? C : A;
  int z = -1;
  auto put = [&](int lo, int hi, int mem, int64_t v) { z = add(z, 0, n_ - 1, lo, hi, mem, v); };
  for (auto& [t, unused] : fewer) {
    (void)unused;
    if (!more.count(t)) continue;
    const int mem = int(r_.tiles[size_t(t)].mem);
    if (mem < 1 || mem > kMems) continue;
    const int64_t b = aligned(t);
    const auto& [fa, la] = A.at(t);
    const auto& [fc, lc] = C.at(t);
    const int fu = std::min(fa, fc), lu = std::max(la, lc);
    // Its two terms become one over the union's range.
    put(fa, la, mem - 1, -b);
    if (taken_in_place(t, va)) put(fa, fa, mem - 1, b);
    put(fc, lc, mem - 1, -b);
    if (taken_in_place(t, vc)) put(fc, fc, mem - 1, b);
    put(fu, lu, mem - 1, b);
    if (taken_in_place(t, vu)) put(fu, fu, mem - 1, -b);
    // A result of one group taking t's buffer over at t's last use there no longer does when the
    // other group uses t later (a result both touch is one of these shared tiles, above).
    for (int o : {la, lc}) {
      if (o == lu) continue;
      const TileOp& op = r_.ops[size_t(o)];
      if (op.dst < 0 || in_place_source(r_, op) != t) continue;
      const int d = op.dst;
      if (A.count(d) && C.count(d)) continue;
      const int dm = int(r_.tiles[size_t(d)].mem);
      if (dm < 1 || dm > kMems) continue;
      if (taken_in_place(d, o == la ? va : vc)) put(o, o, dm - 1, aligned(d));
    }
  }
  return z;
}

GroupLiveProfile::Sums GroupLiveProfile::max3(int x, int y, int z, int lo, int hi, const Sums& acc) const {
  Sums out;
  out.fill(kNone);
  const int ids[3] = {x, y, z};
  int present = 0, only = -1;
  for (int id : ids)
    if (id >= 0) ++present, only = id;
  if (present == 0) return out;
  if (present == 1) {
    const Node& n = nodes_[size_t(only)];
    for (int k = 0; k < kMems; ++k)
      out[size_t(k)] = none(n.max[size_t(k)]) ? kNone : n.max[size_t(k)] + acc[size_t(k)];
    return out;
  }
  Sums a = acc;
  bool member = false;
  int kids[2][3] = {{-1, -1, -1}, {-1, -1, -1}};
  for (int i = 0; i < 3; ++i) {
    if (ids[i] < 0) continue;
    const Node& n = nodes_[size_t(ids[i])];
    for (int k = 0; k < kMems; ++k) a[size_t(k)] += n.tag[size_t(k)];
    member |= n.member;
    kids[0][i] = n.left;
    kids[1][i] = n.right;
  }
  if (lo == hi) return member ? a : out;
  const int mid = lo + (hi - lo) / 2;
  const Sums l = max3(kids[0][0], kids[0][1], kids[0][2], lo, mid, a);
  const Sums rt = max3(kids[1][0], kids[1][1], kids[1][2], mid + 1, hi, a);
  for (int k = 0; k < kMems; ++k) out[size_t(k)] = std::max(l[size_t(k)], rt[size_t(k)]);
  return out;
}

int GroupLiveProfile::merge3(int x, int y, int z, int lo, int hi) {
  const int ids[3] = {x, y, z};
  int present = 0, base = -1;
  for (int id : ids)
    if (id >= 0) {
      ++present;
      if (base < 0) base = id;
    }
  if (present <= 1) return base;
  int kids[2][3] = {{-1, -1, -1}, {-1, -1, -1}};
  for (int i = 0; i < 3; ++i) {
    if (ids[i] < 0) continue;
    const Node& n = nodes_[size_t(ids[i])];
    kids[0][i] = n.left;
    kids[1][i] = n.right;
    if (ids[i] == base) continue;
    Node& b = nodes_[size_t(base)];
    for (int k = 0; k < kMems; ++k) b.tag[size_t(k)] += n.tag[size_t(k)];
    b.member |= n.member;
    free_nodes_.push_back(ids[i]);
  }
  if (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    const int l = merge3(kids[0][0], kids[0][1], kids[0][2], lo, mid);
    const int rt = merge3(kids[1][0], kids[1][1], kids[1][2], mid + 1, hi);
    nodes_[size_t(base)].left = l;
    nodes_[size_t(base)].right = rt;
  }
  pull(base);
  return base;
}

void GroupLiveProfile::prepare(int ga, const std::vector<int>& ma, int gc, const std::vector<int>& mc) {
  if (pending_) free_tree(fix_);
  fix_ = -1;
  ensure(ga, ma);
  ensure(gc, mc);
  const bool a_big = ma.size() >= mc.size();
  big_ = a_big ? ga : gc;
  small_ = a_big ? gc : ga;
  big_size_ = a_big ? ma.size() : mc.size();
  small_size_ = a_big ? mc.size() : ma.size();
  fix_ = corrections(big_, small_);
  pending_ = true;
}

GroupLiveProfile::Bytes GroupLiveProfile::peak(int group, const std::vector<int>& members) {
  if (!incremental_) return peak_bytes(r_, members, align_);
  ensure(group, members);
  const int t = tree_[size_t(group)];
  return t < 0 ? Bytes{} : widen(nodes_[size_t(t)].max);
}

GroupLiveProfile::Bytes GroupLiveProfile::merged_peak(int ga, const std::vector<int>& ma, int gc,
                                                      const std::vector<int>& mc) {
  if (!incremental_ || ma.empty() || mc.empty()) {
    std::vector<int> m;
    m.reserve(ma.size() + mc.size());
    std::merge(ma.begin(), ma.end(), mc.begin(), mc.end(), std::back_inserter(m));
    return peak_bytes(r_, m, align_);
  }
  prepare(ga, ma, gc, mc);
  return widen(max3(tree_[size_t(big_)], tree_[size_t(small_)], fix_, 0, n_ - 1, Sums{}));
}

void GroupLiveProfile::prepare_join(int ga, const std::vector<int>& ma, int gc, const std::vector<int>& mc) {
  if (!incremental_) return;
  const bool same = pending_ && ((big_ == ga && small_ == gc && big_size_ == ma.size() && small_size_ == mc.size()) ||
                                 (big_ == gc && small_ == ga && big_size_ == mc.size() && small_size_ == ma.size()));
  if (!same) prepare(ga, ma, gc, mc);
}

void GroupLiveProfile::joined(int united_root) {
  if (!incremental_ || !pending_) return;
  pending_ = false;
  const int t = merge3(tree_[size_t(big_)], tree_[size_t(small_)], fix_, 0, n_ - 1);
  fix_ = -1;
  TileSpan& span = spans_[size_t(big_)];
  for (auto& [tile, fl] : spans_[size_t(small_)]) {
    auto [it, fresh] = span.try_emplace(tile, fl);
    if (!fresh) {
      it->second.first = std::min(it->second.first, fl.first);
      it->second.second = std::max(it->second.second, fl.second);
    }
  }
  tree_[size_t(big_)] = tree_[size_t(small_)] = -1;
  TileSpan().swap(spans_[size_t(small_)]);
  if (united_root != big_) {
    spans_[size_t(united_root)] = std::move(span);
    TileSpan().swap(spans_[size_t(big_)]);
  }
  tree_[size_t(united_root)] = t;
}

}  // namespace ptoc::tiling
