// Dependencies between tile ops and between subgraphs: local tile def->use
// edges, GM read/write hazards (RAW, WAR, WAW; atomic adds commute), the
// canonical op order inside a subgraph, structural (isomorphism) hashes with
// their order of first appearance, and the final successor lists with
// subgraphs renumbered in topological order.
#include <algorithm>
#include <queue>
#include <unordered_map>

#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

CoreType op_core(const TileRoot& r, const TileOp& op) {
  switch (op.kind) {
    case TileOpKind::L1ToL0A:
    case TileOpKind::L1ToL0B:
    case TileOpKind::Mmad:
    case TileOpKind::FixOut: return CoreType::AIC;
    case TileOpKind::CopyIn: return r.tiles[op.dst].mem == MemKind::UB ? CoreType::AIV : CoreType::AIC;
    default: return CoreType::AIV;
  }
}

namespace {
struct Access {
  int op;
  bool write, atomic;
  std::vector<std::pair<std::string, int64_t>> off;  // affine split per axis
  std::vector<std::optional<int64_t>> ext;
  std::string view;  // reshaped view text: boxes in different views are compared conservatively
};

std::pair<std::string, int64_t> split(const DimExpr& e) {
  if (auto c = e.as_const()) return {"", *c};
  using K = DimExpr::Kind;
  if (e.kind() == K::Add || e.kind() == K::Sub) {
    const auto& a = e.args();
    if (auto c = a[1].as_const()) {
      auto [s, k] = split(a[0]);
      return {s, e.kind() == K::Add ? k + *c : k - *c};
    }
  }
  return {e.str(), 0};
}

bool overlap(const Access& a, const Access& b) {
  if (a.view != b.view) return true;
  size_t n = std::min(a.off.size(), b.off.size());
  for (size_t d = 0; d < n; ++d) {
    if (a.off[d].first != b.off[d].first) continue;
    int64_t ca = a.off[d].second, cb = b.off[d].second;
    if (a.ext[d] && (ca + *a.ext[d] <= cb || *a.ext[d] == 0)) return false;
    if (b.ext[d] && (cb + *b.ext[d] <= ca || *b.ext[d] == 0)) return false;
  }
  return true;
}

// Static upper bound of an extent: its constant, or the constant in min(c, x) / max(0, min(c, x)).
std::optional<int64_t> ext_bound(const DimExpr& e) {
  if (auto c = e.as_const()) return c;
  if (e.kind() == DimExpr::Kind::Min) {
    if (auto c = e.args()[0].as_const()) return c;
    if (auto c = e.args()[1].as_const()) return c;
  }
  if (e.kind() == DimExpr::Kind::Max && e.args()[0].as_const() == 0) return ext_bound(e.args()[1]);
  return std::nullopt;
}
}  // namespace

static std::vector<OpEdge> edges_among(const TileRoot& r, const std::vector<int>& ops) {
  std::vector<OpEdge> out;
  std::unordered_map<int, std::vector<int>> writers;  // tile -> writers in id order
  std::vector<int> sorted = ops;
  std::sort(sorted.begin(), sorted.end());
  for (int o : sorted)
    if (r.ops[o].dst >= 0) writers[r.ops[o].dst].push_back(o);
  for (auto& [t, ws] : writers)
    for (size_t i = 1; i < ws.size(); ++i) out.push_back({ws[i - 1], ws[i], true});
  for (int o : sorted)
    for (int s : r.ops[o].srcs) {
      auto it = writers.find(s);
      if (it == writers.end()) continue;
      // The last writer before the reader (or the first, for a reload created after its reader).
      const auto& ws = it->second;
      auto pos = std::lower_bound(ws.begin(), ws.end(), o);
      int w = pos == ws.begin() ? ws.front() : *(pos - 1);
      if (w != o) out.push_back({w, o, true});
    }
  // GM hazards per tensor, in op order.
  std::unordered_map<int, std::vector<Access>> acc;
  std::unordered_map<int, bool> written;
  for (int o : sorted) {
    const TileOp& op = r.ops[o];
    bool w = op.kind == TileOpKind::CopyOut || op.kind == TileOpKind::FixOut;
    if (op.kind != TileOpKind::CopyIn && !w) continue;
    Access a{o, w, op.atomic_add, {}, {}};
    for (auto& x : op.gm.offset) a.off.push_back(split(x));
    for (auto& x : op.gm.extent) a.ext.push_back(ext_bound(x));
    for (auto& x : op.gm.view) a.view += x.str() + ",";
    acc[op.gm.tensor].push_back(std::move(a));
    if (w) written[op.gm.tensor] = true;
  }
  for (auto& [tensor, list] : acc) {
    if (!written.count(tensor)) continue;
    for (size_t j = 0; j < list.size(); ++j)
      for (size_t i = 0; i < j; ++i) {
        const Access &a = list[i], &b = list[j];
        if (!a.write && !b.write) continue;
        if (a.write && b.write && a.atomic && b.atomic) continue;  // atomic adds commute
        if (overlap(a, b)) out.push_back({a.op, b.op, false});
      }
  }
  return out;
}

std::vector<OpEdge> op_edges(const TileRoot& r, const std::vector<char>& alive) {
  std::vector<int> ops;
  for (size_t i = 0; i < r.ops.size(); ++i)
    if (alive[i]) ops.push_back(int(i));
  return edges_among(r, ops);
}

std::vector<int> order_ops(const TileRoot& r, const std::vector<int>& ops, const std::function<double(int)>& key) {
  auto edges = edges_among(r, ops);
  std::unordered_map<int, std::vector<int>> succ;
  std::unordered_map<int, int> indeg;
  for (int o : ops) indeg[o] = 0;
  for (auto& e : edges) {
    succ[e.from].push_back(e.to);
    ++indeg[e.to];
  }
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (int o : ops)
    if (indeg[o] == 0) ready.push({key(o), o});
  std::vector<int> out;
  while (!ready.empty()) {
    int o = ready.top().second;
    ready.pop();
    out.push_back(o);
    for (int s : succ[o])
      if (--indeg[s] == 0) ready.push({key(s), s});
  }
  return out;  // a cycle would drop ops; edges_among never makes one for one subgraph
}

SgGraph::SgGraph(const TileRoot& r) {
  succ.assign(r.subgraphs.size(), {});
  pred.assign(r.subgraphs.size(), {});
  std::vector<int> sg_of(r.ops.size(), -1);
  std::vector<char> alive(r.ops.size(), 0);
  for (auto& sg : r.subgraphs)
    for (int o : sg.ops) sg_of[o] = sg.id, alive[o] = 1;
  for (auto& e : op_edges(r, alive)) {
    int a = sg_of[e.from], b = sg_of[e.to];
    if (a != b) {
      succ[a].insert(b);
      pred[b].insert(a);
    }
  }
}

bool SgGraph::reaches(int from, int to, int skip_direct_from) const {
  std::vector<char> seen(succ.size(), 0);
  std::vector<int> stack;
  for (int s : succ[from])
    if (!(from == skip_direct_from && s == to)) stack.push_back(s);
  while (!stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    if (x == to) return true;
    if (seen[x]) continue;
    seen[x] = 1;
    for (int s : succ[x]) stack.push_back(s);
  }
  return false;
}

bool SgGraph::merge_creates_cycle(int a, int b) const { return reaches(a, b, a) || reaches(b, a, b); }

void SgGraph::merge(int into, int from) {
  for (int s : succ[from]) {
    pred[s].erase(from);
    if (s != into) pred[s].insert(into), succ[into].insert(s);
  }
  for (int p : pred[from]) {
    succ[p].erase(from);
    if (p != into) succ[p].insert(into), pred[into].insert(p);
  }
  succ[into].erase(from);
  pred[into].erase(from);
  succ[from].clear();
  pred[from].clear();
}

void absorb_subgraph(TileRoot& r, int into, int from) {
  Subgraph& a = r.subgraphs[into];
  Subgraph& b = r.subgraphs[from];
  for (int o : b.ops) {
    r.ops[o].chain += a.chains;
    a.ops.push_back(o);
  }
  a.chains += b.chains;
  if (a.label.empty()) a.label = b.label;
  b.ops.clear();
  b.chains = 0;
}

std::vector<int> merged_order(const TileRoot& r, const std::vector<int>& ops, bool chain_major) {
  std::unordered_map<int, int> rank_in_chain;
  std::unordered_map<int, double> key;
  double big = double(ops.size() + 1);
  for (int o : ops) {
    int c = r.ops[o].chain;
    int rank = rank_in_chain[c]++;
    key[o] = chain_major ? c * big + rank : rank * big + c;
  }
  return order_ops(r, ops, [&](int o) { return key.at(o); });
}

// FNV-1a over the structure of a subgraph: ops, attributes, tile shapes and
// the def-use pattern (tiles renumbered by first touch); no offsets, no valid extents.
static uint64_t iso_hash(const TileRoot& r, const Subgraph& sg) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](int64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= uint64_t(v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  std::unordered_map<int, int> local;
  auto tile = [&](int t) {
    auto [it, fresh] = local.try_emplace(t, int(local.size()));
    mix(it->second);
    if (fresh) {
      const LocalTile& lt = r.tiles[t];
      mix(int(lt.mem));
      mix(int(lt.dtype));
      mix(int(lt.layout));
      for (auto s : lt.shape) mix(s);
    }
  };
  mix(int(sg.core));
  mix(sg.chains);
  for (int o : sg.ops) {
    const TileOp& op = r.ops[o];
    mix(int(op.kind));
    mix(int(op.vop));
    mix(int(op.dtype));
    mix(op.trans_a * 2 + op.trans_b + op.accumulate * 4 + op.atomic_add * 8 + op.scalar_first * 16);
    for (int a : op.axes) mix(a);
    if (op.scalar) mix(int64_t(*op.scalar * 1e9));
    mix(int64_t(op.fill * 1e9));
    for (auto s : op.sub_offset) mix(s);
    for (int s : op.srcs) tile(s);
    if (op.dst >= 0) tile(op.dst);
    if (op.gm.tensor >= 0) {
      mix(op.gm.tensor);
      mix(int64_t(op.gm.offset.size()));
    }
    mix(op.chain);
  }
  return h;
}

void compute_iso_hashes(TileRoot& r) {
  std::unordered_map<uint64_t, int> order;
  for (auto& sg : r.subgraphs) {
    if (sg.ops.empty()) continue;
    sg.iso_hash = iso_hash(r, sg);
    auto [it, fresh] = order.try_emplace(sg.iso_hash, int(order.size()));
    sg.hash_order = it->second;
  }
}

void finalize_subgraphs(TileRoot& r) {
  // Drop the empty ones, then renumber in a topological order (lowest old id first).
  std::vector<Subgraph> kept;
  for (auto& sg : r.subgraphs)
    if (!sg.ops.empty()) kept.push_back(std::move(sg));
  for (size_t i = 0; i < kept.size(); ++i) kept[i].id = int(i);
  r.subgraphs = std::move(kept);
  SgGraph g(r);
  size_t n = r.subgraphs.size();
  std::vector<int> indeg(n, 0), new_id(n, -1);
  for (size_t i = 0; i < n; ++i) indeg[i] = int(g.pred[i].size());
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push(int(i));
  int next = 0;
  while (!ready.empty()) {
    int x = ready.top();
    ready.pop();
    new_id[x] = next++;
    for (int s : g.succ[x])
      if (--indeg[s] == 0) ready.push(s);
  }
  if (next != int(n)) throw std::logic_error("tiling: subgraph dependencies form a cycle");
  std::vector<Subgraph> out(n);
  for (size_t i = 0; i < n; ++i) {
    Subgraph sg = std::move(r.subgraphs[i]);
    sg.id = new_id[i];
    sg.succ.clear();
    for (int s : g.succ[i]) sg.succ.push_back(new_id[s]);
    std::sort(sg.succ.begin(), sg.succ.end());
    out[sg.id] = std::move(sg);
  }
  r.subgraphs = std::move(out);
  compute_iso_hashes(r);
}

}  // namespace ptoc::tiling
