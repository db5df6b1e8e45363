#include "runtime/sim/l2_cache.h"

#include <algorithm>
#include <stdexcept>

namespace ptoc::sim {

L2Cache::L2Cache(uint64_t capacity_bytes, uint32_t line_bytes) {
  if (line_bytes == 0 || (line_bytes & (line_bytes - 1)) != 0)
    throw std::invalid_argument("L2 line size must be a power of two");
  shift_ = __builtin_ctz(line_bytes);
  cap_lines_ = std::max<uint64_t>(1, (capacity_bytes >> shift_) / kLinesPerGranule);  // in granules
  half_ = std::max<uint64_t>(1, cap_lines_ / 2);
}

uint64_t* L2Cache::page(uint64_t page_no) {
  if (page_no == last_page_no_) return last_page_;
  auto it = dir_.find(page_no);
  if (it == dir_.end()) {
    // A page none of whose granules was stamped in the last cap_lines_ clock ticks holds nothing
    // resident, now or later (the clock only grows): it behaves as an untouched page, so it is
    // recycled. Swept at most once per cap_lines_ ticks: the pages held stay about what the
    // capacity covers, however much GM a long run walks through.
    if (free_pages_.empty() && clock_ - last_sweep_ >= cap_lines_) {
      last_sweep_ = clock_;
      for (auto d = dir_.begin(); d != dir_.end();)
        if (clock_ - page_clock_[d->second] >= cap_lines_) {
          free_pages_.push_back(d->second);
          d = dir_.erase(d);
        } else {
          ++d;
        }
    }
    uint32_t index;
    if (!free_pages_.empty()) {
      index = free_pages_.back();
      free_pages_.pop_back();
      std::fill_n(pages_[index].get(), size_t(1) << kPageShift, uint64_t(0));
    } else {
      index = static_cast<uint32_t>(pages_.size());
      pages_.emplace_back(new uint64_t[size_t(1) << kPageShift]());  // zero = never touched
      page_clock_.push_back(0);
    }
    page_clock_[index] = clock_;
    it = dir_.emplace(page_no, index).first;
  }
  last_page_no_ = page_no;
  last_index_ = it->second;
  last_page_ = pages_[it->second].get();
  return last_page_;
}

namespace {
// Bits set in a byte (no popcnt instruction assumed on the host).
constexpr int bits8(unsigned m) { return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1) + ((m >> 4) & 1) +
                                         ((m >> 5) & 1) + ((m >> 6) & 1) + ((m >> 7) & 1); }
}  // namespace

// Entry layout: stamp << 8 | mask of the granule's lines present.
void L2Cache::access(uint64_t addr, uint64_t len, bool allocate, L2Result& r) {
  if (len == 0) return;
  const int gshift = shift_ + 3;
  const uint64_t end = addr + len;
  uint64_t g = addr >> gshift;
  const uint64_t glast = (end - 1) >> gshift;
  const uint64_t pmask = (uint64_t(1) << kPageShift) - 1;
  while (g <= glast) {
    uint64_t* pg = page(g >> kPageShift);
    const uint64_t limit = std::min(glast + 1, ((g >> kPageShift) + 1) << kPageShift);
    for (; g < limit; ++g) {
      const uint64_t lo = std::max(addr, g << gshift);
      const uint64_t hi = std::min(end, (g + 1) << gshift);
      const unsigned l0 = unsigned((lo >> shift_) & 7), l1 = unsigned(((hi - 1) >> shift_) & 7);
      const unsigned want = ((2u << l1) - 1) & ~((1u << l0) - 1);
      uint64_t& e = pg[g & pmask];
      const uint64_t st = e >> 8;
      const uint64_t age = clock_ - st;
      const bool resident = st != 0 && age < cap_lines_;
      const unsigned have = resident ? unsigned(e & 0xff) & want : 0;
      if (have == want) {
        r.hit_bytes += hi - lo;
        r.hit_lines += bits8(want);
      } else if (have == 0) {
        r.miss_bytes += hi - lo;
        r.miss_lines += bits8(want);
      } else {
        for (unsigned l = l0; l <= l1; ++l) {
          const uint64_t a = std::max(lo, (g << gshift) + (uint64_t(l) << shift_));
          const uint64_t b = std::min(hi, (g << gshift) + (uint64_t(l + 1) << shift_));
          if (have & (1u << l)) r.hit_bytes += b - a, ++r.hit_lines;
          else r.miss_bytes += b - a, ++r.miss_lines;
        }
      }
      if (!allocate) continue;
      if (!resident) e = (++clock_ << 8) | want;
      else if (age >= half_) e = (++clock_ << 8) | (unsigned(e & 0xff) | want);
      else e |= want;
    }
    if (allocate) page_clock_[last_index_] = clock_;
  }
}

}  // namespace ptoc::sim
