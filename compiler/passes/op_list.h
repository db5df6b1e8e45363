// A subgraph's TileOp ids (Subgraph::ops), in execution order. A member of a tile family shares
// member 0's list and adds a shift (partition_family: member k's op is member 0's plus k ops per
// member), so a family of B members keeps one list instead of B copies. Reads see the shifted ids;
// the first mutation makes the list its own (copy on write), so every reader and writer sees
// exactly the ids an explicit list would hold. Not thread-safe, like the tiling passes.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace ptoc {

// An op list shared by the members of a family (member 0's, local ids).
using SharedOps = std::shared_ptr<const std::vector<int>>;

class OpList {
 public:
  OpList() = default;
  OpList(std::vector<int> ids) : own_(std::move(ids)) {}  // NOLINT: a list of ids is an OpList
  OpList(std::initializer_list<int> ids) : own_(ids) {}
  // Member 0's `base` with `shift` added to every id.
  static OpList shifted(SharedOps base, int shift) {
    OpList l;
    l.base_ = std::move(base);
    l.shift_ = shift;
    return l;
  }

  OpList& operator=(std::vector<int> ids) {
    base_.reset();
    shift_ = 0;
    own_ = std::move(ids);
    return *this;
  }

  bool described() const { return base_ != nullptr; }
  size_t size() const { return base_ ? base_->size() : own_.size(); }
  bool empty() const { return size() == 0; }
  int operator[](size_t i) const { return base_ ? (*base_)[i] + shift_ : own_[i]; }
  int front() const { return (*this)[0]; }
  int back() const { return (*this)[size() - 1]; }

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = int;
    using difference_type = std::ptrdiff_t;
    using pointer = const int*;
    using reference = int;
    const_iterator() = default;
    const_iterator(const int* p, int shift) : p_(p), shift_(shift) {}
    int operator*() const { return *p_ + shift_; }
    int operator[](difference_type n) const { return p_[n] + shift_; }
    const_iterator& operator++() { ++p_; return *this; }
    const_iterator operator++(int) { auto t = *this; ++p_; return t; }
    const_iterator& operator--() { --p_; return *this; }
    const_iterator operator--(int) { auto t = *this; --p_; return t; }
    const_iterator& operator+=(difference_type n) { p_ += n; return *this; }
    const_iterator& operator-=(difference_type n) { p_ -= n; return *this; }
    friend const_iterator operator+(const_iterator a, difference_type n) { return a += n; }
    friend const_iterator operator+(difference_type n, const_iterator a) { return a += n; }
    friend const_iterator operator-(const_iterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const_iterator a, const_iterator b) { return a.p_ - b.p_; }
    friend bool operator==(const_iterator a, const_iterator b) { return a.p_ == b.p_; }
    friend bool operator!=(const_iterator a, const_iterator b) { return a.p_ != b.p_; }
    friend bool operator<(const_iterator a, const_iterator b) { return a.p_ < b.p_; }
    friend bool operator>(const_iterator a, const_iterator b) { return a.p_ > b.p_; }
    friend bool operator<=(const_iterator a, const_iterator b) { return a.p_ <= b.p_; }
    friend bool operator>=(const_iterator a, const_iterator b) { return a.p_ >= b.p_; }

   private:
    const int* p_ = nullptr;
    int shift_ = 0;
  };
  const_iterator begin() const { return base_ ? const_iterator(base_->data(), shift_) : const_iterator(own_.data(), 0); }
  const_iterator end() const { return begin() + std::ptrdiff_t(size()); }

  // The ids as a vector: a described list is made explicit first (a reader that needs a vector,
  // such as peak_bytes, pays for the copy only on the lists it reads).
  const std::vector<int>& vec() const {
    const_cast<OpList*>(this)->own();
    return own_;
  }
  // The list's own vector, to change it.
  std::vector<int>& mut() {
    own();
    return own_;
  }
  void push_back(int id) { mut().push_back(id); }
  void clear() { *this = std::vector<int>{}; }

  friend bool operator==(const OpList& a, const OpList& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  friend bool operator==(const OpList& a, const std::vector<int>& b) { return a == OpList::view(b); }
  friend bool operator!=(const OpList& a, const std::vector<int>& b) { return !(a == b); }
  friend bool operator!=(const OpList& a, const OpList& b) { return !(a == b); }

 private:
  // A non-owning look at b for comparisons (no copy).
  static OpList view(const std::vector<int>& b) {
    OpList l;
    l.base_ = std::shared_ptr<const std::vector<int>>(std::shared_ptr<void>(), &b);
    return l;
  }
  void own() {
    if (!base_) return;
    own_.resize(base_->size());
    for (size_t i = 0; i < own_.size(); ++i) own_[i] = (*base_)[i] + shift_;
    base_.reset();
    shift_ = 0;
  }

  std::vector<int> own_;
  SharedOps base_;  // non-null: a described list
  int shift_ = 0;
};

}  // namespace ptoc
