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
// and member k's steps and buffers are member 0's moved by k ops and tiles per member (checked).
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
  // Member 0's task for subgraph position `sg`, just built the ordinary way from `layout` (its
  // class's argument layout), its steps' ops and its buffers' tiles: remembered for its copies.
  // Returns its local index j (what describe() names), or -1 when its copies cannot be described.
  int note_member0(int sg, const LeafArgs& layout, const std::vector<int>& step_ops,
                   const std::vector<int>& buffer_tiles, const Task& t);
  // The value positions of member 0's task j that move, with their slot (operand and axis): a
  // TaskCompactor pattern.
  const std::vector<std::pair<int, int>>& pattern(int j) const { return member0_[size_t(j)].moves; }
  // Subgraph position `sg` (member k's copy of member 0's subgraph j) as member 0's task j with its
  // pattern moved by `slot_deltas`; false when it does not apply (then build its task ordinarily).
  bool describe(int sg, const std::vector<int>& step_ops, const std::vector<int>& buffer_tiles, int& j,
                std::vector<int64_t>& slot_deltas) const;

 private:
  struct Member0 {
    std::vector<int> step_ops, buffer_tiles;
    std::vector<std::pair<int, int>> moves;  // (value position, slot = operand * rank_ + axis)
    std::vector<std::pair<int, size_t>> region_rank;  // (operand, offset rank) per region: its delta's length
  };
  const TileRoot& r_;
  const tiling::FamilyReplicas* rep_ = nullptr;
  const tiling::BlockCopies* copies_ = nullptr;
  int rank_ = 0;                    // the longest delta of an operand: slots per operand
  std::vector<Member0> member0_;    // per subgraph j of member 0
  std::vector<char> noted_;         // per j: member0_[j] holds a usable record
};

}  // namespace ptoc
