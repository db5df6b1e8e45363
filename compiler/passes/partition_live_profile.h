// Exact peak bytes of partition's merge candidates without recounting the merged group
// (fuzz seed 9004328: groups near the UB capacity, where PeakBounds rarely decides, grew a few ops
// at a time and every attempt ran peak_bytes over the whole merged group: quadratic, > 50 s CPU).
//
// peak_bytes (tile_graph.cpp) in a group's creation order is a sum over its tiles: each tile adds
// its aligned bytes at every op id from its first to its last use in the group, less its bytes at
// its first op when it takes its source's buffer over there (in place). So each group keeps that
// sum as a segment tree over op ids (range adds as lazy tags, each node the maximum over the
// group's own ops beneath it) and each tile's first and last op. The sum of two groups' trees is
// the union's but for the tiles both touch (their two ranges become one) and the takeovers whose
// source is such a tile: a few corrections in a third, small tree. A merge attempt walks the three
// trees together only where two of them have nodes (the smaller group's paths), and a merge adds
// them into the larger group's tree the same way. Each attempt costs O((ops and tiles of the
// smaller group) log n), not the merged group's size.
//
// Exact: the same numbers as peak_bytes(root, merge(A, C)). A tile written in place that has more
// than one writer could take two buffers over at successive positions (peak_bytes' sequential
// rule): a root with one uses peak_bytes throughout.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "compiler/passes/tile_graph.h"

namespace ptoc::tiling {

class GroupLiveProfile {
 public:
  using Bytes = std::array<int64_t, 6>;
  // Groups are named by their union-find roots, op ids in [0, n_ops).
  GroupLiveProfile(const TileRoot& root, const std::array<int64_t, 6>& align, int n_ops);

  // peak_bytes(root, group's members, align) for the on-chip memories (index 0, GM, is 0); members sorted.
  Bytes peak(int group, const std::vector<int>& members);
  // The same for merge(ma, mc) of two disjoint groups.
  Bytes merged_peak(int ga, const std::vector<int>& ma, int gc, const std::vector<int>& mc);
  // Call with the members before the unite, then joined() with the union's root.
  void prepare_join(int ga, const std::vector<int>& ma, int gc, const std::vector<int>& mc);
  void joined(int united_root);

  bool incremental() const { return incremental_; }

 private:
  static constexpr int kMems = 5;  // UB, L1, L0A, L0B, L0C (MemKind 1..5)
  using Sums = std::array<int64_t, kMems>;
  struct Node {
    int left = -1, right = -1;
    bool member = false;  // a leaf: an op of the group
    Sums tag{};           // added at every op id of the node's range
    Sums max{};           // the largest value over the group's ops beneath (tag included)
  };
  using TileSpan = std::unordered_map<int, std::pair<int, int>>;  // tile -> (first op, last op) in the group

  const TileRoot& r_;
  std::array<int64_t, 6> align_;
  int n_;
  bool incremental_ = true;
  // Nodes in fixed chunks: a pool of millions (seed 7000477: 4 M nodes, 400 MB) grown as one vector
  // copied itself at every doubling and faulted the new pages in again (a third of partition's CPU).
  class NodePool {
   public:
    Node& operator[](size_t i) { return chunks_[i >> kShift][i & kMask]; }
    const Node& operator[](size_t i) const { return chunks_[i >> kShift][i & kMask]; }
    size_t size() const { return size_; }
    void emplace_back() {
      if ((size_ & kMask) == 0) chunks_.emplace_back(new Node[kMask + 1]);
      (*this)[size_++] = Node{};
    }

   private:
    static constexpr size_t kShift = 14, kMask = (size_t(1) << kShift) - 1;
    std::vector<std::unique_ptr<Node[]>> chunks_;
    size_t size_ = 0;
  };
  NodePool nodes_;
  std::vector<int> free_nodes_;
  std::vector<int> tree_;        // per group root: segment tree root, -1 when not built
  std::vector<TileSpan> spans_;  // per built group
  // The pending merge: the two groups (big keeps its tree), their sizes, and the corrections' tree.
  int big_ = -1, small_ = -1;
  size_t big_size_ = 0, small_size_ = 0;
  int fix_ = -1;
  bool pending_ = false;

  int64_t aligned(int tile) const;
  int new_node();
  void pull(int node);
  int add(int node, int lo, int hi, int ql, int qr, int mem, int64_t v);
  int mark(int node, int lo, int hi, int pos);
  void free_tree(int node);
  void ensure(int group, const std::vector<int>& members);
  void drop(int group);
  // Whether tile `t` takes its source's buffer over at its first op, under spans `first_of`/`last_of`.
  template <class Span>
  bool taken_in_place(int t, const Span& span) const;
  int corrections(int ga, int gc);  // the correction tree of merging group gc into ga (both built)
  Sums max3(int x, int y, int z, int lo, int hi, const Sums& acc) const;
  int merge3(int x, int y, int z, int lo, int hi);
  void prepare(int ga, const std::vector<int>& ma, int gc, const std::vector<int>& mc);
  static Bytes widen(const Sums& s);
};

}  // namespace ptoc::tiling
