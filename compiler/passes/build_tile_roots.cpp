// The tiling pipeline of one program, root template by root template:
// expansion -> partition (supernodes, scopes, depth merge, cuts) ->
// VecNBuffer -> L1Reuse -> CubeNBuffer -> successor edges. Subgraphs never
// merge across roots.
#include <time.h>

#include <chrono>
#include <map>
#include <stdexcept>

#include "compiler/passes/block_replica.h"
#include "compiler/passes/tile_build.h"
#include "compiler/passes/task_id_limit.h"
#include "compiler/passes/tile_families.h"

namespace ptoc {

Platform tiling_platform(const std::string& target) {
  const Platform* p = find_platform(target.empty() ? "ascend910b1" : target);
  if (!p) throw std::invalid_argument("tiling: unknown target '" + target + "'");
  return *p;
}

static void collect_env(const Program& prog, const std::vector<LoopNode>& nodes, const DimExpr::Env& cur,
                        std::map<int, DimExpr::Env>& out) {
  for (auto& n : nodes) {
    if (n.kind == LoopNode::Kind::Root) {
      out[n.root] = cur;
      continue;
    }
    for (auto& g : n.gears) {
      DimExpr::Env e = cur;
      if (!n.factor_var.empty()) e[n.factor_var] = g.factor;
      collect_env(prog, g.body, e, out);
    }
  }
}

std::vector<TileRoot> build_tile_roots(const Program& prog, const Platform& plat_in, DiagEngine& diags,
                                       TilingStats* stats_out, const TilingOptions& opts) {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a) { return std::chrono::duration<double, std::milli>(Clock::now() - a).count(); };
  auto cpu_now = [] {  // process CPU ms: what a loaded, shared machine still measures fairly
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
  };
  double c0 = 0;
  Platform plat = plat_in.ub > 0 ? plat_in : tiling_platform(prog.target);
  TilingStats local;
  TilingStats& stats = stats_out ? *stats_out : local;
  std::map<int, DimExpr::Env> envs;
  collect_env(prog, prog.body, {}, envs);
  std::vector<TileRoot> out;
  int temps = 0;
  // Per-value state, indexed by program value id, allocated once: sizing it per root cost
  // O(roots x values) (a quarter of the compile of a 1000-root spec). After each root only the
  // entries of the values its ops name are reset; expansion touches no other value.
  std::vector<tiling::ValueInfo> vals_pool(prog.values.size());
  std::vector<int> home_pool(prog.values.size(), -1);
  for (size_t i = 0; i < prog.roots.size(); ++i) {
    const RootTemplate& rt = prog.roots[i];
    TileRoot tr;
    tr.root = int(i);
    tr.gm_static_shapes.resize(prog.tensors.size());
    for (size_t t = 0; t < prog.tensors.size(); ++t) {
      std::vector<int64_t> sh;
      for (const DimExpr& d : prog.tensors[t].shape)
        if (auto c = d.as_const()) sh.push_back(*c);
      if (sh.size() == prog.tensors[t].shape.size()) tr.gm_static_shapes[t] = std::move(sh);
    }
    tiling::Builder b(prog, plat, diags, tr, stats, false);
    b.vals.swap(vals_pool);
    b.home_assemble.swap(home_pool);
    struct Recycle {  // runs on every exit from this iteration, exceptions included
      tiling::Builder& b; const Program& prog; const RootTemplate& rt;
      std::vector<tiling::ValueInfo>& vals; std::vector<int>& home;
      ~Recycle() {
        auto reset = [&](int v) {
          if (v < 0 || v >= int(b.vals.size())) return;
          b.vals[size_t(v)] = tiling::ValueInfo{};
          b.home_assemble[size_t(v)] = -1;
        };
        for (int o : rt.ops) {
          const Op& op = prog.ops[size_t(o)];
          for (int v : op.inputs) reset(v);
          reset(op.output);
        }
        vals.swap(b.vals);
        home.swap(b.home_assemble);
      }
    } recycle{b, prog, rt, vals_pool, home_pool};
    b.magic = rt.index >= 0 ? rt.index : int(i);
    b.copy_blocks = opts.families;
    b.temp_base = int(prog.tensors.size()) + temps;
    if (envs.count(int(i))) b.env = envs[int(i)];
    auto t0 = Clock::now();
    c0 = cpu_now();
    b.expand_root(rt);
    tr.tile_ops_before_merge = int64_t(tr.ops.size());
    stats.tile_ops += int64_t(tr.ops.size());
    stats.ms_expand += ms(t0);
    stats.cpu_expand += cpu_now() - c0;
    if (!b.failed && !tr.ops.empty()) {
      t0 = Clock::now();
      c0 = cpu_now();
      // A family root is partitioned on one member (its detection is timed as partition).
      std::optional<tiling::TileFamily> fam;
      // Copied blocks' tile writers (Builder::settle_copied_writers): the family search and the
      // explicit partition read them; a root its emitted blocks cover needs neither.
      if (!tiling::emitted_blocks_cover(b.emitted_blocks, tr)) b.settle_copied_writers();
      if (opts.families) fam = tiling::find_tile_family(prog, tr, rt, b.tile_writer, &b.emitted_blocks, b.block_copies.get()).family;
      if (fam && tiling::partition_family(b, *fam))
        ++stats.family_roots;
      else {
        b.settle_copied_writers();
        tiling::partition(b);
      }
      stats.ms_partition += ms(t0);
      stats.cpu_partition += cpu_now() - c0;
    }
    if (!b.failed && !tr.subgraphs.empty()) {
      t0 = Clock::now();
      c0 = cpu_now();
      const int64_t merged_before = stats.vec_nbuffer_merges + stats.l1_reuse_merges + stats.cube_nbuffer_merges;
      tiling::vec_nbuffer(b);
      tiling::l1_reuse(b);
      tiling::cube_nbuffer(b);
      const bool merged = stats.vec_nbuffer_merges + stats.l1_reuse_merges + stats.cube_nbuffer_merges != merged_before;
      stats.ms_breadth += ms(t0);
      stats.cpu_breadth += cpu_now() - c0;
      t0 = Clock::now();
      c0 = cpu_now();
      tiling::finalize_subgraphs(tr, b.family_graph.get(), b.iso_fresh);
      if (b.family && !merged) tr.replicas = tiling::family_replicas(tr, *b.family, b.family_rep_ops);
      if (tr.replicas && b.block_copies) {
        auto with_copies = std::make_shared<tiling::FamilyReplicas>(*tr.replicas);
        with_copies->copies = b.block_copies;
        tr.replicas = std::move(with_copies);
      }
      stats.ms_edges += ms(t0);
      stats.cpu_edges += cpu_now() - c0;
    }
    // One task per subgraph, and a task's id keeps its index in 16 bits (runtime/control_flow.cpp):
    // a root past that is refused here, at the statement with the most tasks, rather than by ptorun.
    check_task_id_limit(prog, rt, tr, diags);
    stats.subgraphs += int64_t(tr.subgraphs.size());
    temps += int(tr.temps.size());
    out.push_back(std::move(tr));
    if (diags.full()) break;
  }
  stats.roots = int(out.size());
  if (diags.has_errors()) throw CompileError();
  return out;
}

}  // namespace ptoc
