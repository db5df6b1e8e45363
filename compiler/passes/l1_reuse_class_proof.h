// L1Reuse's once-per-class proof that no member of a tile family class can absorb another.
//
// In a root whose members are a matmul's copied output blocks (block_replica.h), every member of
// an L1Reuse class is member 0's subgraph j moved by its block's per-operand offset deltas. Member
// m's copy of feature i and anchor a's copy of feature i' share a key exactly when their shapes are
// equal and off0(i) - off0(i') = delta_a - delta_m for their operand. When no nonzero difference of
// member 0's same-shape offsets is a difference of two members' deltas, a pair shares all of an
// operand's keys (equal deltas) or none, so the tentative merge of any pair is fixed by E, the set of
// operands whose deltas are equal: one pair per E that occurs is asked (absorb_fits), instead of
// every member looking up and registering its keys and trying every anchor. When all are refused,
// the member loop would refuse every attempt it makes, so it merges nothing.
#pragma once
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "compiler/passes/l1_reuse_keys.h"

namespace ptoc::tiling {

// True: no member of `members` (one L1Reuse class, in its order) can absorb another. False: not
// proved (the members are not all copies of member 0's subgraph j, the keys may match partially,
// or some pair fits): the caller runs its member loop. `f0`, `copies`: member 0's features of j and
// the copies' positions, as the member loop reads them. `moved_keys` counts the keys moved.
bool no_member_can_merge(Builder& b, const BlockCopies& c, const std::vector<int>& members, int j,
                         const std::vector<Feature>& f0, const std::vector<std::pair<size_t, char>>& copies,
                         const std::function<SgGraph&()>& graph, int64_t& moved_keys);

}  // namespace ptoc::tiling
