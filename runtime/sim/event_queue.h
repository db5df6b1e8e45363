// The model's event list: a binary min-heap of small PODs ordered by (time,
// creation order), so simultaneous events run in the order they were made
// and every run is identical. No allocation once the heap has grown.
#pragma once
#include <algorithm>
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
    heap_.push_back({t, order_++, kind, a});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    Event e = heap_.back();
    heap_.pop_back();
    return e;
  }
  bool empty() const { return heap_.empty(); }
  uint64_t pushed() const { return order_; }

 private:
  static bool later(const Event& x, const Event& y) { return x.t != y.t ? x.t > y.t : x.order > y.order; }
  std::vector<Event> heap_;
  uint64_t order_ = 0;
};

}  // namespace ptoc::sim
