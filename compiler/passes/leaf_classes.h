// Leaf classes: leaves with equal structure (LeafShaper key, leaf_plan.h) get equal plans, so
// schedule, buffer_plan, insert_sync and leaf_cost run on the first leaf of each class (its
// representative) and the others receive a copy with their own op and tile ids. A GEMM's 1152
// leaves are a handful of classes.
#pragma once
#include <optional>
#include <vector>

#include "compiler/passes/backend.h"
#include "compiler/passes/leaf_plan.h"
#include "compiler/passes/tiling.h"

namespace ptoc {

struct LeafClass {
  int rep = -1;                     // plan index of the first leaf, the one planned
  std::vector<int> step_pos;        // per step of rep: position of its op in the subgraph's ops
  std::vector<int> buffer_local;    // per buffer of rep: local tile index (LeafShaper::tiles)
  std::optional<BufferOverflow> overflow;
  bool fallback = false;            // fitted only in the sequential order
};

struct LeafClasses {
  std::vector<const Subgraph*> subgraph;  // per leaf plan
  std::vector<int> class_of;              // per leaf plan
  std::vector<LeafClass> classes;
  std::vector<std::vector<int>> tiles_of;  // per leaf plan: local tile index -> tile id (empty when moved)
  // A family member's copy of a member-0 leaf (TileRoot::replicas): its tiles are that leaf's moved
  // to its member, read through tile() instead of stored (a GEMM's copies were 2 M tile ids at 8x).
  struct MovedTiles {
    int from = -1;  // the member-0 leaf; -1: tiles_of holds the leaf's own
    int member = 0;
    const tiling::FamilyReplicas* replicas = nullptr;
  };
  std::vector<MovedTiles> moved;  // per leaf plan
  // Leaf i's local tile x, and how many it has; tiles(i): all of them, in order.
  int tile(int i, size_t x) const;
  size_t tile_count(int i) const;
  std::vector<int> tiles(int i) const;

  // Leaf i gets its class representative's plan (steps, buffers, peak), renamed to its own ids.
  void copy_plan(const std::vector<TileRoot>& roots, std::vector<LeafPlan>& plans, int i);
  // Lazy copy: leaf i gets only what describes the leaf as a whole (core, order, peak); its steps,
  // buffers and arguments stay empty and are read through `own_ids` (a GEMM's 1151 copies of
  // ~340 steps each were a seventh of the compile's memory).
  void copy_summary(const std::vector<TileRoot>& roots, std::vector<LeafPlan>& plans, int i);
  // Leaf i's op per step and tile per buffer of its class representative's plan.
  void own_ids(const std::vector<TileRoot>& roots, const std::vector<LeafPlan>& plans, int i,
               std::vector<int>& step_ops, std::vector<int>& buffer_tiles);
  // The tile of leaf i that plays the part of the representative's tile `t`.
  int local_tile(int i, int t) const;
  // Leaf i's plan is a copy (it is not its class's representative).
  bool is_copy(int i) const { return classes[size_t(class_of[size_t(i)])].rep != i; }
  LeafClass& of(int i) { return classes[size_t(class_of[size_t(i)])]; }

 private:
  void prepare(const std::vector<TileRoot>& roots, const std::vector<LeafPlan>& plans, LeafClass& c);
  std::vector<int> scratch_;
};

// One empty plan per subgraph (roots in order, subgraphs in their order) in `plans`, and the classes
// over them; with `share` false every leaf is its own class (tests compare the two). A leaf that is
// member k's copy of a member-0 leaf of a family root (TileRoot::replicas) whose extents are member
// 0's takes that leaf's class and its tiles moved to member k, without computing its key; with
// `use_replicas` false every key is computed (the same classes: tests compare the two).
LeafClasses classify_leaves(const std::vector<TileRoot>& roots, const std::vector<GmTensor>& tensors, bool share,
                            std::vector<LeafPlan>& plans, bool use_replicas = true);

}  // namespace ptoc
