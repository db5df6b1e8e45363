// Tasks of copied family members from member 0's (task_replica.h).
#include "compiler/passes/task_replica.h"

#include "compiler/passes/tile_families.h"

namespace ptoc {

using tiling::BlockOperand;

TaskReplicas::TaskReplicas(const TileRoot& r) : r_(r) {
  const tiling::FamilyReplicas* rep = r.replicas.get();
  if (!rep || !rep->copies) return;
  const tiling::BlockCopies& c = *rep->copies;
  const tiling::TileFamily& f = rep->family;
  // Member k must be block k: one segment, the blocks from op 0 and tile 0, the whole root.
  if (f.segments.size() != 1 || f.segments[0].op_begin != 0 || f.segments[0].tile_begin != 0 ||
      f.segments[0].ops_per != c.ops_per || f.segments[0].tiles_per != c.tiles_per ||
      f.members != int(c.copied.size()) || int(c.delta.size()) != f.members ||
      int64_t(r.ops.size()) != int64_t(c.ops_per) * f.members || int(c.operand.size()) != c.ops_per ||
      rep->member.size() != r.subgraphs.size() || rep->local.size() != r.subgraphs.size())
    return;
  // One tensor per operand, and distinct tensors across operands (block 0's GM ops say which).
  std::array<int, 3> tensor{-1, -1, -1};
  for (int i = 0; i < c.ops_per; ++i) {
    const BlockOperand x = c.operand[size_t(i)];
    if (x == BlockOperand::None) continue;
    int& t = tensor[size_t(x)];
    if (t >= 0 && t != r.ops[size_t(i)].gm.tensor) return;
    t = r.ops[size_t(i)].gm.tensor;
  }
  for (size_t a = 0; a < 3; ++a)
    for (size_t b = a + 1; b < 3; ++b)
      if (tensor[a] >= 0 && tensor[a] == tensor[b]) return;
  rep_ = rep;
  copies_ = &c;
  member0_.resize(rep->of_member0.size());
  noted_.assign(rep->of_member0.size(), 0);
}

void TaskReplicas::note_member0(int sg, const LeafArgs& layout, const std::vector<int>& step_ops,
                                const std::vector<int>& buffer_tiles, const Task& t) {
  if (!active() || rep_->member[size_t(sg)] != 0) return;
  const int j = rep_->local[size_t(sg)];
  if (j < 0 || size_t(j) >= member0_.size() || layout.step_gm_slot.size() != step_ops.size()) return;
  Member0 m;
  // The argument layout of kernel_arg_values / layout_kernel_args: per GM step its offsets, then
  // its extents.
  int idx = 0;
  for (size_t i = 0; i < step_ops.size(); ++i) {
    if (layout.step_gm_slot[i] < 0) continue;
    const int o = step_ops[i];
    if (o < 0 || o >= copies_->ops_per) return;
    const TileOp& op = r_.ops[size_t(o)];
    const BlockOperand x = copies_->operand[size_t(o)];
    if (x == BlockOperand::None || !op.gm.view.empty()) return;
    for (size_t e = 0; e < op.gm.offset.size(); ++e) {
      if (size_t(idx) + e >= t.args.size() || !t.args[size_t(idx) + e].is_const()) return;
      m.arg_moves.push_back(Move{idx + int(e), x, int(e)});
    }
    idx += int(op.gm.offset.size() + op.gm.extent.size());
  }
  // Each region's operand: the operand of a step op whose box it is (no views: the box itself).
  auto operands_of = [&](const std::vector<Region>& regions, std::vector<BlockOperand>& out) {
    for (const Region& g : regions) {
      BlockOperand found = BlockOperand::None;
      for (int o : step_ops) {
        const TileOp& op = r_.ops[size_t(o)];
        if (op.gm.tensor != g.tensor || copies_->operand[size_t(o)] == BlockOperand::None) continue;
        found = copies_->operand[size_t(o)];
        break;
      }
      if (found == BlockOperand::None) return false;
      for (const DimExpr& e : g.offset)
        if (!e.is_const()) return false;
      out.push_back(found);
    }
    return true;
  };
  if (!operands_of(t.reads, m.read_operand) || !operands_of(t.writes, m.write_operand)) return;
  m.step_ops = step_ops;
  m.buffer_tiles = buffer_tiles;
  m.gm = t.gm;
  m.args = t.args;
  m.reads = t.reads;
  m.writes = t.writes;
  member0_[size_t(j)] = std::move(m);
  noted_[size_t(j)] = 1;
}

bool TaskReplicas::derive(int sg, const std::vector<int>& step_ops, const std::vector<int>& buffer_tiles,
                          Task& t) const {
  if (!active()) return false;
  const int k = rep_->member[size_t(sg)], j = rep_->local[size_t(sg)];
  if (k <= 0 || k >= int(copies_->copied.size()) || !copies_->copied[size_t(k)] || j < 0 ||
      size_t(j) >= member0_.size() || !noted_[size_t(j)])
    return false;
  const Member0& m = member0_[size_t(j)];
  // Member k's steps and buffers are member 0's moved (the lazy leaf's mapping says so; checked).
  if (step_ops.size() != m.step_ops.size() || buffer_tiles.size() != m.buffer_tiles.size()) return false;
  const int dop = k * copies_->ops_per, dtile = k * copies_->tiles_per;
  for (size_t i = 0; i < step_ops.size(); ++i)
    if (step_ops[i] != m.step_ops[i] + dop) return false;
  for (size_t i = 0; i < buffer_tiles.size(); ++i)
    if (buffer_tiles[i] != m.buffer_tiles[i] + dtile) return false;
  const auto& delta = copies_->delta[size_t(k)];
  for (const Move& mv : m.arg_moves)
    if (size_t(mv.axis) >= delta[size_t(mv.operand)].size()) return false;
  auto moved = [&](const std::vector<Region>& from, const std::vector<BlockOperand>& operand,
                   std::vector<Region>& to) {
    to = from;
    for (size_t i = 0; i < to.size(); ++i) {
      const std::vector<int64_t>& d = delta[size_t(operand[i])];
      if (d.size() != to[i].offset.size()) return false;
      for (size_t e = 0; e < d.size(); ++e)
        if (d[e] != 0) to[i].offset[e] = DimExpr(*to[i].offset[e].as_const() + d[e]);
    }
    return true;
  };
  std::vector<Region> reads, writes;
  if (!moved(m.reads, m.read_operand, reads) || !moved(m.writes, m.write_operand, writes)) return false;
  t.reads = std::move(reads);
  t.writes = std::move(writes);
  t.gm = m.gm;
  t.args = m.args;
  for (const Move& mv : m.arg_moves) {
    const int64_t d = delta[size_t(mv.operand)][size_t(mv.axis)];
    if (d != 0) t.args[size_t(mv.index)] = DimExpr(*t.args[size_t(mv.index)].as_const() + d);
  }
  return true;
}

}  // namespace ptoc
