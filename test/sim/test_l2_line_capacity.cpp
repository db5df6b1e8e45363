// The L2 model's capacity is counted in lines (issue 15, runtime/sim/MODEL.md part 6): strided rows
// narrower than a granule take only the lines they hold, a working set that fits is reused whole
// and one that does not is not (LRU on a cyclic re-read), and slices sharing a boundary granule
// each keep their lines for a whole window (the board's L2-reuse case, scaled down).
#include <catch2/catch.hpp>

#include <cstdint>

#include "runtime/sim/l2_cache.h"

using ptoc::sim::L2Cache;
using ptoc::sim::L2Result;

namespace {
L2Result read_rows(L2Cache& c, uint64_t addr, uint64_t rows, uint64_t row_bytes, uint64_t stride) {
  L2Result r;
  c.access_rows(addr, rows, row_bytes, stride, true, r);
  return r;
}
}  // namespace

TEST_CASE("L2 capacity in lines: one-line rows 8 lines apart fill the cache line by line", "[sim][l2]") {
  // 1 MiB = 2048 lines. 2000 rows of one 512 B line, 4 KiB apart: 2000 granules hold 2000 lines,
  // 1 MB of data. Charged whole granules (8 lines each) they would need 8 MiB and miss on re-read.
  L2Cache c(1u << 20, 512);
  CHECK(c.capacity_lines() == 2048);
  const L2Result first = read_rows(c, 0, 2000, 512, 4096);
  CHECK(first.miss_lines == 2000);
  const L2Result again = read_rows(c, 0, 2000, 512, 4096);
  CHECK(again.hit_lines == 2000);
  CHECK(again.miss_lines == 0);
}

TEST_CASE("L2 capacity in lines: a cyclic re-read is reused whole below the capacity, not at all above it",
          "[sim][l2]") {
  // LRU on a cycle: every pass of W lines through a C-line cache hits all W if W <= C, none if W > C.
  // Rows of 3 lines (1.5 KiB) 8 KiB apart, so every row shares no granule with the next.
  for (const uint64_t rows : {600u, 680u, 690u, 1000u}) {
    L2Cache c(1u << 20, 512);  // 2048 lines
    const uint64_t lines = rows * 3;
    read_rows(c, 0, rows, 1536, 8192);
    uint64_t hits = 0, misses = 0;
    for (int pass = 0; pass < 3; ++pass) {
      const L2Result r = read_rows(c, 0, rows, 1536, 8192);
      hits += r.hit_lines;
      misses += r.miss_lines;
    }
    INFO(rows << " rows, " << lines << " lines against 2048");
    if (lines <= 2048) {
      CHECK(hits == 3 * lines);
      CHECK(misses == 0);
    } else {
      CHECK(hits == 0);
      CHECK(misses == 3 * lines);
    }
  }
}

TEST_CASE("L2 slices sharing boundary granules: each slice read 4 times in a row hits 3 of 4 reads", "[sim][l2]") {
  // The asc-devkit data_copy L2-reuse case scaled down 192x: a matrix of 64 rows of 24 KiB read in
  // 4 column slices of 6 KiB per row (12 lines, one and a half granules: slice 1 starts mid-granule),
  // each slice 4 times in a row. A slice is 768 lines (384 KiB); the cache holds 832 (416 KiB).
  // Charged whole granules (before), a slice took 1024 lines' worth and every read missed; with
  // lines charged but the old stamp kept on a join, slice 1's half of each boundary granule aged
  // from slice 0's last stamp and was lost one window early (the board case: 0.674 at 76 MiB).
  // A pass reads its slice as the board's kernel does: column tiles of 2 KiB (1024 fp16) in blocks
  // of 16 rows, so slice 1's first tile joins the boundary granule slice 0's last tile filled.
  L2Cache c(416u << 10, 512);
  uint64_t hits = 0, misses = 0;
  for (int slice = 0; slice < 4; ++slice) {
    for (int pass = 0; pass < 4; ++pass) {
      L2Result r;
      for (uint64_t tile = 0; tile < 3; ++tile)
        for (uint64_t row = 0; row < 64; row += 16)
          c.access_rows(uint64_t(slice) * 6144 + tile * 2048 + row * 24576, 16, 2048, 24576, true, r);
      INFO("slice " << slice << " pass " << pass);
      CHECK(r.hit_lines + r.miss_lines == 64 * 12);
      if (pass > 0) CHECK(r.miss_lines == 0);
      hits += r.hit_lines;
      misses += r.miss_lines;
    }
  }
  CHECK(hits == 3 * 4 * 64 * 12);
  CHECK(misses == 4 * 64 * 12);
  // The whole matrix read 4 times (3072 lines a pass through 832): every read misses.
  L2Cache whole(416u << 10, 512);
  uint64_t whole_hits = 0;
  for (int pass = 0; pass < 4; ++pass) whole_hits += read_rows(whole, 0, 64, 24576, 24576).hit_lines;
  CHECK(whole_hits == 0);
}
