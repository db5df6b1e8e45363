// The knob table (runtime/program/knobs.h) is the only declaration of a knob: every row round-trips
// through a spec file, `ptoc --set`, the bundle and `ptorun info`; ranges are enforced with the same
// words by ptoc and ptorun; specs/README.md's table is the table.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/ptorun_commands.h"
#include "compiler/diag.h"
#include "compiler/frontend/frontend.h"
#include "runtime/program/bundle.h"
#include "runtime/program/knobs.h"
#include "runtime/session.h"

using namespace ptoc;
namespace fs = std::filesystem;

namespace {

const char* kSpec = R"(ptoc: 1
name: knobs
dims: {N: 64}
inputs: {x: {dtype: fp32, shape: [16, N]}}
outputs: {y: {dtype: fp32, shape: [16, N]}}
body:
  - vec_tile: [16, 64]
  - "y[0, 0] = x * 2"
)";

// A value of the knob's type other than its default, inside its range.
int64_t other_value(const Knob& k) { return k.def < k.hi ? k.def + 1 : k.def - 1; }

std::optional<Program> parse(const std::string& text, const std::vector<std::string>& sets, std::string& err) {
  FrontendOptions fo;
  fo.sets = sets;
  std::ostringstream diag;
  auto p = load_spec_text("knobs.yaml", text, fo, diag);
  err = diag.str();
  return p;
}

std::string spec_with_option(const Knob& k, const std::string& value) {
  return std::string(kSpec) + "options:\n  " + std::string(k.group) + ":\n    " + std::string(k.key) + ": " + value + "\n";
}

std::string yaml_value(const Knob& k, int64_t v) {
  return k.type == Knob::Type::Bool ? (v ? "true" : "false") : std::to_string(v);
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("ptoc_knobs_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

// A bundle holding `p`'s options and nothing that needs a compiler (no kernels).
std::string write_options_bundle(const fs::path& dir, const Options& o) {
  CompiledProgram cp;
  cp.name = "knobs";
  cp.target = "ascend910b1";
  cp.options = o;
  std::string path = (dir / "knobs.bundle").string();
  runtime::write_bundle(path, cp, {});
  return path;
}

std::string info_text(const std::string& bundle) {
  std::ostringstream out;
  auto* old = std::cout.rdbuf(out.rdbuf());
  int rc = runtime::info(bundle);
  std::cout.rdbuf(old);
  REQUIRE(rc == 0);
  return out.str();
}

}  // namespace

TEST_CASE("defaults come from the table") {
  Options o;
  for (const Knob& k : knobs()) {
    INFO(k.name());
    if (k.type != Knob::Type::Setting) CHECK(k.get(o) == k.def);
    else CHECK_FALSE((o.*(k.setting)).given);
  }
  CHECK(o.stitch_function_max_num == 128);  // the documented default, spelled out once here as a witness
}

TEST_CASE("every scalar knob round-trips through the spec, ptoc --set, the bundle and ptorun info") {
  TempDir tmp;
  for (const Knob& k : knobs()) {
    if (k.type == Knob::Type::Setting) continue;
    const int64_t v = other_value(k);
    INFO(k.name() << " = " << v);
    std::string err;
    auto from_file = parse(spec_with_option(k, yaml_value(k, v)), {}, err);
    REQUIRE(from_file);
    CHECK(k.get(from_file->options) == v);
    auto from_set = parse(kSpec, {k.name() + "=" + yaml_value(k, v)}, err);
    REQUIRE(from_set);
    CHECK(k.get(from_set->options) == v);
    // Bundle writer -> reader.
    const std::string b = write_options_bundle(tmp.path, from_set->options);
    auto loaded = runtime::read_bundle(b);
    CHECK(k.get(loaded.program.options) == v);
    // `ptorun info` shows it, on its own line.
    CHECK(info_text(b).find(k.name() + std::string(32 - k.name().size() + 1, ' ') + yaml_value(k, v)) !=
          std::string::npos);
  }
}

TEST_CASE("settings round-trip through the spec, --set and the bundle") {
  TempDir tmp;
  for (const Knob& k : knobs()) {
    if (k.type != Knob::Type::Setting) continue;
    INFO(k.name());
    std::string err;
    auto p = parse(kSpec, {k.name() + "={DEFAULT: 2, func0_0: 3}"}, err);
    REQUIRE(p);
    const MergeSetting& s = p->options.*(k.setting);
    REQUIRE(s.given);
    REQUIRE(s.entries.size() == 2);
    auto loaded = runtime::read_bundle(write_options_bundle(tmp.path, p->options));
    const MergeSetting& r = loaded.program.options.*(k.setting);
    REQUIRE(r.entries.size() == 2);
    CHECK(r.entries[1].name == "func0_0");
    CHECK(r.entries[1].count == 3);
    CHECK(info_text(write_options_bundle(tmp.path, p->options)).find(k.name()) != std::string::npos);
  }
}

TEST_CASE("ranges: ptoc and ptorun refuse the same values with the same words") {
  TempDir tmp;
  const std::string b = write_options_bundle(tmp.path, Options{});
  runtime::Session s(b);
  for (const Knob& k : knobs()) {
    if (k.type != Knob::Type::Int) continue;
    for (int64_t bad : {k.lo - 1, k.hi + 1}) {
      INFO(k.name() << " = " << bad);
      const std::string words = std::to_string(bad) + " is out of range; allowed: " + k.range();
      std::string err;
      CHECK_FALSE(parse(kSpec, {k.name() + "=" + std::to_string(bad)}, err));
      CHECK(err.find(k.name() + ": " + words) != std::string::npos);
      CHECK_FALSE(parse(spec_with_option(k, std::to_string(bad)), {}, err));
      CHECK(err.find(words) != std::string::npos);
      if (k.run_time) {
        try {
          s.apply_runtime_sets({k.name() + "=" + std::to_string(bad)});
          FAIL("ptorun accepted " << bad);
        } catch (const runtime::UsageError& e) {
          CHECK(std::string(e.what()).find(k.name() + ": " + words) != std::string::npos);
        }
      }
    }
    // Both ends of the range are accepted by both tools.
    for (int64_t good : {k.lo, k.hi}) {
      if (!unsupported_debug_mode(good).empty()) continue;
      std::string err;
      CHECK(parse(kSpec, {k.name() + "=" + std::to_string(good)}, err));
      if (k.run_time) CHECK_NOTHROW(s.apply_runtime_sets({k.name() + "=" + std::to_string(good)}));
    }
  }
}

TEST_CASE("ptorun --set: only run-time knobs, named from the table") {
  TempDir tmp;
  runtime::Session s(write_options_bundle(tmp.path, Options{}));
  try {
    s.apply_runtime_sets({"codegen.enable_pmu_trace=1"});
    FAIL("accepted a compile-time knob");
  } catch (const runtime::UsageError& e) {
    CHECK(std::string(e.what()) ==
          "--set codegen.enable_pmu_trace: ptorun can change runtime.stitch_function_max_num, "
          "runtime.device_sched_mode, runtime.max_workspace_kb and debug.runtime_debug_mode; other options need a "
          "recompile with ptoc --set");
  }
  s.apply_runtime_sets({"runtime.stitch_function_max_num=7", "runtime.max_workspace_kb=1099511627776"});
  CHECK(s.options().stitch_function_max_num == 7);
  CHECK(s.options().max_workspace_kb == int64_t(1) << 40);
}

TEST_CASE("runtime_debug_mode 2 is refused with a hint by both tools") {
  TempDir tmp;
  std::string err;
  CHECK_FALSE(parse(kSpec, {"debug.runtime_debug_mode=2"}, err));
  CHECK(err.find("debug.runtime_debug_mode: 2 is not supported") != std::string::npos);
  CHECK(err.find("AICORE_MODEL") != std::string::npos);
  runtime::Session s(write_options_bundle(tmp.path, Options{}));
  CHECK_THROWS_WITH(s.apply_runtime_sets({"debug.runtime_debug_mode=2"}),
                    Catch::Contains("2 is not supported") && Catch::Contains("use 1 for the swimlane"));
}

TEST_CASE("device_sched_mode decodes into named fields") {
  CHECK_FALSE(sched_policy(0).l2_affinity);
  CHECK_FALSE(sched_policy(0).fair);
  CHECK(sched_policy(1).l2_affinity);
  CHECK_FALSE(sched_policy(1).fair);
  CHECK_FALSE(sched_policy(2).l2_affinity);
  CHECK(sched_policy(2).fair);
  CHECK(sched_policy(3).l2_affinity);
  CHECK(sched_policy(3).fair);
}

TEST_CASE("specs/README.md's option table is the knob table") {
  const char* root = std::getenv("PTOC_SOURCE_ROOT");
  std::ifstream in(std::string(root ? root : PTOC_SOURCE_ROOT) + "/specs/README.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const std::string begin = "<!-- knob table: generated by `ptoc --list-knobs`, checked by test/program/test_knobs.cpp -->\n";
  const size_t b = doc.find(begin);
  REQUIRE(b != std::string::npos);
  const size_t e = doc.find("<!-- end of knob table -->", b);
  REQUIRE(e != std::string::npos);
  const std::string table = doc.substr(b + begin.size(), e - b - begin.size());
  INFO("regenerate the table with: ptoc --list-knobs");
  CHECK(table == knob_table_markdown());
}
