// Dependencies between tile ops and between subgraphs: local tile def->use
// edges, GM read/write hazards (RAW, WAR, WAW; atomic adds commute), the
// canonical op order inside a subgraph, structural (isomorphism) hashes with
// their order of first appearance, and the final successor lists with
// subgraphs renumbered in topological order.
#include <algorithm>
#include <climits>
#include <optional>
#include <queue>
#include <unordered_map>

#include "compiler/passes/affine_box.h"
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
  std::string box;   // the exact box (view, offsets, extents as written): equal text, same bytes
  // Row-major element range [first, last] the box lies in, when its view's shape, offsets and
  // extents are static: every view of a tensor addresses its elements row-major, so boxes of
  // different views whose ranges are disjoint share no element.
  std::optional<std::pair<int64_t, int64_t>> range;
};

std::optional<std::pair<int64_t, int64_t>> element_range(const std::vector<int64_t>& shape, const Access& a) {
  if (shape.empty() || shape.size() != a.off.size() || a.ext.size() != a.off.size()) return std::nullopt;
  int64_t first = 0, last = 0, stride = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    const auto& [sym, off] = a.off[k];
    if (!sym.empty() || !a.ext[k] || *a.ext[k] <= 0 || off < 0 || off + *a.ext[k] > shape[k]) return std::nullopt;
    first += off * stride;
    last += (off + *a.ext[k] - 1) * stride;
    if (__builtin_mul_overflow(stride, shape[k], &stride)) return std::nullopt;
  }
  return std::pair{first, last};
}

}  // namespace

// An offset as (symbolic part, constant): x + 3 -> ("x", 3), 5 -> ("", 5).
std::pair<std::string, int64_t> gm_split(const DimExpr& e) {
  if (auto c = e.as_const()) return {"", *c};
  using K = DimExpr::Kind;
  if (e.kind() == K::Add || e.kind() == K::Sub) {
    const auto& a = e.args();
    if (auto c = a[1].as_const()) {
      auto [s, k] = gm_split(a[0]);
      return {s, e.kind() == K::Add ? k + *c : k - *c};
    }
  }
  return {e.str(), 0};
}

namespace {
bool overlap(const Access& a, const Access& b) {
  if (a.view != b.view)
    return !a.range || !b.range || (a.range->first <= b.range->second && b.range->first <= a.range->second);
  return affine_boxes_overlap(a.off, a.ext, b.off, b.ext);
}

}  // namespace

// Static upper bound of an extent: its constant, or the constant in min(c, x) / max(0, min(c, x)).
std::optional<int64_t> gm_extent_bound(const DimExpr& e) {
  if (auto c = e.as_const()) return c;
  if (e.kind() == DimExpr::Kind::Min) {
    if (auto c = e.args()[0].as_const()) return c;
    if (auto c = e.args()[1].as_const()) return c;
  }
  if (e.kind() == DimExpr::Kind::Max && e.args()[0].as_const() == 0) return gm_extent_bound(e.args()[1]);
  return std::nullopt;
}

// Per-tile writer lists of a set of ops (ascending op ids per tile): a CSR over
// all tiles when the set is a large part of the root, else sorted (tile, op)
// pairs found through a per-thread tile -> run index (order_ops and try_absorb
// call this for every small merged subgraph; no per-call allocation by tile count).
namespace {
class Writers {
 public:
  Writers(const TileRoot& r, const std::vector<int>& sorted) {
    dense_ = sorted.size() * 8 >= r.tiles.size();
    if (dense_) {
      start_.assign(r.tiles.size() + 1, 0);
      for (int o : sorted)
        if (r.ops[o].dst >= 0) ++start_[size_t(r.ops[o].dst) + 1];
      for (size_t t = 0; t < r.tiles.size(); ++t) start_[t + 1] += start_[t];
      ops_.resize(size_t(start_.back()));
      std::vector<int> fill(start_.begin(), start_.end() - 1);
      for (int o : sorted)
        if (r.ops[o].dst >= 0) ops_[size_t(fill[size_t(r.ops[o].dst)]++)] = o;
      return;
    }
    std::vector<std::pair<int, int>> pairs;
    for (int o : sorted)
      if (r.ops[o].dst >= 0) pairs.push_back({r.ops[o].dst, o});
    // Usually sorted already: tiles are created with the ops that first write them.
    if (!std::is_sorted(pairs.begin(), pairs.end())) std::sort(pairs.begin(), pairs.end());
    if (!pairs.empty() && run_of_.size() <= size_t(pairs.back().first))  // grown to the tiles written
      run_of_.resize(size_t(pairs.back().first) + 1, -1);
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (i == 0 || pairs[i].first != pairs[i - 1].first) {
        run_of_[size_t(pairs[i].first)] = int(start_.size());
        tiles_.push_back(pairs[i].first);
        start_.push_back(int(i));
      }
      ops_.push_back(pairs[i].second);
    }
    start_.push_back(int(pairs.size()));
  }
  ~Writers() {
    for (int t : tiles_) run_of_[size_t(t)] = -1;
  }
  Writers(const Writers&) = delete;
  Writers& operator=(const Writers&) = delete;
  // Writers of tile t: [first, last) in ascending id order.
  std::pair<const int*, const int*> of(int t) const {
    if (dense_) return {ops_.data() + start_[size_t(t)], ops_.data() + start_[size_t(t) + 1]};
    int k = size_t(t) < run_of_.size() ? run_of_[size_t(t)] : -1;
    if (k < 0) return {nullptr, nullptr};
    return {ops_.data() + start_[size_t(k)], ops_.data() + start_[size_t(k) + 1]};
  }
  // Calls fn(first, last) for every tile with writers, in tile order.
  template <class F>
  void each(F&& fn) const {
    for (size_t k = 0; k + 1 < start_.size(); ++k)
      if (start_[k + 1] > start_[k]) fn(ops_.data() + start_[k], ops_.data() + start_[k + 1]);
  }

 private:
  bool dense_ = false;
  std::vector<int> start_, ops_, tiles_;
  static thread_local std::vector<int> run_of_;  // tile -> run index while sparse, else -1
};
thread_local std::vector<int> Writers::run_of_;

// Pairs (i < j) of hazards among the accesses of one tensor: j-major, i ascending.
// Below a few dozen accesses every pair is tested. Above, on the axes whose symbolic part and view
// are the same in every access (overlap() compares only their constants), each box is entered in
// the cells of a grid it covers (cell size per axis: the median extent); only boxes sharing a
// cell can overlap, so a box's candidates are the earlier boxes of its cells, and overlap()
// decides. Boxes covering too many cells (or of unknown extent) are tested against every other.
// Near-linear where a single axis sweep degenerated to all pairs (fuzz seed 7000477: 81 920
// one-element partial stores and 640 whole-row combine loads of one GM temp).
template <class Emit>
void gm_hazards(const std::vector<Access>& list, Emit&& emit) {
  auto hazard = [&](const Access& a, const Access& b) {
    if (!a.write && !b.write) return false;
    if (a.write && b.write && a.atomic && b.atomic) return false;  // atomic adds commute
    return overlap(a, b);
  };
  const size_t m = list.size();
  std::vector<size_t> axes;
  if (m > 32) {
    size_t rank = SIZE_MAX;
    for (auto& a : list) rank = std::min(rank, a.off.size());
    for (size_t d = 0; d < rank; ++d) {
      bool uniform = true;
      for (auto& a : list)
        if (a.view != list[0].view || a.off[d].first != list[0].off[d].first) {
          uniform = false;
          break;
        }
      if (uniform) axes.push_back(d);
    }
  }
  // Implied pairs: an earlier access i and b are ordered through k, the last plain write of b's
  // exact box before b, when i comes before k (i -> k and k -> b are hazards: k's bytes are b's).
  // Without this, one-element tiles of a workspace read and written by every iteration of a static
  // loop gave every pair of its accesses (fuzz seed 9000475: ~64^2 edges per element).
  std::unordered_map<std::string_view, int> last_write;
  auto implied_before = [&](size_t j) {
    const Access& b = list[j];
    auto lw = last_write.find(b.box);
    const int k = lw == last_write.end() ? -1 : lw->second;
    if (b.write && !b.atomic) last_write[b.box] = int(j);
    return k;
  };
  // A read pairs only with earlier writes (two reads are no hazard): its candidates come from the
  // writes alone, in the same ascending order, so the edges are those of testing every pair.
  // Without it, 73 796 reads of one temp (fuzz seed 9010645) made 2.7e9 read-read tests.
  std::vector<int> writes;
  if (axes.empty()) {
    for (size_t j = 0; j < m; ++j) {
      const int k = implied_before(j);
      if (list[j].write) {
        for (size_t i = size_t(std::max(k, 0)); i < j; ++i)
          if (hazard(list[i], list[j])) emit(list[i].op, list[j].op);
        writes.push_back(int(j));
      } else {
        for (auto w = std::lower_bound(writes.begin(), writes.end(), k); w != writes.end(); ++w)
          if (hazard(list[size_t(*w)], list[j])) emit(list[size_t(*w)].op, list[j].op);
      }
    }
    return;
  }
  std::vector<int64_t> cell(axes.size(), 1);
  for (size_t k = 0; k < axes.size(); ++k) {
    std::vector<int64_t> ext;
    for (auto& a : list)
      if (a.ext[axes[k]] && *a.ext[axes[k]] > 0) ext.push_back(*a.ext[axes[k]]);
    if (ext.empty()) continue;
    std::nth_element(ext.begin(), ext.begin() + long(ext.size() / 2), ext.end());
    cell[k] = std::max<int64_t>(1, ext[ext.size() / 2]);
  }
  auto floor_div = [](int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); };
  constexpr int64_t kMaxCells = 4096;
  // Cell ranges [lo, hi] per grid axis of access k; false when it is tested against every other
  // (too many cells or an unbounded extent); `empty` when an extent is 0 (it overlaps nothing).
  std::vector<int64_t> lo(axes.size()), hi(axes.size());
  auto cells_of = [&](const Access& a, bool& empty) {
    empty = false;
    int64_t n = 1;
    for (size_t k = 0; k < axes.size(); ++k) {
      const auto& e = a.ext[axes[k]];
      if (!e) return false;
      if (*e == 0) {
        empty = true;
        return true;
      }
      const int64_t s = a.off[axes[k]].second;
      lo[k] = floor_div(s, cell[k]);
      hi[k] = floor_div(s + *e - 1, cell[k]);
      n *= hi[k] - lo[k] + 1;
      if (n > kMaxCells) return false;
    }
    return true;
  };
  // Hash of a cell (collisions only add candidates: overlap() decides).
  auto key_of = [&](const std::vector<int64_t>& c) {
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : c) h = (h ^ uint64_t(v)) * 0x9e3779b97f4a7c15ull, h ^= h >> 29;
    return h;
  };
  // Two grids: every access (a write's candidates) and the writes alone (a read's).
  std::unordered_map<uint64_t, std::vector<int>> grid, wgrid;
  std::vector<int> wide, wwide, cand;  // wide: accesses tested against every other
  std::vector<int64_t> c(axes.size());
  auto each_cell = [&](auto&& fn) {
    for (size_t k = 0; k < axes.size(); ++k) c[k] = lo[k];
    while (true) {
      fn(key_of(c));
      size_t k = 0;
      while (k < axes.size() && ++c[k] > hi[k]) c[k] = lo[k], ++k;
      if (k == axes.size()) return;
    }
  };
  for (size_t j = 0; j < m; ++j) {
    const Access& b = list[j];
    const int k = implied_before(j);
    bool empty = false;
    const bool gridded = cells_of(b, empty);
    cand.clear();
    auto& g = b.write ? grid : wgrid;
    if (!gridded) {
      if (b.write)
        for (size_t i = 0; i < j; ++i) cand.push_back(int(i));
      else
        cand = writes;
    } else if (!empty) {
      each_cell([&](uint64_t key) {
        auto it = g.find(key);
        if (it != g.end()) cand.insert(cand.end(), it->second.begin(), it->second.end());
      });
      const auto& wd = b.write ? wide : wwide;
      cand.insert(cand.end(), wd.begin(), wd.end());
      std::sort(cand.begin(), cand.end());
      cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
    }
    for (auto i = std::lower_bound(cand.begin(), cand.end(), k); i != cand.end(); ++i)
      if (hazard(list[size_t(*i)], b)) emit(list[size_t(*i)].op, b.op);
    if (b.write) writes.push_back(int(j));
    if (!gridded) {
      wide.push_back(int(j));
      if (b.write) wwide.push_back(int(j));
    } else if (!empty) {
      each_cell([&](uint64_t key) {
        grid[key].push_back(int(j));
        if (b.write) wgrid[key].push_back(int(j));
      });
    }
  }
}
}  // namespace

// Calls emit(from, to, local) for every dependency edge among `sorted` (op ids
// ascending), in the order op_edges documents.
template <class Emit>
static void each_edge(const TileRoot& r, const std::vector<int>& sorted, Emit&& emit) {
  Writers writers(r, sorted);
  // Writers of one tile in op order (the order among tiles does not matter to any user).
  writers.each([&](const int* b, const int* e) {
    for (const int* p = b + 1; p < e; ++p) emit(p[-1], p[0], true);
  });
  for (int o : sorted)
    for (int s : r.ops[o].srcs) {
      auto [b, e] = writers.of(s);
      if (b == e) continue;
      // The last writer before the reader (or the first, for a reload created after its reader).
      auto pos = std::lower_bound(b, e, o);
      int w = pos == b ? *b : *(pos - 1);
      if (w != o) emit(w, o, true);
    }
  // GM hazards per tensor, in op order. The tensors are visited in the order of this
  // hash map (partition's scope merges follow edge order); only written tensors have any.
  std::vector<char> written;
  for (int o : sorted) {
    const TileOp& op = r.ops[o];
    if (op.kind == TileOpKind::CopyOut || op.kind == TileOpKind::FixOut) {
      if (int(written.size()) <= op.gm.tensor) written.resize(size_t(op.gm.tensor) + 1, 0);
      written[size_t(op.gm.tensor)] = 1;
    }
  }
  std::unordered_map<int, std::vector<Access>> acc;
  for (int o : sorted) {
    const TileOp& op = r.ops[o];
    bool w = op.kind == TileOpKind::CopyOut || op.kind == TileOpKind::FixOut;
    if (op.kind != TileOpKind::CopyIn && !w) continue;
    auto& list = acc[op.gm.tensor];
    if (op.gm.tensor < 0 || op.gm.tensor >= int(written.size()) || !written[size_t(op.gm.tensor)]) continue;
    Access a{o, w, op.atomic_add, {}, {}, {}};
    a.off.reserve(op.gm.offset.size());
    a.ext.reserve(op.gm.extent.size());
    for (auto& x : op.gm.offset) a.off.push_back(gm_split(x));
    for (auto& x : op.gm.extent) a.ext.push_back(gm_extent_bound(x));
    for (auto& x : op.gm.view) a.view += x.str() + ",";
    a.box = a.view + "|";
    for (auto& x : op.gm.offset) a.box += x.str() + ",";
    a.box += "|";
    for (auto& x : op.gm.extent) a.box += x.str() + ",";
    std::vector<int64_t> vshape;
    if (!op.gm.view.empty()) {
      for (auto& x : op.gm.view)
        if (auto c = x.as_const()) vshape.push_back(*c);
      if (vshape.size() != op.gm.view.size()) vshape.clear();
    } else if (size_t(op.gm.tensor) < r.gm_static_shapes.size()) {
      vshape = r.gm_static_shapes[size_t(op.gm.tensor)];
    }
    a.range = element_range(vshape, a);
    list.push_back(std::move(a));
  }
  // Program order of the accesses: (seq, id). Ops made by partition (reloads, cut stores) have
  // ids past every expanded op but sit where they act (TileOp::seq).
  for (auto& [tensor, list] : acc) {
    std::stable_sort(list.begin(), list.end(),
                     [&](const Access& a, const Access& b) { return r.ops[a.op].seq < r.ops[b.op].seq; });
    gm_hazards(list, [&](int from, int to) { emit(from, to, false); });
  }
}

static std::vector<OpEdge> edges_among(const TileRoot& r, const std::vector<int>& ops) {
  std::vector<OpEdge> out;
  auto emit = [&](int from, int to, bool local) { out.push_back({from, to, local}); };
  if (std::is_sorted(ops.begin(), ops.end())) {
    each_edge(r, ops, emit);
  } else {
    std::vector<int> sorted = ops;
    std::sort(sorted.begin(), sorted.end());
    each_edge(r, sorted, emit);
  }
  return out;
}

std::vector<OpEdge> op_edges(const TileRoot& r, const std::vector<char>& alive) {
  std::vector<int> ops;
  for (size_t i = 0; i < r.ops.size(); ++i)
    if (alive[i]) ops.push_back(int(i));
  return edges_among(r, ops);
}

// Kahn over the edges among `ops`; `key[i]` belongs to ops[i]. Ready ops pop by
// (key, op id), a total order, so the result does not depend on edge order.
static std::vector<int> order_by_keys(const TileRoot& r, const std::vector<int>& ops, const std::vector<double>& key) {
  auto edges = edges_among(r, ops);
  // Local indices through a per-thread op -> index array, reset on return.
  thread_local std::vector<int> index_of;
  int top = -1;  // grown to the ops ordered, not the root's count
  for (int o : ops) top = std::max(top, o);
  if (index_of.size() <= size_t(top + 1)) index_of.resize(size_t(top + 1), -1);
  for (size_t i = 0; i < ops.size(); ++i) index_of[size_t(ops[i])] = int(i);
  struct Reset {
    const std::vector<int>& ops;
    ~Reset() {
      for (int o : ops) index_of[size_t(o)] = -1;
    }
  } reset{ops};
  auto local = [&](int o) { return index_of[size_t(o)]; };
  std::vector<int> indeg(ops.size(), 0), start(ops.size() + 1, 0), succ(edges.size());
  std::vector<std::pair<int, int>> le(edges.size());
  for (size_t k = 0; k < edges.size(); ++k) {
    le[k] = {local(edges[k].from), local(edges[k].to)};
    ++start[size_t(le[k].first) + 1];
    ++indeg[size_t(le[k].second)];
  }
  for (size_t i = 0; i < ops.size(); ++i) start[i + 1] += start[i];
  {
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (auto& [f, t] : le) succ[size_t(fill[size_t(f)]++)] = t;
  }
  using Item = std::pair<double, int>;  // (key, op id)
  std::vector<Item> heap;
  auto push = [&](int i) {
    heap.push_back({key[size_t(i)], ops[size_t(i)]});
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
  };
  for (size_t i = 0; i < ops.size(); ++i)
    if (indeg[i] == 0) push(int(i));
  std::vector<int> out;
  out.reserve(ops.size());
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    int o = heap.back().second;
    heap.pop_back();
    out.push_back(o);
    int i = local(o);
    for (int k = start[size_t(i)]; k < start[size_t(i) + 1]; ++k)
      if (--indeg[size_t(succ[size_t(k)])] == 0) push(succ[size_t(k)]);
  }
  return out;  // a cycle would drop ops; edges_among never makes one for one subgraph
}

std::vector<int> order_ops(const TileRoot& r, const std::vector<int>& ops, const std::function<double(int)>& key) {
  std::vector<double> k(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) k[i] = key(ops[i]);
  return order_by_keys(r, ops, k);
}

SgGraph::SgGraph(const TileRoot& r) {
  succ.assign(r.subgraphs.size(), {});
  pred.assign(r.subgraphs.size(), {});
  std::vector<int> sg_of(r.ops.size(), -1), alive;
  for (auto& sg : r.subgraphs)
    for (int o : sg.ops) sg_of[o] = sg.id;
  for (size_t o = 0; o < r.ops.size(); ++o)
    if (sg_of[o] >= 0) alive.push_back(int(o));
  // Visited, not collected: only the few edges between subgraphs matter here.
  each_edge(r, alive, [&](int from, int to, bool) {
    int a = sg_of[size_t(from)], b = sg_of[size_t(to)];
    if (a != b) {
      succ[size_t(a)].insert(b);
      pred[size_t(b)].insert(a);
    }
  });
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

bool SgGraph::merge_creates_cycle(int a, int b) const {
  // Equal producer sets (VecNBuffer's buckets, CubeNBuffer's isomorphic siblings): a path a -> b
  // would end in some p -> b with p a producer of a too, closing p -> a -> ... -> p; the graph is a
  // DAG, so there is none (nor a direct edge: a would be its own producer). No walk needed (a walk
  // per candidate was quadratic: fuzz seed 9100006, 24 % of its compile).
  if (pred[size_t(a)] == pred[size_t(b)]) return false;
  return reaches(a, b, a) || reaches(b, a, b);
}

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
  // Rank of each op inside its chain, in `ops` order.
  std::vector<int> next_rank;
  std::vector<double> key(ops.size());
  double big = double(ops.size() + 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    int c = r.ops[ops[i]].chain;
    if (int(next_rank.size()) <= c) next_rank.resize(size_t(c) + 1, 0);
    int rank = next_rank[size_t(c)]++;
    key[i] = chain_major ? c * big + rank : rank * big + c;
  }
  return order_by_keys(r, ops, key);
}

// A hash of the structure of a subgraph: ops, attributes, tile shapes and
// the def-use pattern (tiles renumbered by first touch); no offsets, no valid extents.
// One word per step (a byte-wise FNV-1a of every field was a visible cost: this
// runs over every op of the root in each breadth pass); only equality of the
// hashes matters (isomorphism classes), not their values.
// `local`: per tile of the root, its number in this subgraph (-1: not seen yet);
// all -1 on entry and on return.
static uint64_t iso_hash(const TileRoot& r, const Subgraph& sg, std::vector<int>& local, std::vector<int>& seen) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](int64_t v) {
    h = (h ^ uint64_t(v)) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  };
  seen.clear();
  auto tile = [&](int t) {
    int& id = local[size_t(t)];
    bool fresh = id < 0;
    if (fresh) {
      id = int(seen.size());
      seen.push_back(t);
    }
    mix(id);
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
  for (int t : seen) local[size_t(t)] = -1;
  return h;
}

void compute_iso_hashes(TileRoot& r) {
  std::unordered_map<uint64_t, int> order;
  std::vector<int> local(r.tiles.size(), -1), seen;
  for (auto& sg : r.subgraphs) {
    if (sg.ops.empty()) continue;
    sg.iso_hash = iso_hash(r, sg, local, seen);
    auto [it, fresh] = order.try_emplace(sg.iso_hash, int(order.size()));
    sg.hash_order = it->second;
  }
}

void compute_iso_hashes_by_class(TileRoot& r, const std::vector<int>& cls) {
  std::unordered_map<uint64_t, int> order;
  // Sized to the tiles of the subgraphs hashed (a family's member 0), not the whole root's.
  std::vector<int> local, seen;
  auto cover = [&](const Subgraph& sg) {
    int top = -1;
    for (int o : sg.ops) {
      const TileOp& op = r.ops[size_t(o)];
      top = std::max(top, op.dst);
      for (int t : op.srcs) top = std::max(top, t);
    }
    if (local.size() <= size_t(top + 1)) local.resize(size_t(top + 1), -1);
  };
  std::vector<std::optional<uint64_t>> of_class;
  for (size_t i = 0; i < r.subgraphs.size(); ++i) {
    Subgraph& sg = r.subgraphs[i];
    if (sg.ops.empty()) continue;
    const int c = i < cls.size() ? cls[i] : -1;
    if (c >= 0 && size_t(c) >= of_class.size()) of_class.resize(size_t(c) + 1);
    if (c >= 0 && of_class[size_t(c)]) {
      sg.iso_hash = *of_class[size_t(c)];
    } else {
      cover(sg);
      sg.iso_hash = iso_hash(r, sg, local, seen);
      if (c >= 0) of_class[size_t(c)] = sg.iso_hash;
    }
    auto [it, fresh] = order.try_emplace(sg.iso_hash, int(order.size()));
    sg.hash_order = it->second;
  }
}

SgGraph& sg_graph(Builder& b, std::optional<SgGraph>& local) {
  if (b.family_graph) return *b.family_graph;
  if (!local) local.emplace(b.root);
  return *local;
}

void refresh_iso_hashes(Builder& b) {
  if (b.iso_fresh) return;
  compute_iso_hashes(b.root);
  b.iso_fresh = true;
}

void finalize_subgraphs(TileRoot& r, const SgGraph* known, bool hashes_fresh) {
  // Drop the empty ones, then renumber in a topological order (lowest old id first). Both are done
  // in place when nothing is dropped or moved (a family root of 9 216 copies: no copy of the
  // subgraphs or of the known graph).
  const size_t before = r.subgraphs.size();
  std::vector<int> kept_id(before, -1);
  size_t n = 0;
  for (size_t i = 0; i < before; ++i)
    if (!r.subgraphs[i].ops.empty()) {
      kept_id[i] = int(n);
      if (n != i) r.subgraphs[n] = std::move(r.subgraphs[i]);
      r.subgraphs[n].id = int(n);
      ++n;
    }
  r.subgraphs.resize(n);
  const bool dropped = n != before;
  SgGraph own;
  const SgGraph* g = &own;
  if (known && !dropped) {
    g = known;
  } else if (known) {
    // An emptied subgraph was absorbed: SgGraph::merge left it without edges.
    own.succ.assign(n, {});
    own.pred.assign(n, {});
    for (size_t old = 0; old < known->succ.size(); ++old) {
      if (kept_id[old] < 0) continue;
      for (int s : known->succ[old]) {
        if (kept_id[size_t(s)] < 0) throw std::logic_error("tiling: an absorbed subgraph kept an edge");
        own.succ[size_t(kept_id[old])].insert(kept_id[size_t(s)]);
        own.pred[size_t(kept_id[size_t(s)])].insert(kept_id[old]);
      }
    }
  } else {
    own = SgGraph(r);
  }
  std::vector<int> indeg(n, 0), new_id(n, -1);
  for (size_t i = 0; i < n; ++i) indeg[i] = int(g->pred[i].size());
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push(int(i));
  int next = 0;
  while (!ready.empty()) {
    int x = ready.top();
    ready.pop();
    new_id[x] = next++;
    for (int s : g->succ[x])
      if (--indeg[s] == 0) ready.push(s);
  }
  if (next != int(n)) throw std::logic_error("tiling: subgraph dependencies form a cycle");
  bool identity = true;
  for (size_t i = 0; i < n && identity; ++i) identity = new_id[i] == int(i);
  const bool same_order = !dropped && identity;
  auto set_succ = [&](Subgraph& sg, size_t i) {
    sg.succ.clear();
    for (int s : g->succ[i]) sg.succ.push_back(new_id[s]);
    std::sort(sg.succ.begin(), sg.succ.end());
  };
  if (identity) {
    for (size_t i = 0; i < n; ++i) set_succ(r.subgraphs[i], i);
  } else {
    std::vector<Subgraph> out(n);
    for (size_t i = 0; i < n; ++i) {
      Subgraph sg = std::move(r.subgraphs[i]);
      sg.id = new_id[i];
      set_succ(sg, i);
      out[size_t(sg.id)] = std::move(sg);
    }
    r.subgraphs = std::move(out);
  }
  // Hash orders follow the subgraph order: unchanged when nothing moved and nothing merged.
  if (!(hashes_fresh && same_order)) compute_iso_hashes(r);
}

}  // namespace ptoc::tiling
