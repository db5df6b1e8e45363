#include "runtime/sim/shared_bandwidth.h"

#include <algorithm>
#include <cmath>

namespace ptoc::sim {

double SharedBandwidth::rate() const {
  if (heap_.empty()) return cap_;
  return std::min(cap_, total_ / double(heap_.size()));
}

void SharedBandwidth::advance(int64_t now) {
  if (now > t_ && !heap_.empty()) v_ += rate() * double(now - t_);
  t_ = std::max(t_, now);
}

void SharedBandwidth::add(int64_t now, uint32_t id, double bytes) {
  advance(now);
  heap_.push_back({v_ + bytes, order_++, id});
  std::push_heap(heap_.begin(), heap_.end(), later);
}

int64_t SharedBandwidth::next_finish() const {
  if (heap_.empty()) return -1;
  const double left = std::max(0.0, heap_.front().key - v_);
  return t_ + static_cast<int64_t>(std::ceil(left / rate()));
}

void SharedBandwidth::pop_finished(int64_t now, std::vector<uint32_t>& out) {
  advance(now);
  // 1e-6 byte tolerance: the finish time was rounded up to a whole ps.
  while (!heap_.empty() && heap_.front().key <= v_ + 1e-6) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    out.push_back(heap_.back().id);
    heap_.pop_back();
  }
}

}  // namespace ptoc::sim
