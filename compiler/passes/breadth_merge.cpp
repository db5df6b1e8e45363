// Shared steps of the breadth merges: reading a *_setting for a subgraph
// (most specific key wins), and absorbing one subgraph into another as extra
// independent chains, kept only when the merged leaf still fits its buffers
// and no dependency cycle appears.
#include <algorithm>

#include "compiler/passes/breadth_merge.h"

namespace ptoc::tiling {

MergeCount merge_count(const MergeSetting& set, bool default_auto, int64_t magic, int64_t order,
                       const std::string& label) {
  MergeCount c;
  if (!set.given || set.entries.empty()) {
    c.automatic = default_auto;
    c.count = default_auto ? 0 : 1;
    return c;
  }
  const MergeSetting::Entry* e = set.lookup(magic, order, label);
  if (!e) return c;  // given, nothing applies: off
  c.automatic = e->count == 0;
  c.count = e->count;
  c.side = e->side;
  c.key = e->name;
  return c;
}

namespace {

bool chains_apart(const Builder& b, int sg) {
  return b.root.subgraphs[size_t(sg)].chains == 1 ||
         (size_t(sg) < b.chains_apart.size() && b.chains_apart[size_t(sg)]);
}

// merged_order (subgraph_edges.cpp) of ops no edge joins across chains: each chain's ops come in
// `ops` order, a valid order, so every edge goes from a smaller merge key to a larger one, and
// Kahn's walk by (key, op id) is the sort by (key, op id): the edges need not be built (a
// VecNBuffer anchor absorbing its 171st member rebuilt the edges of all 170 before).
std::vector<int> merged_order_apart(const TileRoot& r, const std::vector<int>& ops, bool chain_major) {
  std::vector<int> next_rank;
  std::vector<std::pair<double, int>> key(ops.size());
  const double big = double(ops.size() + 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    const int c = r.ops[size_t(ops[i])].chain;
    if (int(next_rank.size()) <= c) next_rank.resize(size_t(c) + 1, 0);
    const int rank = next_rank[size_t(c)]++;
    key[i] = {chain_major ? c * big + rank : rank * big + c, ops[i]};
  }
  std::sort(key.begin(), key.end());
  std::vector<int> out(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) out[i] = key[i].second;
  return out;
}

}  // namespace

bool try_absorb(Builder& b, SgGraph& g, int into, int from, bool chain_major,
                const std::vector<std::pair<int, int>>& tile_rewrite, const std::vector<int>& drop_ops) {
  TileRoot& r = b.root;
  Subgraph& a = r.subgraphs[into];
  Subgraph& s = r.subgraphs[from];
  if (a.ops.empty() || s.ops.empty() || a.core != s.core) return false;
  if (g.merge_creates_cycle(into, from)) return false;
  // Two unmerged subgraphs of a tile family (tile_families.h): the outcome depends only on which
  // subgraphs of their members they are, which member comes first, and the rewrites relative to
  // the members (no GM hazard joins two members), so a misfit is remembered by that pattern.
  std::vector<int64_t> pattern;
  if (b.family && a.chains == 1 && s.chains == 1 && size_t(std::max(into, from)) < b.family_sg_member.size()) {
    const TileFamily& f = *b.family;
    const int ma = b.family_sg_member[size_t(into)], ms = b.family_sg_member[size_t(from)];
    pattern = {chain_major, b.family_sg_local[size_t(into)], b.family_sg_local[size_t(from)], (ms > ma) - (ms < ma)};
    for (auto& [old_t, new_t] : tile_rewrite) {
      auto [ko, to] = f.tile_member(old_t);
      auto [kn, tn] = f.tile_member(new_t);
      if (ko != ms || kn != ma) {
        pattern.clear();
        break;
      }
      pattern.push_back(to);
      pattern.push_back(tn);
    }
    if (!pattern.empty()) {
      pattern.push_back(-1);
      for (int o : drop_ops) {
        auto [k, j] = f.op_member(o);
        if (k != ms) {
          pattern.clear();
          break;
        }
        pattern.push_back(j);
      }
    }
    if (!pattern.empty() && b.family_misfits.count(pattern)) return false;
  }
  // Tentatively apply: chain offsets, tile rewrites, dropped duplicate loads.
  std::vector<std::tuple<int, size_t, int>> undo_srcs;  // (op, index, old tile)
  for (int o : s.ops)
    for (size_t k = 0; k < r.ops[o].srcs.size(); ++k)
      for (auto& [old_t, new_t] : tile_rewrite)
        if (r.ops[o].srcs[k] == old_t) {
          undo_srcs.emplace_back(o, k, old_t);
          r.ops[o].srcs[k] = new_t;
          break;
        }
  std::vector<int> cand = a.ops;
  for (int o : s.ops) {
    if (std::find(drop_ops.begin(), drop_ops.end(), o) != drop_ops.end()) continue;
    r.ops[o].chain += a.chains;
    cand.push_back(o);
  }
  // No edge between the two subgraphs nor between the chains of either: their merged chains stay apart.
  const bool apart = tile_rewrite.empty() && drop_ops.empty() && chains_apart(b, into) && chains_apart(b, from) &&
                     !g.succ[size_t(into)].count(from) && !g.pred[size_t(into)].count(from);
  auto order = apart ? merged_order_apart(r, cand, chain_major) : merged_order(r, cand, chain_major);
  bool ok = order.size() == cand.size() && fits(b, peak_bytes(r, order, b.align));
  if (!ok) {
    for (int o : s.ops)
      if (std::find(drop_ops.begin(), drop_ops.end(), o) == drop_ops.end()) r.ops[o].chain -= a.chains;
    for (auto& [o, k, t] : undo_srcs) r.ops[o].srcs[k] = t;
    if (!pattern.empty()) b.family_misfits.insert(std::move(pattern));
    return false;
  }
  a.ops = std::move(order);
  if (b.chains_apart.size() < r.subgraphs.size()) b.chains_apart.resize(r.subgraphs.size(), 0);
  b.chains_apart[size_t(into)] = apart;
  b.iso_fresh = false;
  a.chains += s.chains;
  if (a.label.empty()) a.label = s.label;
  s.ops.clear();
  s.chains = 0;
  g.merge(into, from);
  return true;
}

int64_t auto_vec_count(int64_t n, int64_t lanes) {
  if (lanes <= 0 || n <= lanes) return 1;
  int64_t N = (n + lanes - 1) / lanes;
  while (N > 1 && (n + N - 1) / N < lanes) --N;
  return N;
}

}  // namespace ptoc::tiling
