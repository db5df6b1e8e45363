// Tasks of a tile family's copied members described from member 0's (block_replica.h): member k's
// copy of member 0's subgraph j runs member 0's ops moved to member k, and when member k is a
// copy of block 0 its GM offsets are member 0's plus its block's delta per operand, its valid
// extents and tensors member 0's. So its task is member 0's task with those offsets moved: a
// pattern of moving value positions (per member 0 task) and a few deltas (per member), which the
// task graph hands to the TaskCompactor (runtime/program/task_compactor.h) without building a Task
// or reading the member's ops (build_task_graphs; test_families compares with the tasks the
// explicit path builds).
//
// Sound because: every GM op of block 0 addresses one operand with constant offsets and no view,
// the operands are distinct tensors (so a region of one operand never equals another's, and the
// regions of one operand move together: member k's list of distinct boxes is member 0's moved),
// and member k's steps and buffers are member 0's moved by k ops and tiles per member: checked step
// by step (describe), or, for a leaf that is member k's copy of member 0's leaf (LeafClasses::moved),
// proved once per member-0 task (describe_moved): its steps sit at the class's positions in member
// k's op list, which is member 0's moved by k ops per member (partition_family, FamilyReplicas), and
// its buffers are member 0's tiles moved by tile_of, k tiles per member when every one of them is a
// tile of block 0 (checked when noted).
#pragma once
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "compiler/passes/block_replica.h"
#include "compiler/passes/leaf_plan.h"
#include "runtime/program/compiled_program.h"

namespace ptoc {

class TaskReplicas {
 public:
  // Inactive unless `r` is a family root whose members are its first matmul's blocks, copied.
  explicit TaskReplicas(const TileRoot& r);
  bool active() const { return copies_ != nullptr; }
  // The member of subgraph position `sg` (0 when inactive).
  int member_of(int sg) const { return active() ? rep_->member[size_t(sg)] : 0; }
  // Member 0's task for subgraph position `sg`, just built the ordinary way from `layout` (its
  // class's argument layout), its steps' ops and its buffers' tiles: remembered for its copies.
  // Returns its local index j (what describe() names), or -1 when its copies cannot be described.
  // `leaf`: its leaf plan index (what a copied leaf's LeafClasses::moved names), or -1.
  int note_member0(int sg, const LeafArgs& layout, const std::vector<int>& step_ops,
                   const std::vector<int>& buffer_tiles, const Task& t, int leaf = -1);
  // The value positions of member 0's task j that move, with their slot (operand and axis): a
  // TaskCompactor pattern.
  const std::vector<std::pair<int, int>>& pattern(int j) const { return member0_[size_t(j)].moves; }
  // Subgraph position `sg` (member k's copy of member 0's subgraph j) as member 0's task j with its
  // pattern moved by `slot_deltas`; false when it does not apply (then build its task ordinarily).
  bool describe(int sg, const std::vector<int>& step_ops, const std::vector<int>& buffer_tiles, int& j,
                std::vector<int64_t>& slot_deltas) const;
  // The same without the member's steps and buffers, for a leaf that is `from_leaf`'s ids moved to
  // member `from_member` (LeafClasses::moved): valid when that is member 0's leaf of j noted with
  // its steps and buffers all in block 0, and the leaf's member is sg's. Per copy it reads only the
  // member's deltas, none of its steps.
  bool describe_moved(int sg, int from_leaf, int from_member, int& j, std::vector<int64_t>& slot_deltas) const;

 private:
  struct Member0 {
    std::vector<int> step_ops, buffer_tiles;
    std::vector<std::pair<int, int>> moves;  // (value position, slot = operand * rank_ + axis)
    std::vector<std::pair<int, size_t>> region_rank;  // (operand, offset rank) per region: its delta's length, each once
    std::vector<int> slots;  // the slots of `moves`, each once: the deltas a member must have
    int leaf = -1;           // its leaf plan index
    bool in_block0 = false;  // its steps are ops of block 0 and its buffers tiles of block 0
  };
  // Member k's slot deltas for member 0's task m; false when an operand lacks a moving axis.
  bool member_deltas(int k, const Member0& m, std::vector<int64_t>& slot_deltas) const;
  // Subgraph sg's member k and local task j, and member 0's task j when sg is a copied member's (k > 0) whose
  // task j member 0 has noted; null otherwise.
  const Member0* copied_member0(int sg, int& k, int& j) const;
  const TileRoot& r_;
  const tiling::FamilyReplicas* rep_ = nullptr;
  const tiling::BlockCopies* copies_ = nullptr;
  int rank_ = 0;                    // the longest delta of an operand: slots per operand
  std::vector<Member0> member0_;    // per subgraph j of member 0
  std::vector<char> noted_;         // per j: member0_[j] holds a usable record
};

}  // namespace ptoc
