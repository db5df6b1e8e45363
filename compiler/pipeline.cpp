// The whole compiler, in order: every stage from the checked program to the written bundle, one
// line each, with the file that does the work. `ptoc --time-passes` prints this list with the time
// of each stage; `ptoc --dump-after=STAGE` (or `all`) writes the IR after a stage in a stable text
// form (the tensor graph up to cross_root_values, then the tile graph and leaf plans, then the
// compiled program's task graphs as DOT, then program.json). docs/ARCHITECTURE.md says what each IR
// level is.
//
//   stage               file                                       what it does
//   front_end           compiler/frontend/frontend.cpp             spec -> checked tensor graph (Program)
//   merge_loops         compiler/passes/loop_merge.cpp             adjacent independent loops with equal bounds
//   cross_root_values   compiler/passes/cross_root_values.cpp      values used across roots go through GM
//   build_tile_roots    compiler/passes/build_tile_roots.cpp       per root function:
//     expand            compiler/passes/tile_expand_{vector,cube}.cpp   vec ops by vec_tile, matmuls by cube_tile
//                       compiler/passes/block_replica.cpp          (later matmul blocks: block 0 copied, described)
//     partition         compiler/passes/partition.cpp              leaves, depth merge, scopes
//                       compiler/passes/tile_families.cpp          (B isomorphic members: one partitioned, replicated)
//                       compiler/passes/block_family_proof.cpp     (copied blocks: the family's order and GM
//                                                                  conditions from block 0 and the deltas)
//     breadth_merge     compiler/passes/{vec_nbuffer,l1_reuse,cube_nbuffer}.cpp
//     subgraph_edges    compiler/passes/subgraph_edges.cpp         successors from GM accesses
//   collect_tensors     compiler/passes/gm_tensors.cpp             spec tensors, then every root's GM temps
//   leaf_classes        compiler/passes/leaf_classes.cpp           structurally equal leaves share one plan
//                                                                  (a family member's copy of a leaf: member 0's
//                                                                  class, no key computed, its tiles member 0's
//                                                                  moved, not stored; TileRoot::replicas)
//   schedule            compiler/passes/schedule.cpp               op order and pipe per op (chains interleaved)
//   buffer_plan         compiler/passes/buffer_plan.cpp            UB/L1/L0 addresses; overflow = located error
//   insert_sync         compiler/passes/insert_sync.cpp            set_flag/wait_flag/pipe_barrier
//   leaf_copy           compiler/passes/leaf_classes.cpp           each class's plan copied to its other leaves
//                                                                  (lazy copies: only core, order and peak; the
//                                                                  task graph reads the rest through the class)
//   kernel_args         compiler/passes/kernel_args.cpp            GM slots and the int64 argument block
//   leaf_cost           compiler/passes/leaf_cost.cpp              cycles per pipe and end to end
//   leaf_dedup          compiler/passes/leaf_dedup.cpp             structural hash -> one kernel per distinct leaf
//   task_graph          compiler/passes/task_graph.cpp             tasks, successors, regions; the loop nest
//                       compiler/passes/task_replica.cpp           (copied members' tasks: member 0's moved, a
//                                                                  copied leaf's proved once per member-0 task)
//   bundle_budget       compiler/passes/bundle_budget.cpp          task records under roots_bytes (what ptorun loads)
//   cce_emit            compiler/codegen/cce_emit.cpp              kernel sources
//   program_json        compiler/codegen/graph_emit.cpp            PyPTO's compute-graph view (its BLOCK_GRAPH part;
//                                                                  the whole text only when asked for)
//   host_twin_build     compiler/codegen/host_build.cpp            only with --host-twin=cce: the kernels compiled
//                                                                  for the host (cached); by default ptorun runs
//                                                                  the leaf programs and no compiler is invoked
//   device_build        compiler/codegen/device_build.cpp          bisheng per kernel, when a CANN toolkit is found
//   bundle_write        runtime/program/bundle.cpp                 the bundle file, written whole or not at all
#include "compiler/pipeline.h"

#include <time.h>

#include <algorithm>

#include "compiler/codegen/cce_emit.h"
#include "compiler/codegen/device_build.h"
#include "compiler/codegen/graph_emit.h"
#include "compiler/codegen/host_build.h"
#include "compiler/passes/backend.h"
#include "compiler/passes/bundle_budget.h"
#include "compiler/passes/leaf_classes.h"
#include "compiler/passes/tile_print.h"
#include "runtime/ascend/device_binaries.h"
#include "runtime/program/bundle.h"
#include "runtime/program/program_json.h"

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

enum class DumpForm { TensorGraph, TileGraph, TaskGraph, ProgramJson };

// The IR text after a stage, for --dump-after.
void dump(const PipelineOptions& opts, const std::string& stage, DumpForm form, const Program& prog,
          const PipelineResult& r) {
  if (!opts.dump || (opts.dump_after != stage && opts.dump_after != "all")) return;
  switch (form) {
    case DumpForm::TensorGraph: opts.dump(stage, print_ir(prog)); break;
    case DumpForm::TileGraph: opts.dump(stage, print_tile_roots(r.roots, r.plans)); break;
    case DumpForm::TaskGraph: opts.dump(stage, emit_graph_dot(r)); break;
    case DumpForm::ProgramJson: opts.dump(stage, r.compiled.graph_json); break;
  }
}

}  // namespace

const std::vector<std::string>& pipeline_stages() {
  static const std::vector<std::string> s = {
      "front_end", "merge_loops", "cross_root_values", "build_tile_roots", "collect_tensors", "leaf_classes",
      "schedule", "buffer_plan", "insert_sync", "leaf_copy", "kernel_args", "leaf_cost", "leaf_dedup",
      "task_graph", "bundle_budget", "cce_emit", "program_json", "host_twin_build", "device_build", "bundle_write"};
  return s;
}

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
  auto step = [&](const std::string& name, DumpForm form, auto&& f) {
    timer.run(name, f);
    dump(opts, name, form, prog, r);
  };
  step("collect_tensors", DumpForm::TileGraph, [&] { collect_tensors(prog, r.roots, out); });
  LeafClasses lc;
  step("leaf_classes", DumpForm::TileGraph,
       [&] { lc = classify_leaves(r.roots, out.tensors, opts.share_leaf_plans, r.plans); });
  const int np = int(r.plans.size());
  const bool lazy = opts.families && opts.share_leaf_plans && opts.lazy_leaf_copies && !opts.dump;
  auto is_lazy = [&](int i) { return lazy && lc.is_copy(i); };
  // Schedule, buffers, syncs and costs run on each class's representative, then are copied.
  step("schedule", DumpForm::TileGraph, [&] {
    for (LeafClass& c : lc.classes) schedule_leaf(r.roots[r.plans[c.rep].root], *lc.subgraph[c.rep], plat, true, r.plans[c.rep]);
  });
  step("buffer_plan", DumpForm::TileGraph, [&] {
    for (LeafClass& c : lc.classes) {
      LeafPlan& p = r.plans[c.rep];
      c.overflow = fit_leaf_buffers(r.roots[p.root], *lc.subgraph[c.rep], plat, p, c.fallback);
    }
    // Counts and errors per leaf, in leaf order, as if each leaf had been planned alone.
    for (int i = 0; i < np; ++i) {
      if (diags.full()) break;
      LeafClass& c = lc.of(i);
      if (c.fallback) ++r.sequential_fallbacks;
      if (!c.overflow) continue;
      BufferOverflow ov = *c.overflow;
      if (lc.is_copy(i)) {
        lc.copy_plan(r.roots, r.plans, i);
        ov.tile = lc.local_tile(i, ov.tile);
        for (BufferSlot& l : ov.live_slots) l.tile = lc.local_tile(i, l.tile);
      }
      report_overflow(prog, r.roots[r.plans[i].root], r.plans[i], ov, plat, diags);
    }
  });
  if (diags.has_errors()) return false;
  step("insert_sync", DumpForm::TileGraph, [&] {
    for (LeafClass& c : lc.classes) insert_sync(r.roots[r.plans[c.rep].root], r.plans[c.rep]);
  });
  step("leaf_copy", DumpForm::TileGraph, [&] {
    for (int i = 0; i < np; ++i)
      if (is_lazy(i))
        lc.copy_summary(r.roots, r.plans, i);
      else if (lc.is_copy(i))
        lc.copy_plan(r.roots, r.plans, i);
  });
  step("kernel_args", DumpForm::TileGraph, [&] {
    for (int i = 0; i < np; ++i)
      if (!is_lazy(i)) layout_kernel_args(r.roots[r.plans[i].root], out.tensors, r.plans[i]);
  });
  step("leaf_cost", DumpForm::TileGraph, [&] {
    for (LeafClass& c : lc.classes) estimate_leaf_cost(r.roots[r.plans[c.rep].root], plat, r.plans[c.rep]);
    for (int i = 0; i < np; ++i) {
      if (!lc.is_copy(i)) continue;
      const LeafPlan& rp = r.plans[lc.of(i).rep];
      LeafPlan& p = r.plans[i];
      p.pipe_cycles = rp.pipe_cycles;
      if (!is_lazy(i)) {
        p.step_start = rp.step_start;
        p.step_end = rp.step_end;
      }
      p.est_cycles = rp.est_cycles;
    }
  });
  step("leaf_dedup", DumpForm::TileGraph,
       [&] { dedup_leaves(prog.name, r.roots, out.tensors, r.plans, out, lc.class_of); });
  step("task_graph", DumpForm::TaskGraph, [&] {
    LazyLeafFn lazy_leaf = [&](int i, std::vector<int>& step_ops, std::vector<int>& buffer_tiles) -> const LeafPlan* {
      if (!is_lazy(i)) return nullptr;
      lc.own_ids(r.roots, r.plans, i, step_ops, buffer_tiles);
      return &r.plans[size_t(lc.of(i).rep)];
    };
    MovedLeafFn moved_leaf = [&](int i) -> std::pair<int, int> {
      const LeafClasses::MovedTiles& m = lc.moved[size_t(i)];
      if (!is_lazy(i) || m.from < 0) return {-1, 0};
      return {m.from, m.member};
    };
    build_task_graphs(prog, r.roots, r.plans, out, lazy ? lazy_leaf : LazyLeafFn{}, lazy ? moved_leaf : MovedLeafFn{});
    out.control = control_nest(prog, r.roots);
  });
  if (!timer.run("bundle_budget", [&] { return check_bundle_budget(out, diags); })) return false;  // located error
  dump(opts, "bundle_budget", DumpForm::TaskGraph, prog, r);
  const CceOptions cce = cce_options(prog, plat, diags);
  bool ok = timer.run("cce_emit", [&] { return emit_all_kernels(prog, r.roots, r.plans, cce, out, diags); });
  dump(opts, "cce_emit", DumpForm::TaskGraph, prog, r);
  return ok && !diags.has_errors();
}

std::optional<PipelineResult> run_pipeline(Program prog, const Platform& plat, DiagEngine& diags,
                                           const PipelineOptions& opts) {
  PassTimer timer;
  PipelineResult r;
  auto program_step = [&](const std::string& name, auto&& f) {
    timer.run(name, f);
    dump(opts, name, DumpForm::TensorGraph, prog, r);
  };
  try {
    if (opts.loop_merge) program_step("merge_loops", [&] { r.loop_merges = merge_loops(prog); });
    program_step("cross_root_values", [&] { carry_cross_root_values(prog); });
    r.roots = timer.run("build_tile_roots", [&] { return build_tile_roots(prog, plat, diags, &r.tiling, {opts.families}); });
    dump(opts, "build_tile_roots", DumpForm::TileGraph, prog, r);
  } catch (const CompileError&) {
    r.timings = timer.timings();
    return std::nullopt;
  }
  if (diags.has_errors()) return std::nullopt;
  r.program = std::move(prog);
  if (!run_backend(r, plat, diags, timer, opts)) return std::nullopt;
  timer.run("program_json", [&] {
    r.compiled.graph_blocks = emit_program_json_blocks(r);
    const bool dumped = opts.dump && (opts.dump_after == "program_json" || opts.dump_after == "all");
    if (!opts.program_json_text && !dumped) {
      // The bundle stores only the blocks; program_json_text() assembles the rest when asked.
      r.compiled.graph_from_blocks = true;
      return;
    }
    bool ok = true;
    r.compiled.graph_json = pjson::assemble_program_json(r.compiled, r.compiled.graph_blocks, ok);
    if (!ok) r.compiled.graph_json = emit_program_json_reference(r);  // not UTF-8: the reference's behaviour
  });
  dump(opts, "program_json", DumpForm::ProgramJson, r.program, r);
  // Show the tiler's own split of its time next to the backend passes.
  std::vector<PassTiming> t = timer.timings();
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].name == "build_tile_roots") {
      const TilingStats& s = r.tiling;
      std::vector<PassTiming> sub = {{"  expand", s.ms_expand, s.cpu_expand},
                                     {s.family_roots ? "  partition (" + std::to_string(s.family_roots) + " family roots)" : "  partition", s.ms_partition, s.cpu_partition},
                                     {s.l1_classes_proved ? "  breadth_merge (" + std::to_string(s.l1_classes_proved) + " L1 classes proved)" : "  breadth_merge", s.ms_breadth, s.cpu_breadth},
                                     {"  subgraph_edges", s.ms_edges, s.cpu_edges}};
      t.insert(t.begin() + long(i) + 1, sub.begin(), sub.end());
      break;
    }
  r.timings = std::move(t);
  return r;
}

std::optional<StageError> write_bundle_stages(PipelineResult& r, const Platform& plat, const BundleStageOptions& o) {
  PassTimer timer;
  CompiledProgram& cp = r.compiled;
  auto done = [&] { r.timings.insert(r.timings.end(), timer.timings().begin(), timer.timings().end()); };
  // Host twin (content-hash cached, parallel): a verification mode (--host-twin=cce) only; the
  // bundle's leaf programs give ptorun its numerics without a compiler.
  codegen::HostBuildResult hb;
  if (o.host_twin) {
    codegen::HostBuildOptions ho;
    ho.jobs = o.jobs;
    hb = timer.run("host_twin_build", [&] { return codegen::build_host_twin(cp.kernels, ho); });
    if (!hb.ok) {
      done();
      return StageError{kExitEnv, "cannot build the host twin (--host-twin=cce): " + hb.error +
                                      "; without --host-twin=cce ptoc needs no host compiler"};
    }
  }
  // Device binaries: bisheng per kernel when a CANN toolkit is found; without one the bundle has
  // no device_bin section and `ptorun --backend ascend` says what is missing.
  std::vector<uint8_t> device_bin;
  const codegen::CannToolkit cann = codegen::find_cann_toolkit(o.cann);
  if (cann.found) {
    codegen::DeviceBuildResult db =
        timer.run("device_build", [&] { return codegen::build_device_kernels(cp.kernels, plat, cann, o.jobs); });
    if (db.status == codegen::DeviceBuildStatus::Failed) {
      done();
      return StageError{kExitEnv, "device build failed: " + db.message};
    }
    std::vector<ascend::DeviceBinary> bins;
    for (auto& obj : db.objects) bins.push_back({obj.kernel, obj.core, obj.arch, std::move(obj.bytes)});
    device_bin = ascend::pack_device_binaries(bins);
  }
  std::optional<StageError> err;
  timer.run("bundle_write", [&] {
    try {
      runtime::write_bundle(o.output, cp, hb.library, device_bin);
    } catch (const std::exception& e) {
      err = StageError{kExitError, e.what()};  // an output that cannot be written: the path and the reason
    }
  });
  done();
  return err;
}

}  // namespace ptoc
