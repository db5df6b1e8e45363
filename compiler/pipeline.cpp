// The pass pipeline, in order. Every pass is one file under compiler/passes/
// (or compiler/codegen/ for emission); this file only sequences them, times
// them, and stops at the first pass that reported an error.
//
//   front end (compiler/frontend)            spec -> checked tensor graph (Program)
//   1  merge_loops                 tiling    adjacent independent loops with equal bounds
//   1b carry_cross_root_values tiling values used across roots go through GM
//   2  build_tile_roots            tiling    expansion, partition + depth merge, breadth merges, edges
//   3  collect_tensors                       spec tensors, then every root's GM temps
//   4  schedule                    backend   op order and pipe per op (chains interleaved)
//   5  buffer_plan                 backend   UB/L1/L0 addresses; overflow = located error
//   6  insert_sync                 backend   set_flag/wait_flag/pipe_barrier
//   7  kernel_args                 backend   GM slots and the int64 argument block
//   8  leaf_cost                   backend   cycles per pipe and end to end
//   9  leaf_dedup                  backend   structural hash -> one kernel per distinct leaf
//  10  task_graph                  backend   tasks, successors, regions per root function
//  11  cce_emit                    codegen   kernel sources
#include "compiler/pipeline.h"

#include <time.h>

#include <algorithm>
#include <unordered_map>

#include "compiler/codegen/cce_emit.h"
#include "compiler/passes/backend.h"

namespace ptoc {

double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

void PassTimer::add(const std::string& name, double ms, double cpu_ms) {
  for (auto& t : timings_)
    if (t.name == name) {
      t.ms += ms;
      t.cpu_ms += cpu_ms;
      return;
    }
  timings_.push_back({name, ms, cpu_ms});
}

namespace {

GmTensor::Role role_of(TensorRole r) {
  switch (r) {
    case TensorRole::Input: return GmTensor::Role::Input;
    case TensorRole::Output: return GmTensor::Role::Output;
    case TensorRole::Workspace: return GmTensor::Role::Workspace;
  }
  return GmTensor::Role::Input;
}

void collect_tensors(const Program& prog, std::vector<TileRoot>& roots, CompiledProgram& out) {
  out.tensors.clear();
  for (const TensorDecl& t : prog.tensors) {
    GmTensor g;
    g.name = t.name;
    g.role = role_of(t.role);
    g.dtype = t.dtype;
    g.shape = t.shape;
    g.format = t.format;
    g.l2_bypass = t.l2_bypass;
    out.tensors.push_back(std::move(g));
  }
  // GmRef::tensor of a temp = prog.tensors.size() + its position in the
  // concatenation of TileRoot::temps in root order (compiler/passes/tiling.h).
  for (int r = 0; r < int(roots.size()); ++r)
    for (GmTensor t : roots[r].temps) {
      t.role = GmTensor::Role::Temp;
      t.root = r;
      out.tensors.push_back(std::move(t));
    }
}

// LoopNode::root indexes Program::roots; RootFunction i is TileRoot i.
void remap_control(std::vector<LoopNode>& nodes, const std::vector<int>& fn_of_template) {
  for (LoopNode& n : nodes) {
    if (n.kind == LoopNode::Kind::Root) {
      if (n.root >= 0 && n.root < int(fn_of_template.size())) n.root = fn_of_template[n.root];
    } else {
      for (Gear& g : n.gears) remap_control(g.body, fn_of_template);
    }
  }
}

// A structural class of leaves (LeafShaper): planned once, on its first leaf;
// the other leaves get a copy with their own op and tile ids.
struct LeafClass {
  int rep = -1;                     // plan index of the first leaf, the one planned
  std::vector<int> step_pos;        // per step of rep: position of its op in the subgraph's ops
  std::vector<int> buffer_local;    // per buffer of rep: local tile index (LeafShaper::tiles)
  std::optional<BufferOverflow> overflow;
  bool fallback = false;            // fitted only in the sequential order
};

}  // namespace

bool run_backend(PipelineResult& r, const Platform& plat, DiagEngine& diags, PassTimer& timer,
                 const PipelineOptions& opts) {
  const Program& prog = r.program;
  CompiledProgram& out = r.compiled;
  out.name = prog.name;
  out.target = prog.target;
  out.doc = prog.doc;
  out.spec_file = prog.file;
  out.dims = prog.dims;
  out.options = prog.options;
  timer.run("collect_tensors", [&] { collect_tensors(prog, r.roots, out); });

  // One plan per subgraph, roots in order, subgraphs in their order.
  r.plans.clear();
  std::vector<const Subgraph*> sg_of;
  for (int ri = 0; ri < int(r.roots.size()); ++ri)
    for (const Subgraph& sg : r.roots[ri].subgraphs) {
      LeafPlan p;
      p.root = ri;
      p.subgraph = sg.id;
      r.plans.push_back(std::move(p));
      sg_of.push_back(&sg);
    }
  const int np = int(r.plans.size());

  // Leaves with equal structure get equal plans: schedule, buffers, syncs and
  // costs are computed for the first leaf of each class and copied.
  std::vector<int> class_of(np);
  std::vector<LeafClass> classes;
  std::vector<std::vector<int>> tiles_of(np);  // per leaf: local tile index -> tile id
  timer.run("leaf_classes", [&] {
    if (!opts.share_leaf_plans) {
      for (int i = 0; i < np; ++i) {
        class_of[i] = i;
        classes.emplace_back().rep = i;
      }
      return;
    }
    LeafShaper shaper;
    std::unordered_map<uint64_t, std::vector<int>> by_hash;  // key hash -> classes
    std::vector<std::vector<int64_t>> keys;                  // per class
    for (int i = 0; i < np; ++i) {
      std::vector<int>& cands = by_hash[shaper.shape(r.roots[r.plans[i].root], *sg_of[i], out.tensors)];
      int c = -1;
      for (int x : cands)
        if (keys[x] == shaper.key) c = x;
      if (c < 0) {
        c = int(classes.size());
        classes.emplace_back().rep = i;
        keys.push_back(shaper.key);
        cands.push_back(c);
      }
      class_of[i] = c;
      tiles_of[i] = shaper.tiles;
    }
  });
  // Where the representative's ops and tiles sit inside its subgraph, to rename them per leaf.
  std::vector<int> scratch;
  auto prepare = [&](LeafClass& c) {
    if (!c.step_pos.empty() || !c.buffer_local.empty()) return;
    const LeafPlan& rp = r.plans[c.rep];
    const TileRoot& root = r.roots[rp.root];
    const Subgraph& sg = *sg_of[c.rep];
    scratch.assign(std::max(root.ops.size(), root.tiles.size()), -1);
    for (int k = 0; k < int(sg.ops.size()); ++k) scratch.at(size_t(sg.ops[k])) = k;
    for (const LeafStep& st : rp.steps) c.step_pos.push_back(scratch.at(size_t(st.op)));
    scratch.assign(scratch.size(), -1);
    const std::vector<int>& tiles = tiles_of[c.rep];
    for (int k = 0; k < int(tiles.size()); ++k) scratch.at(size_t(tiles[k])) = k;
    for (const BufferSlot& b : rp.buffers) c.buffer_local.push_back(scratch.at(size_t(b.tile)));
  };
  auto copy_plan = [&](LeafClass& c, int i) {
    prepare(c);
    const LeafPlan& rp = r.plans[c.rep];
    LeafPlan& p = r.plans[i];
    p.core = rp.core;
    p.interleaved = rp.interleaved;
    p.steps = rp.steps;
    const Subgraph& sg = *sg_of[i];
    for (size_t k = 0; k < p.steps.size(); ++k) p.steps[k].op = sg.ops[size_t(c.step_pos[k])];
    p.buffers = rp.buffers;
    for (size_t b = 0; b < p.buffers.size(); ++b) p.buffers[b].tile = tiles_of[i][size_t(c.buffer_local[b])];
    p.peak = rp.peak;
  };

  timer.run("schedule", [&] {
    for (LeafClass& c : classes) {
      LeafPlan& p = r.plans[c.rep];
      schedule_leaf(r.roots[p.root], *sg_of[c.rep], plat, true, p);
    }
  });
  timer.run("buffer_plan", [&] {
    for (LeafClass& c : classes) {
      LeafPlan& p = r.plans[c.rep];
      const Subgraph& sg = *sg_of[c.rep];
      // Most overlap first; then the compact placement; then the sequential
      // order, which keeps the fewest tiles live (merged chains; and any leaf
      // the list schedule made start loads early: the tiling passes checked the
      // subgraph's own order, in-place writes included, against the buffers).
      auto ov = plan_buffers(r.roots[p.root], plat, p, PlacePolicy::Spread);
      if (ov) ov = plan_buffers(r.roots[p.root], plat, p, PlacePolicy::FirstFit);
      if (ov) {
        schedule_leaf(r.roots[p.root], sg, plat, false, p);
        ov = plan_buffers(r.roots[p.root], plat, p, PlacePolicy::Spread);
        if (ov) ov = plan_buffers(r.roots[p.root], plat, p, PlacePolicy::FirstFit);
        c.fallback = !ov;
      }
      c.overflow = ov;
    }
    // Counts and errors per leaf, in leaf order, as if each leaf had been planned alone.
    for (int i = 0; i < np; ++i) {
      if (diags.full()) break;
      LeafClass& c = classes[class_of[i]];
      if (c.fallback) ++r.sequential_fallbacks;
      if (!c.overflow) continue;
      BufferOverflow ov = *c.overflow;
      if (i != c.rep) {
        copy_plan(c, i);
        const std::vector<int>& rt = tiles_of[c.rep];
        auto local = [&](int t) { return tiles_of[i].at(size_t(std::find(rt.begin(), rt.end(), t) - rt.begin())); };
        ov.tile = local(ov.tile);
        for (BufferSlot& l : ov.live_slots) l.tile = local(l.tile);
      }
      report_overflow(prog, r.roots[r.plans[i].root], r.plans[i], ov, plat, diags);
    }
  });
  if (diags.has_errors()) return false;
  timer.run("insert_sync", [&] {
    for (LeafClass& c : classes) {
      LeafPlan& p = r.plans[c.rep];
      insert_sync(r.roots[p.root], p);
    }
  });
  timer.run("leaf_copy", [&] {
    for (int i = 0; i < np; ++i)
      if (classes[class_of[i]].rep != i) copy_plan(classes[class_of[i]], i);
  });
  timer.run("kernel_args", [&] {
    for (LeafPlan& p : r.plans) layout_kernel_args(r.roots[p.root], out.tensors, p);
  });
  timer.run("leaf_cost", [&] {
    for (LeafClass& c : classes) {
      LeafPlan& p = r.plans[c.rep];
      estimate_leaf_cost(r.roots[p.root], plat, p);
    }
    for (int i = 0; i < np; ++i) {
      const LeafPlan& rp = r.plans[classes[class_of[i]].rep];
      if (&rp == &r.plans[i]) continue;
      LeafPlan& p = r.plans[i];
      p.pipe_cycles = rp.pipe_cycles;
      p.step_start = rp.step_start;
      p.step_end = rp.step_end;
      p.est_cycles = rp.est_cycles;
    }
  });
  timer.run("leaf_dedup", [&] { dedup_leaves(prog.name, r.roots, out.tensors, r.plans, out, class_of); });
  timer.run("task_graph", [&] { build_task_graphs(prog, r.roots, r.plans, out); });

  std::vector<int> fn_of_template(prog.roots.size(), -1);
  for (int i = 0; i < int(r.roots.size()); ++i)
    if (r.roots[i].root >= 0 && r.roots[i].root < int(fn_of_template.size())) fn_of_template[r.roots[i].root] = i;
  out.control = prog.body;
  remap_control(out.control, fn_of_template);

  CceOptions cce;
  if (prog.options.enable_pmu_trace) {
    if (plat.is_950())
      cce.pmu_trace = true;
    else
      diags.warning(SrcLoc{},
                    "codegen.enable_pmu_trace is ignored on target '" + plat.name +
                        "': PMU stamps exist only on 950 targets",
                    "compile with --target ascend950pr or ascend950dt to get them");
  }
  bool ok = timer.run("cce_emit", [&] { return emit_all_kernels(prog, r.roots, r.plans, cce, out, diags); });
  return ok && !diags.has_errors();
}

std::optional<PipelineResult> run_pipeline(Program prog, const Platform& plat, DiagEngine& diags,
                                           const PipelineOptions& opts) {
  PassTimer timer;
  PipelineResult r;
  try {
    if (opts.loop_merge) r.loop_merges = timer.run("merge_loops", [&] { return merge_loops(prog); });
    timer.run("cross_root_values", [&] { return carry_cross_root_values(prog); });
    r.roots = timer.run("build_tile_roots", [&] { return build_tile_roots(prog, plat, diags, &r.tiling); });
  } catch (const CompileError&) {
    r.timings = timer.timings();
    return std::nullopt;
  }
  if (diags.has_errors()) return std::nullopt;
  r.program = std::move(prog);
  if (!run_backend(r, plat, diags, timer, opts)) return std::nullopt;
  // Show the tiler's own split of its time next to the backend passes.
  std::vector<PassTiming> t = timer.timings();
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].name == "build_tile_roots") {
      std::vector<PassTiming> sub = {{"  expand", r.tiling.ms_expand},
                                     {"  partition", r.tiling.ms_partition},
                                     {"  breadth_merge", r.tiling.ms_breadth},
                                     {"  subgraph_edges", r.tiling.ms_edges}};
      t.insert(t.begin() + long(i) + 1, sub.begin(), sub.end());
      break;
    }
  r.timings = std::move(t);
  return r;
}

}  // namespace ptoc
