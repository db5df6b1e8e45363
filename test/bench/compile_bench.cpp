// ptoc compile throughput (issue 5, item 1): front end + passes + CCE codegen of one spec, host C++
// compile excluded, in tile operations per second of process CPU time.
//
//   compile_bench SPEC [--runs N] [--set GROUP.KEY=VALUE ...]
//
// Compiles SPEC N times (default 3) in this process through parse_spec() and run_pipeline(), the
// functions `ptoc` calls, and prints one JSON line: the tile-op count (after expansion), the root
// templates, leaves and kernels, and the median CPU and wall seconds of a whole compile with the
// per-pass wall and CPU times of the median run ("pass_wall_ms", "pass_cpu_ms"). CPU time is the
// rate's denominator because the machine may be shared; on an idle machine the two agree. test/bench/run_bench.py runs this on the benchmark specs.
//
// After the clocks of each compile stop, the same run also serialises what `ptoc -o` writes besides the
// host twin: program.json (emit_program_json) and the bundle (runtime::write_bundle to a temporary file,
// no host twin), timed apart ("program_json_ms", "bundle_write_ms" of the median run; not part of the
// compile rate). The per-pass split of the median run also goes to stderr as a table.
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

#include <unistd.h>

#include <filesystem>

#include "compiler/codegen/graph_emit.h"
#include "compiler/frontend/frontend.h"
#include "compiler/pipeline.h"
#include "runtime/program/bundle.h"
#include "runtime/core/platform.h"

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
  double program_json_ms = 0, bundle_write_ms = 0;  // CPU ms, after the compile
};

double ms_since(double cpu0) { return (cpu_seconds() - cpu0) * 1e3; }

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
    {
      double c = cpu_seconds();
      res->compiled.spec_source = text;
      res->compiled.graph_json = emit_program_json(*res);
      run.program_json_ms = ms_since(c);
      const std::filesystem::path tmp =
          std::filesystem::temp_directory_path() / ("compile_bench_" + std::to_string(::getpid()) + ".bundle");
      c = cpu_seconds();
      runtime::write_bundle(tmp.string(), res->compiled, {});
      run.bundle_write_ms = ms_since(c);
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
    }
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
  nlohmann::ordered_json pc = nlohmann::ordered_json::object();
  for (const PassTiming& t : med.passes) pc[t.name] = t.cpu_ms;
  j["pass_cpu_ms"] = pc;
  j["program_json_ms"] = med.program_json_ms;
  j["bundle_write_ms"] = med.bundle_write_ms;
  std::cout << j.dump() << "\n";
  std::cerr << "compile (median of " << runs << "): " << med.cpu * 1e3 << " CPU ms, "
            << (med.cpu > 0 ? double(med.tile_ops) / med.cpu / 1e6 : 0.0) << " M tile ops/CPU s\n";
  for (const PassTiming& t : med.passes) {
    char line[96];
    if (t.name.rfind("  ", 0) == 0 && t.cpu_ms == 0)  // a tiler sub-step: wall only
      std::snprintf(line, sizeof line, "  %-22s %9s        %9.1f wall ms\n", t.name.c_str(), "", t.ms);
    else
      std::snprintf(line, sizeof line, "  %-22s %9.1f CPU ms %9.1f wall ms\n", t.name.c_str(), t.cpu_ms, t.ms);
    std::cerr << line;
  }
  char line[160];
  std::snprintf(line, sizeof line, "after the compile (CPU ms, not in the rate): program_json %.1f, bundle_write %.1f\n",
                med.program_json_ms, med.bundle_write_ms);
  std::cerr << line;
  return 0;
}
