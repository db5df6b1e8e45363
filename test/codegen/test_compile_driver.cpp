// `ptoc SPEC -o BUNDLE --emit ...` end to end through driver::compile:
// determinism of every byte, no bundle on error, the emitted views.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/ptoc_commands.h"
#include "runtime/program/bundle.h"
#include "runtime/program/root_tasks.h"

namespace fs = std::filesystem;
using namespace ptoc;

namespace {

std::string source_root() {
  const char* r = std::getenv("PTOC_SOURCE_ROOT");
  return r ? r : PTOC_SOURCE_ROOT;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("ptoc_drv_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
    // A private host-twin cache: the test neither reads nor pollutes the user's.
    ::setenv("XDG_CACHE_HOME", (path / "cache").c_str(), 1);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int c = 0;
    return c;
  }
};

driver::CompileArgs args_for(const std::string& spec, const fs::path& out, const fs::path& dir) {
  driver::CompileArgs a;
  a.spec.spec = spec;
  a.output = out.string();
  a.emit = {"cce", "graph", "report"};
  a.emit_dir = dir.string();
  return a;
}

}  // namespace

TEST_CASE("compile: twice gives identical bundle and emitted bytes", "[driver][determinism]") {
  TempDir t;
  const std::string spec = source_root() + "/specs/softmax.yaml";
  REQUIRE(driver::compile(args_for(spec, t.path / "a.bundle", t.path / "a")) == driver::kOk);
  REQUIRE(driver::compile(args_for(spec, t.path / "b.bundle", t.path / "b")) == driver::kOk);
  const std::string a = slurp(t.path / "a.bundle"), b = slurp(t.path / "b.bundle");
  REQUIRE(!a.empty());
  CHECK(a == b);
  for (const char* f : {"program.json", "graph.dot"}) {
    INFO(f);
    CHECK(slurp(t.path / "a" / f) == slurp(t.path / "b" / f));
  }
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(t.path / "a" / "cce")) {
    ++n;
    CHECK(slurp(e.path()) == slurp(t.path / "b" / "cce" / e.path().filename()));
  }
  CHECK(n > 0);

  // The bundle carries exactly the emitted kernels, and a cost per leaf.
  runtime::LoadedBundle lb = runtime::read_bundle((t.path / "a.bundle").string());
  CHECK(lb.program.kernels.size() == n);
  for (const Kernel& k : lb.program.kernels) CHECK(k.source == slurp(t.path / "a" / "cce" / (k.name + ".cce")));
  REQUIRE(!lb.program.leaves.empty());
  for (const LeafFunction& l : lb.program.leaves) CHECK(l.est_cycles > 0);
  CHECK(lb.host_twin_so.empty());  // the default runs the leaf programs: no twin compiled
  for (const Kernel& k : lb.program.kernels) CHECK(!k.program.empty());

  // program.json: one EXECUTE_GRAPH function per root, one CALL per task.
  auto pj = nlohmann::json::parse(slurp(t.path / "a" / "program.json"));
  size_t roots = 0;
  for (const auto& f : pj["functions"])
    if (f["graphtype"] == 2) {
      REQUIRE(roots < lb.program.roots.size());
      CHECK(f["operations"].size() == task_count(lb.program.roots[roots]));
      ++roots;
    }
  CHECK(roots == lb.program.roots.size());
  const std::string report = slurp(t.path / "a" / "report.txt");
  // The report counts leaves (one per task of each root), the bundle stores their classes once.
  size_t leaves = 0;
  for (const auto& rf : lb.program.roots) leaves += task_count(rf);
  CHECK(lb.program.leaves.size() <= leaves);
  CHECK(report.find("leaves: " + std::to_string(leaves)) != std::string::npos);
  CHECK(report.find("distinct kernels: " + std::to_string(n)) != std::string::npos);
  CHECK(report.find("pass times (ms):") != std::string::npos);
  CHECK(report.find("buffer_plan") != std::string::npos);
}

TEST_CASE("compile: a leaf that does not fit is a located error and no bundle", "[driver][overflow]") {
  TempDir t;
  const fs::path spec = t.path / "big.yaml";
  std::ofstream(spec) << "ptoc: 1\n"
                         "name: big\n"
                         "dims: {N: 1024}\n"
                         "inputs:\n"
                         "  x: {dtype: fp32, shape: [N, N]}\n"
                         "outputs:\n"
                         "  y: {dtype: fp32, shape: [N, N]}\n"
                         "body:\n"
                         "  - vec_tile: [256, 1024]\n"
                         "  - \"y[:, :] = exp(x)\"\n";
  const fs::path out = t.path / "big.bundle";
  std::ofstream(out) << "previous bundle";
  // Capture stderr.
  std::ostringstream err;
  auto* old = std::cerr.rdbuf(err.rdbuf());
  int rc = driver::compile(args_for(spec.string(), out, t.path / "emit"));
  std::cerr.rdbuf(old);
  CHECK(rc == driver::kSpecError);
  CHECK(slurp(out) == "previous bundle");
  const std::string e = err.str();
  INFO(e);
  CHECK(e.find("big.yaml:10:") != std::string::npos);
  CHECK(e.find("does not fit") != std::string::npos);
  CHECK(e.find("vec_tile") != std::string::npos);
  CHECK_FALSE(fs::exists(t.path / "emit" / "program.json"));
}

TEST_CASE("compile: --emit ir alone prints the tensor graph and writes no bundle", "[driver][ir]") {
  TempDir t;
  driver::CompileArgs a;
  a.spec.spec = source_root() + "/specs/softmax.yaml";
  a.emit = {"ir"};
  a.emit_dir = t.path.string();
  REQUIRE(driver::compile(a) == driver::kOk);
  CHECK(!slurp(t.path / "ir.txt").empty());
  CHECK_FALSE(fs::exists(t.path / "program.json"));
  a.emit = {"bogus"};
  CHECK(driver::compile(a) == driver::kUsageError);
}
