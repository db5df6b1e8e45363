// Detection of tile families and their partition by one representative
// (the conditions are in tile_families.h).
#include "compiler/passes/tile_families.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

namespace {

bool same_exprs(const std::vector<DimExpr>& a, const std::vector<DimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].same(b[i])) return false;
  return true;
}

// Op `o` is op `o0` of member 0 moved by dt tiles and dseq program positions.
bool same_op(const TileOp& o, const TileOp& o0, int dt, double dseq) {
  auto tile = [&](int t0) { return t0 < 0 ? -1 : t0 + dt; };
  if (o.kind != o0.kind || o.vop != o0.vop || o.dst != tile(o0.dst) || o.srcs.size() != o0.srcs.size()) return false;
  for (size_t i = 0; i < o.srcs.size(); ++i)
    if (o.srcs[i] != tile(o0.srcs[i])) return false;
  if (o.gm.tensor != o0.gm.tensor || o.gm.offset.size() != o0.gm.offset.size() ||
      o.gm.extent.size() != o0.gm.extent.size() || !same_exprs(o.gm.view, o0.gm.view))
    return false;
  return o.axes == o0.axes && o.scalar == o0.scalar && o.scalar_first == o0.scalar_first && o.fill == o0.fill &&
         o.dtype == o0.dtype && o.trans_a == o0.trans_a && o.trans_b == o0.trans_b &&
         o.accumulate == o0.accumulate && o.atomic_add == o0.atomic_add && o.sub_offset == o0.sub_offset &&
         o.source_op == o0.source_op && o.chain == o0.chain && o.seq == o0.seq + dseq;
}

bool same_tile(const LocalTile& t, const LocalTile& t0) {
  return t.mem == t0.mem && t.dtype == t0.dtype && t.shape == t0.shape && t.layout == t0.layout;
}

// Member 0's ops touch only its own tiles.
bool member0_closed(const TileRoot& r, int P, int T) {
  for (int i = 0; i < P; ++i) {
    const TileOp& op = r.ops[size_t(i)];
    if (op.dst >= T) return false;
    for (int s : op.srcs)
      if (s < 0 || s >= T) return false;
  }
  return true;
}

bool is_periodic(const TileRoot& r, int P, int T) {
  const int B = int(r.ops.size()) / P;
  if (!member0_closed(r, P, T)) return false;
  for (int k = 1; k < B; ++k) {
    for (int i = 0; i < P; ++i)
      if (!same_op(r.ops[size_t(k * P + i)], r.ops[size_t(i)], k * T, double(k * P))) return false;
    for (int t = 0; t < T; ++t)
      if (!same_tile(r.tiles[size_t(k * T + t)], r.tiles[size_t(t)])) return false;
  }
  return true;
}

bool is_write(const TileOp& op) { return op.kind == TileOpKind::CopyOut || op.kind == TileOpKind::FixOut; }

// A GM write as the hazard test sees it (subgraph_edges.cpp): per axis the symbolic part, the
// constant and the static extent bound.
struct WriteBox {
  int op = -1, tensor = -1;
  bool atomic = false;
  std::vector<std::pair<std::string, int64_t>> off;
  std::vector<std::optional<int64_t>> ext;
};

bool boxes_overlap(const WriteBox& a, const WriteBox& b) {
  size_t n = std::min(a.off.size(), b.off.size());
  for (size_t d = 0; d < n; ++d) {
    if (a.off[d].first != b.off[d].first) continue;
    int64_t ca = a.off[d].second, cb = b.off[d].second;
    if (a.ext[d] && (ca + *a.ext[d] <= cb || *a.ext[d] == 0)) return false;
    if (b.ext[d] && (cb + *b.ext[d] <= ca || *b.ext[d] == 0)) return false;
  }
  return true;
}

bool hazard(const WriteBox& a, const WriteBox& b) {
  if (a.tensor != b.tensor) return false;
  if (a.atomic && b.atomic) return false;  // atomic adds commute
  return boxes_overlap(a, b);
}

// GM conditions: nothing reads what the root writes; members' writes hazard each other alike and
// never across members. Returns "" when they hold, else the reason.
std::string check_gm(const TileRoot& r, int P) {
  const int B = int(r.ops.size()) / P;
  std::set<int> written;
  for (const TileOp& op : r.ops)
    if (is_write(op)) written.insert(op.gm.tensor);
  for (const TileOp& op : r.ops)
    if (op.kind == TileOpKind::CopyIn && written.count(op.gm.tensor))
      return "a tile op reads GM tensor " + std::to_string(op.gm.tensor) + " that the root writes";
  // Per member its writes; per tensor one symbolic part per axis for every write.
  std::vector<std::vector<WriteBox>> boxes(static_cast<size_t>(B));
  std::map<int, std::vector<std::string>> sym_of;  // tensor -> symbolic part per axis
  for (int k = 0; k < B; ++k)
    for (int i = 0; i < P; ++i) {
      const TileOp& op = r.ops[size_t(k * P + i)];
      if (!is_write(op)) continue;
      WriteBox w;
      w.op = i;
      w.tensor = op.gm.tensor;
      w.atomic = op.atomic_add;
      std::vector<std::string> syms;
      for (auto& x : op.gm.offset) {
        w.off.push_back(gm_split(x));
        syms.push_back(w.off.back().first);
      }
      for (auto& x : op.gm.extent) {
        w.ext.push_back(gm_extent_bound(x));
        if (!w.ext.back()) return "a GM write has an extent without a static bound";
      }
      if (w.off.size() != w.ext.size()) return "a GM write has offsets and extents of different ranks";
      auto [it, fresh] = sym_of.try_emplace(w.tensor, syms);
      if (!fresh && it->second != syms) return "the GM writes of one tensor move along different symbols";
      boxes[size_t(k)].push_back(std::move(w));
    }
  // Hazards inside a member: member 0's pattern in every member.
  if (boxes[0].size() > 16) return "more than 16 GM writes per member";
  auto pattern = [&](const std::vector<WriteBox>& ws) {
    std::vector<char> p;
    for (size_t j = 0; j < ws.size(); ++j)
      for (size_t i = 0; i < j; ++i) p.push_back(hazard(ws[i], ws[j]));
    return p;
  };
  const std::vector<char> p0 = pattern(boxes[0]);
  for (int k = 1; k < B; ++k)
    if (pattern(boxes[size_t(k)]) != p0) return "the GM writes of member " + std::to_string(k) + " overlap differently";
  // Across members: per tensor the bounding box of each member's writes (empty writes skipped),
  // swept along the axis with the most distinct starts.
  std::map<int, std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>> bbox;  // tensor -> (lo, hi)
  for (int k = 0; k < B; ++k) {
    std::map<int, std::pair<std::vector<int64_t>, std::vector<int64_t>>> mine;
    for (const WriteBox& w : boxes[size_t(k)]) {
      bool empty = false;
      for (auto& e : w.ext) empty |= *e == 0;
      if (empty) continue;
      auto [it, fresh] = mine.try_emplace(w.tensor);
      auto& [lo, hi] = it->second;
      for (size_t d = 0; d < w.off.size(); ++d) {
        int64_t a = w.off[d].second, z = a + *w.ext[d];
        if (fresh) {
          lo.push_back(a);
          hi.push_back(z);
        } else {
          lo[d] = std::min(lo[d], a);
          hi[d] = std::max(hi[d], z);
        }
      }
    }
    for (auto& [t, b] : mine) bbox[t].push_back(b);
  }
  for (auto& [t, list] : bbox) {
    size_t rank = list[0].first.size(), axis = 0, best = 0;
    for (size_t d = 0; d < rank; ++d) {
      std::set<int64_t> starts;
      for (auto& b : list) starts.insert(b.first[d]);
      if (starts.size() > best) best = starts.size(), axis = d;
    }
    std::sort(list.begin(), list.end(), [&](auto& x, auto& y) { return x.first[axis] < y.first[axis]; });
    for (size_t i = 0; i < list.size(); ++i)
      for (size_t j = i + 1; j < list.size() && list[j].first[axis] < list[i].second[axis]; ++j) {
        bool apart = false;
        for (size_t d = 0; d < rank && !apart; ++d)
          apart = list[j].second[d] <= list[i].first[d] || list[i].second[d] <= list[j].first[d];
        if (!apart) return "the GM writes of two members overlap";
      }
  }
  return "";
}

}  // namespace

FamilyCheck find_tile_family(const Program& prog, const TileRoot& r) {
  FamilyCheck out;
  const int n = int(r.ops.size()), nt = int(r.tiles.size());
  if (n < 2) {
    out.reason = "fewer than two tile ops";
    return out;
  }
  for (const TileOp& op : r.ops)
    if (op.source_op >= 0 && prog.ops[size_t(op.source_op)].scope.parallel_merge) {
      out.reason = "a parallel_merge scope packs branches across members";
      return out;
    }
  // Periods: the smallest P that divides both counts and repeats. Candidates are the positions
  // of ops like op 0; the work is bounded (a long non-periodic root gives up early).
  int64_t budget = 4 * int64_t(n);
  for (int P = 1; P <= n / 2; ++P) {
    if (n % P != 0 || nt % (n / P) != 0) continue;
    const TileOp& a = r.ops[size_t(P)];
    const TileOp& a0 = r.ops[0];
    if (a.kind != a0.kind || a.source_op != a0.source_op || a.vop != a0.vop) continue;
    const int B = n / P, T = nt / B;
    // Cheap probes first: the first and last op of member 1 and of the last member.
    if (!same_op(r.ops[size_t(P)], r.ops[0], T, double(P)) ||
        !same_op(r.ops[size_t(n - 1)], r.ops[size_t(P - 1)], (B - 1) * T, double((B - 1) * P)))
      continue;
    budget -= n;
    if (is_periodic(r, P, T)) {
      std::string why = check_gm(r, P);
      if (!why.empty()) {
        out.reason = why;
        return out;
      }
      out.family = TileFamily{B, P, T};
      return out;
    }
    if (budget < 0) break;
  }
  out.reason = "the tile ops do not repeat";
  return out;
}

bool partition_family(Builder& b, const TileFamily& f) {
  TileRoot& r = b.root;
  const int B = f.members, P = f.ops_per, T = f.tiles_per;
  // Member 0 alone, with its own ids (ops [0, P), tiles [0, T)): the explicit partition of the
  // whole root does the same to every member, since no edge joins two members.
  TileRoot rep;
  rep.root = r.root;
  rep.ops.assign(r.ops.begin(), r.ops.begin() + P);
  rep.tiles.assign(r.tiles.begin(), r.tiles.begin() + T);
  DiagEngine scratch(b.diags.file(), b.diags.source());
  TilingStats st;
  Builder rb(b.prog, b.plat, scratch, rep, st, false);
  rb.magic = b.magic;
  rb.temp_base = b.temp_base;
  rb.env = b.env;
  rb.tile_writer.assign(b.tile_writer.begin(), b.tile_writer.begin() + std::min<size_t>(size_t(T), b.tile_writer.size()));
  rb.tile_written_at.assign(b.tile_written_at.begin(),
                            b.tile_written_at.begin() + std::min<size_t>(size_t(T), b.tile_written_at.size()));
  partition(rb);
  if (rb.failed || scratch.has_errors() || int(rep.ops.size()) != P || int(rep.tiles.size()) != T ||
      !rep.temps.empty() || st.cut_edges != 0 || rep.merges_applied.size() != 2)
    return false;  // a cut or reload (a new op), or an error: the explicit path decides and reports
  // Replicate: subgraph j of member k is member 0's subgraph j with its ops moved by kP.
  const int S = int(rep.subgraphs.size());
  r.subgraphs.clear();
  r.subgraphs.reserve(size_t(B) * size_t(S));
  for (int k = 0; k < B; ++k)
    for (const Subgraph& s0 : rep.subgraphs) {
      Subgraph sg = s0;
      sg.id = int(r.subgraphs.size());
      for (int& o : sg.ops) o += k * P;
      r.subgraphs.push_back(std::move(sg));
    }
  // The graph between subgraphs: member 0's, in every member.
  SgGraph g0(rep);
  auto g = std::make_shared<SgGraph>();
  g->succ.assign(r.subgraphs.size(), {});
  g->pred.assign(r.subgraphs.size(), {});
  for (int k = 0; k < B; ++k)
    for (int j = 0; j < S; ++j) {
      for (int s : g0.succ[size_t(j)]) g->succ[size_t(k * S + j)].insert(k * S + s);
      for (int p : g0.pred[size_t(j)]) g->pred[size_t(k * S + j)].insert(k * S + p);
    }
  b.family_graph = std::move(g);
  b.family_ops = P;
  b.family_tiles = T;
  b.family_sgs = S;
  // Statistics and merge lines as the explicit partition of all members gives them.
  b.stats.supernodes += B * st.supernodes;
  b.stats.depth_merges += B * st.depth_merges;
  b.stats.scope_merges += B * st.scope_merges;
  r.merges_applied.push_back("scope: " + std::to_string(b.stats.scope_merges) + " merges");
  r.merges_applied.push_back("depth: " + std::to_string(B * st.depth_merges) + " merges");
  return true;
}

}  // namespace ptoc::tiling
