// Tasks of a tile family's copied members derived from member 0's (block_replica.h): member k's
// copy of member 0's subgraph j runs member 0's ops moved to member k, and when member k is a
// copy of block 0 its GM offsets are member 0's plus its block's delta per operand, its valid
// extents and tensors member 0's. So its task's tensors, arguments and regions are member 0's task
// with those offsets moved, and its ops are not read (build_task_graphs; test_families compares
// with the tasks the explicit path builds).
//
// Sound because: every GM op of block 0 addresses one operand with constant offsets and no view,
// the operands are distinct tensors (so a region of one operand never equals another's, and the
// regions of one operand move together: member k's list of distinct boxes is member 0's moved),
// and member k's steps and buffers are member 0's moved by k ops and tiles per member (checked).
#pragma once
#include <array>
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
  void note_member0(int sg, const LeafArgs& layout, const std::vector<int>& step_ops,
                    const std::vector<int>& buffer_tiles, const Task& t);
  // The task of subgraph position `sg` (member k's copy of member 0's subgraph j) into `t` (gm,
  // args, reads, writes) from member 0's; false when it does not apply (then build it ordinarily).
  bool derive(int sg, const std::vector<int>& step_ops, const std::vector<int>& buffer_tiles, Task& t) const;

 private:
  struct Move {
    int index;  // argument or region offset axis
    tiling::BlockOperand operand;
    int axis;
  };
  struct Member0 {
    std::vector<int> step_ops, buffer_tiles;
    std::vector<int> gm;
    std::vector<DimExpr> args;
    std::vector<Move> arg_moves;
    std::vector<Region> reads, writes;
    std::vector<tiling::BlockOperand> read_operand, write_operand;
  };
  const TileRoot& r_;
  const tiling::FamilyReplicas* rep_ = nullptr;
  const tiling::BlockCopies* copies_ = nullptr;
  std::vector<Member0> member0_;    // per subgraph j of member 0
  std::vector<char> noted_;         // per j: member0_[j] holds a usable record
};

}  // namespace ptoc
