#include "compiler/passes/leaf_plan.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <limits>
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

namespace {

constexpr int64_t kSymbolic = std::numeric_limits<int64_t>::min();  // a non-constant expression

int64_t const_or_symbolic(const DimExpr& e) {
  auto c = e.as_const();
  return c ? *c : kSymbolic;
}

bool is_gm_op(TileOpKind k) { return k == TileOpKind::CopyIn || k == TileOpKind::CopyOut || k == TileOpKind::FixOut; }

}  // namespace

uint64_t LeafShaper::shape(const TileRoot& root, const Subgraph& sg, const std::vector<GmTensor>& tensors) {
  std::vector<int64_t>& k = key;
  k.clear();
  tiles.clear();
  if (tensor_local.size() < tensors.size()) tensor_local.resize(tensors.size(), -1);
  std::vector<int> gm_used;                              // tensor ids in first-use order
  std::vector<std::pair<int, std::string>> views;        // distinct (tensor, view text) pairs
  auto tile = [&](int t) -> int64_t {
    if (t < 0) return -1;
    if (size_t(t) >= root.tiles.size()) throw std::out_of_range("LeafShaper: tile id out of range");
    if (size_t(t) >= tile_local.size()) tile_local.resize(size_t(t) + 1, -1);  // grown to the tiles seen
    int& l = tile_local[size_t(t)];
    if (l < 0) {
      l = int(tiles.size());
      tiles.push_back(t);
    }
    return l;
  };
  k.push_back(int64_t(sg.core));
  k.push_back(sg.chains);
  k.push_back(int64_t(sg.ops.size()));
  for (int id : sg.ops) {
    const TileOp& op = tile_op(root, id);
    k.push_back(int64_t(op.kind) | int64_t(op.vop) << 8 | int64_t(op.dtype) << 24 |
                int64_t(op.trans_a) << 32 | int64_t(op.trans_b) << 33 | int64_t(op.accumulate) << 34 |
                int64_t(op.atomic_add) << 35 | int64_t(op.scalar_first) << 36 | int64_t(op.scalar.has_value()) << 37);
    k.push_back(op.chain);
    k.push_back(op.scalar ? std::bit_cast<int64_t>(*op.scalar) : 0);
    k.push_back(std::bit_cast<int64_t>(op.fill));
    k.push_back(int64_t(op.srcs.size()));
    for (int s : op.srcs) k.push_back(tile(s));
    k.push_back(tile(op.dst));
    k.push_back(int64_t(op.axes.size()));
    for (int a : op.axes) k.push_back(a);
    k.push_back(int64_t(op.sub_offset.size()));
    for (int64_t v : op.sub_offset) k.push_back(v);
    if (!is_gm_op(op.kind)) continue;
    // GM tensors by first use (sync hazards and kernel slots compare tensor
    // identity); a reshaped view by its text (a slot is a tensor under one view).
    int& tl = tensor_local.at(size_t(op.gm.tensor));
    if (tl < 0) {
      tl = int(gm_used.size());
      gm_used.push_back(op.gm.tensor);
      const GmTensor& t = tensors[size_t(op.gm.tensor)];
      k.push_back(int64_t(t.dtype) | int64_t(t.format) << 8 | int64_t(t.shape.size()) << 16);
    }
    k.push_back(tl);
    int64_t view = 0;
    if (!op.gm.view.empty()) {
      std::string text;
      for (const DimExpr& e : op.gm.view) text += e.str() + ",";
      auto it = std::find(views.begin(), views.end(), std::pair<int, std::string>{tl, text});
      view = 1 + (it - views.begin());
      if (it == views.end()) views.emplace_back(tl, std::move(text));
    }
    k.push_back(view);
    k.push_back(int64_t(op.gm.view.size()));
    k.push_back(int64_t(op.gm.offset.size()));
    k.push_back(int64_t(op.gm.extent.size()));
    for (const DimExpr& e : op.gm.extent) k.push_back(const_or_symbolic(e));  // costs use constant extents
  }
  for (int t : gm_used) tensor_local[size_t(t)] = -1;
  // The tiles: what the buffer plan, the cost and the kernel text read.
  for (int t : tiles) {
    const LocalTile& lt = local_tile(root, t);
    k.push_back(int64_t(lt.mem) | int64_t(lt.dtype) << 8 | int64_t(lt.layout) << 16);
    k.push_back(int64_t(lt.shape.size()));
    for (int64_t d : lt.shape) k.push_back(d);
    k.push_back(int64_t(lt.valid.size()));
    for (const DimExpr& e : lt.valid) k.push_back(const_or_symbolic(e));
    tile_local[size_t(t)] = -1;
  }
  // Buffers are sorted by tile id: the relative order of the ids is structure too.
  by_id_.resize(tiles.size());
  for (size_t i = 0; i < by_id_.size(); ++i) by_id_[i] = int(i);
  std::sort(by_id_.begin(), by_id_.end(), [&](int a, int b) { return tiles[a] < tiles[b]; });
  for (int i : by_id_) k.push_back(i);
  return XXH64(k.data(), k.size() * sizeof(int64_t), 0);
}

}  // namespace ptoc
