// Shared steps of the breadth merges: reading a *_setting for a subgraph
// (most specific key wins), and absorbing one subgraph into another as extra
// independent chains, kept only when the merged leaf still fits its buffers
// and no dependency cycle appears.
#include <algorithm>

#include "compiler/passes/breadth_merge.h"
#include "compiler/passes/buffer_liveness.h"

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

// One chain's on-chip bytes per memory at its op k (at[k]) and between its ops k and k + 1
// (gap[k]) by peak_bytes' rules (tile_graph.cpp): a tile holds its aligned size from its first to
// its last touch, an in-place result none at its first op. Within an interleaving of tile-disjoint
// chains each chain's tiles see only its own ops, so the leaf's bytes at a position are the sum of
// each chain's at/gap there. False when that does not hold: a result taken over in place twice in
// a row (whether the second op follows the first directly depends on the other chains).
struct ChainBytes {
  std::vector<std::array<int64_t, 6>> at, gap;
  std::vector<int> tiles;  // the on-chip tiles it touches
};

bool chain_bytes(const TileRoot& root, const std::vector<int>& ops, const std::array<int64_t, 6>& align,
                 ChainBytes& out) {
  struct Range { int first, last; bool late; };  // late: holds bytes only after its first op
  thread_local std::vector<std::pair<int, Range>> ranges;
  thread_local std::vector<int> slot;
  thread_local std::vector<std::array<int64_t, 6>> delta;  // per half step: 2k op k, 2k + 1 after it
  ranges.clear();
  auto touch = [&](int t, int pos) {
    if (t < 0 || root.tiles[size_t(t)].mem == MemKind::GM) return;  // fits reads no GM
    if (size_t(t) >= slot.size()) slot.resize(size_t(t) + 1, -1);  // grown to the tiles touched
    int& s = slot[size_t(t)];
    if (s < 0) {
      s = int(ranges.size());
      ranges.push_back({t, {pos, pos, false}});
    } else {
      ranges[size_t(s)].second.last = pos;
    }
  };
  const int n = int(ops.size());
  for (int i = 0; i < n; ++i) {
    const TileOp& op = root.ops[size_t(ops[size_t(i)])];
    for (int t : op.srcs) touch(t, i);
    touch(op.dst, i);
  }
  auto aligned = [&](const LocalTile& lt) {
    int64_t a = std::max<int64_t>(1, align[int(lt.mem)]);
    return (lt.bytes() + a - 1) / a * a;
  };
  bool local = true;
  for (int i = 0; i < n && local; ++i) {
    const TileOp& op = root.ops[size_t(ops[size_t(i)])];
    const int c = op.dst >= 0 ? in_place_source(root, op) : -1;
    if (c < 0 || slot[size_t(c)] < 0) continue;
    Range& src = ranges[size_t(slot[size_t(c)])].second;
    Range& dst = ranges[size_t(slot[size_t(op.dst)])].second;
    if (src.last != i || aligned(root.tiles[size_t(c)]) != aligned(root.tiles[size_t(op.dst)])) continue;
    if (dst.first == i && !dst.late) dst.late = true;
    else if (dst.late && dst.first == i - 1) local = false;
  }
  out.tiles.clear();
  delta.assign(size_t(2 * n + 1), std::array<int64_t, 6>{});
  for (auto& [t, rg] : ranges) {
    slot[size_t(t)] = -1;
    out.tiles.push_back(t);
    const int first = 2 * rg.first + (rg.late ? 1 : 0), last = 2 * rg.last;
    if (first > last) continue;  // taken over in place and never touched again
    const LocalTile& lt = root.tiles[size_t(t)];
    delta[size_t(first)][int(lt.mem)] += aligned(lt);
    delta[size_t(last + 1)][int(lt.mem)] -= aligned(lt);
  }
  out.at.assign(size_t(n), {});
  out.gap.assign(size_t(n), {});
  std::array<int64_t, 6> cur{};
  for (int h = 0; h < 2 * n; ++h) {
    for (int m = 0; m < 6; ++m) cur[size_t(m)] += delta[size_t(h)][size_t(m)];
    (h % 2 ? out.gap : out.at)[size_t(h / 2)] = cur;
  }
  return local;
}

// Whether no tile of `cb` belongs to a chain already described.
bool tiles_free(const InterleavedBytes& st, const ChainBytes& cb) {
  for (int t : cb.tiles)
    if (st.tile_chain[size_t(t)] >= 0) return false;
  return true;
}

// The peak when `cb` becomes the last chain (InterleavedBytes); `most`: the ranks it has.
std::array<int64_t, 6> peak_with(const InterleavedBytes& st, const ChainBytes& cb, std::vector<std::array<int64_t, 6>>& most) {
  std::array<int64_t, 6> peak = st.peak;
  most.resize(cb.at.size());
  for (size_t k = 0; k < cb.at.size(); ++k)
    for (size_t m = 0; m < 6; ++m) {
      int64_t own = cb.at[k][m] + (k < st.gap_sum.size() ? st.gap_sum[k][m] : 0);
      if (k < st.most.size()) own = std::max(own, st.most[k][m] + (k ? cb.gap[k - 1][m] : 0));
      most[k][m] = own;
      peak[m] = std::max(peak[m], own);
    }
  return peak;
}

void append_chain(InterleavedBytes& st, const std::vector<int>& ops, const ChainBytes& cb,
                  const std::vector<std::array<int64_t, 6>>& most, const std::array<int64_t, 6>& peak) {
  const size_t n = ops.size();
  if (st.rows.size() < n) {
    st.rows.resize(n);
    st.most.resize(n);
    st.gap_sum.resize(n, std::array<int64_t, 6>{});
  }
  for (size_t k = 0; k < n; ++k) {
    st.rows[k].push_back(ops[k]);
    st.most[k] = most[k];
    for (size_t m = 0; m < 6; ++m) st.gap_sum[k][m] += cb.gap[k][m];
  }
  for (int t : cb.tiles) {
    st.tile_chain[size_t(t)] = st.chains;
    st.marked.push_back(t);
  }
  st.peak = peak;
  ++st.chains;
}

// Adds each of `chains` in turn; false as interleaved_peak's nullopt.
bool add_chains(InterleavedBytes& st, const TileRoot& r, const std::vector<std::vector<int>>& chains,
                const std::array<int64_t, 6>& align) {
  if (st.tile_chain.size() < r.tiles.size()) st.tile_chain.resize(r.tiles.size(), -1);
  ChainBytes cb;
  std::vector<std::array<int64_t, 6>> most;
  for (auto& ops : chains) {
    if (!chain_bytes(r, ops, align, cb) || !tiles_free(st, cb)) return false;
    const std::array<int64_t, 6> peak = peak_with(st, cb, most);
    append_chain(st, ops, cb, most, peak);
  }
  return true;
}

// Describes anchor `into` from its ops: usable when they are in (rank, chain) order and its chains
// share no on-chip tile.
void start_run(AbsorbRun& run, int into) {
  run.flush();
  const TileRoot& r = run.b.root;
  const Subgraph& a = r.subgraphs[size_t(into)];
  run.into = into;
  std::vector<std::vector<int>> per_chain(size_t(std::max(a.chains, 0)));
  int last_rank = -1, last_chain = -1;
  for (int o : a.ops) {
    const int c = r.ops[size_t(o)].chain;
    if (c < 0 || c >= a.chains) return;
    const int rank = int(per_chain[size_t(c)].size());
    if (rank < last_rank || (rank == last_rank && c <= last_chain)) return;
    last_rank = rank, last_chain = c;
    per_chain[size_t(c)].push_back(o);
  }
  run.usable = add_chains(run.bytes, r, per_chain, run.b.align);
}

}  // namespace

void InterleavedBytes::clear() {
  for (int t : marked) tile_chain[size_t(t)] = -1;
  marked.clear();
  rows.clear();
  most.clear();
  gap_sum.clear();
  peak = {};
  chains = 0;
}

std::optional<std::array<int64_t, 6>> interleaved_peak(const TileRoot& r, const std::vector<std::vector<int>>& chains,
                                                       const std::array<int64_t, 6>& align) {
  InterleavedBytes st;
  if (!add_chains(st, r, chains, align)) return std::nullopt;
  return st.peak;
}

void AbsorbRun::flush() {
  if (into >= 0 && changed) {
    std::vector<int>& ops = b.root.subgraphs[size_t(into)].ops.mut();
    ops.clear();
    for (auto& row : bytes.rows) ops.insert(ops.end(), row.begin(), row.end());
  }
  bytes.clear();
  into = -1;
  usable = changed = false;
}

namespace {

// `probe`: decide only, and leave both subgraphs as they were (absorb_fits).
bool absorb(Builder& b, SgGraph& g, AbsorbRun* run, int into, int from, bool chain_major,
            const std::vector<std::pair<int, int>>& tile_rewrite, const std::vector<int>& drop_ops,
            bool probe = false) {
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
  // No edge between the two subgraphs nor between the chains of either: their merged chains stay apart.
  const bool apart = tile_rewrite.empty() && drop_ops.empty() && chains_apart(b, into) && chains_apart(b, from) &&
                     !g.succ[size_t(into)].count(from) && !g.pred[size_t(into)].count(from);
  // An anchor described by `run` gains the member as its last chain; anything else flushes the run.
  ChainBytes cb;
  bool incremental = false;
  if (run && apart && !chain_major && s.chains == 1 &&
      std::all_of(s.ops.begin(), s.ops.end(), [&](int o) { return r.ops[size_t(o)].chain == 0; })) {
    if (run->into != into) start_run(*run, into);
    incremental = run->usable && run->bytes.chains == a.chains && chain_bytes(r, s.ops.vec(), b.align, cb) &&
                  tiles_free(run->bytes, cb);
  }
  if (run && !incremental) run->flush();
  std::vector<int> cand = incremental ? std::vector<int>{} : a.ops.vec();
  for (int o : s.ops) {
    if (std::find(drop_ops.begin(), drop_ops.end(), o) != drop_ops.end()) continue;
    r.ops[o].chain += a.chains;
    if (!incremental) cand.push_back(o);
  }
  std::vector<int> order;
  bool ok;
  if (incremental) {
    std::vector<std::array<int64_t, 6>> most;
    const std::array<int64_t, 6> peak = peak_with(run->bytes, cb, most);
    ok = fits(b, peak);
    if (ok) {
      append_chain(run->bytes, s.ops.vec(), cb, most, peak);
      run->changed = true;
    }
  } else {
    order = apart ? merged_order_apart(r, cand, chain_major) : merged_order(r, cand, chain_major);
    ok = order.size() == cand.size() && fits(b, peak_bytes(r, order, b.align));
  }
  if (!ok || probe) {
    for (int o : s.ops)
      if (std::find(drop_ops.begin(), drop_ops.end(), o) == drop_ops.end()) r.ops[o].chain -= a.chains;
    for (auto& [o, k, t] : undo_srcs) r.ops[o].srcs[k] = t;
    if (!ok && !pattern.empty()) b.family_misfits.insert(std::move(pattern));
    return ok;
  }
  if (!incremental) a.ops = std::move(order);
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

}  // namespace

bool try_absorb(Builder& b, SgGraph& g, int into, int from, bool chain_major,
                const std::vector<std::pair<int, int>>& tile_rewrite, const std::vector<int>& drop_ops) {
  return absorb(b, g, nullptr, into, from, chain_major, tile_rewrite, drop_ops);
}

bool absorb_fits(Builder& b, SgGraph& g, int into, int from, bool chain_major,
                 const std::vector<std::pair<int, int>>& tile_rewrite, const std::vector<int>& drop_ops) {
  return absorb(b, g, nullptr, into, from, chain_major, tile_rewrite, drop_ops, true);
}

bool try_absorb(Builder& b, SgGraph& g, AbsorbRun& run, int into, int from) {
  return absorb(b, g, &run, into, from, false, {}, {});
}

int64_t auto_vec_count(int64_t n, int64_t lanes) {
  if (lanes <= 0 || n <= lanes) return 1;
  int64_t N = (n + lanes - 1) / lanes;
  while (N > 1 && (n + N - 1) / N < lanes) --N;
  return N;
}

}  // namespace ptoc::tiling
