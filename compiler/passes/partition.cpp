// Partition of a root's tile ops into subgraphs (future leaves):
// 1. supernodes: ops that cannot be apart (a copy-in with its consumer, a
//    copy-out with its producer, an L1 copy with its L1->L0 moves, a Mmad chain
//    sharing L0C, its FixOut);
// 2. scopes (sg_set_scope): same-scope producer->consumer ops forced together,
//    parallel_merge joins the scope's independent branches;
// 3. depth merge along one-to-one tile edges (producer with a unique consumer
//    group or consumer with a unique producer group), same core type, scope
//    rules, no cycle, and only when the merged group still fits the buffers;
// 4. cuts: a tile edge left between two groups becomes a GM round trip (the
//    value's home, or a temp when the home was written again before the reader or
//    when the reload's order against the home's other stores would close a cycle),
//    a copied-in tile is loaded again instead (expansion shares a load only
//    between two writes of its bytes, so the reload reads the same bytes).
// GM hazards are ordered by program position (TileOp::seq), and a reload's
// inherited hazards are in the group graph before merging; every join that is a
// choice (supernode copy-outs and first readers, scopes, depth) is checked for a
// path between the two groups, so no merge can close a cycle (issue 11 B3; the
// groups, their graph and that test: partition_groups.h).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <unordered_set>

#include "compiler/passes/affine_box.h"
#include "compiler/passes/buffer_liveness.h"
#include "compiler/passes/low_peak_order.h"
#include "compiler/passes/partition_groups.h"
#include "compiler/passes/partition_live_profile.h"
#include "compiler/passes/tile_build.h"
#include "compiler/passes/vec_tile_proposal.h"

namespace ptoc::tiling {

namespace {

// Whether the groups of the union-find (`g.parent`, members not built yet) depend on each other in a
// cycle through `edges`: Kahn over the group roots.
bool groups_form_cycle(PartitionGroups& g, const std::vector<OpEdge>& edges, int n) {
  std::vector<std::vector<int>> succ(static_cast<size_t>(n));
  std::vector<int> indeg(static_cast<size_t>(n), 0);
  for (auto& e : edges) {
    int a = g.find(e.from), c = g.find(e.to);
    if (a == c) continue;
    succ[size_t(a)].push_back(c);
    ++indeg[size_t(c)];
  }
  std::vector<int> ready;
  int roots = 0, done = 0;
  for (int i = 0; i < n; ++i)
    if (g.find(i) == i) {
      ++roots;
      if (indeg[size_t(i)] == 0) ready.push_back(i);
    }
  while (!ready.empty()) {
    int x = ready.back();
    ready.pop_back();
    ++done;
    for (int s : succ[size_t(x)])
      if (--indeg[size_t(s)] == 0) ready.push_back(s);
  }
  return done != roots;
}

// The supernode joins that are a choice (`joins`: op pairs), in order, each made only when the
// groups' dependency graph (from `edges`) has no other path between them: a join never closes a
// cycle. Leaves the graph empty (partition builds it again once loads are redirected).
void join_unless_cycle(PartitionGroups& g, const std::vector<OpEdge>& edges, const std::vector<std::pair<int, int>>& joins) {
  if (joins.empty()) return;
  for (auto& e : edges) {
    int a = g.find(e.from), c = g.find(e.to);
    if (a != c) {
      g.succ[a].insert(c);
      g.pred[c].insert(a);
    }
  }
  g.order();
  for (auto [x, y] : joins) {
    int a = g.find(x), c = g.find(y);
    if (a == c || g.indirect_path(a, c) || g.indirect_path(c, a)) continue;
    g.unite(a, c);
  }
  g.ordered = false;
  for (auto& s : g.succ) s.clear();
  for (auto& p : g.pred) p.clear();
}

// Bounds of each group's peak bytes, so that a depth merge needs no recount of the whole merged
// group at every attempt (fuzz seeds 9001608, 9004328: thousands of one-element tiles per op, one
// group growing by one op at a time, peak_bytes quadratic). For op sets A and C (peaks over their
// op-id order) and S the bytes of the tiles both touch:
//   max(peak A, peak C) <= peak(A u C) <= peak A + peak C + 2 S.
// Lower: a tile live at an op of A alone is live there in the union (its range only widens, and an
// in-place takeover that holds in the union holds in A). Upper: at an op of A, A's own tiles are
// live as in A, C's own tiles are a subset of those live at C's previous op, the shared ones add at
// most S, and an in-place takeover lost to a shared source adds at most one tile of its size.
// A bound decides when it can; otherwise the exact count (GroupLiveProfile, partition_live_profile.h:
// a sum of segment trees, not a recount), which resets both bounds.
struct PeakBounds {
  using Bytes = std::array<int64_t, 6>;
  struct Entry {
    size_t size = SIZE_MAX;  // members.size() the bounds belong to (a stale entry is recomputed)
    Bytes lo{}, hi{};
    // The tiles its ops touch: a hash set, so that a join adds the smaller group's into the larger's
    // (a sorted union copied the whole group's list at every merge, quadratic in seed 9004328).
    std::unordered_set<int> tiles;
  };
  std::vector<Entry> e;
  const TileRoot& r;
  const std::array<int64_t, 6>& align;
  GroupLiveProfile& profile;  // the exact counts (partition_live_profile.h)
  PeakBounds(const TileRoot& root, const std::array<int64_t, 6>& al, size_t n, GroupLiveProfile& p)
      : e(n), r(root), align(al), profile(p) {}
  int64_t aligned(int t) const {
    const LocalTile& lt = r.tiles[size_t(t)];
    int64_t a = std::max<int64_t>(1, align[int(lt.mem)]);
    return (lt.bytes() + a - 1) / a * a;
  }
  Entry& of(int root, const std::vector<int>& members) {
    Entry& x = e[size_t(root)];
    if (x.size == members.size()) return x;
    x.size = members.size();
    x.lo = x.hi = profile.peak(root, members);
    x.tiles.clear();
    for (int o : members) {
      const TileOp& op = r.ops[size_t(o)];
      for (int s : op.srcs) x.tiles.insert(s);
      if (op.dst >= 0) x.tiles.insert(op.dst);
    }
    return x;
  }
  Bytes shared(const Entry& a, const Entry& c) const {
    const Entry& small = a.tiles.size() < c.tiles.size() ? a : c;
    const Entry& big = &small == &a ? c : a;
    Bytes s{};
    for (int t : small.tiles)
      if (big.tiles.count(t)) s[size_t(r.tiles[size_t(t)].mem)] += aligned(t);
    return s;
  }
  // After unite(a, c) gave root u of `size` members, with these bounds.
  void joined(int u, int a, int c, size_t size, const Bytes& lo, const Bytes& hi) {
    Entry x;
    x.size = size;
    x.lo = lo;
    x.hi = hi;
    Entry &ea = e[size_t(a)], &ec = e[size_t(c)];
    Entry& big = ea.tiles.size() >= ec.tiles.size() ? ea : ec;
    const Entry& small = &big == &ea ? ec : ea;
    x.tiles = std::move(big.tiles);
    x.tiles.insert(small.tiles.begin(), small.tiles.end());
    int other = u == a ? c : a;
    e[size_t(other)] = Entry{};
    e[size_t(u)] = std::move(x);
  }
};

const ScopeInfo& op_scope(const Builder& b, int op) {
  static const ScopeInfo none;
  int src = b.root.ops[op].source_op;
  return src >= 0 ? b.prog.ops[src].scope : none;
}

}  // namespace

static std::string hint_for(const Builder& b, const TileOp& op, MemKind m) {
  if (op.source_op < 0) return {};
  const Op& src = b.prog.ops[op.source_op];
  if (m == MemKind::UB && src.vec_tile) {
    const auto& t = src.vec_tile->shape;
    size_t axis = 0;
    for (size_t d = 0; d < t.size(); ++d)
      if (t[d] > t[axis]) axis = d;
    if (t.size() > 1 && axis == t.size() - 1 && t[0] > 1) axis = 0;  // keep the last (contiguous) axis wide
    return "reduce vec_tile on axis " + std::to_string(axis) +
           (src.vec_tile->loc.valid() ? " at line " + std::to_string(src.vec_tile->loc.line) : std::string()) +
           ", or merge fewer ops (scope, vec_nbuffer_setting)";
  }
  if (m == MemKind::UB && src.kind == OpKind::Assemble)
    return "add {vec_tile: [...]} before this statement: with none in force (a scope or loop body restores the "
           "outer setting at its end) the copy moves the whole value as one tile";
  if (src.cube_tile) {
    std::string what = m == MemKind::L0C ? "m or n L0" : m == MemKind::L1 ? "the k L1 extents" : "m, n or k L0";
    return "reduce " + what + " of cube_tile" +
           (src.cube_tile->loc.valid() ? " at line " + std::to_string(src.cube_tile->loc.line) : std::string());
  }
  return {};
}

bool check_fits(Builder& b, const std::vector<int>& ops, const std::string& context) {
  auto peak = peak_bytes(b.root, ops, b.align);
  for (int m = 1; m < 6; ++m) {
    if (peak[m] <= b.cap[m]) continue;
    // The op where the peak occurs, every buffer live there and the tile that would fit (buffer_liveness.h).
    const std::vector<TileLive> lives = tile_lives(b.root, ops, b.align);
    const PeakPoint at = peak_point(b.root, lives, MemKind(m), int(ops.size()));
    const int pos = std::max(0, at.pos);
    const TileOp& op = b.root.ops[ops[size_t(pos)]];
    SrcLoc loc = op.source_op >= 0 ? b.prog.ops[op.source_op].loc : SrcLoc{};
    b.failed = true;
    if (overflow_reported(b.diags, loc)) return false;  // once per op and statement, not per tile instance
    std::string name = op.source_op >= 0 ? std::string(op_kind_name(b.prog.ops[op.source_op].kind)) : "tile op";
    int64_t total = 0;
    const std::string list = live_buffer_list(b.prog, b.root, ops, lives, MemKind(m), pos, &total);
    int count = 0;
    for (const TileLive& l : lives) count += int(b.root.tiles[size_t(l.tile)].mem) == m && holds_at(l, pos);
    const VecTileCheck retile = [&](const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
      const Op& s = b.prog.ops[size_t(op.source_op)];
      return s.vec_tile && vec_tile_proposal_fits(b.prog, b.plat, s.vec_tile->loc, from, to);
    };
    std::string fit = fitting_vec_tile(b.prog, b.root, ops, lives, MemKind(m), pos, b.cap[m], b.align, retile);
    std::string hint = hint_for(b, op, MemKind(m));
    if (!fit.empty()) hint = fit + (hint.empty() ? "" : "; or " + hint);
    b.diags.error(loc,
                  "'" + name + "' does not fit " + std::string(mem_kind_name(MemKind(m))) + context + ": the " +
                      std::to_string(count) + (count == 1 ? " buffer live at this op needs " : " buffers live at this op need ") + std::to_string(total) + " bytes, " +
                      b.plat.name + " has " + std::to_string(b.cap[m]) + " (" + std::to_string(total - b.cap[m]) +
                      " too many): " + list,
                  hint);
    return false;
  }
  return true;
}

bool fits(const Builder& b, const std::array<int64_t, 6>& peak) {
  for (int m = 1; m < 6; ++m)
    if (peak[m] > b.cap[m]) return false;
  return true;
}

void partition(Builder& b) {
  TileRoot& r = b.root;
  int n = int(r.ops.size());
  std::vector<char> alive(n, 1);
  // A UB load read by several ops is no dependency between its readers: each
  // group that needs it loads it (cuts below), so its edges do not drive merging.
  auto edges = op_edges(r, alive);
  auto is_loader = [&](int o) {
    const TileOp& op = r.ops[o];
    return (op.kind == TileOpKind::CopyIn && r.tiles[op.dst].mem == MemKind::UB) ||
           (op.kind == TileOpKind::Vec && op.srcs.empty());
  };

  // Scope of each op, looked up once (the merge loops below ask for it per edge).
  std::vector<const ScopeInfo*> op_scopes(static_cast<size_t>(n), nullptr);
  for (int i = 0; i < n; ++i) op_scopes[size_t(i)] = &op_scope(b, i);
  auto osc = [&](int o) -> const ScopeInfo& { return *op_scopes[size_t(o)]; };
  PartitionGroups g;
  g.parent.resize(n);
  std::iota(g.parent.begin(), g.parent.end(), 0);
  // 1. Supernodes.
  // Writers and readers of every tile in op order, as two flat arrays (CSR).
  size_t nt = r.tiles.size();
  std::vector<int> wstart(nt + 1, 0), rstart(nt + 1, 0);
  for (auto& op : r.ops) {
    if (op.dst >= 0) ++wstart[size_t(op.dst) + 1];
    for (int s : op.srcs) ++rstart[size_t(s) + 1];
  }
  for (size_t t = 0; t < nt; ++t) wstart[t + 1] += wstart[t], rstart[t + 1] += rstart[t];
  std::vector<int> wlist(static_cast<size_t>(wstart[nt])), rlist(static_cast<size_t>(rstart[nt]));  // not size_t(...): a declaration
  {
    std::vector<int> wf(wstart.begin(), wstart.end() - 1), rf(rstart.begin(), rstart.end() - 1);
    for (auto& op : r.ops) {
      if (op.dst >= 0) wlist[size_t(wf[size_t(op.dst)]++)] = op.id;
      for (int s : op.srcs) rlist[size_t(rf[size_t(s)]++)] = op.id;
    }
  }
  auto u = [&](int x, int y) { g.parent[g.find(x)] = g.find(y); };
  // A UB tile's copy-outs and a UB load's first reader join the producer when they can: a tile stored
  // again after a GM hazard on the stored bytes (a loop-invariant load written into a workspace
  // every iteration, read back in between) would close a cycle. Those joins wait for the group graph
  // (join_unless_cycle); a reader left apart gets a reload or a cut (issue 11 B3).
  std::vector<std::pair<int, int>> optional_joins;
  for (size_t t = 0; t < nt; ++t) {
    const int* ws = wlist.data() + wstart[t];
    size_t nw = size_t(wstart[t + 1] - wstart[t]);
    const int* rs = rlist.data() + rstart[t];
    size_t nr = size_t(rstart[t + 1] - rstart[t]);
    for (size_t i = 1; i < nw; ++i) u(ws[i], ws[0]);
    if (nw == 0) continue;
    const TileOp& w = r.ops[ws[0]];
    bool loader = w.kind == TileOpKind::CopyIn || w.kind == TileOpKind::L1ToL0A || w.kind == TileOpKind::L1ToL0B ||
                  (w.kind == TileOpKind::Vec && w.srcs.empty());
    bool all = r.tiles[t].mem != MemKind::UB;  // L1/L0 tiles stay with every reader
    for (size_t i = 0; i < nr; ++i) {
      const TileOp& rd = r.ops[rs[i]];
      if (!(rd.kind == TileOpKind::CopyOut || rd.kind == TileOpKind::FixOut || (loader && (i == 0 || all)))) continue;
      if (!all && (rd.kind == TileOpKind::CopyOut || (loader && i == 0)))
        optional_joins.push_back({rs[i], ws[0]});
      else
        u(rs[i], ws[0]);
    }
  }
  // A dropped load edge L -> R becomes a reload just before R when the groups differ: the reload
  // inherits L's GM hazards (writes of those bytes before L come before it, writes after L come
  // after it), so the group graph gets them now and merging never closes a cycle through them.
  std::vector<std::vector<int>> gm_pred(n), gm_succ(n);
  for (auto& e : edges)
    if (!e.local) {
      if (is_loader(e.to)) gm_pred[size_t(e.to)].push_back(e.from);
      if (is_loader(e.from)) gm_succ[size_t(e.from)].push_back(e.to);
    }
  auto inherit = [&](const OpEdge& e, std::vector<OpEdge>& out) {
    for (int w : gm_pred[size_t(e.from)])
      if (w != e.to) out.push_back({w, e.to, false});
    for (int w : gm_succ[size_t(e.from)])
      if (w != e.to) out.push_back({e.to, w, false});
  };
  const std::vector<int> needed_only = g.parent;
  const std::vector<OpEdge> op_level = std::move(edges);
  // The optional joins, checked against `check`; then the group graph with the reloads' hazards.
  auto join_supernodes = [&](const std::vector<OpEdge>& check) {
    // All joins at once when they close no cycle (the common case); otherwise one by one, checked.
    g.parent = needed_only;
    for (auto [x, y] : optional_joins) u(x, y);
    const bool checked_joins = groups_form_cycle(g, check, n);
    if (checked_joins) g.parent = needed_only;
    g.clear_graph(n);
    for (int i = 0; i < n; ++i) {
      int root = g.find(i);
      g.members[root].push_back(i);
      if (g.scope[root] < 0) g.scope[root] = osc(i).id;
    }
    if (checked_joins) {
      join_unless_cycle(g, check, optional_joins);
      for (int i = 0; i < n; ++i)
        if (g.find(i) == i) g.scope[i] = osc(g.members[i].front()).id;
    }
    edges.clear();
    for (auto& e : op_level) {
      if (e.local && is_loader(e.from) && g.find(e.from) != g.find(e.to))
        inherit(e, edges);
      else
        edges.push_back(e);
    }
    for (auto& e : edges) {
      int a = g.find(e.from), c = g.find(e.to);
      if (a != c) {
        g.succ[a].insert(c);
        g.pred[c].insert(a);
      }
    }
    g.order();
  };
  join_supernodes(op_level);
  if (!g.ordered) {
    // A join kept a load's first reader with the load while another reader, left apart, inherits
    // the load's hazards (a carried m read by maximum(m, cm) and again by where(m == mn, ...), its
    // store at the body's end joined with maximum): check the joins as if every reader reloaded.
    std::vector<OpEdge> check;
    for (auto& e : op_level) {
      check.push_back(e);
      if (e.local && is_loader(e.from)) inherit(e, check);
    }
    join_supernodes(check);
  }
  g.order();
  int groups = 0;
  for (int i = 0; i < n; ++i)
    if (g.find(i) == i) {
      ++groups;
      if (!fits(b, peak_bytes(r, g.members[i], b.align)) && !fits_in_low_peak_order(b, g.members[i]) &&
          !check_fits(b, g.members[i], ""))
        return;
    }
  b.stats.supernodes += groups;

  auto core_of = [&](int root) { return op_core(r, r.ops[g.members[root].front()]); };
  GroupLiveProfile profile(r, b.align, n);
  PeakBounds bounds(r, b.align, size_t(n), profile);
  // Try to merge the groups of ops x and y. forced: a failure to fit is an error at `y`.
  auto try_merge = [&](int x, int y, bool forced, const std::string& why) -> bool {
    int a = g.find(x), c = g.find(y);
    if (a == c) return true;
    if (core_of(a) != core_of(c)) return false;
    if (g.indirect_path(a, c) || g.indirect_path(c, a)) return false;  // would close a cycle
    auto merged = [&] {
      std::vector<int> m;
      std::merge(g.members[a].begin(), g.members[a].end(), g.members[c].begin(), g.members[c].end(),
                 std::back_inserter(m));
      return m;
    };
    const PeakBounds::Entry &ea = bounds.of(a, g.members[a]), &ec = bounds.of(c, g.members[c]);
    PeakBounds::Bytes lo, hi;
    const PeakBounds::Bytes s = bounds.shared(ea, ec);
    for (size_t k = 0; k < 6; ++k) {
      lo[k] = std::max(ea.lo[k], ec.lo[k]);
      hi[k] = ea.hi[k] + ec.hi[k] + 2 * s[k];
    }
    // A forced merge that overflows in creation order may fit with each chunk's chain run to its end
    // first (low_peak_order.h); the subgraph then takes that order when it is built.
    auto forced_fit = [&](const std::vector<int>& m, PeakBounds::Bytes& p) {
      if (forced && fits_in_low_peak_order(b, m, &p)) return true;
      if (forced) check_fits(b, m, " when " + why);
      return false;
    };
    if (!fits(b, lo)) {  // cannot fit
      if (!forced || !forced_fit(merged(), lo)) return false;  // (no merged list for a refusal)
      hi = lo;
    } else if (!fits(b, hi)) {  // the bounds do not decide: count (the window the merge changes)
      lo = hi = profile.merged_peak(a, g.members[a], c, g.members[c]);
      if (!fits(b, lo)) {
        if (!forced || !forced_fit(merged(), lo)) return false;  // (no merged list for a refusal)
        hi = lo;
      }
    }
    const size_t size = g.members[a].size() + g.members[c].size();
    profile.prepare_join(a, g.members[a], c, g.members[c]);
    const int u = g.unite(a, c);
    profile.joined(u);
    bounds.joined(u, a, c, size, lo, hi);
    ++b.stats.depth_merges;
    return true;
  };

  // 2. Scopes: same-scope producer->consumer edges, then parallel_merge.
  for (auto& e : edges) {
    const ScopeInfo& sa = osc(e.from);
    const ScopeInfo& sc = osc(e.to);
    if (sa.id < 0 || sa.id != sc.id) continue;
    if (op_core(r, r.ops[e.from]) != op_core(r, r.ops[e.to])) continue;
    int before = g.find(e.from) == g.find(e.to);
    if (try_merge(e.from, e.to, true, "scope " + std::to_string(sa.id) + " joins it with its producers") && !before)
      ++b.stats.scope_merges;
    if (b.failed) return;
  }
  // parallel_merge packs the scope's branches into as few leaves as fit: when
  // the next branch does not fit the current leaf, it starts a new one (the
  // scope is split rather than the compile failing; the report says so).
  std::map<int64_t, int> cur_of_scope[2];
  std::map<int64_t, int> scope_leaves;
  for (int i = 0; i < n; ++i) {
    const ScopeInfo& s = osc(i);
    if (s.id < 0 || !s.parallel_merge) continue;
    int core = int(op_core(r, r.ops[i]));
    auto [it, fresh] = cur_of_scope[core].try_emplace(s.id, i);
    if (fresh) ++scope_leaves[s.id];
    if (!fresh && g.find(it->second) != g.find(i)) {
      if (try_merge(it->second, i, false, ""))
        ++b.stats.scope_merges;
      else {
        it->second = i;
        ++scope_leaves[s.id];
      }
    }
  }
  for (auto& [id, k] : scope_leaves)
    if (k > 1)
      r.merges_applied.push_back("scope " + std::to_string(id) + ": parallel_merge split into " + std::to_string(k) +
                                 " leaves (all branches do not fit one)");
  r.merges_applied.push_back("scope: " + std::to_string(b.stats.scope_merges) + " merges");

  // 3. Depth merge along one-to-one tile edges.
  auto scope_ok = [&](int a, int c) {
    int64_t sa = g.scope[a], sc = g.scope[c];
    if (sa == sc) return true;
    auto cross = [&](int grp) {
      for (int o : g.members[grp])
        if (osc(o).id >= 0) return osc(o).cross_scope_merge;
      return false;
    };
    if (sa < 0) return cross(c);
    if (sc < 0) return cross(a);
    return false;
  };
  // Stores tile t into a fresh cut temp just after its producer `wop`; returns the box.
  auto cut_store = [&](int t, const TileOp& wop) {
    const LocalTile& lt = r.tiles[t];
    GmRef where;
    where.tensor = b.new_temp(lt.dtype, lt.shape, "cut");
    for (size_t d = 0; d < lt.shape.size(); ++d) where.offset.push_back(DimExpr(0));
    where.extent = lt.valid;
    TileOp st;
    st.kind = TileOpKind::CopyOut;
    st.srcs = {t};
    st.gm = where;
    st.source_op = wop.source_op;
    st.seq = wop.seq + 0.25;
    b.emit(std::move(st));
    return where;
  };
  int64_t depth_before = b.stats.depth_merges;
  // The local edges still between two groups, in edge order: an edge inside one
  // group stays inside (groups only grow), so each sweep drops those for good.
  std::vector<OpEdge> open;
  for (auto& e : edges)
    if (e.local && g.find(e.from) != g.find(e.to)) open.push_back(e);
  for (int iter = 0; iter < 100; ++iter) {
    bool changed = false;
    size_t kept_open = 0;
    for (auto& e : open) {
      int a = g.find(e.from), c = g.find(e.to);
      if (a == c) continue;
      open[kept_open++] = e;
      bool unique_out = g.succ[a].size() == 1, unique_in = g.pred[c].size() == 1;
      if (!unique_out && !unique_in) continue;
      if (!scope_ok(a, c)) continue;
      if (try_merge(a, c, false, "")) changed = true;
    }
    open.resize(kept_open);
    if (!changed) break;
  }
  r.merges_applied.push_back("depth: " + std::to_string(b.stats.depth_merges - depth_before) + " merges");

  // 4. Cuts: tile edges between groups.
  std::vector<int> group_of(n);
  for (int i = 0; i < n; ++i) group_of[i] = g.find(i);
  std::map<std::pair<int, int>, int> reloaded;  // (tile, group) -> tile in that group
  std::map<int, GmRef> spilled;                 // tile -> where it was stored
  std::map<int, GmRef> spilled_tmp;             // tile -> a cut temp, when its home was overwritten
  int64_t cuts = 0;
  // Writes per spec tensor by program position, and where each tile was stored: a cut may read a
  // value back from its home only if nothing else wrote that tensor between the store and the reader.
  struct HomeWrite {
    double seq;
    int tile, op;
  };
  std::map<int, std::vector<HomeWrite>> writes_of;  // tensor -> its stores, by program position
  for (int i = 0; i < n; ++i) {
    const TileOp& op = r.ops[i];
    if ((op.kind == TileOpKind::CopyOut || op.kind == TileOpKind::FixOut) && op.gm.tensor >= 0 &&
        op.gm.tensor < int(b.prog.tensors.size()))
      writes_of[op.gm.tensor].push_back({op.seq, op.srcs.empty() ? -1 : op.srcs[0], i});
  }
  for (auto& [t, v] : writes_of)
    std::sort(v.begin(), v.end(), [](const HomeWrite& x, const HomeWrite& y) { return x.seq < y.seq || (x.seq == y.seq && x.op < y.op); });
  auto home_clobbered = [&](int tile, const GmRef& where, double reader_seq) {
    auto it = writes_of.find(where.tensor);
    if (it == writes_of.end()) return false;
    double stored = -1;
    for (auto& w : it->second)
      if (w.tile == tile) stored = std::max(stored, w.seq);
    if (stored < 0) return false;  // stored by this cut, just after its producer
    for (auto& w : it->second)
      if (w.seq > stored && w.seq < reader_seq && w.tile != tile) return true;
    return false;
  };
  auto boxes_overlap = [](const GmRef& x, const GmRef& y) {
    if (x.view.size() != y.view.size()) return true;
    for (size_t d = 0; d < x.view.size(); ++d)
      if (x.view[d].str() != y.view[d].str()) return true;
    std::vector<std::pair<std::string, int64_t>> xo, yo;
    std::vector<std::optional<int64_t>> xe, ye;
    for (auto& e : x.offset) xo.push_back(gm_split(e));
    for (auto& e : y.offset) yo.push_back(gm_split(e));
    for (auto& e : x.extent) xe.push_back(gm_extent_bound(e));
    for (auto& e : y.extent) ye.push_back(gm_extent_bound(e));
    return affine_boxes_overlap(xo, xe, yo, ye);
  };
  auto reaches = [&](int from, int to) { return g.succ[size_t(from)].count(to) > 0 || g.indirect_path(from, to); };
  // Reading a cut value back from its home orders the reload after the home's earlier stores and
  // before its later ones (GM RAW/WAR). A later store in the producer's group, or in any group
  // that reaches the reader's, would close a cycle through the tile edge producer -> reader (fuzz
  // seed 9100175: `y = t7` then `y = t7 + 1`, both in t7's group); so would an earlier store made
  // by a group the reader reaches. Then the value goes through a temp of its own.
  auto home_read_cycles = [&](const GmRef& where, double load_seq, int gw, int gr) {
    auto it = writes_of.find(where.tensor);
    if (it == writes_of.end()) return false;
    for (auto& w : it->second) {
      const int gx = group_of[size_t(w.op)];
      if (gx == gr || !boxes_overlap(r.ops[size_t(w.op)].gm, where)) continue;
      if (w.seq > load_seq ? (gx == gw || reaches(gx, gr)) : (gx != gw && reaches(gr, gx))) return true;
    }
    return false;
  };
  for (int i = 0; i < n; ++i) {
    for (size_t k = 0; k < r.ops[i].srcs.size(); ++k) {
      int t = r.ops[i].srcs[k];
      int w = b.tile_writer[t];
      int gw = group_of[w], gr = group_of[i];
      if (gw == gr) continue;
      auto key = std::make_pair(t, gr);
      auto it = reloaded.find(key);
      if (it != reloaded.end()) {
        r.ops[i].srcs[k] = it->second;
        continue;
      }
      TileOp wop = r.ops[w];
      int nt;
      if (wop.kind == TileOpKind::CopyIn || (wop.kind == TileOpKind::Vec && wop.srcs.empty())) {
        // Load (or fill) it again where it is needed.
        LocalTile copy = r.tiles[t];
        nt = b.new_tile(copy.mem, copy.dtype, copy.shape, copy.valid, copy.layout);
        wop.dst = nt;
        wop.chain = 0;
        wop.seq = r.ops[i].seq - 0.5;  // no write of those bytes lies between the load and its reader
        int id = b.emit(wop);
        group_of.push_back(gr);
        (void)id;
      } else {
        ++cuts;
        auto sp = spilled.find(t);
        if (sp == spilled.end()) {
          GmRef where;
          auto org = b.tile_origin.find(t);
          size_t before = r.ops.size();
          if (org != b.tile_origin.end()) {
            int v = org->second.first;
            b.cur_op = wop.source_op;
            b.store_tile(v, org->second.second);
            where = b.gm_ref(b.home_of(v), b.value_box(v, org->second.second, r.tiles[t].shape));
          } else {
            where = cut_store(t, wop);
          }
          for (size_t o = before; o < r.ops.size(); ++o) {
            group_of.push_back(gw);
            r.ops[o].seq = wop.seq + 0.25;  // the store runs right after its producer
          }
          sp = spilled.emplace(t, where).first;
        }
        GmRef where = sp->second;
        if (where.tensor < int(b.prog.tensors.size()) &&
            (home_clobbered(t, where, r.ops[i].seq) || home_read_cycles(where, r.ops[i].seq - 0.5, gw, gr))) {
          // Its home (a spec tensor it was assembled into) was written again before this reader:
          // store the tile once more, into a temp of its own, right after its producer.
          auto tp = spilled_tmp.find(t);
          if (tp == spilled_tmp.end()) {
            tp = spilled_tmp.emplace(t, cut_store(t, wop)).first;
            group_of.push_back(gw);
          }
          where = tp->second;
        }
        LocalTile copy = r.tiles[t];
        nt = b.new_tile(copy.mem, copy.dtype, copy.shape, copy.valid, copy.layout);
        TileOp ld;
        ld.kind = TileOpKind::CopyIn;
        ld.gm = where;
        ld.dst = nt;
        ld.source_op = r.ops[i].source_op;
        ld.seq = r.ops[i].seq - 0.5;
        b.emit(std::move(ld));
        group_of.push_back(gr);
      }
      reloaded[key] = nt;
      r.ops[i].srcs[k] = nt;
    }
  }
  b.stats.cut_edges += cuts;
  b.cur_op = -1;

  // Subgraphs, one per group, ops in a topological order (creation order breaks ties).
  std::map<int, std::vector<int>> by_group;
  for (int i = 0; i < int(r.ops.size()); ++i) by_group[group_of[i]].push_back(i);
  std::vector<std::vector<int>> lists;
  for (auto& [grp, ops] : by_group) lists.push_back(ops);
  std::sort(lists.begin(), lists.end(), [](auto& x, auto& y) { return x.front() < y.front(); });
  std::vector<double> key(r.ops.size());
  for (size_t i = 0; i < key.size(); ++i) key[i] = double(i);
  // A reload must run before its reader although it was created later: key it just before.
  for (int i = 0; i < int(r.ops.size()); ++i)
    for (int s : r.ops[i].srcs)
      if (b.tile_writer[s] > i) key[b.tile_writer[s]] = std::min(key[b.tile_writer[s]], double(i) - 0.5);
  // A store runs right after its producer so that the tile dies early (stores made
  // for later readers or cuts were created long after the producer).
  for (int i = 0; i < int(r.ops.size()); ++i)
    if (r.ops[i].kind == TileOpKind::CopyOut) {
      int w = b.tile_writer[r.ops[i].srcs[0]];
      if (w < i) key[i] = std::min(key[i], key[w] + 0.25);
    }
  for (auto& ops : lists) {
    Subgraph sg;
    sg.id = int(r.subgraphs.size());
    sg.ops = order_ops(r, ops, [&](int o) { return key[o]; });
    if (!fits(b, peak_bytes(r, sg.ops.vec(), b.align))) {
      // The creation order is the one the merges were checked in.
      sg.ops = order_ops(r, ops, [](int o) { return double(o); });
      std::vector<int> low;
      if (!fits(b, peak_bytes(r, sg.ops.vec(), b.align)) && fits_in_low_peak_order(b, ops, nullptr, &low))
        sg.ops = std::move(low);  // a forced scope merge that fits only so (low_peak_order.h)
      else if (!check_fits(b, sg.ops.vec(), ""))
        return;
    }
    sg.core = op_core(r, r.ops[ops.front()]);
    for (int o : ops) {
      int src = r.ops[o].source_op;
      if (src < 0) continue;
      if (sg.label.empty()) sg.label = b.prog.ops[src].label;
      if (sg.scope < 0) sg.scope = b.prog.ops[src].scope.id;
    }
    r.subgraphs.push_back(std::move(sg));
  }
}

}  // namespace ptoc::tiling
