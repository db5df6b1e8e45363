// The GM dependency tracker: which earlier tasks and device tasks an access must follow (RAW, WAR, WAW).
// Part of the control-flow walk (runtime/control_flow.cpp), split out as its own unit.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "runtime/device_task.h"

namespace ptoc::runtime::detail {

// Most cells hold one or two ids per list: keep those inline, no allocation.
template <class T>
class SmallVec {
 public:
  SmallVec() = default;
  SmallVec(const SmallVec& o) { *this = o; }
  SmallVec(SmallVec&& o) noexcept { *this = std::move(o); }
  SmallVec& operator=(const SmallVec& o) {
    if (this == &o) return *this;
    n_ = o.n_;
    if (o.n_ <= kInline) std::copy(o.inl_, o.inl_ + o.n_, inl_);
    else heap_ = o.heap_;
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    n_ = o.n_;
    if (o.n_ <= kInline) std::copy(o.inl_, o.inl_ + o.n_, inl_);
    else heap_ = std::move(o.heap_);
    o.n_ = 0;
    return *this;
  }
  const T* begin() const { return n_ <= kInline ? inl_ : heap_.data(); }
  const T* end() const { return begin() + n_; }
  bool empty() const { return n_ == 0; }
  size_t size() const { return n_; }
  const T& back() const { return begin()[n_ - 1]; }
  void clear() {
    n_ = 0;
    heap_.clear();
  }
  void push_back(const T& v) {
    if (n_ < kInline) {
      inl_[n_++] = v;
      return;
    }
    if (n_ == kInline) heap_.assign(inl_, inl_ + kInline);
    heap_.push_back(v);
    ++n_;
  }

 private:
  static constexpr uint32_t kInline = 2;
  uint32_t n_ = 0;
  T inl_[kInline]{};
  std::vector<T> heap_;
};

// State of a run of GM bytes: the group (root instance, or device task) that wrote it last
// and its writer tasks W; B, what further writes by that group must follow; R, readers
// since. Writers of one group may be unordered among themselves (split-K partial sums),
// so a group keeps all of its writers rather than the last one.
struct Cell {
  int32_t wg = -1;
  SmallVec<uint32_t> W, B;
  SmallVec<std::pair<uint32_t, int32_t>> R;
};

// Map nodes come and go by the million (cells are split, created and collected): recycle
// them through a free list instead of the general-purpose heap.
template <class T>
struct NodeAlloc {
  using value_type = T;
  NodeAlloc() = default;
  template <class U>
  NodeAlloc(const NodeAlloc<U>&) {}
  struct FreeList {
    std::vector<void*> v;
    ~FreeList() {
      for (void* p : v) ::operator delete(p);
    }
  };
  static FreeList& free_list() {
    static thread_local FreeList fl;
    return fl;
  }
  T* allocate(size_t n) {
    auto& fl = free_list().v;
    if (n == 1 && !fl.empty()) {
      void* p = fl.back();
      fl.pop_back();
      return static_cast<T*>(p);
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (n == 1 && free_list().v.size() < (1u << 20)) free_list().v.push_back(p);
    else ::operator delete(p);
  }
  template <class U>
  bool operator==(const NodeAlloc<U>&) const { return true; }
  template <class U>
  bool operator!=(const NodeAlloc<U>&) const { return false; }
};

template <class T>
class IntervalMap {
 public:
  using Map = std::map<uint64_t, std::pair<uint64_t, T>, std::less<uint64_t>,
                       NodeAlloc<std::pair<const uint64_t, std::pair<uint64_t, T>>>>;  // start -> (end, payload); disjoint
  // Calls f(payload) for every piece of [s, e), creating default payloads for gaps.
  template <class F>
  void apply(uint64_t s, uint64_t e, F&& f) {
    if (s >= e) return;
    // Fast path: [s, e) is exactly one existing piece (the common case once a loop has touched a
    // tile), so nothing is split or created: one lookup instead of three.
    if (auto it = m_.lower_bound(s); it != m_.end() && it->first == s && it->second.first == e) {
      f(it->second.second);
      return;
    }
    split(s);
    split(e);
    auto it = m_.lower_bound(s);
    uint64_t pos = s;
    while (pos < e) {
      if (it == m_.end() || it->first >= e) {
        auto n = m_.emplace_hint(it, pos, std::make_pair(e, T{}));
        f(n->second.second);
        break;
      }
      if (it->first > pos) {
        uint64_t stop = it->first;
        auto n = m_.emplace_hint(it, pos, std::make_pair(stop, T{}));
        f(n->second.second);
        pos = stop;
        continue;
      }
      f(it->second.second);
      pos = it->second.first;
      ++it;
    }
  }
  Map& map() { return m_; }
  void clear() { m_.clear(); }

 private:
  void split(uint64_t x) {
    auto it = m_.upper_bound(x);
    if (it == m_.begin()) return;
    --it;
    if (it->first < x && x < it->second.first) {
      uint64_t end = it->second.first;
      it->second.first = x;
      m_.emplace_hint(std::next(it), x, std::make_pair(end, it->second.second));
    }
  }
  Map m_;
};

// Two views of the same bytes share one map, so an access is looked up once: `dev` at device-task
// granularity (ids and groups are device-task seqs; kept until collected) and `root` at root-instance
// granularity inside the device task being built (ids are task indices, groups root instances);
// `root` is stale, and reset on first touch, when `seq` is not the device task being built.
struct Cell2 {
  Cell dev, root;
  int32_t seq = -1;
};

// A tensor's bytes seen as rows of `pitch` bytes: row bands, each with its column pieces,
// so a 2-D tile is one or two map operations instead of one per row.
class GmTracker {
 public:
  void reset(size_t tensors, const std::vector<uint64_t>& pitch, const std::vector<uint64_t>& base) {
    t_.assign(tensors, {});
    for (size_t i = 0; i < tensors; ++i) {
      t_[i].pitch = std::max<uint64_t>(pitch[i], 1);
      t_[i].base = base[i];
    }
  }

  // Records `a` by task `id` of root-instance group `g` in device task `seq`; appends the task
  // indices it must follow inside the device task to `deps_root`, and the earlier device tasks
  // it must follow to `deps_dev` (may name `seq` itself).
  void access(const GmAccess& a, int32_t seq, uint32_t id, int32_t g, std::vector<uint32_t>& deps_root,
              std::vector<uint32_t>& deps_dev) {
    T& t = t_[size_t(a.tensor)];
    const uint64_t P = t.pitch, off = a.addr - t.base;
    auto cell = [&](Cell2& c) {
      if (c.seq != seq) {
        c.root.wg = -1;
        c.root.W.clear();
        c.root.B.clear();
        c.root.R.clear();
        c.seq = seq;
      }
      if (a.write) {
        on_write(c.root, id, g, deps_root);
        on_write(c.dev, uint32_t(seq), seq, deps_dev);
      } else {
        on_read(c.root, id, g, deps_root);
        on_read(c.dev, uint32_t(seq), seq, deps_dev);
      }
    };
    auto rect = [&](uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1) {
      t.rows.apply(r0, r1, [&](IntervalMap<Cell2>& band) { band.apply(c0, c1, cell); });
    };
    auto linear = [&](uint64_t s, uint64_t len) {  // a contiguous byte range: head, whole rows, tail
      uint64_t e = s + len;
      if (s / P == (e - 1) / P) return rect(s / P, s / P + 1, s % P, (e - 1) % P + 1);
      uint64_t r = s / P;
      if (s % P) {
        rect(r, r + 1, s % P, P);
        ++r;
      }
      uint64_t rl = e / P;
      if (rl > r) rect(r, rl, 0, P);
      if (e % P) rect(rl, rl + 1, 0, e % P);
    };
    if (a.rows == 0 || a.row_bytes == 0) return;
    ++accesses_;
    if (a.rows == 1 || a.row_stride == a.row_bytes) return linear(off, a.rows * a.row_bytes);
    if (a.row_stride == P && off % P + a.row_bytes <= P) return rect(off / P, off / P + a.rows, off % P, off % P + a.row_bytes);
    for (uint64_t i = 0; i < a.rows; ++i) linear(off + i * a.row_stride, a.row_bytes);
  }

  // Drops state that only names ids below `done` (device tasks all finished).
  void collect(uint32_t done) {
    // Only `dev` matters: collect runs between device-task builds, when every `root` view is stale.
    auto dead = [&](const Cell2& c2) {
      const Cell& c = c2.dev;
      for (auto w : c.W) if (w >= done) return false;
      for (auto b : c.B) if (b >= done) return false;
      for (auto& r : c.R) if (r.first >= done) return false;
      return true;
    };
    cells_ = 0;
    accesses_ = 0;
    for (auto& t : t_) {
      auto& rows = t.rows.map();
      for (auto it = rows.begin(); it != rows.end();) {
        auto& cols = it->second.second.map();
        for (auto c = cols.begin(); c != cols.end();) c = dead(c->second.second) ? cols.erase(c) : std::next(c);
        cells_ += cols.size();
        it = cols.empty() ? rows.erase(it) : std::next(it);
      }
    }
  }
  uint64_t cells() const { return cells_; }
  uint64_t accesses() const { return accesses_; }

 private:
  static void on_read(Cell& c, uint32_t id, int32_t g, std::vector<uint32_t>& deps) {
    if (c.wg != g) deps.insert(deps.end(), c.W.begin(), c.W.end());
    if (c.R.empty() || c.R.back().first != id) c.R.push_back({id, g});
  }
  static void on_write(Cell& c, uint32_t id, int32_t g, std::vector<uint32_t>& deps) {
    for (auto& r : c.R)
      if (r.second != g) deps.push_back(r.first);
    if (c.wg == g) {
      deps.insert(deps.end(), c.B.begin(), c.B.end());
      if (c.W.empty() || c.W.back() != id) c.W.push_back(id);
      return;
    }
    deps.insert(deps.end(), c.W.begin(), c.W.end());
    SmallVec<uint32_t> before = std::move(c.W);
    for (auto& r : c.R)
      if (r.second != g) before.push_back(r.first);
    c.wg = g;
    c.W.clear();
    c.W.push_back(id);
    c.B = std::move(before);
    c.R.clear();
  }

  struct T {
    uint64_t pitch = 1, base = 0;
    IntervalMap<IntervalMap<Cell2>> rows;
  };
  std::vector<T> t_;
  uint64_t cells_ = 0, accesses_ = 0;  // cells after the last collect(), accesses since
};

}  // namespace ptoc::runtime::detail
