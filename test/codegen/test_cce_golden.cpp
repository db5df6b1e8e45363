// CCE golden files: the exact kernel text for a merged vector leaf, a cube
// leaf, and a PMU-traced leaf on a 950 target. Regenerate with
// PTOC_UPDATE_GOLDEN=1 and read the diff before committing it.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "compiler/codegen/cce_emit.h"
#include "test/codegen/tile_fixture.h"

using namespace ptoc;
using namespace ptoc::test;

namespace {

std::string golden_path(const std::string& name) {
  const char* root = std::getenv("PTOC_SOURCE_ROOT");
  return std::string(root ? root : PTOC_SOURCE_ROOT) + "/test/codegen/golden/" + name;
}

void check_golden(const std::string& name, const std::string& text) {
  const std::string path = golden_path(name);
  if (std::getenv("PTOC_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << text;
    WARN("updated " << path);
    return;
  }
  std::ifstream in(path, std::ios::binary);
  INFO("missing golden file " << path << " (run with PTOC_UPDATE_GOLDEN=1)");
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str() == text);
}

DiagEngine diags_for_test() { return DiagEngine("test.yaml", "x\n"); }

}  // namespace

TEST_CASE("golden: two exp chains merged in one vector leaf", "[codegen][golden]") {
  Fixture f;
  auto c0 = f.exp_chain(0, 16, 0), c1 = f.exp_chain(16, 16, 1);
  f.subgraph(CoreType::AIV, concat({c0, c1}), 2);
  auto d = diags_for_test();
  REQUIRE(f.run(d));
  REQUIRE(f.r.compiled.kernels.size() == 1);
  check_golden("vec_exp_2chains.cce", f.r.compiled.kernels[0].source);
}

TEST_CASE("golden: a tail tile with a broadcast row and a reduction", "[codegen][golden]") {
  Fixture f;
  build_tail_reduce_leaf(f);
  auto d = diags_for_test();
  REQUIRE(f.run(d));
  check_golden("vec_tail_reduce.cce", f.r.compiled.kernels[0].source);
}

TEST_CASE("golden: a cube leaf (L1, L0A/L0B, mmad, fixpipe)", "[codegen][golden]") {
  Fixture f(64, 128, DType::fp16);
  f.subgraph(CoreType::AIC, f.matmul_leaf(DType::fp16));
  auto d = diags_for_test();
  REQUIRE(f.run(d));
  check_golden("cube_matmul.cce", f.r.compiled.kernels[0].source);
}

TEST_CASE("golden: PMU trace stamps on a 950 target, a warning elsewhere", "[codegen][golden][pmu]") {
  Fixture f;
  f.r.program.options.enable_pmu_trace = true;
  f.subgraph(CoreType::AIV, f.exp_chain(0, 16, 0));
  Platform p950 = fixed_platform();
  p950.arch = "dav_3510";
  p950.name = "test950";
  auto d = diags_for_test();
  REQUIRE(f.run(d, p950));
  const std::string& src = f.r.compiled.kernels[0].source;
  const int id = pmu_id(f.r.compiled.leaves[0].hash);
  CHECK(id >= 0);
  CHECK(id < 4096);
  CHECK(src.find("PTO_MARK_STAMP(MTE2, " + std::to_string(id) + ");\n  PTO_NOPS(100);") != std::string::npos);
  CHECK(src.find("PTO_MARK_STAMP(MTE3, " + std::to_string(id) + ");\n  PTO_NOPS(1000);") != std::string::npos);
  check_golden("vec_pmu_950.cce", src);
  CHECK(d.diagnostics().empty());

  Fixture g;
  g.r.program.options.enable_pmu_trace = true;
  g.subgraph(CoreType::AIV, g.exp_chain(0, 16, 0));
  auto d2 = diags_for_test();
  REQUIRE(g.run(d2));
  REQUIRE(d2.diagnostics().size() == 1);
  CHECK(d2.diagnostics()[0].severity == Diagnostic::Severity::Warning);
  CHECK(d2.diagnostics()[0].message.find("enable_pmu_trace is ignored on target 'test910'") != std::string::npos);
  CHECK(g.r.compiled.kernels[0].source.find("PTO_MARK_STAMP") == std::string::npos);
}
