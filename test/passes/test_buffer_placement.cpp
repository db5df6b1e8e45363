// The indexed buffer placement (compiler/passes/buffer_placement.cpp) against the straightforward scan
// it replaced, on random interval sets: both policies, in-place takeovers, two memories, capacities
// small enough that memory fragments and placements overflow. Same addresses, peaks and overflow reports.
#include <catch2/catch.hpp>

#include <random>

#include "compiler/passes/buffer_placement.h"

using namespace ptoc;

namespace {

struct Case {
  std::map<int, BufferSlot> slots;
  std::map<int, int> inherit;
};

Case random_case(std::mt19937& rng, int n, int steps, int max_cells) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Case c;
  for (int t = 0; t < n; ++t) {
    BufferSlot s;
    s.tile = t * 2 + pick(0, 1);  // ids with gaps, still ascending
    s.mem = pick(0, 4) == 0 ? MemKind::L1 : MemKind::UB;
    s.size = 32 * pick(1, max_cells);
    s.first = pick(0, steps - 1);
    s.last = std::min(steps - 1, s.first + pick(0, steps / 4));
    c.slots[s.tile] = s;
  }
  // In place: a later result starting at the step where a same-size source of the same memory ends.
  for (auto& [id, d] : c.slots) {
    if (pick(0, 2) != 0) continue;
    for (auto& [sid, s] : c.slots) {
      if (sid >= id) break;
      if (s.last == d.first && s.size == d.size && s.mem == d.mem && !c.inherit.count(id)) {
        bool used = false;
        for (auto& [r, src] : c.inherit) used |= src == sid;
        if (!used) c.inherit[id] = sid;
      }
    }
  }
  return c;
}

void same_result(std::mt19937& rng, PlacePolicy policy, int n, int steps, int max_cells, int64_t cap_cells) {
  Case c = random_case(rng, n, steps, max_cells);
  PlacementLimits lim;
  lim.alignment.fill(32);
  lim.capacity.fill(32 * cap_cells);
  lim.capacity[int(MemKind::L1)] = 32 * (cap_cells / 2 + 1);
  std::map<int, BufferSlot> a = c.slots, b = c.slots;
  std::array<int64_t, kNumMemKinds> pa{}, pb{};
  auto oa = place_buffers_scan(a, c.inherit, lim, policy, pa);
  auto ob = place_buffers_indexed(b, c.inherit, lim, policy, pb);
  REQUIRE(oa.has_value() == ob.has_value());
  CHECK(pa == pb);
  if (oa) {
    CHECK(oa->step == ob->step);
    CHECK(oa->tile == ob->tile);
    CHECK(oa->needed == ob->needed);
    CHECK(oa->live == ob->live);
    CHECK(oa->live_tiles == ob->live_tiles);
    CHECK(oa->largest_free == ob->largest_free);
    REQUIRE(oa->live_slots.size() == ob->live_slots.size());
    for (size_t i = 0; i < oa->live_slots.size(); ++i) {
      CHECK(oa->live_slots[i].tile == ob->live_slots[i].tile);
      CHECK(oa->live_slots[i].addr == ob->live_slots[i].addr);
    }
  }
  // Addresses of every tile placed before any overflow.
  for (auto& [id, s] : a) CHECK(s.addr == b.at(id).addr);
}

}  // namespace

TEST_CASE("indexed placement equals the scan on random interval sets (Spread)", "[buffer_plan][placement]") {
  std::mt19937 rng(20261202);
  for (int trial = 0; trial < 300; ++trial)
    same_result(rng, PlacePolicy::Spread, 10 + trial % 90, 40 + trial % 60, 1 + trial % 6, 24 + trial % 40);
}

TEST_CASE("indexed placement equals the scan on random interval sets (FirstFit)", "[buffer_plan][placement]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial)
    same_result(rng, PlacePolicy::FirstFit, 10 + trial % 90, 40 + trial % 60, 1 + trial % 6, 24 + trial % 40);
}

TEST_CASE("indexed placement: thousands of one-cell buffers, as seed 9006604's leaves", "[buffer_plan][placement]") {
  // The same results for a leaf of 3000 one-cell buffers, each live over a window of the sweep.
  std::mt19937 rng(9006604);
  for (PlacePolicy p : {PlacePolicy::Spread, PlacePolicy::FirstFit}) same_result(rng, p, 3000, 6000, 1, 6144);
}
