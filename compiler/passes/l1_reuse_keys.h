// L1Reuse's keys (l1_reuse.cpp, l1_reuse_class_proof.cpp): what each L1 copy of a cube subgraph
// reads, built from its op's text or, for a copied matmul block, moved from member 0's.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/passes/block_replica.h"
#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

// What an L1 copy reads (tensor, offsets, extents, view, transpose), as the interned text of all
// but its constant offsets plus those offsets: a family member's keys are member 0's with the
// offsets moved, so they are built and compared without a string per member (at 8x GEMM 6144
// the string keys and their map were the pass's cost). Equal keys <=> equal texts of every dim.
struct FeatureKey {
  static constexpr int kMaxOffsets = 4;  // rank of the offsets held as numbers; more: in the text
  int shape = -1;                        // interned text, a constant offset in it as a bare 'p'
  int n = 0;                             // offsets held as numbers
  std::array<int64_t, kMaxOffsets> off{};
  size_t hash = 0;
  bool operator==(const FeatureKey& o) const {
    if (hash != o.hash || shape != o.shape || n != o.n) return false;
    for (int i = 0; i < n; ++i)
      if (off[size_t(i)] != o.off[size_t(i)]) return false;
    return true;
  }
  void rehash() {
    uint64_t h = uint64_t(shape) * 0x9E3779B97F4A7C15ull ^ uint64_t(n);
    for (int i = 0; i < n; ++i) {  // splitmix64 steps
      h += uint64_t(off[size_t(i)]) + 0x9E3779B97F4A7C15ull;
      h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
      h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
      h ^= h >> 31;
    }
    hash = size_t(h);
  }
};
// Key texts -> their ids, for one l1_reuse run.
using ShapeIds = std::unordered_map<std::string, int>;


struct Feature {
  FeatureKey key;
  char side;        // 'L' (feeds L0A) or 'R' (feeds L0B)
  int op, tile;
};

// The L1 copies of a subgraph: (position in sg.ops, side of its tile), by one walk over its ops.
std::vector<std::pair<size_t, char>> l1_copies(const TileRoot& r, const Subgraph& sg);

// The feature keys of the given L1 copies of sg (of all of them: the second form).
// `rendered` counts the keys built (each from the text of its op).
std::vector<Feature> l1_features(const TileRoot& r, const Subgraph& sg,
                                 const std::vector<std::pair<size_t, char>>& copies, ShapeIds& shapes,
                                 int64_t& rendered);
std::vector<Feature> l1_features(const TileRoot& r, const Subgraph& sg, ShapeIds& shapes, int64_t& rendered);

// The root's members are its first matmul's output blocks (block_replica.h): member k is block k.
// Null when not.
const BlockCopies* copied_blocks(const Builder& b);

// Member k's features from member 0's `f0` when member k is a copy of block 0: each key with its
// offsets moved by the block's delta of the copy's operand, its op and tile moved by k blocks.
// Nullopt: `s` is not member 0's subgraph moved there.
std::optional<std::vector<Feature>> moved_features(const TileRoot& r, const BlockCopies& c, int k,
                                                   const std::vector<Feature>& f0, const Subgraph& s,
                                                   const std::vector<std::pair<size_t, char>>& copies);

// The anchor's copies a member's copies duplicate: for each of `member`'s copies, the anchor's first
// copy with its key (`by_hash`: the anchor's (key hash, index) sorted) gives a tile rewrite and the
// member's copy op to drop.
void shared_copies(const std::vector<Feature>& member, const std::vector<Feature>& anchor,
                   const std::vector<std::pair<size_t, int>>& by_hash, std::vector<std::pair<int, int>>& rewrite,
                   std::vector<int>& drop);
// (key hash, index) of `feats`, sorted: shared_copies' `by_hash`.
std::vector<std::pair<size_t, int>> sorted_key_hashes(const std::vector<Feature>& feats);

}  // namespace ptoc::tiling
