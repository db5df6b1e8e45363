// Pass: the task graph of every root function.
//
// One Task per subgraph (a CALL of its leaf), in a topological order of the
// subgraph successor edges (Kahn's algorithm, lowest subgraph position first,
// so the order is deterministic). A task carries what the runtime needs to
// launch and order it without looking inside the kernel: the leaf, the GM
// tensor of each kernel slot, the argument expressions, the GM regions it
// reads and writes (for stitching and dependency checks), its successors and
// predecessor count, and the labels the swimlane shows. A tile family's root
// is built compact (RootFunction::compact, the bundle's templates and instance
// records): member 0's tasks whole, its copies' as moved records, so neither
// the task graph nor the bundle writer holds a Task per member.
#include <xxhash.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <queue>
#include <stdexcept>

#include "compiler/passes/backend.h"
#include "compiler/passes/task_replica.h"
#include "runtime/program/task_compactor.h"

namespace ptoc {

namespace {

// A box of a reshaped view (GmRef::view) as a box of the tensor's own shape:
// the whole rows of axis 0 that hold its first to last byte (exact when the
// box is a run of whole rows, conservative otherwise).
GmRef unview(const GmRef& g, const std::vector<DimExpr>& shape) {
  if (g.view.empty() || shape.empty()) return g;
  const size_t k = g.view.size();
  DimExpr first(0), last(0), stride(1);
  bool empty_box = false;
  for (size_t d = k; d-- > 0;) {
    first = first + g.offset[d] * stride;
    last = last + (g.offset[d] + g.extent[d] - DimExpr(1)) * stride;
    if (auto c = g.extent[d].as_const(); c && *c <= 0) empty_box = true;
    stride = stride * g.view[d];
  }
  DimExpr row(1);
  for (size_t d = 1; d < shape.size(); ++d) row = row * shape[d];
  GmRef r;
  r.tensor = g.tensor;
  DimExpr r0 = floordiv(first, row);
  r.offset.push_back(r0);
  r.extent.push_back(empty_box ? DimExpr(0) : max(DimExpr(0), floordiv(last, row) + DimExpr(1) - r0));
  for (size_t d = 1; d < shape.size(); ++d) {
    r.offset.push_back(DimExpr(0));
    r.extent.push_back(shape[d]);
  }
  return r;
}

// Whether the box of `r` and `g` is the same, as their texts (DimExpr::str)
// would say: tensor and ranks first, then the constant dims by value, and only
// then the symbolic ones by text, so most distinct boxes are told apart
// without rendering any expression.
bool same_box(const Region& r, const GmRef& g) {
  if (r.tensor != g.tensor || r.offset.size() != g.offset.size() || r.extent.size() != g.extent.size()) return false;
  auto consts_differ = [](const std::vector<DimExpr>& a, const std::vector<DimExpr>& b) {
    for (size_t i = 0; i < a.size(); ++i) {
      auto ca = a[i].as_const(), cb = b[i].as_const();
      if (ca && cb && *ca != *cb) return true;
    }
    return false;
  };
  if (consts_differ(r.offset, g.offset) || consts_differ(r.extent, g.extent)) return false;
  auto texts_differ = [](const std::vector<DimExpr>& a, const std::vector<DimExpr>& b) {
    for (size_t i = 0; i < a.size(); ++i)
      if (!(a[i].as_const() && b[i].as_const()) && a[i].str() != b[i].str()) return true;
    return false;
  };
  return !texts_differ(r.offset, g.offset) && !texts_differ(r.extent, g.extent);
}

// A key that equal boxes (same_box) always share: the tensor, the ranks and the constant dims; a
// symbolic dim adds only its position. Compared before same_box, it skips most distinct boxes (a
// GEMM task reads 48 distinct blocks: 1 100 box comparisons per task).
uint64_t box_key(int tensor, const std::vector<DimExpr>& offset, const std::vector<DimExpr>& extent) {
  uint64_t h = XXH64(&tensor, sizeof tensor, offset.size() * 31 + extent.size());
  for (const auto* v : {&offset, &extent})
    for (const DimExpr& e : *v) {
      const int64_t c = e.as_const().value_or(INT64_MIN);
      h = XXH64(&c, sizeof c, h);
    }
  return h;
}

// A task's read or write regions, each box once, in first-access order.
struct RegionList {
  std::vector<Region>& v;
  std::vector<uint64_t> keys;  // per region of v

  // Adds g unless an identical box is already there. A box in the tensor's own shape (no view) is
  // compared in place and copied only when it is new (most of a leaf's accesses repeat a box).
  void add(const GmRef& g0, const std::vector<GmTensor>& tensors, SrcLoc loc) {
    if (g0.view.empty()) {
      const uint64_t k = box_key(g0.tensor, g0.offset, g0.extent);
      for (size_t i = 0; i < v.size(); ++i)
        if (keys[i] == k && same_box(v[i], g0)) return;
      v.push_back(Region{g0.tensor, g0.offset, g0.extent, loc});
      keys.push_back(k);
      return;
    }
    GmRef g = unview(g0, tensors.at(g0.tensor).shape);
    const uint64_t k = box_key(g.tensor, g.offset, g.extent);
    for (size_t i = 0; i < v.size(); ++i)
      if (keys[i] == k && same_box(v[i], g)) return;
    v.push_back(Region{g.tensor, std::move(g.offset), std::move(g.extent), loc});
    keys.push_back(k);
  }
};

}  // namespace

// The windows of a root whose start is known only at run time (a loop variable or a dynamic dim in
// the start or in the source's extent): the runtime checks each start against its source's extent
// once per root instance (static ones are compile-time errors of the front end).
std::vector<WindowCheck> window_checks_of(const Program& prog, const RootTemplate& tmpl) {
  std::vector<WindowCheck> out;
  for (int id : tmpl.ops) {
    const Op& op = prog.ops[size_t(id)];
    if (op.kind != OpKind::View || op.inputs.empty()) continue;
    const Value& src = prog.values[size_t(op.inputs[0])];
    for (size_t a = 0; a < op.offsets.size() && a < src.shape.size() && a < op.shape.size(); ++a) {
      if (op.offsets[a].is_const() && src.shape[a].is_const()) continue;
      WindowCheck w;
      w.source = src.name.empty() ? "a temporary value" : src.name;
      w.axis = int(a);
      w.start = op.offsets[a];
      w.extent = op.shape[a];
      w.bound = src.shape[a];
      w.loc = op.loc;
      out.push_back(std::move(w));
    }
  }
  return out;
}

void build_task_graphs(const Program& prog, const std::vector<TileRoot>& roots, const std::vector<LeafPlan>& plans,
                       CompiledProgram& out, const LazyLeafFn& lazy, const MovedLeafFn& moved) {
  out.roots.clear();
  std::vector<int> step_ops, buffer_tiles;  // of a lazy leaf
  int op_magic = 0;
  // Plans and temps bucketed by root once: scanning all of them per root was O(roots x leaves)
  // (a 1000-root spec spent 13 % of its compile here).
  std::vector<std::vector<const LeafPlan*>> plans_of_root(roots.size());
  for (const LeafPlan& p : plans)
    if (p.root >= 0 && p.root < int(roots.size())) plans_of_root[size_t(p.root)].push_back(&p);
  std::vector<std::vector<int>> temps_of_root(roots.size());
  for (int t = 0; t < int(out.tensors.size()); ++t)
    if (out.tensors[t].role == GmTensor::Role::Temp && out.tensors[t].root >= 0 && out.tensors[t].root < int(roots.size()))
      temps_of_root[size_t(out.tensors[t].root)].push_back(t);
  for (int r = 0; r < int(roots.size()); ++r) {
    const TileRoot& tr = roots[r];
    RootFunction rf;
    const RootTemplate* tmpl = tr.root >= 0 && tr.root < int(prog.roots.size()) ? &prog.roots[tr.root] : nullptr;
    rf.index = tmpl ? tmpl->index : tr.root;
    rf.name = tmpl ? tmpl->name : "root" + std::to_string(r);
    if (tmpl) {
      rf.loop_vars = tmpl->loop_vars;
      rf.factor = tmpl->factor;
      rf.window_checks = window_checks_of(prog, *tmpl);
    }
    rf.temps = temps_of_root[size_t(r)];

    // Plans of this root, by subgraph id.
    std::vector<const LeafPlan*> plan_of(tr.subgraphs.size(), nullptr);
    std::vector<int> pos_of_id;
    for (int i = 0; i < int(tr.subgraphs.size()); ++i) {
      int id = tr.subgraphs[i].id;
      if (id >= int(pos_of_id.size())) pos_of_id.resize(id + 1, -1);
      pos_of_id[id] = i;
    }
    for (const LeafPlan* p : plans_of_root[size_t(r)]) plan_of.at(pos_of_id.at(p->subgraph)) = p;

    // Kahn over subgraph positions.
    const int n = int(tr.subgraphs.size());
    std::vector<int> indeg(n, 0);
    std::vector<std::vector<int>> succ(n);
    for (int i = 0; i < n; ++i)
      for (int s : tr.subgraphs[i].succ) {
        int j = pos_of_id.at(s);
        succ[i].push_back(j);
        ++indeg[j];
      }
    std::priority_queue<int, std::vector<int>, std::greater<>> ready;
    for (int i = 0; i < n; ++i)
      if (indeg[i] == 0) ready.push(i);
    std::vector<int> order, task_of(n, -1);
    while (!ready.empty()) {
      int i = ready.top();
      ready.pop();
      task_of[i] = int(order.size());
      order.push_back(i);
      for (int j : succ[i])
        if (--indeg[j] == 0) ready.push(j);
    }
    if (int(order.size()) != n) throw std::logic_error("task graph: cycle between subgraphs of root " + rf.name);

    // Each task's successors (task indices, each once) and predecessor count, and the root's hash,
    // before any task is built: a compact root never holds its tasks.
    std::vector<std::vector<int>> task_succ(static_cast<size_t>(n));
    std::vector<int> preds(static_cast<size_t>(n), 0);
    uint64_t h = XXH64(rf.name.data(), rf.name.size(), 0);
    for (int ti = 0; ti < n; ++ti) {
      const int i = order[size_t(ti)];
      if (!plan_of[i]) throw std::logic_error("task graph: subgraph without a leaf plan");
      h = XXH64(&plan_of[i]->hash, sizeof plan_of[i]->hash, h);
      std::vector<int>& ts = task_succ[size_t(ti)];
      for (int j : succ[i]) ts.push_back(task_of[j]);
      std::sort(ts.begin(), ts.end());
      ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
      for (int s : ts) ++preds[size_t(s)];
    }
    for (const std::vector<int>& ts : task_succ)
      for (int s : ts) {
        int64_t e = s;
        h = XXH64(&e, sizeof e, h);
      }

    TaskReplicas replicas(tr);
    // A family root's copied members go to the compactor as member 0's task moved (task_replica.h):
    // no Task is built for them, and the root keeps only the records the bundle stores.
    const bool compact = lazy && replicas.active();
    TaskCompactor compactor;
    std::vector<int> handle_of(replicas.active() ? size_t(n) : 0, -1), pattern_of(handle_of.size(), -1);
    std::vector<int64_t> slot_deltas;
    for (int ti = 0; ti < n; ++ti) {
      const int i = order[size_t(ti)];
      const Subgraph& sg = tr.subgraphs[i];
      const LeafPlan* p = plan_of[i];
      Task t;
      t.leaf = p->leaf;
      t.cls = p->leaf_class;
      t.succ = std::move(task_succ[size_t(ti)]);
      t.pred_count = preds[size_t(ti)];
      t.hash_order = sg.hash_order;
      t.label = sg.label;
      t.op_magic = op_magic++;
      int j = -1;
      const int leaf = int(p - plans.data());
      // A copied leaf of a copied member: member 0's task moved, proved once per member-0 task
      // (describe_moved), without filling the leaf's steps and buffers.
      if (compact && moved && replicas.member_of(i) > 0) {
        const auto [from, member] = moved(leaf);
        if (from >= 0 && replicas.describe_moved(i, from, member, j, slot_deltas) && handle_of[size_t(j)] >= 0) {
          if (pattern_of[size_t(j)] < 0) pattern_of[size_t(j)] = compactor.add_pattern(replicas.pattern(j));
          compactor.add_moved(handle_of[size_t(j)], pattern_of[size_t(j)], slot_deltas, t);
          continue;
        }
      }
      const LeafPlan* rep = lazy ? lazy(leaf, step_ops, buffer_tiles) : nullptr;
      if (compact && rep && replicas.describe(i, step_ops, buffer_tiles, j, slot_deltas) && handle_of[size_t(j)] >= 0) {
        if (pattern_of[size_t(j)] < 0) pattern_of[size_t(j)] = compactor.add_pattern(replicas.pattern(j));
        compactor.add_moved(handle_of[size_t(j)], pattern_of[size_t(j)], slot_deltas, t);
        continue;
      }
      if (rep) {
        kernel_arg_values(tr, out.tensors, rep->args, step_ops, buffer_tiles, t.gm, t.args);
      } else {
        t.gm = p->args.gm_tensors;
        t.args = p->args.values;
        step_ops.clear();
        for (const LeafStep& st : p->steps) step_ops.push_back(st.op);
      }
      RegionList reads{t.reads, {}}, writes{t.writes, {}};
      for (int step_op : step_ops) {
        const TileOp& op = tile_op(tr, step_op);
        const SrcLoc loc = op.source_op >= 0 && size_t(op.source_op) < prog.ops.size()
                               ? prog.ops[size_t(op.source_op)].loc
                               : SrcLoc{};
        if (op.kind == TileOpKind::CopyIn) reads.add(op.gm, out.tensors, loc);
        if (op.kind == TileOpKind::CopyOut || op.kind == TileOpKind::FixOut) {
          writes.add(op.gm, out.tensors, loc);
          // An atomic add reads what it accumulates into.
          if (op.atomic_add) reads.add(op.gm, out.tensors, loc);
        }
      }
      if (replicas.active()) {
        if (!rep) {
          buffer_tiles.clear();
          for (const BufferSlot& b : p->buffers) buffer_tiles.push_back(b.tile);
        }
        j = replicas.note_member0(i, rep ? rep->args : p->args, step_ops, buffer_tiles, t, leaf);
      }
      if (!compact) {
        rf.tasks.push_back(std::move(t));
        continue;
      }
      const int handle = compactor.add_owned(std::move(t));
      if (j >= 0) handle_of[size_t(j)] = handle;
    }
    if (compact) rf.compact = std::make_shared<const CompactRoot>(compactor.finish());
    rf.hash = h;
    out.roots.push_back(std::move(rf));
  }
}

namespace {

void remap_control(std::vector<LoopNode>& nodes, const std::vector<int>& fn_of_template) {
  for (LoopNode& n : nodes) {
    if (n.kind == LoopNode::Kind::Root) {
      if (n.root >= 0 && n.root < int(fn_of_template.size())) n.root = fn_of_template[n.root];
    } else {
      for (Gear& g : n.gears) remap_control(g.body, fn_of_template);
    }
  }
}

}  // namespace

std::vector<LoopNode> control_nest(const Program& prog, const std::vector<TileRoot>& roots) {
  std::vector<int> fn_of_template(prog.roots.size(), -1);
  for (int i = 0; i < int(roots.size()); ++i)
    if (roots[i].root >= 0 && roots[i].root < int(fn_of_template.size())) fn_of_template[roots[i].root] = i;
  std::vector<LoopNode> nest = prog.body;
  remap_control(nest, fn_of_template);
  return nest;
}

}  // namespace ptoc
