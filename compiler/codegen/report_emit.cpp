// The compile report: what the passes decided, in numbers a tuner reads
// before running anything (how many leaves and kernels, which merges
// happened, how full each leaf's buffers are, what each leaf should cost).
#include "compiler/codegen/report_emit.h"

#include <fmt/format.h>

#include <sstream>

#include "compiler/passes/backend.h"
#include "runtime/program/root_tasks.h"

namespace ptoc {

std::string format_pass_times(const std::vector<PassTiming>& t) {
  std::ostringstream os;
  double total = 0, total_cpu = 0;
  for (const auto& p : t)
    if (p.name.rfind("  ", 0) != 0) {
      total += p.ms;
      total_cpu += p.cpu_ms;
    }
  // Wall time first (what a user waits); CPU time beside it (what a shared machine still measures fairly;
  // the tiler's own sub-steps, indented, have wall time only).
  os << "pass times (ms):           wall        CPU\n";
  for (const auto& p : t) {
    if (p.name.rfind("  ", 0) == 0 && p.cpu_ms == 0)
      os << fmt::format("  {:<24} {:>10.3f}\n", p.name, p.ms);  // a tiler sub-step: wall only
    else
      os << fmt::format("  {:<24} {:>10.3f} {:>10.3f}\n", p.name, p.ms, p.cpu_ms);
  }
  os << fmt::format("  {:<24} {:>10.3f} {:>10.3f}\n", "total", total, total_cpu);
  return os.str();
}

std::string emit_report(const PipelineResult& r, const Platform& plat, bool with_times) {
  const CompiledProgram& cp = r.compiled;
  std::ostringstream os;
  size_t tasks = 0;
  for (const auto& rf : cp.roots) tasks += task_count(rf);
  int64_t tile_ops = 0, before = 0;
  for (const auto& root : r.roots) {
    tile_ops += int64_t(root.ops.size());
    before += root.tile_ops_before_merge;
  }
  os << "ptoc compile report: " << cp.name << " (target " << cp.target << ")\n";
  os << fmt::format("root functions: {}   leaves: {}   distinct kernels: {}   tasks (one instance of each root): {}\n",
                    cp.roots.size(), r.plans.size(), cp.kernels.size(), tasks);
  os << fmt::format("tile ops: {}   subgraphs before merging: {}\n", tile_ops, before);
  os << fmt::format("loop merges: {}   leaves kept in sequential order to fit: {}\n", r.loop_merges,
                    r.sequential_fallbacks);
  const TilingStats& s = r.tiling;
  os << fmt::format(
      "merges: depth {} (scope-forced {}), vec_nbuffer {}, l1_reuse {} ({} duplicate L1 loads removed), "
      "cube_nbuffer {}; tile edges through GM {}\n",
      s.depth_merges, s.scope_merges, s.vec_nbuffer_merges, s.l1_reuse_merges, s.l1_loads_removed,
      s.cube_nbuffer_merges, s.cut_edges);
  for (size_t i = 0; i < r.roots.size(); ++i) {
    const auto& m = r.roots[i].merges_applied;
    if (m.empty()) continue;
    os << "  " << (i < cp.roots.size() ? cp.roots[i].name : std::to_string(i)) << ":\n";
    for (const auto& line : m) os << "    " << line << "\n";
  }

  os << "\nroot functions:\n";
  for (const auto& rf : cp.roots) {
    int64_t sum = 0;
    for (size_t ti = 0; ti < task_count(rf); ++ti) sum += cp.leaves.at(size_t(task_class(rf, ti))).est_cycles;
    os << fmt::format("  func{:<4} {:<24} factor {:<3} tasks {:<6} sum of leaf cycles {}\n", rf.index, rf.name,
                      rf.factor, task_count(rf), sum);
  }

  os << "\nleaves (buffer bytes in use; cycles per pipe; estimated cycles of one call):\n";
  os << fmt::format("  {:>5} {:<28} {:<4} {:>3} {:>5} {:>7} {:>7} {:>6} {:>6} {:>7} {:>7} {:>6} {:>6} {:>5} {:>6} {:>6} {:>8}\n",
                    "leaf", "kernel", "core", "ch", "ops", "UB", "L1", "L0A", "L0B", "L0C", "MTE2", "MTE1", "M", "FIX",
                    "V", "MTE3", "est");
  // One row per leaf (its class's record): the table a user reads does not depend on how leaves are stored.
  for (const auto& p : r.plans) {
    const LeafFunction& lf = cp.leaves.at(size_t(p.leaf_class));
    os << fmt::format("  {:>5} {:<28} {:<4} {:>3} {:>5} {:>7} {:>7} {:>6} {:>6} {:>7} {:>7} {:>6} {:>6} {:>5} {:>6} {:>6} {:>8}\n",
                      p.leaf, cp.kernels.at(lf.kernel).name, lf.core == CoreType::AIC ? "AIC" : "AIV", lf.chains,
                      lf.num_ops, lf.ub_bytes, lf.l1_bytes, lf.l0a_bytes, lf.l0b_bytes, lf.l0c_bytes, lf.pipe_cycles[0],
                      lf.pipe_cycles[1], lf.pipe_cycles[2], lf.pipe_cycles[3], lf.pipe_cycles[4], lf.pipe_cycles[5],
                      lf.est_cycles);
  }
  os << fmt::format("  capacity: UB {}, L1 {}, L0A {}, L0B {}, L0C {} bytes ({})\n", plat.ub, plat.l1, plat.l0a,
                    plat.l0b, plat.l0c, plat.name);

  os << "\nkernels:\n";
  std::vector<int> uses(cp.kernels.size(), 0);
  for (const auto& p : r.plans) ++uses[cp.leaves.at(size_t(p.leaf_class)).kernel];
  for (size_t k = 0; k < cp.kernels.size(); ++k)
    os << fmt::format("  {:<28} {:<4} leaves {:<5} args {:<4} gm {:<3} source {} bytes\n", cp.kernels[k].name,
                      cp.kernels[k].core == CoreType::AIC ? "AIC" : "AIV", uses[k], cp.kernels[k].num_args,
                      cp.kernels[k].num_gm, cp.kernels[k].source.size());
  if (with_times) os << "\n" << format_pass_times(r.timings);
  return os.str();
}

}  // namespace ptoc
