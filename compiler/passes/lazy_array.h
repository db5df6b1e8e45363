// An array of tile ops or tiles whose later runs may be described rather than stored: a run of
// `count` elements that a Source can build on demand (a matmul output block copied from block 0,
// block_replica.h). Reading any element of a described run builds the whole run once, so every
// reader sees exactly the elements an explicit push_back would have stored; a pass that never
// reads a run never pays for it (the family path's stages read member 0 plus the block deltas).
// Element addresses stay valid across push_back except within the last stored run (as a vector's).
// Not thread-safe: a read may build a run (the tiling passes are single-threaded).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <vector>

namespace ptoc {

template <class T>
class LazyArray {
 public:
  // Builds described run `run` (elements [first, first + count)) into `out` (empty on entry).
  struct Source {
    virtual ~Source() = default;
    // Element `local` of the run into `out` (assigned over: its vectors' room is reused).
    virtual void build_one(int run, size_t first, size_t local, T& out) const = 0;
    void build(int run, size_t first, size_t count, std::vector<T>& out) const {
      out.resize(count);
      for (size_t i = 0; i < count; ++i) build_one(run, first, i, out[i]);
    }
  };

  LazyArray() = default;
  // The runs' elements live behind unique_ptrs: a move keeps the read window valid.
  LazyArray(LazyArray&& o) noexcept { *this = std::move(o); }
  LazyArray& operator=(LazyArray&& o) noexcept {
    segs_ = std::move(o.segs_);
    begins_ = std::move(o.begins_);
    size_ = o.size_;
    cache_ = o.cache_;
    win_ = o.win_;
    win_begin_ = o.win_begin_;
    win_count_ = o.win_count_;
    o.clear();
    return *this;
  }
  LazyArray(const LazyArray& o) { *this = o; }
  LazyArray& operator=(const LazyArray& o) {
    if (this == &o) return *this;
    segs_.clear();
    begins_ = o.begins_;
    size_ = o.size_;
    cache_ = 0;
    win_ = nullptr;
    win_begin_ = win_count_ = 0;
    for (const Seg& s : o.segs_) {
      Seg c{s.begin, s.count, nullptr, s.src, s.run};
      if (s.items) c.items = std::make_unique<std::vector<T>>(*s.items);
      segs_.push_back(std::move(c));
    }
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return at_(i); }
  const T& operator[](size_t i) const { return at_(i); }
  T& back() { return at_(size_ - 1); }
  const T& back() const { return at_(size_ - 1); }
  T& front() { return at_(0); }
  const T& front() const { return at_(0); }

  void push_back(const T& v) {
    T copy(v);  // v may live in this array
    push_back(std::move(copy));
  }
  void push_back(T&& v) {
    std::vector<T>& last = last_stored_();
    last.push_back(std::move(v));
    ++segs_.back().count;
    ++size_;
    if (segs_.back().begin == win_begin_) {  // the window is the growing run: follow it
      win_ = last.data();
      win_count_ = last.size();
    }
  }
  template <class... A>
  T& emplace_back(A&&... a) {
    push_back(T(std::forward<A>(a)...));
    return back();
  }
  // Room for `n` elements in all: the last stored run grows to hold them.
  void reserve(size_t n) {
    if (n <= size_) return;
    std::vector<T>& v = last_stored_();
    v.reserve(n - size_t(segs_.back().begin));
  }
  size_t capacity() const {
    if (segs_.empty() || segs_.back().src || !segs_.back().items) return size_;
    return size_t(segs_.back().begin) + segs_.back().items->capacity();
  }
  void clear() {
    segs_.clear();
    begins_.clear();
    size_ = 0;
    cache_ = 0;
    win_ = nullptr;
    win_begin_ = win_count_ = 0;
  }
  // Appends run `run` of `src`: `count` elements, built when first read.
  void append_described(std::shared_ptr<const Source> src, int run, size_t count) {
    if (count == 0) return;
    begins_.push_back(size_);
    segs_.push_back(Seg{size_, count, nullptr, std::move(src), run});
    size_ += count;
  }
  // Element i without building its run: the stored element, or `scratch` built as it would be.
  const T& peek(size_t i, T& scratch) const {
    const Seg& s = segs_[seg_of_(i)];
    if (s.items) return (*s.items)[i - s.begin];
    s.src->build_one(s.run, s.begin, i - s.begin, scratch);
    return scratch;
  }
  // Elements described and not built yet (what the representation saved so far).
  size_t unbuilt() const {
    size_t n = 0;
    for (const Seg& s : segs_)
      if (!s.items) n += s.count;
    return n;
  }

  template <class A, class R>
  class Iter {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = R*;
    using reference = R&;
    Iter() = default;
    Iter(A* a, size_t i) : a_(a), i_(i) {}
    R& operator*() const { return (*a_)[i_]; }
    R* operator->() const { return &(*a_)[i_]; }
    R& operator[](difference_type d) const { return (*a_)[size_t(difference_type(i_) + d)]; }
    Iter& operator++() { ++i_; return *this; }
    Iter operator++(int) { Iter t = *this; ++i_; return t; }
    Iter& operator--() { --i_; return *this; }
    Iter operator--(int) { Iter t = *this; --i_; return t; }
    Iter& operator+=(difference_type d) { i_ = size_t(difference_type(i_) + d); return *this; }
    Iter& operator-=(difference_type d) { i_ = size_t(difference_type(i_) - d); return *this; }
    Iter operator+(difference_type d) const { Iter t = *this; return t += d; }
    friend Iter operator+(difference_type d, Iter t) { return t += d; }
    Iter operator-(difference_type d) const { Iter t = *this; return t -= d; }
    difference_type operator-(const Iter& o) const { return difference_type(i_) - difference_type(o.i_); }
    bool operator==(const Iter& o) const { return i_ == o.i_; }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }
    bool operator<(const Iter& o) const { return i_ < o.i_; }
    bool operator>(const Iter& o) const { return i_ > o.i_; }
    bool operator<=(const Iter& o) const { return i_ <= o.i_; }
    bool operator>=(const Iter& o) const { return i_ >= o.i_; }
    operator Iter<const A, const R>() const { return {a_, i_}; }

   private:
    A* a_ = nullptr;
    size_t i_ = 0;
  };
  using iterator = Iter<LazyArray, T>;
  using const_iterator = Iter<const LazyArray, const T>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  struct Seg {
    size_t begin = 0, count = 0;
    std::unique_ptr<std::vector<T>> items;  // stored (or built) elements; null: described, not built
    std::shared_ptr<const Source> src;      // non-null: a described run
    int run = 0;
  };
  std::vector<Seg> segs_;
  std::vector<size_t> begins_;  // segs_[i].begin, for the search
  size_t size_ = 0;
  mutable size_t cache_ = 0;  // the segment of the last read
  // The elements of the last run read (stored or built), for the common read without a search.
  mutable T* win_ = nullptr;
  mutable size_t win_begin_ = 0, win_count_ = 0;

  std::vector<T>& last_stored_() {
    if (segs_.empty() || segs_.back().src) {
      begins_.push_back(size_);
      segs_.push_back(Seg{size_, 0, std::make_unique<std::vector<T>>(), nullptr, 0});
    }
    return *segs_.back().items;
  }
  size_t seg_of_(size_t i) const {
    size_t k = cache_;
    if (k >= segs_.size() || i - segs_[k].begin >= segs_[k].count) {
      k = size_t(std::upper_bound(begins_.begin(), begins_.end(), i) - begins_.begin()) - 1;
      cache_ = k;
    }
    return k;
  }
  T& at_(size_t i) const {
    if (i - win_begin_ < win_count_) return win_[i - win_begin_];
    return slow_at_(i);
  }
  T& slow_at_(size_t i) const {
    const size_t k = seg_of_(i);
    Seg& s = const_cast<Seg&>(segs_[k]);
    if (!s.items) {
      auto v = std::make_unique<std::vector<T>>();
      v->reserve(s.count);
      s.src->build(s.run, s.begin, s.count, *v);
      s.items = std::move(v);
    }
    win_ = s.items->data();
    win_begin_ = s.begin;
    win_count_ = s.items->size();
    return win_[i - s.begin];
  }
};

}  // namespace ptoc
