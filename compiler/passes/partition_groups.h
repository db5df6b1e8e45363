// Partition's groups (compiler/passes/partition.cpp): a union-find over a root's tile ops, each
// group's members, and the dependency graph between the groups, with the test every merge asks
// first: is there a path between the two groups other than their direct edge (a merge would close a
// cycle)?
//
// Once order() found a topological order of the groups it is kept through every unite (a
// Pearce-Kelly window): a path from x to y runs only through groups ordered between them. The test
// searches from both ends inside that window at once, forward from x's other successors and backward
// from y's other predecessors, expanding the smaller frontier; it stops when the two searches meet
// (a path) or when either runs out (none: every path's second group is a forward seed and its last
// but one a backward seed, both marked first). Most merge candidates have a unique edge at one end
// (depth merging asks for one), so one side has no seed and the answer costs a scan of one
// adjacency set. Without it every test walked all groups the source reaches in the window: the
// group graph is dense where every op of an unroll gear reads one broadcast tile (fuzz seed 9004328:
// partition ~10 s CPU in indirect_path and the window upkeep).
//
// indirect_path_scan is the previous test (one forward walk bounded by the order), kept as the unit
// test's oracle and for a graph with a cycle (no order: the walk is unbounded).
#pragma once
#include <cstdint>
#include <set>
#include <vector>

namespace ptoc::tiling {

struct PartitionGroups {
  std::vector<int> parent;
  std::vector<std::vector<int>> members;
  std::vector<std::set<int>> succ, pred;
  std::vector<int64_t> scope;  // per root
  // Scratch marks of the searches: stamp[v] == epoch (forward), back_stamp[v] == epoch (backward).
  std::vector<int> stamp, back_stamp;
  int epoch = 0;
  // A topological order of the group roots (ord[root]; at[pos] = root or -1), kept through every
  // unite once order() built it.
  bool ordered = false;
  std::vector<int> ord, at;

  // n groups with no members, edges or scope yet (the caller fills members), not ordered; `parent` stays.
  void clear_graph(int n);
  // Kahn over the roots (lowest id first); leaves `ordered` false if the graph has a cycle.
  void order();
  int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  // Merge roots a and b, which have no path between them but maybe a direct edge; returns the new
  // root (the one with more members, a on a tie).
  int unite(int a, int b);
  // A path from root `from` to root `to` other than the direct edge.
  bool indirect_path(int from, int to);
  // The same by one forward walk from `from` (bounded by the order when there is one): the oracle.
  bool indirect_path_scan(int from, int to);

 private:
  std::vector<int> window_, reach_y_, from_x_, fwd_, back_;  // scratch
  void marks_fit();
  // Roots strictly between ord positions lo and hi that reach `start` (back) or that it reaches.
  void walk_window(int start, bool back, int lo, int hi, std::vector<int>& out);
};

}  // namespace ptoc::tiling
