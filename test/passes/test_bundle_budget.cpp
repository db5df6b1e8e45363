// The task-record budget (compiler/passes/bundle_budget.h): the estimate of the bundle's 'roots'
// section against the bytes the writer produces over the library, and the located error a compile
// over the roots_bytes limit gets instead of a bundle ptorun cannot load.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "compiler/frontend/frontend.h"
#include "compiler/passes/bundle_budget.h"
#include "compiler/pipeline.h"
#include "runtime/core/platform.h"
#include "runtime/core/resource_limits.h"
#include "runtime/program/bundle.h"
#include "test/library_specs.h"

using namespace ptoc;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<PipelineResult> compile(DiagEngine& diags) {
  std::optional<Program> prog = parse_spec(diags, FrontendOptions{});
  if (!prog || diags.has_errors()) return std::nullopt;
  const Platform* plat = find_platform(prog->target);
  if (!plat) return std::nullopt;
  return run_pipeline(std::move(*prog), *plat, diags, PipelineOptions{});
}

uint64_t roots_section_bytes(const CompiledProgram& p) {
  runtime::LoadedBundle lb = runtime::decode_bundle(runtime::encode_bundle(p, {}), "b");
  for (const auto& s : lb.sections)
    if (s.name == "roots") return s.length;
  return 0;
}

}  // namespace

TEST_CASE("the task-record estimate is the roots section's size within 10-20 %, and the bound is above it",
          "[bundle_budget]") {
  int checked = 0;
  for (const std::string& spec : test::library_specs()) {
    const std::string text = read_file(spec);
    DiagEngine diags(spec, text);
    auto r = compile(diags);
    if (!r) continue;
    const TaskRecordBytes e = estimate_task_records(r->compiled);
    const auto actual = double(roots_section_bytes(r->compiled));
    INFO(spec << ": estimate " << e.total << ", written " << actual);
    CHECK(double(e.total) >= 0.9 * actual);
    CHECK(double(e.total) <= 1.2 * actual + 4096);
    CHECK(task_records_bound(r->compiled) >= e.total);
    if (!r->compiled.roots.empty()) {
      CHECK(e.root >= 0);
      CHECK(e.loc.valid());
    }
    ++checked;
  }
  CHECK(checked >= 20);
}

TEST_CASE("task records over roots_bytes are a located error naming the root, the tasks and the limit",
          "[bundle_budget]") {
  // Fuzz seed 9402238's scan in a dynamic unroll loop (before the scan fix its records took 807 MB).
  const std::string spec =
      "ptoc: 1\nname: cs\ndims:\n  D: {dynamic: true, max: 4096}\n  A: 64\n"
      "inputs:\n  x: {dtype: fp16, shape: [D, A]}\noutputs:\n  y: {dtype: fp16, shape: [D, A]}\n"
      "body:\n"
      "- loop: {var: b, count: \"ceil_div(D, 16)\", unroll: [2], factor: k}\n"
      "  body:\n"
      "  - vec_tile: [1, 16]\n"
      "  - t = exp(x[b * 16:(b + k) * 16, 0:A])\n"
      "  - y[b * 16:, 0:] = cumsum(t, 1)\n";
  {
    DiagEngine diags("cs.yaml", spec);
    auto r = compile(diags);
    for (const auto& d : diags.diagnostics()) UNSCOPED_INFO(d.loc.line << ":" << d.loc.col << " " << d.message);
    REQUIRE(r);
    const TaskRecordBytes e = estimate_task_records(r->compiled);
    CHECK(e.loc.line == 14);
    REQUIRE(limits::set("roots_bytes=" + std::to_string(e.total / 2)) == "");
  }
  DiagEngine diags("cs.yaml", spec);
  auto r = compile(diags);
  limits::reset();
  CHECK_FALSE(r);
  REQUIRE(diags.diagnostics().size() == 1);
  const Diagnostic& d = diags.diagnostics()[0];
  CHECK(d.loc.line == 14);
  CHECK(d.loc.col == 9);  // the statement whose tasks hold the most bytes (the exp, fused with the scan)
  CHECK_THAT(d.message, Catch::Contains("the bundle's task records would take about"));
  CHECK_THAT(d.message, Catch::Contains("more than the roots_bytes limit of"));
  CHECK_THAT(d.message, Catch::Contains("root function 'loop_b_k2' holds"));
  CHECK_THAT(d.message, Catch::Contains("ptorun needs about 30 bytes of memory per byte"));
  CHECK_THAT(d.hint, Catch::Contains("use larger tiles"));
  CHECK_THAT(d.hint, Catch::Contains("--limit roots_bytes="));
}
