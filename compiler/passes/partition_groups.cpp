#include "compiler/passes/partition_groups.h"

#include <algorithm>
#include <climits>
#include <queue>

namespace ptoc::tiling {

void PartitionGroups::clear_graph(int n) {
  ordered = false;
  members.assign(size_t(n), {});
  succ.assign(size_t(n), {});
  pred.assign(size_t(n), {});
  scope.assign(size_t(n), -1);
  stamp.assign(size_t(n), 0);
  back_stamp.assign(size_t(n), 0);
}

void PartitionGroups::marks_fit() {
  if (stamp.size() < parent.size()) stamp.resize(parent.size(), 0);
  if (back_stamp.size() < parent.size()) back_stamp.resize(parent.size(), 0);
}

void PartitionGroups::order() {
  const int n = int(parent.size());
  std::vector<int> indeg(size_t(n), 0);
  ord.assign(size_t(n), -1);
  at.clear();
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  int roots = 0;
  for (int i = 0; i < n; ++i)
    if (find(i) == i) {
      ++roots;
      indeg[size_t(i)] = int(pred[size_t(i)].size());
      if (indeg[size_t(i)] == 0) ready.push(i);
    }
  while (!ready.empty()) {
    int x = ready.top();
    ready.pop();
    ord[size_t(x)] = int(at.size());
    at.push_back(x);
    for (int s : succ[size_t(x)])
      if (--indeg[size_t(s)] == 0) ready.push(s);
  }
  ordered = int(at.size()) == roots;
}

void PartitionGroups::walk_window(int start, bool back, int lo, int hi, std::vector<int>& out) {
  marks_fit();
  ++epoch;
  std::vector<int>& stack = fwd_;
  stack.clear();
  for (int v : back ? pred[size_t(start)] : succ[size_t(start)]) stack.push_back(v);
  while (!stack.empty()) {
    int v = stack.back();
    stack.pop_back();
    if (stamp[size_t(v)] == epoch || ord[size_t(v)] <= lo || ord[size_t(v)] >= hi) continue;
    stamp[size_t(v)] = epoch;
    out.push_back(v);
    for (int w : back ? pred[size_t(v)] : succ[size_t(v)]) stack.push_back(w);
  }
}

int PartitionGroups::unite(int a, int b) {
  // The order stays topological as Pearce-Kelly keeps it: of the roots ordered between the two
  // (x first, y last), those that reach y, then the merged root, then those x reaches, in the slots
  // they held. When none reaches y (a scan of y's predecessors) the merged root takes x's slot; when
  // x reaches none, y's: no walk (a broadcast tile's group has thousands of successors in the window).
  int lo = -1, hi = -1, slot = -1;
  reach_y_.clear();
  from_x_.clear();
  if (ordered) {
    lo = std::min(ord[size_t(a)], ord[size_t(b)]);
    hi = std::max(ord[size_t(a)], ord[size_t(b)]);
    const int x = at[size_t(lo)], y = at[size_t(hi)];
    auto none_inside = [&](const std::set<int>& adj) {
      for (int v : adj)
        if (ord[size_t(v)] > lo && ord[size_t(v)] < hi) return false;
      return true;
    };
    const bool small_pred = pred[size_t(y)].size() <= succ[size_t(x)].size();
    if (small_pred ? none_inside(pred[size_t(y)]) : none_inside(succ[size_t(x)]))
      slot = small_pred ? lo : hi;
    else if (small_pred ? none_inside(succ[size_t(x)]) : none_inside(pred[size_t(y)]))
      slot = small_pred ? hi : lo;
    else {
      walk_window(y, true, lo, hi, reach_y_);
      walk_window(x, false, lo, hi, from_x_);
    }
  }
  if (members[a].size() < members[b].size()) std::swap(a, b);
  parent[b] = a;
  // b's members into a's in place from the back: a group growing by a few later ops at a time moves
  // only those (a merge into a fresh list copied the whole group every time: quadratic).
  std::vector<int>& big = members[a];
  const std::vector<int>& small = members[b];
  size_t i = big.size(), j = small.size(), k = big.size() + small.size();
  big.resize(k);
  while (j > 0) {
    if (i > 0 && big[i - 1] > small[j - 1])
      big[--k] = big[--i];
    else
      big[--k] = small[--j];
  }
  members[b].clear();
  for (int s : succ[b]) {
    pred[s].erase(b);
    if (s != a) {
      pred[s].insert(a);
      succ[a].insert(s);
    }
  }
  for (int p : pred[b]) {
    succ[p].erase(b);
    if (p != a) {
      succ[p].insert(a);
      pred[a].insert(p);
    }
  }
  succ[a].erase(b);
  pred[a].erase(b);
  succ[b].clear();
  pred[b].clear();
  if (scope[a] < 0) scope[a] = scope[b];
  if (ordered) {
    if (slot >= 0) {
      const int other = slot == lo ? hi : lo;
      at[size_t(other)] = -1;
      at[size_t(slot)] = a;
      ord[size_t(a)] = slot;
      ord[size_t(b)] = -1;
      return a;
    }
    auto by_ord = [&](int p, int q) { return ord[size_t(p)] < ord[size_t(q)]; };
    std::sort(reach_y_.begin(), reach_y_.end(), by_ord);
    std::sort(from_x_.begin(), from_x_.end(), by_ord);
    window_.clear();
    window_.push_back(lo);
    window_.push_back(hi);
    for (int v : reach_y_) window_.push_back(ord[size_t(v)]);
    for (int v : from_x_) window_.push_back(ord[size_t(v)]);
    std::sort(window_.begin(), window_.end());  // the slots, in order
    size_t k = 0;
    auto place = [&](int v) {
      at[size_t(window_[k])] = v;
      ord[size_t(v)] = window_[k++];
    };
    for (int v : reach_y_) place(v);
    place(a);
    for (int v : from_x_) place(v);
    at[size_t(window_[k])] = -1;
    ord[size_t(b)] = -1;
  }
  return a;
}

bool PartitionGroups::indirect_path(int from, int to) {
  if (!ordered) return indirect_path_scan(from, to);
  const int lo = ord[size_t(from)], hi = ord[size_t(to)];
  if (lo > hi) return false;
  marks_fit();
  ++epoch;
  fwd_.clear();
  back_.clear();
  // Seeds: the other successors of `from` and predecessors of `to` inside the window, the smaller
  // set first (an empty one answers alone).
  auto seed_fwd = [&] {
    for (int s : succ[size_t(from)])
      if (s != to && ord[size_t(s)] < hi) {
        if (back_stamp[size_t(s)] == epoch) return true;
        stamp[size_t(s)] = epoch;
        fwd_.push_back(s);
      }
    return false;
  };
  auto seed_back = [&] {
    for (int p : pred[size_t(to)])
      if (p != from && ord[size_t(p)] > lo) {
        if (stamp[size_t(p)] == epoch) return true;
        back_stamp[size_t(p)] = epoch;
        back_.push_back(p);
      }
    return false;
  };
  if (succ[size_t(from)].size() <= pred[size_t(to)].size()) {
    seed_fwd();
    if (fwd_.empty()) return false;
    if (seed_back()) return true;
  } else {
    seed_back();
    if (back_.empty()) return false;
    if (seed_fwd()) return true;
  }
  while (!fwd_.empty() && !back_.empty()) {
    if (fwd_.size() <= back_.size()) {
      const int x = fwd_.back();
      fwd_.pop_back();
      for (int s : succ[size_t(x)]) {
        if (ord[size_t(s)] >= hi || stamp[size_t(s)] == epoch) continue;
        if (back_stamp[size_t(s)] == epoch) return true;
        stamp[size_t(s)] = epoch;
        fwd_.push_back(s);
      }
    } else {
      const int y = back_.back();
      back_.pop_back();
      for (int p : pred[size_t(y)]) {
        if (ord[size_t(p)] <= lo || back_stamp[size_t(p)] == epoch) continue;
        if (stamp[size_t(p)] == epoch) return true;
        back_stamp[size_t(p)] = epoch;
        back_.push_back(p);
      }
    }
  }
  return false;  // one search ran out without meeting the other
}

bool PartitionGroups::indirect_path_scan(int from, int to) {
  if (ordered && ord[size_t(from)] > ord[size_t(to)]) return false;
  const int bound = ordered ? ord[size_t(to)] : INT_MAX;
  marks_fit();
  ++epoch;
  std::vector<int> stack;
  for (int s : succ[size_t(from)])
    if (s != to) stack.push_back(s);
  while (!stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    if (x == to) return true;
    if (stamp[size_t(x)] == epoch || (ordered && ord[size_t(x)] > bound)) continue;
    stamp[size_t(x)] = epoch;
    for (int s : succ[size_t(x)]) stack.push_back(s);
  }
  return false;
}

}  // namespace ptoc::tiling
