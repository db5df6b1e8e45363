#include "runtime/sim/l2_cache.h"

#include <algorithm>
#include <stdexcept>

namespace ptoc::sim {

L2Cache::L2Cache(uint64_t capacity_bytes, uint32_t line_bytes) {
  if (line_bytes == 0 || (line_bytes & (line_bytes - 1)) != 0)
    throw std::invalid_argument("L2 line size must be a power of two");
  shift_ = __builtin_ctz(line_bytes);
  cap_lines_ = std::max<uint64_t>(1, capacity_bytes >> shift_);
  half_ = std::max<uint64_t>(1, cap_lines_ / 2);
}

uint64_t* L2Cache::page(uint64_t page_no) {
  if (page_no == last_page_no_) return last_page_;
  auto [it, fresh] = dir_.try_emplace(page_no, static_cast<uint32_t>(pages_.size()));
  if (fresh) pages_.emplace_back(new uint64_t[size_t(1) << kPageShift]());  // zero = never touched
  last_page_no_ = page_no;
  last_page_ = pages_[it->second].get();
  return last_page_;
}

void L2Cache::access(uint64_t addr, uint64_t len, bool allocate, L2Result& r) {
  if (len == 0) return;
  const uint64_t end = addr + len;
  uint64_t line = addr >> shift_;
  const uint64_t last = (end - 1) >> shift_;
  while (line <= last) {
    uint64_t* pg = page(line >> kPageShift);
    const uint64_t page_limit = std::min(last + 1, ((line >> kPageShift) + 1) << kPageShift);
    for (; line < page_limit; ++line) {
      const uint64_t lo = std::max(addr, line << shift_);
      const uint64_t hi = std::min(end, (line + 1) << shift_);
      uint64_t& st = pg[line & ((uint64_t(1) << kPageShift) - 1)];
      const uint64_t age = clock_ - st;
      if (st != 0 && age < cap_lines_) {
        r.hit_bytes += hi - lo;
        ++r.hit_lines;
        if (allocate && age >= half_) st = ++clock_;
      } else {
        r.miss_bytes += hi - lo;
        ++r.miss_lines;
        if (allocate) st = ++clock_;
      }
    }
  }
}

}  // namespace ptoc::sim
