// Copies of a matmul's first output block (block_replica.h).
#include "compiler/passes/block_replica.h"

#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

namespace {

bool all_const(const std::vector<DimExpr>& v) {
  for (const DimExpr& e : v)
    if (!e.is_const()) return false;
  return true;
}

}  // namespace

void finish_block_template(const TileRoot& r, BlockTemplate& t) {
  t.usable = false;
  if (t.op_end <= t.op_begin || int(t.operand.size()) != t.op_end - t.op_begin) return;
  auto own = [&](int tile) { return tile >= t.tile_begin && tile < t.tile_end; };
  for (int i = t.op_begin; i < t.op_end; ++i) {
    const TileOp& op = r.ops[size_t(i)];
    if (op.dst >= 0 && !own(op.dst)) return;
    for (int s : op.srcs)
      if (!own(s)) return;
    // emit() gave it seq = id; a copy gets its own id the same way.
    if (op.seq != double(op.id)) return;
    const bool has_gm = op.gm.tensor >= 0;
    if (has_gm != (t.operand[size_t(i - t.op_begin)] != BlockOperand::None)) return;
    if (!has_gm) continue;
    if (!all_const(op.gm.offset) || !all_const(op.gm.extent)) return;
    int& rank = t.rank[size_t(t.operand[size_t(i - t.op_begin)])];
    if (rank >= 0 && rank != int(op.gm.offset.size())) return;
    rank = int(op.gm.offset.size());
  }
  for (int k = t.tile_begin; k < t.tile_end; ++k)
    if (!all_const(r.tiles[size_t(k)].valid)) return;
  t.usable = true;
}

void emit_block_copy(Builder& b, const BlockTemplate& t, const std::array<std::vector<int64_t>, 3>& delta) {
  TileRoot& r = b.root;
  const int shift = int(r.tiles.size()) - t.tile_begin;
  // Copied in place at the end of the arrays (push_back of an element of the same vector is safe
  // even when it reallocates), then moved: no temporary op or tile.
  for (int k = t.tile_begin; k < t.tile_end; ++k) {
    r.tiles.push_back(r.tiles[size_t(k)]);
    r.tiles.back().id = int(r.tiles.size()) - 1;
  }
  const int first = int(r.ops.size());
  for (int i = t.op_begin; i < t.op_end; ++i) {
    r.ops.push_back(r.ops[size_t(i)]);
    TileOp& c = r.ops.back();
    c.id = int(r.ops.size()) - 1;
    c.seq = double(c.id);  // emit(): expansion emits in program order
    for (int& s : c.srcs) s += shift;
    if (c.dst >= 0) c.dst += shift;
    const BlockOperand x = t.operand[size_t(i - t.op_begin)];
    if (x != BlockOperand::None) {
      const std::vector<int64_t>& d = delta[size_t(x)];
      for (size_t e = 0; e < c.gm.offset.size(); ++e)
        if (d[e] != 0) c.gm.offset[e] = DimExpr(*c.gm.offset[e].as_const() + d[e]);
    }
  }
  // emit() grows these op by op; a copy knows their final size.
  if (b.tile_writer.size() < r.tiles.size()) b.tile_writer.resize(r.tiles.size(), -1);
  if (b.tile_written_at.size() < r.tiles.size()) b.tile_written_at.resize(r.tiles.size(), -1);
  b.note_emitted(first, int(r.ops.size()));
}

bool note_block_copy(const BlockTemplate& t, int op_begin, int tile_begin, EmittedBlocks& eb) {
  const int P = t.op_end - t.op_begin, T = t.tile_end - t.tile_begin;
  if (eb.broken || eb.blocks < 1 || t.op_begin != 0 || t.tile_begin != 0 || eb.seg.op_begin != 0 ||
      eb.seg.tile_begin != 0 || eb.seg.ops_per != P || eb.seg.tiles_per != T || op_begin != eb.blocks * P ||
      tile_begin != eb.blocks * T)
    return false;
  // check_emitted_block's tests hold by construction: every op is block 0's with its tiles moved by
  // blocks * T (same_op), equal extents (alike), equal tiles first written inside the block.
  eb.alike.push_back(1);
  ++eb.blocks;
  return true;
}

}  // namespace ptoc::tiling
