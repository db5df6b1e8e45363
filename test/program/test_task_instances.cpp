// Leaf classes stored once and tasks as compact instances (runtime/program/task_instances.h):
// - over every library spec, expanding the instance records gives back the explicit tasks exactly,
//   directly and through the bundle, and the program.json ptorun rebuilds is ptoc's byte for byte;
// - GEMM 6144^3 is one class with 1152 instances of two deltas each, in a bundle under 1 MiB, and
//   `ptorun info` says so;
// - a bundle whose instance records point out of range is refused with a message, even with every
//   checksum recomputed; a format-1 bundle asks for a recompile.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/ptorun_commands.h"
#include "compiler/frontend/frontend.h"
#include "compiler/pipeline.h"
#include "runtime/core/platform.h"
#include "runtime/program/bundle.h"
#include "runtime/program/program_json.h"
#include "runtime/program/task_instances.h"
#include "runtime/program/root_tasks.h"
#include "test/library_specs.h"
#include "test/program/compile_spec_file.h"

namespace fs = std::filesystem;
using ptoc::test::library_specs;
using ptoc::test::source_root;
using namespace ptoc;

namespace {


std::string texts(const std::vector<DimExpr>& v) {
  std::string s;
  for (auto& e : v) s += e.str() + ";";
  return s;
}
std::string text(const std::vector<Region>& v) {
  std::string s;
  for (auto& r : v)
    s += std::to_string(r.tensor) + "@" + std::to_string(r.loc.line) + ":" + std::to_string(r.loc.col) + " " +
         texts(r.offset) + "|" + texts(r.extent) + "\n";
  return s;
}

// Every field of the tasks, as text (classes by index, -1 meaning the leaf index).
void require_same_tasks(const CompiledProgram& a, const std::vector<Task>& x, const CompiledProgram& b,
                        const std::vector<Task>& y) {
  REQUIRE(x.size() == y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    INFO("task " << i);
    CHECK(a.class_index(x[i]) == b.class_index(y[i]));
    CHECK(x[i].leaf == y[i].leaf);
    CHECK(x[i].gm == y[i].gm);
    CHECK(texts(x[i].args) == texts(y[i].args));
    CHECK(text(x[i].reads) == text(y[i].reads));
    CHECK(text(x[i].writes) == text(y[i].writes));
    CHECK(x[i].succ == y[i].succ);
    CHECK(x[i].pred_count == y[i].pred_count);
    CHECK(x[i].hash_order == y[i].hash_order);
    CHECK(x[i].label == y[i].label);
    CHECK(x[i].op_magic == y[i].op_magic);
  }
}

// The bundle bytes with the roots section's JSON edited and every checksum recomputed.
std::vector<uint8_t> with_roots(const CompiledProgram& p, const std::vector<uint8_t>& bytes,
                                const std::function<void(nlohmann::json&)>& edit) {
  runtime::LoadedBundle lb = runtime::decode_bundle(bytes, "b");
  auto section = [&](const std::string& name) {
    for (auto& s : lb.sections)
      if (s.name == name) return std::string(bytes.begin() + long(s.offset), bytes.begin() + long(s.offset + s.length));
    return std::string();
  };
  nlohmann::json roots = nlohmann::json::parse(section("roots"));
  edit(roots);
  return runtime::pack_bundle(p, section("manifest"), roots.dump(), section("leaves"), section("kernels"), {}, {});
}

std::string refusal(const std::vector<uint8_t>& b) {
  try {
    runtime::decode_bundle(b, "op.bundle");
  } catch (const runtime::BundleError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("instances: expanding them reproduces every task of every library spec", "[instances]") {
  int compared = 0;
  for (const auto& spec : library_specs()) {
    INFO(spec);
    auto r = ptoc::test::compile_spec_file(spec, ptoc::test::explicit_tasks());
    if (!r) continue;
    const CompiledProgram& cp = r->compiled;
    size_t tasks = 0, explicit_tasks = 0;
    for (const RootFunction& rf : cp.roots) {
      const CompactRoot cr = compact_root(cp, rf);
      CHECK(validate_compact_root(cr, cp.leaves.size(), cp.tensors.size()) == "");
      require_same_tasks(cp, rf.tasks, cp, expand_root(cr));
      tasks += rf.tasks.size();
      explicit_tasks += cr.explicit_tasks.size();
    }
    // Classes: one per distinct record, every class used.
    std::vector<int> used(cp.leaves.size(), 0);
    for (const RootFunction& rf : cp.roots)
      for (const Task& t : rf.tasks) {
        REQUIRE(cp.leaf_class(t) != nullptr);
        used[size_t(t.cls)] = 1;
      }
    CHECK(std::count(used.begin(), used.end(), 1) == long(cp.leaves.size()));
    CHECK(cp.leaves.size() <= tasks);

    // Through the bundle: same classes, same tasks, same program.json.
    runtime::LoadedBundle lb = runtime::decode_bundle(runtime::encode_bundle(cp, {}), "b");
    REQUIRE(lb.program.roots.size() == cp.roots.size());
    for (size_t i = 0; i < cp.roots.size(); ++i) require_same_tasks(cp, cp.roots[i].tasks, lb.program, resolve_all_tasks(lb.program.roots[i]));
    REQUIRE(lb.program.leaves.size() == cp.leaves.size());
    for (size_t i = 0; i < cp.leaves.size(); ++i) {
      CHECK(lb.program.leaves[i].hash == cp.leaves[i].hash);
      CHECK(lb.program.leaves[i].merge_info == cp.leaves[i].merge_info);
      CHECK(lb.program.leaves[i].pipe_cycles == cp.leaves[i].pipe_cycles);
    }
    CHECK(lb.program.graph_json.empty());
    CHECK(program_json_text(lb.program) == cp.graph_json);
    ++compared;
    (void)explicit_tasks;
  }
  CHECK(compared >= 20);
}

TEST_CASE("instances: GEMM 6144^3 is one class of 1152 two-delta instances in a bundle under 1 MiB", "[instances][gemm]") {
  auto r = ptoc::test::compile_spec_file(source_root() + "/specs/gemm_6144.yaml");
  REQUIRE(r);
  const CompiledProgram& cp = r->compiled;
  REQUIRE(cp.leaves.size() == 1);
  REQUIRE(cp.roots.size() == 1);
  REQUIRE(task_count(cp.roots[0]) == 1152);
  CHECK(cp.roots[0].compact);  // built compact: no Task per member
  CHECK(cp.roots[0].tasks.empty());
  const CompactRoot cr = compact_root(cp, cp.roots[0]);
  CHECK(cr.templates.size() == 1);
  CHECK(cr.explicit_tasks.empty());
  for (const auto& x : cr.instances) CHECK(x.deltas.size() <= 2);  // the row and the column of C
  std::vector<uint8_t> bytes = runtime::encode_bundle(cp, std::vector<uint8_t>(100000, 7));
  CHECK(bytes.size() <= 1024 * 1024);
  const fs::path path = fs::temp_directory_path() / ("compact-gemm-" + std::to_string(getpid()) + ".bundle");
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), long(bytes.size()));
  }
  std::stringstream out;
  auto* old = std::cout.rdbuf(out.rdbuf());
  int rc = runtime::info(path.string(), true);
  std::cout.rdbuf(old);
  fs::remove(path);
  CHECK(rc == 0);
  const std::string s = out.str();
  CHECK(s.find("root functions (1, 1152 tasks)") != std::string::npos);
  CHECK(s.find("leaf classes (1, 1152 instances)") != std::string::npos);
  CHECK(s.find("  class 0    x1152   AIC") != std::string::npos);
  CHECK(s.find("  func0 t1151  class 0    leaf 1151") != std::string::npos);
}

// Roots the task graph builds compact (tile families: member 0's tasks moved, task_replica.h) hold
// the records the explicit tasks compact to, so the bundle is the same bytes.
TEST_CASE("instances: roots built compact are the explicit tasks compacted, in every library spec", "[instances]") {
  int built_compact = 0, compared = 0;
  for (const auto& spec : library_specs()) {
    INFO(spec);
    auto c = ptoc::test::compile_spec_file(spec), x = ptoc::test::compile_spec_file(spec, ptoc::test::explicit_tasks());
    REQUIRE(bool(c) == bool(x));
    if (!c) continue;
    REQUIRE(c->compiled.roots.size() == x->compiled.roots.size());
    for (size_t i = 0; i < c->compiled.roots.size(); ++i) {
      const RootFunction& rc = c->compiled.roots[i];
      const RootFunction& rx = x->compiled.roots[i];
      REQUIRE(!rx.compact);
      if (!rc.compact) continue;
      ++built_compact;
      CHECK(rc.tasks.empty());
      CHECK(validate_compact_root(*rc.compact, c->compiled.leaves.size(), c->compiled.tensors.size()) == "");
      require_same_tasks(x->compiled, rx.tasks, c->compiled, resolve_all_tasks(rc));
      CHECK(rc.hash == rx.hash);
    }
    CHECK(runtime::encode_bundle(c->compiled, {}) == runtime::encode_bundle(x->compiled, {}));
    ++compared;
  }
  CHECK(compared >= 20);
  CHECK(built_compact >= 1);  // gemm_6144 at least
}

TEST_CASE("instances: a bundle with out-of-range instance records is refused", "[instances][bundle]") {
  auto r = ptoc::test::compile_spec_file(source_root() + "/specs/examples/split_k.yaml");
  REQUIRE(r);
  const CompiledProgram& cp = r->compiled;
  const std::vector<uint8_t> good = runtime::encode_bundle(cp, {});
  REQUIRE(refusal(with_roots(cp, good, [](nlohmann::json&) {})) == "");
  auto refused = [&](const std::function<void(nlohmann::json&)>& edit) { return refusal(with_roots(cp, good, edit)); };
  const std::string lead = "op.bundle: corrupted bundle: root function '";
  std::string m = refused([](nlohmann::json& j) { j["roots"][0]["instances"][0][0] = 99; });
  CHECK(m.rfind(lead, 0) == 0);
  CHECK(m.find("instance 0: template #99 out of range") != std::string::npos);
  CHECK(m.find("recompile the spec") != std::string::npos);
  m = refused([](nlohmann::json& j) { j["roots"][0]["instances"][0][4] = {0}; });
  CHECK(m.find("instance 0: successor 0 out of range") != std::string::npos);
  m = refused([](nlohmann::json& j) { j["roots"][0]["templates"][0]["class"] = 5; });
  CHECK(m.find("template 0: leaf class #5 out of range") != std::string::npos);
  m = refused([](nlohmann::json& j) { j["roots"][0]["templates"][0]["gm"][0] = -3; });
  CHECK(m.find("template 0: GM slot tensor #-3 out of range") != std::string::npos);
  m = refused([](nlohmann::json& j) { j["roots"][0]["templates"][0]["group_of"].push_back(0); });
  CHECK(m.find("value groups for") != std::string::npos);
  m = refused([](nlohmann::json& j) { j["roots"][0]["instances"][0][5].push_back(1); });
  CHECK(m.find("instance 0: ") != std::string::npos);
  CHECK(m.find("deltas for a template of") != std::string::npos);
  m = refused([](nlohmann::json& j) { j["roots"][0]["instances"][0][3] = 42; });
  CHECK(m.find("label #42 out of range") != std::string::npos);
  m = refused([](nlohmann::json& j) { j["roots"][0]["pred_counts"] = {1}; });
  CHECK(m.find("1 predecessor counts for") != std::string::npos);
  m = refused([](nlohmann::json& j) { j["roots"][0]["instances"][0] = {0, 1}; });
  CHECK(m.find("corrupted bundle: section 'roots' does not have the expected content") != std::string::npos);

  // Format 1 (explicit tasks, a leaf per task): a clear request to recompile.
  std::vector<uint8_t> old = good;
  old[8] = 1;
  CHECK(refusal(old) == "op.bundle: bundle format 1, this ptorun reads format " +
                            std::to_string(runtime::kBundleFormatVersion) + ": recompile with this ptoc");
}
