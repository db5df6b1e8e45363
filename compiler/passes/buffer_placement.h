// The step sweep of buffer_plan.cpp: addresses for a leaf's buffers given their live ranges, aligned
// sizes and in-place takeovers. Two implementations with the same placements:
// - place_buffers_indexed: per memory, segment trees over the address grid (cells of the memory's
//   alignment): which cells are held, how recently each was released, where candidate addresses lie;
//   releases from a heap by last step, in-place sources found by tile. A placement costs O(log cells)
//   for each candidate it has to look at, found best first, instead of rebuilding and sorting the live
//   list and scanning every released range per tile (quadratic in a leaf's live tiles: fuzz seed
//   9006604, leaves of thousands of live one-element buffers).
// - place_buffers_scan: the straightforward sweep it replaces (the unit test's reference, and the
//   planner for leaves with an empty buffer, whose address may coincide with a live one's).
#pragma once
#include <array>
#include <map>
#include <optional>

#include "compiler/passes/backend.h"

namespace ptoc {

struct PlacementLimits {
  std::array<int64_t, kNumMemKinds> capacity{}, alignment{};
};

// `slots` by tile id (sizes aligned, ranges in steps), `inherit`: in-place result -> source. Sets the
// addresses and `peak` (highest address in use per memory), or returns the first tile that finds no room.
std::optional<BufferOverflow> place_buffers_scan(std::map<int, BufferSlot>& slots, const std::map<int, int>& inherit,
                                                 const PlacementLimits& lim, PlacePolicy policy,
                                                 std::array<int64_t, kNumMemKinds>& peak);
std::optional<BufferOverflow> place_buffers_indexed(std::map<int, BufferSlot>& slots,
                                                    const std::map<int, int>& inherit, const PlacementLimits& lim,
                                                    PlacePolicy policy, std::array<int64_t, kNumMemKinds>& peak);

}  // namespace ptoc
