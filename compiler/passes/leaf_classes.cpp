#include "compiler/passes/leaf_classes.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "compiler/passes/tile_families.h"

namespace ptoc {

LeafClasses classify_leaves(const std::vector<TileRoot>& roots, const std::vector<GmTensor>& tensors, bool share,
                            std::vector<LeafPlan>& plans, bool use_replicas) {
  LeafClasses lc;
  plans.clear();
  std::vector<int> first_leaf(roots.size(), 0);  // root -> plan index of its first subgraph
  // Sized once: growing moved every LeafPlan made so far (9 216 of them for a GEMM at 8x).
  size_t leaves = 0;
  for (const TileRoot& r : roots) leaves += r.subgraphs.size();
  plans.reserve(leaves);
  lc.subgraph.reserve(leaves);
  for (int ri = 0; ri < int(roots.size()); ++ri)
    for (const Subgraph& sg : roots[ri].subgraphs) {
      if (&sg == roots[ri].subgraphs.data()) first_leaf[size_t(ri)] = int(plans.size());
      LeafPlan p;
      p.root = ri;
      p.subgraph = sg.id;
      plans.push_back(std::move(p));
      lc.subgraph.push_back(&sg);
    }
  const int np = int(plans.size());
  lc.class_of.resize(size_t(np));
  lc.tiles_of.resize(size_t(np));
  lc.moved.resize(size_t(np));
  if (!share) {
    for (int i = 0; i < np; ++i) {
      lc.class_of[i] = i;
      lc.classes.emplace_back().rep = i;
    }
    return lc;
  }
  LeafShaper shaper;
  std::unordered_map<uint64_t, std::vector<int>> by_hash;  // key hash -> classes
  std::vector<std::vector<int64_t>> keys;                  // per class
  for (int i = 0; i < np; ++i) {
    const TileRoot& root = roots[size_t(plans[i].root)];
    if (use_replicas && root.replicas) {
      // Member k's copy of member 0's leaf: the same key (tile_families.h, FamilyReplicas::alike),
      // its tiles in the same order moved to member k.
      const tiling::FamilyReplicas& rep = *root.replicas;
      const int s = lc.subgraph[i]->id, k = rep.member[size_t(s)];
      const int i0 = first_leaf[size_t(plans[i].root)] + rep.of_member0[size_t(rep.local[size_t(s)])];
      if (k > 0 && rep.family.alike[size_t(k)] && i0 < i) {
        lc.class_of[i] = lc.class_of[size_t(i0)];
        lc.moved[size_t(i)] = {i0, k, &rep};
        continue;
      }
    }
    std::vector<int>& cands = by_hash[shaper.shape(root, *lc.subgraph[i], tensors)];
    int c = -1;
    for (int x : cands)
      if (keys[x] == shaper.key) c = x;
    if (c < 0) {
      c = int(lc.classes.size());
      lc.classes.emplace_back().rep = i;
      keys.push_back(shaper.key);
      cands.push_back(c);
    }
    lc.class_of[i] = c;
    lc.tiles_of[i] = shaper.tiles;
  }
  return lc;
}

int LeafClasses::tile(int i, size_t x) const {
  const MovedTiles& m = moved[size_t(i)];
  if (m.from < 0) return tiles_of[size_t(i)].at(x);
  return m.replicas->tile_of(m.member, tiles_of[size_t(m.from)].at(x));
}

size_t LeafClasses::tile_count(int i) const {
  const MovedTiles& m = moved[size_t(i)];
  return tiles_of[size_t(m.from < 0 ? i : m.from)].size();
}

std::vector<int> LeafClasses::tiles(int i) const {
  std::vector<int> out(tile_count(i));
  for (size_t x = 0; x < out.size(); ++x) out[x] = tile(i, x);
  return out;
}

// Where the representative's ops and tiles sit inside its subgraph, to rename them per leaf.
void LeafClasses::prepare(const std::vector<TileRoot>& roots, const std::vector<LeafPlan>& plans, LeafClass& c) {
  if (!c.step_pos.empty() || !c.buffer_local.empty()) return;
  const LeafPlan& rp = plans[c.rep];
  const TileRoot& root = roots[rp.root];
  const Subgraph& sg = *subgraph[c.rep];
  // Scratch sized to the ids of this leaf (a family root's representative: member 0's), not the root's.
  const std::vector<int>& tiles = tiles_of[c.rep];
  int top = -1;
  for (int o : sg.ops) top = std::max(top, o);
  for (const LeafStep& st : rp.steps) top = std::max(top, st.op);
  for (int t : tiles) top = std::max(top, t);
  for (const BufferSlot& b : rp.buffers) top = std::max(top, b.tile);
  if (size_t(top) >= std::max(root.ops.size(), root.tiles.size())) throw std::out_of_range("leaf classes: id out of range");
  scratch_.assign(size_t(top + 1), -1);
  for (int k = 0; k < int(sg.ops.size()); ++k) scratch_.at(size_t(sg.ops[k])) = k;
  for (const LeafStep& st : rp.steps) c.step_pos.push_back(scratch_.at(size_t(st.op)));
  scratch_.assign(scratch_.size(), -1);
  for (int k = 0; k < int(tiles.size()); ++k) scratch_.at(size_t(tiles[k])) = k;
  for (const BufferSlot& b : rp.buffers) c.buffer_local.push_back(scratch_.at(size_t(b.tile)));
}

void LeafClasses::copy_plan(const std::vector<TileRoot>& roots, std::vector<LeafPlan>& plans, int i) {
  copy_summary(roots, plans, i);
  LeafClass& c = of(i);
  const LeafPlan& rp = plans[c.rep];
  LeafPlan& p = plans[i];
  p.steps = rp.steps;
  const Subgraph& sg = *subgraph[i];
  for (size_t k = 0; k < p.steps.size(); ++k) p.steps[k].op = sg.ops[size_t(c.step_pos[k])];
  p.buffers = rp.buffers;
  for (size_t b = 0; b < p.buffers.size(); ++b) p.buffers[b].tile = tile(i, size_t(c.buffer_local[b]));
}

void LeafClasses::copy_summary(const std::vector<TileRoot>& roots, std::vector<LeafPlan>& plans, int i) {
  LeafClass& c = of(i);
  prepare(roots, plans, c);
  const LeafPlan& rp = plans[c.rep];
  LeafPlan& p = plans[i];
  p.core = rp.core;
  p.interleaved = rp.interleaved;
  p.peak = rp.peak;
}

void LeafClasses::own_ids(const std::vector<TileRoot>& roots, const std::vector<LeafPlan>& plans, int i,
                          std::vector<int>& step_ops, std::vector<int>& buffer_tiles) {
  LeafClass& c = of(i);
  prepare(roots, plans, c);
  const Subgraph& sg = *subgraph[size_t(i)];
  step_ops.resize(c.step_pos.size());
  for (size_t k = 0; k < step_ops.size(); ++k) step_ops[k] = sg.ops[size_t(c.step_pos[k])];
  buffer_tiles.resize(c.buffer_local.size());
  const MovedTiles& m = moved[size_t(i)];
  const std::vector<int>& own = tiles_of[size_t(m.from < 0 ? i : m.from)];
  for (size_t b = 0; b < buffer_tiles.size(); ++b) {
    const int t = own.at(size_t(c.buffer_local[b]));
    buffer_tiles[b] = m.from < 0 ? t : m.replicas->tile_of(m.member, t);
  }
}

int LeafClasses::local_tile(int i, int t) const {
  const std::vector<int>& rt = tiles_of[size_t(classes[size_t(class_of[size_t(i)])].rep)];
  const size_t x = size_t(std::find(rt.begin(), rt.end(), t) - rt.begin());
  if (x >= tile_count(i)) throw std::out_of_range("leaf classes: tile not in the leaf");
  return tile(i, x);
}

}  // namespace ptoc
