// Tile families: a root whose expanded tile ops are B isomorphic copies of one
// block (a matmul's output tiles, an elementwise statement's tiles, the same
// structure per tile row) is partitioned and depth-merged on its first block
// only, and the resulting subgraphs are replicated for the other members. The
// breadth merges then run on the replicated subgraphs with their subgraph graph
// known by rule (no GM hazard scan over the whole root), and successor edges
// come from the same graph. The result is the TileRoot the explicit path gives,
// op for op and subgraph for subgraph (test/family checks bundles byte for byte).
//
// Members need not be contiguous: the ops are a sequence of segments, each the
// B members' blocks of that segment one after the other (an elementwise
// statement: every member's copy-in and op, then every member's copy-out at
// the assemble). Member k is its block of every segment.
//
// A root qualifies (find_tile_family) when its ops split into such segments
// with one member count B >= 2, and:
// - op j of member k is op j of member 0 with every tile moved to member k's
//   copy (member 0's ops touch only member 0's tiles, each tile belongs to the
//   segment block of its first writer), equal kind and attributes, equal source
//   op and chain, the same GM tensor, rank and view (offsets and valid extents
//   may differ: tails), and a program position (seq) moved by one amount per
//   member; member k's tiles have member 0's memory, dtype, static shape, layout;
// - no op reads a GM tensor the root writes (so the only GM hazards are between
//   writes), the writes of each member hazard each other as member 0's do, and
//   the write boxes of two members never overlap (each tensor's offsets have one
//   symbolic part per axis and constant-bounded extents);
// - no op is in a parallel_merge scope (it packs branches across members).
// Partition on member 0 (renumbered in order) must then make no cut, reload or
// temp, else the root takes the explicit path: member k's groups are member 0's.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir.h"
#include "compiler/passes/tile_graph.h"

namespace ptoc::tiling {

struct Builder;

// B members' blocks of `ops_per` ops and `tiles_per` tiles, from `op_begin` / `tile_begin` on.
struct FamilySegment {
  int op_begin = 0, ops_per = 0, tile_begin = 0, tiles_per = 0;
};

struct TileFamily {
  int members = 0;    // B
  int ops_per = 0;    // P: ops of one member (all segments)
  int tiles_per = 0;  // T: tiles of one member
  std::vector<FamilySegment> segments;
  // Per member: its ops' GM extents and its tiles' valid extents are member 0's, as constants or
  // both symbolic (no tail), so its leaves have member 0's LeafShaper keys (leaf_classes.cpp).
  std::vector<char> alike;
  // Member k's op j (j in [0, P), member 0's ops in id order) and tile t; and back: (member, j).
  // Inline with a one-segment fast path (a matmul's blocks): called per op and tile of every member.
  int op(int k, int j) const {
    if (segments.size() == 1) {
      const FamilySegment& s = segments[0];
      return j < s.ops_per ? s.op_begin + k * s.ops_per + j : -1;
    }
    return op_slow(k, j);
  }
  int tile(int k, int t) const {
    if (segments.size() == 1) {
      const FamilySegment& s = segments[0];
      return t < s.tiles_per ? s.tile_begin + k * s.tiles_per + t : -1;
    }
    return tile_slow(k, t);
  }
  std::pair<int, int> op_member(int op) const;
  std::pair<int, int> tile_member(int t) const {
    if (segments.size() == 1) {
      const FamilySegment& s = segments[0];
      if (s.tiles_per > 0 && t >= s.tile_begin && t < s.tile_begin + members * s.tiles_per)
        return {(t - s.tile_begin) / s.tiles_per, (t - s.tile_begin) % s.tiles_per};
      return {-1, -1};
    }
    return tile_member_slow(t);
  }

 private:
  int op_slow(int k, int j) const;
  int tile_slow(int k, int t) const;
  std::pair<int, int> tile_member_slow(int t) const;
};

// Expansion's own block structure (a matmul's output blocks, tile_expand_cube.cpp), checked block by
// block right after each is emitted (its ops still in cache) with the tests find_tile_family applies
// to a repeated block; the family search takes it instead of walking the root again when it covers
// every op and tile of the root.
struct EmittedBlocks {
  FamilySegment seg;     // block 0 (its ops from op 0, its tiles from tile 0)
  int blocks = 0;        // blocks checked, block 0 included
  bool broken = false;   // a block is not block 0 moved (or not where expected): the search decides
  std::vector<char> alike;  // per block: as TileFamily::alike
};
// The blocks are the whole root, each checked: the family is theirs, found with no search.
bool emitted_blocks_cover(const EmittedBlocks& eb, const TileRoot& r);
// Checks the block just emitted, ops [op_begin, op_end), against block 0 (the first call: it is block 0).
// `first_writer`: Builder::tile_writer.
void check_emitted_block(const TileRoot& r, const std::vector<int>& first_writer, int op_begin, int op_end,
                         EmittedBlocks& eb);

// The family of a freshly expanded root, or why it has none (`reason`).
struct FamilyCheck {
  std::optional<TileFamily> family;
  std::string reason;
};
FamilyCheck find_tile_family(const Program& prog, const TileRoot& r);
// The same, given what expansion already knows (Builder::tile_writer: each tile's first writer) and
// the root template's ops: no walk over the tile ops for them (the ops are most of a large root's
// memory). A template op in a parallel_merge scope refuses the root even if it made no tile op.
// With `copies` (Builder::block_copies) covering every block, the order and GM conditions are
// proved from block 0 and the deltas (block_family_proof.h) instead of member by member.
struct BlockCopies;  // block_replica.h
FamilyCheck find_tile_family(const Program& prog, const TileRoot& r, const RootTemplate& rt,
                             const std::vector<int>& first_writer, const EmittedBlocks* emitted = nullptr,
                             const BlockCopies* copies = nullptr);

// The subgraphs of a family root after finalize_subgraphs, when every one is a plain copy of a
// subgraph of member 0 (nothing merged by the breadth merges): member k's copy of member 0's
// subgraph j runs member 0's ops of j, each moved to member k, in the same order.

struct FamilyReplicas {
  TileFamily family;
  // Expansion's block copies when the members are a matmul's copied output blocks; null: none.
  std::shared_ptr<const BlockCopies> copies;
  std::vector<int> member, local;  // per subgraph (TileRoot::subgraphs index): k and j
  std::vector<int> of_member0;     // per subgraph j of member 0: its TileRoot::subgraphs index
  // Member k's tile playing the part of member 0's tile t0.
  int tile_of(int k, int t0) const {
    if (family.segments.size() == 1) {  // a member-0 tile of one segment: moved by k tiles per member
      const FamilySegment& s = family.segments[0];
      if (t0 >= s.tile_begin && t0 < s.tile_begin + s.tiles_per) return t0 + k * s.tiles_per;
    }
    return family.tile(k, family.tile_member(t0).second);
  }
};
// The replica map of a family root after its breadth merges and finalize_subgraphs, given member
// 0's subgraphs (op lists, local ids) from partition_family; null when a subgraph is not a copy.
std::shared_ptr<const FamilyReplicas> family_replicas(const TileRoot& r, const TileFamily& f,
                                                      const std::vector<SharedOps>& member0_subgraphs);

// Partition of a family root: member 0 partitioned alone, its subgraphs replicated, the
// statistics and merge lines those of the explicit partition. Also sets b.family_graph (the
// subgraph graph, replicated). False (root untouched): member 0 needed a cut or failed to
// fit; the caller runs the explicit partition.
bool partition_family(Builder& b, const TileFamily& f);

}  // namespace ptoc::tiling
