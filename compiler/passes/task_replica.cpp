// Tasks of copied family members described from member 0's (task_replica.h).
#include "compiler/passes/task_replica.h"

#include <algorithm>

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
  for (const auto& d : c.delta)
    for (const auto& axes : d) rank_ = std::max(rank_, int(axes.size()));
  rep_ = rep;
  copies_ = &c;
  member0_.resize(rep->of_member0.size());
  noted_.assign(rep->of_member0.size(), 0);
}

int TaskReplicas::note_member0(int sg, const LeafArgs& layout, const std::vector<int>& step_ops,
                               const std::vector<int>& buffer_tiles, const Task& t, int leaf) {
  if (!active() || rep_->member[size_t(sg)] != 0) return -1;
  const int j = rep_->local[size_t(sg)];
  if (j < 0 || size_t(j) >= member0_.size() || layout.step_gm_slot.size() != step_ops.size()) return -1;
  Member0 m;
  auto slot = [&](BlockOperand x, size_t axis) { return int(x) * rank_ + int(axis); };
  // The argument layout of kernel_arg_values / layout_kernel_args: per GM step its offsets, then
  // its extents.
  size_t idx = 0;
  for (size_t i = 0; i < step_ops.size(); ++i) {
    if (layout.step_gm_slot[i] < 0) continue;
    const int o = step_ops[i];
    if (o < 0 || o >= copies_->ops_per) return -1;
    const TileOp& op = r_.ops[size_t(o)];
    const BlockOperand x = copies_->operand[size_t(o)];
    if (x == BlockOperand::None || !op.gm.view.empty() || int(op.gm.offset.size()) > rank_) return -1;
    for (size_t e = 0; e < op.gm.offset.size(); ++e) {
      if (idx + e >= t.args.size() || !t.args[idx + e].is_const()) return -1;
      m.moves.emplace_back(int(idx + e), slot(x, e));
    }
    idx += op.gm.offset.size() + op.gm.extent.size();
  }
  // Each region's operand: the operand of a step op whose box it is (no views: the box itself); its
  // offsets move with that operand's delta.
  size_t pos = t.args.size();
  auto regions_move = [&](const std::vector<Region>& regions) {
    for (const Region& g : regions) {
      BlockOperand found = BlockOperand::None;
      for (int o : step_ops) {
        const TileOp& op = r_.ops[size_t(o)];
        if (op.gm.tensor != g.tensor || copies_->operand[size_t(o)] == BlockOperand::None) continue;
        found = copies_->operand[size_t(o)];
        break;
      }
      if (found == BlockOperand::None || int(g.offset.size()) > rank_) return false;
      for (size_t e = 0; e < g.offset.size(); ++e) {
        if (!g.offset[e].is_const()) return false;
        m.moves.emplace_back(int(pos + e), slot(found, e));
      }
      m.region_rank.emplace_back(int(found), g.offset.size());
      pos += g.offset.size() + g.extent.size();
    }
    return true;
  };
  if (!regions_move(t.reads) || !regions_move(t.writes)) return -1;
  // What each member is checked against, each once (a GEMM task moves hundreds of positions over a
  // few slots).
  for (const auto& [pos, s] : m.moves) m.slots.push_back(s);
  std::sort(m.slots.begin(), m.slots.end());
  m.slots.erase(std::unique(m.slots.begin(), m.slots.end()), m.slots.end());
  std::sort(m.region_rank.begin(), m.region_rank.end());
  m.region_rank.erase(std::unique(m.region_rank.begin(), m.region_rank.end()), m.region_rank.end());
  m.leaf = leaf;
  m.in_block0 = std::all_of(step_ops.begin(), step_ops.end(), [&](int o) { return o >= 0 && o < copies_->ops_per; }) &&
                std::all_of(buffer_tiles.begin(), buffer_tiles.end(),
                            [&](int b) { return b >= 0 && b < copies_->tiles_per; });
  m.step_ops = step_ops;
  m.buffer_tiles = buffer_tiles;
  member0_[size_t(j)] = std::move(m);
  noted_[size_t(j)] = 1;
  return j;
}

const TaskReplicas::Member0* TaskReplicas::copied_member0(int sg, int& k, int& j) const {
  if (!active()) return nullptr;
  k = rep_->member[size_t(sg)];
  j = rep_->local[size_t(sg)];
  if (k <= 0 || k >= int(copies_->copied.size()) || !copies_->copied[size_t(k)] || j < 0 ||
      size_t(j) >= member0_.size() || !noted_[size_t(j)])
    return nullptr;
  return &member0_[size_t(j)];
}

bool TaskReplicas::describe(int sg, const std::vector<int>& step_ops, const std::vector<int>& buffer_tiles, int& j,
                            std::vector<int64_t>& slot_deltas) const {
  int k = 0;
  const Member0* mp = copied_member0(sg, k, j);
  if (!mp) return false;
  const Member0& m = *mp;
  // Member k's steps and buffers are member 0's moved (the lazy leaf's mapping says so; checked).
  if (step_ops.size() != m.step_ops.size() || buffer_tiles.size() != m.buffer_tiles.size()) return false;
  const int dop = k * copies_->ops_per, dtile = k * copies_->tiles_per;
  for (size_t i = 0; i < step_ops.size(); ++i)
    if (step_ops[i] != m.step_ops[i] + dop) return false;
  for (size_t i = 0; i < buffer_tiles.size(); ++i)
    if (buffer_tiles[i] != m.buffer_tiles[i] + dtile) return false;
  return member_deltas(k, m, slot_deltas);
}

bool TaskReplicas::describe_moved(int sg, int from_leaf, int from_member, int& j,
                                  std::vector<int64_t>& slot_deltas) const {
  int k = 0;
  const Member0* mp = copied_member0(sg, k, j);
  if (!mp) return false;
  const Member0& m = *mp;
  // The leaf is member 0's leaf of j moved to this subgraph's member, and that leaf's ids are all
  // block 0's: its steps are member 0's plus k ops per member, its buffers plus k tiles per member.
  if (m.leaf < 0 || from_leaf != m.leaf || from_member != k || !m.in_block0) return false;
  return member_deltas(k, m, slot_deltas);
}

bool TaskReplicas::member_deltas(int k, const Member0& m, std::vector<int64_t>& slot_deltas) const {
  // Every moving position's operand has a delta on its axis (a region's operand one per offset).
  const auto& delta = copies_->delta[size_t(k)];
  slot_deltas.assign(size_t(3 * rank_), 0);
  for (int s : m.slots) {
    const size_t x = size_t(s / rank_), e = size_t(s % rank_);
    if (x >= 3 || e >= delta[x].size()) return false;
  }
  for (size_t x = 0; x < 3; ++x)
    for (size_t e = 0; e < delta[x].size(); ++e) slot_deltas[x * size_t(rank_) + e] = delta[x][e];
  for (const auto& [x, rank] : m.region_rank)
    if (delta[size_t(x)].size() != rank) return false;
  return true;
}

}  // namespace ptoc
