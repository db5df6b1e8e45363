#include "runtime/sim/l2_cache.h"

#include <algorithm>
#include <stdexcept>

namespace ptoc::sim {

L2Cache::L2Cache(uint64_t capacity_bytes, uint32_t line_bytes) {
  if (line_bytes == 0 || (line_bytes & (line_bytes - 1)) != 0)
    throw std::invalid_argument("L2 line size must be a power of two");
  shift_ = __builtin_ctz(line_bytes);
  // In lines: the clock counts lines stamped, so a granule holding 1 of its 8 lines (a 512 B row of a
  // strided tile) takes 1 line of the capacity, not 8 (issue 15, MODEL.md part 6).
  cap_lines_ = std::max<uint64_t>(kLinesPerGranule, capacity_bytes >> shift_);
  half_ = std::max<uint64_t>(1, cap_lines_ / 2);
}

uint64_t* L2Cache::switch_page(uint64_t page_no, uint64_t clock) {
  if (last_page_) page_clock_[last_index_] = clock;  // the page left holds no stamp newer than clock
  clock_ = clock;
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
// Bits set in a byte, by table (no popcnt instruction assumed on the host).
struct Bits8 {
  uint8_t n[256];
  constexpr Bits8() : n() {
    for (int m = 0; m < 256; ++m) n[m] = uint8_t((m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1) +
                                                ((m >> 4) & 1) + ((m >> 5) & 1) + ((m >> 6) & 1) + ((m >> 7) & 1));
  }
};
constexpr Bits8 kBits8;
}  // namespace

// Entry layout: stamp << 8 | mask of the granule's lines present. The counts and the clock live in locals
// for the whole call (through r they could alias the page entries, which are uint64_t too).
void L2Cache::access_rows(uint64_t addr, uint64_t rows, uint64_t row_bytes, uint64_t stride, bool allocate,
                          L2Result& r) {
  if (row_bytes == 0 || rows == 0) return;
  const int shift = shift_, gshift = shift + 3;
  const uint64_t pmask = (uint64_t(1) << kPageShift) - 1;
  const uint64_t cap = cap_lines_, half = half_;
  uint64_t clock = clock_, hit_bytes = 0, miss_bytes = 0;
  uint32_t hit_lines = 0, miss_lines = 0;
  const uint64_t gbytes = uint64_t(1) << gshift, off = addr & (gbytes - 1);
  // One granule entry touched on the lines in `want` (`bytes` in all, `line_part(l)` on line l): counts
  // hits and misses and, when allocating, stamps it.
  auto touch = [&](uint64_t& e, unsigned want, unsigned nwant, uint64_t bytes, unsigned l0, unsigned l1,
                   auto&& line_part) {
    const uint64_t st = e >> 8;
    const uint64_t age = clock - st;  // lines stamped since this granule's stamp
    const unsigned mask = unsigned(e & 0xff);
    const bool resident = st != 0 && age + kBits8.n[mask] <= cap;
    const unsigned have = resident ? mask & want : 0;
    if (have == want) {
      hit_bytes += bytes;
      hit_lines += nwant;
    } else if (have == 0) {
      miss_bytes += bytes;
      miss_lines += nwant;
    } else {
      for (unsigned l = l0; l <= l1; ++l) {
        if (have & (1u << l)) hit_bytes += line_part(l), ++hit_lines;
        else miss_bytes += line_part(l), ++miss_lines;
      }
    }
    if (!allocate) return;
    // Every stamp advances the clock by the lines it stamps: an allocation by the lines brought in, a
    // refresh (a granule in the older half of the window) by the lines touched, and lines joining a
    // granule in the younger half by the lines added. A join re-stamps the granule: its new lines
    // must age from now, not from the granule's last stamp (with the old stamp, the second of two
    // slices sharing a boundary granule lost those lines one window early: the board's 75.5 MB
    // slices hit 0.674 instead of 0.75 at 76 MiB).
    if (!resident) {
      clock += nwant;
      e = (clock << 8) | want;
    } else if (age >= half) {
      clock += nwant;
      e = (clock << 8) | (mask | want);
    } else if (const unsigned added = want & ~mask) {
      clock += kBits8.n[added];
      e = (clock << 8) | (mask | want);
    }
  };
  if (rows > 1 && stride % gbytes == 0 && off + row_bytes <= gbytes) {
    // Every row covers the same lines of its own granule (NZ fractal rows, tiles of granule-aligned
    // rows): the mask and each line's bytes are the same for all rows; only the granule moves.
    const unsigned l0 = unsigned(off >> shift), l1 = unsigned((off + row_bytes - 1) >> shift);
    const unsigned want = ((2u << l1) - 1) & ~((1u << l0) - 1), nwant = kBits8.n[want];
    uint64_t line_bytes[8] = {};
    for (unsigned l = l0; l <= l1; ++l)
      line_bytes[l] = std::min(off + row_bytes, uint64_t(l + 1) << shift) - std::max(off, uint64_t(l) << shift);
    uint64_t g = addr >> gshift;
    const uint64_t gstep = stride >> gshift;
    uint64_t page_no = g >> kPageShift;
    uint64_t* pg = page(page_no, clock);
    for (uint64_t k = 0; k < rows; ++k, g += gstep) {
      if ((g >> kPageShift) != page_no) page_no = g >> kPageShift, pg = page(page_no, clock);
      touch(pg[g & pmask], want, nwant, row_bytes, l0, l1, [&](unsigned l) { return line_bytes[l]; });
    }
  } else {
    for (uint64_t k = 0; k < rows; ++k) {
      const uint64_t start = addr + k * stride, end = start + row_bytes;
      uint64_t g = start >> gshift;
      const uint64_t glast = (end - 1) >> gshift;
      while (g <= glast) {
        uint64_t* pg = page(g >> kPageShift, clock);
        const uint64_t limit = std::min(glast + 1, ((g >> kPageShift) + 1) << kPageShift);
        for (; g < limit; ++g) {
          const uint64_t lo = std::max(start, g << gshift);
          const uint64_t hi = std::min(end, (g + 1) << gshift);
          const unsigned l0 = unsigned((lo >> shift) & 7), l1 = unsigned(((hi - 1) >> shift) & 7);
          const unsigned want = ((2u << l1) - 1) & ~((1u << l0) - 1);
          touch(pg[g & pmask], want, kBits8.n[want], hi - lo, l0, l1, [&](unsigned l) {
            return std::min(hi, (g << gshift) + (uint64_t(l + 1) << shift)) -
                   std::max(lo, (g << gshift) + (uint64_t(l) << shift));
          });
        }
      }
    }
  }
  clock_ = clock;
  if (allocate && last_page_) page_clock_[last_index_] = clock;
  r.hit_bytes += hit_bytes;
  r.miss_bytes += miss_bytes;
  r.hit_lines += hit_lines;
  r.miss_lines += miss_lines;
}

}  // namespace ptoc::sim
