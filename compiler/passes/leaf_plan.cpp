#include "compiler/passes/leaf_plan.h"

#include <stdexcept>

namespace ptoc {

const BufferSlot* LeafPlan::buffer(int tile) const {
  int i = buffer_index(tile);
  return i < 0 ? nullptr : &buffers[i];
}

int LeafPlan::buffer_index(int tile) const {
  // buffers are sorted by tile id
  int lo = 0, hi = int(buffers.size());
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (buffers[mid].tile < tile) lo = mid + 1; else hi = mid;
  }
  return lo < int(buffers.size()) && buffers[lo].tile == tile ? lo : -1;
}

const TileOp& tile_op(const TileRoot& r, int id) {
  if (id < 0 || id >= int(r.ops.size()) || r.ops[id].id != id)
    throw std::logic_error("tile graph: op id " + std::to_string(id) + " is not its index");
  return r.ops[id];
}

const LocalTile& local_tile(const TileRoot& r, int id) {
  if (id < 0 || id >= int(r.tiles.size()) || r.tiles[id].id != id)
    throw std::logic_error("tile graph: tile id " + std::to_string(id) + " is not its index");
  return r.tiles[id];
}

std::vector<int> op_reads(const TileOp& op) {
  std::vector<int> v = op.srcs;
  // An accumulating matmul adds into its L0C tile: it reads it too.
  if (op.kind == TileOpKind::Mmad && op.accumulate && op.dst >= 0) {
    bool has = false;
    for (int s : v) has |= s == op.dst;
    if (!has) v.push_back(op.dst);
  }
  return v;
}

int op_write(const TileOp& op) { return op.dst; }

PipeId op_pipe(const TileOp& op) {
  switch (op.kind) {
    case TileOpKind::CopyIn: return PipeId::MTE2;
    case TileOpKind::CopyOut: return PipeId::MTE3;
    case TileOpKind::L1ToL0A:
    case TileOpKind::L1ToL0B: return PipeId::MTE1;
    case TileOpKind::Mmad: return PipeId::M;
    case TileOpKind::FixOut: return PipeId::FIX;
    case TileOpKind::Vec: return PipeId::V;
  }
  return PipeId::S;
}

}  // namespace ptoc
