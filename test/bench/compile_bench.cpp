// ptoc compile throughput (issue 5, item 1): front end + passes + CCE codegen of one spec, host C++
// compile excluded, in tile operations per second of process CPU time.
//
//   compile_bench SPEC [--runs N] [--set GROUP.KEY=VALUE ...]
//
// Compiles SPEC N times (default 3) in this process through parse_spec() and run_pipeline(), the
// functions `ptoc` calls, and prints one JSON line: the tile-op count (after expansion), the root
// templates, leaves and kernels, and the median CPU and wall seconds of a whole compile with the
// per-pass wall times of the median run. CPU time is the rate's denominator because the machine may be
// shared; on an idle machine the two agree. test/bench/run_bench.py runs this on the benchmark specs.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/frontend/frontend.h"
#include "compiler/pipeline.h"
#include "runtime/platform.h"

using namespace ptoc;

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

struct Run {
  double cpu = 0, wall = 0;
  std::vector<PassTiming> passes;
  int64_t tile_ops = 0, roots = 0, leaves = 0, kernels = 0;
};

int usage() {
  std::cerr << "usage: compile_bench SPEC [--runs N] [--set GROUP.KEY=VALUE ...]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string spec;
  int runs = 3;
  FrontendOptions fo;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--set" && i + 1 < argc) {
      fo.sets.push_back(argv[++i]);
    } else if (!a.empty() && a[0] != '-' && spec.empty()) {
      spec = a;
    } else {
      return usage();
    }
  }
  if (spec.empty()) return usage();
  std::ifstream in(spec, std::ios::binary);
  if (!in) {
    std::cerr << "compile_bench: cannot read " << spec << "\n";
    return 3;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();

  std::vector<Run> all;
  for (int r = 0; r < runs; ++r) {
    Run run;
    const double c0 = cpu_seconds();
    const auto w0 = std::chrono::steady_clock::now();
    DiagEngine diags(spec, text);
    PassTimer front;
    std::optional<Program> prog = front.run("front_end", [&] { return parse_spec(diags, fo); });
    if (!prog || diags.has_errors()) {
      diags.print(std::cerr);
      return 1;
    }
    const Platform* plat = find_platform(prog->target);
    if (!plat) {
      std::cerr << "compile_bench: unknown target " << prog->target << "\n";
      return 1;
    }
    std::optional<PipelineResult> res = run_pipeline(std::move(*prog), *plat, diags, PipelineOptions{});
    run.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    run.cpu = cpu_seconds() - c0;
    if (!res) {
      diags.print(std::cerr);
      return 1;
    }
    run.passes = front.timings();
    run.passes.insert(run.passes.end(), res->timings.begin(), res->timings.end());
    run.tile_ops = res->tiling.tile_ops;
    run.roots = int64_t(res->roots.size());
    run.leaves = int64_t(res->compiled.leaves.size());
    run.kernels = int64_t(res->compiled.kernels.size());
    all.push_back(std::move(run));
    // The result is destroyed here, inside the measured loop's scope but after the clocks stopped.
  }
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return all[a].cpu < all[b].cpu; });
  const Run& med = all[order[order.size() / 2]];
  std::vector<double> walls;
  for (const Run& r : all) walls.push_back(r.wall);
  std::sort(walls.begin(), walls.end());

  nlohmann::ordered_json j;
  j["spec"] = spec;
  j["runs"] = runs;
  j["tile_ops"] = med.tile_ops;
  j["root_templates"] = med.roots;
  j["leaves"] = med.leaves;
  j["kernels"] = med.kernels;
  j["cpu_s"] = med.cpu;
  j["wall_s"] = walls[walls.size() / 2];
  j["tile_ops_per_cpu_s"] = med.cpu > 0 ? double(med.tile_ops) / med.cpu : 0.0;
  nlohmann::ordered_json p = nlohmann::ordered_json::object();
  for (const PassTiming& t : med.passes) p[t.name] = t.ms;
  j["pass_wall_ms"] = p;
  std::cout << j.dump() << "\n";
  return 0;
}
