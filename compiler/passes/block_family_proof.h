// The family conditions of a root that is one matmul's output blocks, every block after the first
// a copy of it (block_replica.h), proved from block 0 and the copies' deltas instead of reading
// every member's ops (find_tile_family's seq_order_alike and check_gm visit each member).
//
// A copy's op j is block 0's op j with its id and seq moved by the block's op shift and its GM
// offsets moved by its operand's delta, extents unchanged. So:
// - program order: block 0's seqs equal its ids (checked here), a copy's equal its own ids, so every
//   member's GM accesses come in member 0's order;
// - inside a member: when every GM write of block 0 is operand W's, a member's writes are member
//   0's moved by one delta, and overlap (affine_box.h, constants only) does not change under a
//   common move: member 0's hazard pattern in every member;
// - across members: each member's write bounding box per tensor is member 0's moved by its W delta;
//   the boxes are swept as check_gm sweeps them (one box per member, no op read).
// The reads-versus-writes condition reads member 0's ops, as check_gm does.
#pragma once
#include "compiler/passes/block_replica.h"
#include "compiler/passes/tile_families.h"

namespace ptoc::tiling {

// True: the family `f` of `r` meets the order and GM conditions (what seq_order_alike and check_gm
// would accept). False: not proved this way (not all copies, a write of another operand, a symbolic
// offset, an overlap...): the member-by-member checks decide and give the reason.
bool copied_blocks_meet_family_conditions(const TileRoot& r, const TileFamily& f, const BlockCopies& c);

}  // namespace ptoc::tiling
