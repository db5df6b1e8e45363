// L2Cache::access_rows (the strided-row walk the machine model's memory slices use) against one
// access() per row: the same hits, misses and bytes for every call, and the same cache state after.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>

#include "runtime/sim/l2_cache.h"

using namespace ptoc::sim;

namespace {
bool same(const L2Result& a, const L2Result& b) {
  return a.hit_bytes == b.hit_bytes && a.miss_bytes == b.miss_bytes && a.hit_lines == b.hit_lines &&
         a.miss_lines == b.miss_lines;
}
}  // namespace

TEST_CASE("access_rows equals one access per row, on every row shape and cache state", "[sim][l2]") {
  std::mt19937_64 rng(20261202);
  // A small cache (64 KiB: 16 granules) so that eviction, refresh and partial granules all happen.
  L2Cache rows_cache(64 * 1024, 512), each_cache(64 * 1024, 512);
  const uint64_t strides[] = {0, 512, 4096, 8192, 12288, 4096 * 5, 700, 3000, 6144, 100};
  const uint64_t widths[] = {1, 32, 100, 128, 512, 513, 1000, 4096, 4097, 9000};
  uint64_t fast_path_calls = 0, partial_hits = 0;
  for (int call = 0; call < 4000; ++call) {
    const uint64_t addr = (rng() % (1u << 20)) & ~uint64_t(rng() % 2 ? 0 : 511);  // some line-aligned
    const uint64_t rows = 1 + rng() % 40;
    const uint64_t stride = strides[rng() % 10], width = widths[rng() % 10];
    const bool alloc = rng() % 8 != 0;  // some bypass accesses
    L2Result a, b;
    rows_cache.access_rows(addr, rows, width, stride, alloc, a);
    for (uint64_t k = 0; k < rows; ++k) each_cache.access(addr + k * stride, width, alloc, b);
    INFO("call " << call << " addr " << addr << " rows " << rows << " stride " << stride << " width " << width);
    REQUIRE(same(a, b));
    REQUIRE(a.hit_bytes + a.miss_bytes == rows * width);
    fast_path_calls += rows > 1 && stride % 4096 == 0 && (addr % 4096) + width <= 4096;
    partial_hits += a.hit_bytes > 0 && a.miss_bytes > 0;
  }
  CHECK(fast_path_calls > 100);  // the equal-granule-offset walk was exercised
  CHECK(partial_hits > 100);     // and mixed hit/miss rows
  // Same state: probing every granule of the range gives the same answer on both.
  for (uint64_t g = 0; g < (1u << 20) / 4096 + 4; ++g) {
    L2Result a, b;
    rows_cache.access(g * 4096, 4096, false, a);
    each_cache.access(g * 4096, 4096, false, b);
    REQUIRE(same(a, b));
  }
}

TEST_CASE("access_rows on rows of one line per granule: hits after a first pass, misses after eviction",
          "[sim][l2]") {
  L2Cache c(1u << 20, 512);  // 256 granules
  L2Result first, second;
  c.access_rows(0, 128, 512, 8192, true, first);  // 128 rows, one line each, 2 granules apart
  CHECK(first.miss_lines == 128);
  CHECK(first.miss_bytes == 128 * 512);
  c.access_rows(0, 128, 512, 8192, true, second);
  CHECK(second.hit_lines == 128);
  CHECK(second.hit_bytes == 128 * 512);
  L2Result other;
  c.access_rows(256, 128, 256, 8192, true, other);  // the second half of the same lines: present
  CHECK(other.hit_bytes == 128 * 256);
  L2Result flood, after;
  c.access(1u << 24, 2u << 20, true, flood);  // 2 MiB stream evicts everything
  c.access_rows(0, 128, 512, 8192, true, after);
  CHECK(after.miss_lines == 128);
}
