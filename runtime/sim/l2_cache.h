// The L2 model: a cache of `capacity` bytes in lines of `line_bytes`, with
// approximate LRU replacement kept in flat stamp pages (no per-access
// allocation). For speed, lines are grouped in granules of 8: one entry per
// granule holds a replacement stamp and an 8-bit mask of the lines present,
// so hits and misses are exact per line, and so is the capacity: a granule
// holding k of its lines takes k lines of it (strided rows narrower than a
// granule are not charged whole granules).
//
// Replacement: the global clock counts lines stamped; every allocation,
// refresh or join advances it by the lines it stamps, and a granule is
// resident while the lines stamped after it plus its own fit the capacity.
// A hit on a line in the younger half of that window does not re-stamp it
// (the two-list trick of CLOCK/Linux), so re-reading hot data does not push
// other lines out; lines joining a young granule re-stamp it.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ptoc::sim {

struct L2Result {
  uint64_t hit_bytes = 0, miss_bytes = 0;
  uint32_t hit_lines = 0, miss_lines = 0;
};

class L2Cache {
 public:
  L2Cache(uint64_t capacity_bytes, uint32_t line_bytes);
  // Touch [addr, addr+len). allocate=false (cache_policy bypass): misses do not
  // allocate and hits do not refresh.
  void access(uint64_t addr, uint64_t len, bool allocate, L2Result& r) { access_rows(addr, 1, len, 0, allocate, r); }
  // Touch `rows` runs of `row_bytes` at addr, addr+stride, ...: the same as one access() per row, in
  // row order, without a call (and a page lookup) per row.
  void access_rows(uint64_t addr, uint64_t rows, uint64_t row_bytes, uint64_t stride, bool allocate, L2Result& r);
  uint64_t capacity_lines() const { return cap_lines_; }  // the capacity kept, in lines
  uint32_t line_bytes() const { return 1u << shift_; }
  static constexpr int kLinesPerGranule = 8;
  // Stamp pages held now: bounded by what can be resident, not by the GM touched over the run
  // (a page whose every granule aged out is recycled: it reads as never touched, as before).
  size_t pages_in_use() const { return dir_.size(); }

 private:
  static constexpr int kPageShift = 12;  // 4096 granules per page
  // `clock` is the caller's running clock (access_rows keeps it in a local): it is stored before a
  // page switch so that the sweep for dead pages sees every stamp made so far.
  uint64_t* page(uint64_t page_no, uint64_t clock) {
    return page_no == last_page_no_ ? last_page_ : switch_page(page_no, clock);
  }
  uint64_t* switch_page(uint64_t page_no, uint64_t clock);
  uint64_t cap_lines_, half_;
  uint64_t clock_ = 0;
  int shift_;
  std::unordered_map<uint64_t, uint32_t> dir_;
  std::vector<std::unique_ptr<uint64_t[]>> pages_;
  std::vector<uint64_t> page_clock_;  // per page: a clock >= every stamp in it
  std::vector<uint32_t> free_pages_;  // recycled, zeroed on reuse
  uint64_t last_sweep_ = 0;           // clock_ at the last sweep for dead pages
  uint64_t last_page_no_ = ~0ull;
  uint64_t* last_page_ = nullptr;
  uint32_t last_index_ = 0;
};

}  // namespace ptoc::sim
