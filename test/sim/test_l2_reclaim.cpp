// The L2 model's stamp pages are recycled once nothing in them can be resident (issue 12: a long
// run walking through GM kept 32 KiB per 16 MiB of GM ever touched, 7.7 MB per million tasks of a
// streaming loop): the pages held stay bounded, and hits and misses are those of the model.
#include <catch2/catch.hpp>

#include "runtime/sim/l2_cache.h"

using ptoc::sim::L2Cache;
using ptoc::sim::L2Result;

TEST_CASE("L2 stamp pages: a 64 GiB stream holds a bounded number of pages", "[sim][l2]") {
  L2Cache c(8u << 20, 512);  // 8 MiB: 2048 granules of 4 KiB; a page covers 16 MiB
  L2Result r;
  size_t most = 0;
  for (uint64_t a = 0; a < (64ull << 30); a += 1u << 20) {
    c.access(a, 1u << 20, true, r);
    most = std::max(most, c.pages_in_use());
  }
  CHECK(r.hit_lines == 0);
  CHECK(r.miss_lines == (64ull << 30) / 512);
  CHECK(most <= 3);  // the 8 MiB window spans at most 2 pages, plus the one being filled
}

TEST_CASE("L2 stamp pages: recycling changes no hit or miss", "[sim][l2]") {
  L2Cache c(8u << 20, 512);
  // Hot 4 MiB re-read between 1 MiB chunks of a 4 GiB stream: the hot set stays resident (its
  // granules re-stamped when they age past half the window), the stream always misses, the
  // stream's pages are recycled under the hot set's.
  const uint64_t hot = 1ull << 40;
  L2Result first;
  c.access(hot, 4u << 20, true, first);
  CHECK(first.miss_lines == 8192);
  uint64_t hot_hits = 0, hot_misses = 0, stream_hits = 0;
  for (uint64_t a = 0; a < (4ull << 30); a += 1u << 20) {
    L2Result s, h;
    c.access(a, 1u << 20, true, s);
    stream_hits += s.hit_lines;
    c.access(hot, 4u << 20, true, h);
    hot_hits += h.hit_lines;
    hot_misses += h.miss_lines;
  }
  CHECK(stream_hits == 0);
  CHECK(hot_misses == 0);
  CHECK(hot_hits == 4096ull * 8192);
  CHECK(c.pages_in_use() <= 3);
  // A stream chunk long gone is a miss again; the last one is still a hit.
  L2Result old, recent;
  c.access(0, 1u << 20, true, old);
  CHECK(old.miss_lines == 2048);
  c.access((4ull << 30) - (1u << 20), 1u << 20, true, recent);
  CHECK(recent.hit_lines == 2048);
}
