// The model's event list: a 4-ary min-heap of small PODs ordered by (time,
// creation order), so simultaneous events run in the order they were made
// and every run is identical. 4-ary: half the depth of a binary heap, and a
// node's children share a cache line. No allocation once the heap has grown.
#pragma once
#include <cstdint>
#include <vector>

namespace ptoc::sim {

struct Event {
  int64_t t;
  uint64_t order;
  uint32_t kind;
  uint32_t a;
};

class EventQueue {
 public:
  EventQueue() { heap_.reserve(1024); }
  void push(int64_t t, uint32_t kind, uint32_t a) {
    const Event e{t, order_++, kind, a};
    size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      const size_t p = (i - 1) / 4;
      if (!before(e, heap_[p])) break;
      heap_[i] = heap_[p];
      i = p;
    }
    heap_[i] = e;
  }
  Event pop() {
    const Event top = heap_[0];
    const Event last = heap_.back();
    heap_.pop_back();
    const size_t n = heap_.size();
    if (n == 0) return top;
    size_t i = 0;
    for (;;) {
      const size_t c = 4 * i + 1;
      if (c >= n) break;
      size_t best = c;
      const size_t end = c + 4 < n ? c + 4 : n;
      for (size_t j = c + 1; j < end; ++j)
        if (before(heap_[j], heap_[best])) best = j;
      if (!before(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
    return top;
  }
  bool empty() const { return heap_.empty(); }
  uint64_t pushed() const { return order_; }

 private:
  static bool before(const Event& x, const Event& y) { return x.t != y.t ? x.t < y.t : x.order < y.order; }
  std::vector<Event> heap_;
  uint64_t order_ = 0;
};

}  // namespace ptoc::sim
