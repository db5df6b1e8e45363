// L1Reuse's keys: an L1 copy's key from its op's text, or a copied block's moved from member 0's.
#include "compiler/passes/l1_reuse_keys.h"

#include <algorithm>
#include <cstring>

namespace ptoc::tiling {

// The L1 copies of a subgraph: (position in sg.ops, side of its tile), by one walk over its ops.
std::vector<std::pair<size_t, char>> l1_copies(const TileRoot& r, const Subgraph& sg) {
  // L1 tile -> the side of its last L0 load (a few dozen tiles: a flat list, not a map node per load).
  std::vector<std::pair<int, char>> sides;
  auto set_side = [&](int t, char c) {
    for (auto& [tile, sc] : sides)
      if (tile == t) {
        sc = c;
        return;
      }
    sides.emplace_back(t, c);
  };
  auto side_of = [&](int t) {
    for (auto& [tile, sc] : sides)
      if (tile == t) return sc;
    return '?';
  };
  // One walk over the ops (a GEMM's are most of the compile's memory): the sides, and the L1 copies.
  std::vector<size_t> copies;
  for (size_t i = 0; i < sg.ops.size(); ++i) {
    const TileOp& op = r.ops[sg.ops[i]];
    if (op.kind == TileOpKind::L1ToL0A) set_side(op.srcs[0], 'L');
    if (op.kind == TileOpKind::L1ToL0B) set_side(op.srcs[0], 'R');
    if (op.kind == TileOpKind::CopyIn && r.tiles[op.dst].mem == MemKind::L1) copies.push_back(i);
  }
  std::vector<std::pair<size_t, char>> out;
  out.reserve(copies.size());
  for (size_t i : copies) out.push_back({i, side_of(r.ops[sg.ops[i]].dst)});
  return out;
}

// The feature keys of the given L1 copies of sg.
// `rendered` counts the keys built (each from the text of its op).
std::vector<Feature> l1_features(const TileRoot& r, const Subgraph& sg,
                                 const std::vector<std::pair<size_t, char>>& copies, ShapeIds& shapes,
                                 int64_t& rendered) {
  rendered += int64_t(copies.size());
  std::vector<Feature> out;
  out.reserve(copies.size());
  std::string k;
  for (auto [i, side] : copies) {
    const int o = sg.ops[i];
    const TileOp& op = r.ops[o];
    // A constant is its 8 bytes (no symbolic expression renders as a bare integer), anything else
    // its text; rendering every constant was most of this pass on a GEMM (55 k L1 copies).
    FeatureKey key;
    k.clear();
    auto put_const = [&](int64_t c) {
      k += 'c';
      k.append(reinterpret_cast<const char*>(&c), sizeof c);
    };
    auto put_text = [&](const DimExpr& x) {
      k += 's';
      k += x.str();
      k += '\0';
    };
    auto put = [&](char tag, const std::vector<DimExpr>& dims) {
      k += tag;
      for (const DimExpr& x : dims)
        if (auto c = x.as_const()) put_const(*c);
        else put_text(x);
    };
    k.append(reinterpret_cast<const char*>(&op.gm.tensor), sizeof op.gm.tensor);
    k += '#';
    for (size_t e = 0; e < op.gm.offset.size(); ++e) {
      auto c = op.gm.offset[e].as_const();
      if (c && e < size_t(FeatureKey::kMaxOffsets)) {
        k += 'p';
        key.off[size_t(key.n++)] = *c;
      } else if (c) {
        put_const(*c);
      } else {
        put_text(op.gm.offset[e]);
      }
    }
    put('@', op.gm.extent);
    put('v', op.gm.view);
    k += op.trans_a || op.trans_b ? 'T' : 'N';
    key.shape = shapes.emplace(k, int(shapes.size())).first->second;
    key.rehash();
    out.push_back({key, side, o, op.dst});
  }
  return out;
}

std::vector<Feature> l1_features(const TileRoot& r, const Subgraph& sg, ShapeIds& shapes, int64_t& rendered) {
  return l1_features(r, sg, l1_copies(r, sg), shapes, rendered);
}

// The root's members are its first matmul's output blocks (block_replica.h): member k is block k.
const BlockCopies* copied_blocks(const Builder& b) {
  const BlockCopies* c = b.block_copies.get();
  if (!c || !b.family) return nullptr;
  const TileFamily& f = *b.family;
  if (f.segments.size() != 1 || f.segments[0].op_begin != 0 || f.segments[0].tile_begin != 0 ||
      f.segments[0].ops_per != c->ops_per || f.segments[0].tiles_per != c->tiles_per ||
      f.members != int(c->copied.size()) || int(c->operand.size()) != c->ops_per)
    return nullptr;
  return c;
}

// Member k's features from member 0's `f0` when member k is a copy of block 0: each key with its
// offsets moved by the block's delta of the copy's operand, its op and tile moved by k blocks.
// Nullopt: `s` is not member 0's subgraph moved there.
std::optional<std::vector<Feature>> moved_features(const TileRoot& r, const BlockCopies& c, int k,
                                                   const std::vector<Feature>& f0, const Subgraph& s,
                                                   const std::vector<std::pair<size_t, char>>& copies) {
  if (f0.size() != copies.size()) return std::nullopt;
  const int dop = k * c.ops_per, dtile = k * c.tiles_per;
  std::vector<Feature> out;
  out.reserve(f0.size());
  for (size_t i = 0; i < f0.size(); ++i) {
    const Feature& f = f0[i];
    if (copies[i].first >= s.ops.size() || s.ops[copies[i].first] != f.op + dop) return std::nullopt;
    const BlockOperand x = c.operand[size_t(f.op)];
    if (x == BlockOperand::None) return std::nullopt;
    const std::vector<int64_t>& d = c.delta[size_t(k)][size_t(x)];
    const size_t rank = r.ops[size_t(f.op)].gm.offset.size();
    if (d.size() != rank || size_t(f.key.n) != rank) return std::nullopt;  // an offset not a number
    Feature m{f.key, f.side, f.op + dop, f.tile + dtile};
    for (size_t e = 0; e < rank; ++e) m.key.off[e] += d[e];
    m.key.rehash();
    out.push_back(m);
  }
  return out;
}
void shared_copies(const std::vector<Feature>& member, const std::vector<Feature>& anchor,
                   const std::vector<std::pair<size_t, int>>& by_hash, std::vector<std::pair<int, int>>& rewrite,
                   std::vector<int>& drop) {
  for (auto& sf : member)  // the anchor's first copy with the key
    for (auto e = std::lower_bound(by_hash.begin(), by_hash.end(), std::pair<size_t, int>{sf.key.hash, 0});
         e != by_hash.end() && e->first == sf.key.hash; ++e)
      if (const Feature& af = anchor[size_t(e->second)]; sf.key == af.key) {
        rewrite.push_back({sf.tile, af.tile});
        drop.push_back(sf.op);
        break;
      }
}

std::vector<std::pair<size_t, int>> sorted_key_hashes(const std::vector<Feature>& feats) {
  std::vector<std::pair<size_t, int>> v;
  v.reserve(feats.size());
  for (size_t i = 0; i < feats.size(); ++i) v.push_back({feats[i].key.hash, int(i)});
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace ptoc::tiling
