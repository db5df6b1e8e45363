// Copies of a matmul's first output block (block_replica.h).
#include "compiler/passes/block_replica.h"

#include <algorithm>
#include <stdexcept>

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

// Block 0's ops and tiles, and per copy its tile shift and operand deltas: a copy's elements are
// built from these only when a pass reads them (LazyArray), exactly as the loop below the
// comment "emits" them: tiles renumbered, ids and seqs moved, GM offsets moved by the deltas.
struct BlockCopySource {
  std::vector<TileOp> ops;         // block 0's
  std::vector<LocalTile> tiles;    // block 0's
  std::vector<BlockOperand> operand;
  std::vector<int> tile_shift;     // per copy
  // Per copy, its operand deltas flat (no three vectors per copy): operand X's from
  // copy * stride + delta_at[X], delta_len[X] of them (the same in every copy of one matmul).
  std::vector<int64_t> delta;
  std::array<size_t, 3> delta_at{}, delta_len{};
  size_t stride = 0;
  bool delta_shape_set = false;
  std::vector<std::pair<int, int64_t>> writes;  // GM tensor -> block 0's write ops into it, by first write
};

namespace {

struct OpSource final : LazyArray<TileOp>::Source {
  std::shared_ptr<const BlockCopySource> s;
  void build_one(int run, size_t first, size_t i, TileOp& c) const override {
    c = s->ops[i];
    c.id = int(first + i);
    c.seq = double(c.id);  // emit(): expansion emits in program order
    const int shift = s->tile_shift[size_t(run)];
    for (int& x : c.srcs) x += shift;
    if (c.dst >= 0) c.dst += shift;
    const BlockOperand x = s->operand[i];
    if (x != BlockOperand::None) {
      const int64_t* d = s->delta.data() + size_t(run) * s->stride + s->delta_at[size_t(x)];
      if (c.gm.offset.size() > s->delta_len[size_t(x)]) throw std::logic_error("tiling: a block copy's delta is short");
      for (size_t e = 0; e < c.gm.offset.size(); ++e)
        if (d[e] != 0) c.gm.offset[e] = DimExpr(*c.gm.offset[e].as_const() + d[e]);
    }
  }
};

struct TileSource final : LazyArray<LocalTile>::Source {
  std::shared_ptr<const BlockCopySource> s;
  void build_one(int, size_t first, size_t i, LocalTile& t) const override {
    t = s->tiles[i];
    t.id = int(first + i);
  }
};

}  // namespace

void emit_block_copy(Builder& b, BlockTemplate& t, const std::array<std::vector<int64_t>, 3>& delta) {
  TileRoot& r = b.root;
  if (!t.source) {
    auto src = std::make_shared<BlockCopySource>();
    for (int i = t.op_begin; i < t.op_end; ++i) src->ops.push_back(r.ops[size_t(i)]);
    for (int k = t.tile_begin; k < t.tile_end; ++k) src->tiles.push_back(r.tiles[size_t(k)]);
    src->operand = t.operand;
    for (const TileOp& op : src->ops) {
      if ((op.kind != TileOpKind::CopyOut && op.kind != TileOpKind::FixOut) || op.gm.tensor < 0) continue;
      auto it = std::find_if(src->writes.begin(), src->writes.end(), [&](auto& w) { return w.first == op.gm.tensor; });
      if (it == src->writes.end()) src->writes.push_back({op.gm.tensor, 1});
      else ++it->second;
    }
    auto os = std::make_shared<OpSource>();
    os->s = src;
    auto ts = std::make_shared<TileSource>();
    ts->s = src;
    t.source = src;
    t.op_source = os;
    t.tile_source = ts;
  }
  BlockCopySource& src = *t.source;
  const int shift = int(r.tiles.size()) - t.tile_begin;
  const int first = int(r.ops.size());
  const int op_shift = first - t.op_begin;
  const int run = int(src.tile_shift.size());
  src.tile_shift.push_back(shift);
  if (!src.delta_shape_set) {
    for (size_t x = 0; x < 3; ++x) {
      src.delta_at[x] = src.stride;
      src.delta_len[x] = delta[x].size();
      src.stride += delta[x].size();
    }
    src.delta_shape_set = true;
  }
  for (size_t x = 0; x < 3; ++x) {
    if (delta[x].size() != src.delta_len[x]) throw std::logic_error("tiling: block copies of one matmul differ in rank");
    src.delta.insert(src.delta.end(), delta[x].begin(), delta[x].end());
  }
  r.tiles.append_described(t.tile_source, run, size_t(t.tile_end - t.tile_begin));
  r.ops.append_described(t.op_source, run, size_t(t.op_end - t.op_begin));
  // What emit()'s note_emitted records for the copied ops, from block 0's records (its writers are
  // its own ops, finish_block_template): no op is read. The tile writers are block 0's moved, written
  // when first read (Builder::settle_copied_writers): a family root of copies never reads them.
  b.pending_writers.push_back({t.tile_begin, t.tile_end, shift, op_shift, r.tiles.size()});
  for (const auto& [tensor, n] : src.writes) {
    if (int(b.gm_version.size()) <= tensor) b.gm_version.resize(size_t(tensor) + 1, 0);
    b.gm_version[size_t(tensor)] += n;
  }
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
