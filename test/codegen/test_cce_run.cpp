// Generated kernels compiled for the host with the checking tile library
// (-DPTO_HOST_CHECK: every tile inside its memory, every wait_flag matched by
// an earlier set_flag, no flag left set) and run on real data against a
// reference computed here. A check failure aborts, so each run happens in a
// child process.
#include <catch2/catch.hpp>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include "compiler/codegen/host_build.h"
#include "kernels/pto_abi.h"
#include "test/codegen/tile_fixture.h"

using namespace ptoc;
using namespace ptoc::test;
namespace fs = std::filesystem;

namespace {

// GM contents for the fixture's four tensors (x, w, y, c), as raw bytes.
struct Gm {
  std::vector<std::vector<unsigned char>> t;
};

// Builds the host twin of `f`'s kernels with the checks on, runs every task of
// root 0 in order over `gm` in a child process, then runs `verify` there.
// Returns the child's exit status (0: ran, no check failed, verify passed).
int run_checked(Fixture& f, Gm& gm, const std::function<bool(const Gm&)>& verify) {
  codegen::HostBuildOptions ho;
  ho.use_cache = false;
  ho.extra_flags = {"-DPTO_HOST_CHECK"};
  auto hb = codegen::build_host_twin(f.r.compiled.kernels, ho);
  INFO(hb.error);
  REQUIRE(hb.ok);
  const fs::path so = fs::temp_directory_path() / ("ptoc_cce_run_" + std::to_string(::getpid()) + ".so");
  std::ofstream(so, std::ios::binary).write(reinterpret_cast<const char*>(hb.library.data()), hb.library.size());
  pid_t pid = fork();
  if (pid == 0) {
    void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) _exit(10);
    for (const Task& t : f.r.compiled.roots.at(0).tasks) {
      const Kernel& k = f.r.compiled.kernels.at(f.r.compiled.leaves.at(t.leaf).kernel);
      auto fn = reinterpret_cast<PtoKernelFn>(dlsym(h, k.name.c_str()));
      if (!fn) _exit(11);
      std::vector<void*> ptrs;
      for (int g : t.gm) ptrs.push_back(gm.t.at(g).data());
      std::vector<int64_t> args;
      for (const DimExpr& e : t.args) args.push_back(e.eval({}));
      PtoKernelArgs a{ptrs.data(), args.data(), int64_t(args.size()), nullptr};
      fn(&a);
    }
    _exit(verify(gm) ? 0 : 12);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  fs::remove(so);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::vector<unsigned char> f32_bytes(const std::vector<float>& v) {
  std::vector<unsigned char> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
float f32_at(const std::vector<unsigned char>& b, size_t i) {
  float x;
  std::memcpy(&x, b.data() + 4 * i, 4);
  return x;
}
std::vector<float> randoms(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

}  // namespace

TEST_CASE("run: merged exp chains compute exp with paired flags", "[codegen][run]") {
  Fixture f;
  auto c0 = f.exp_chain(0, 16, 0), c1 = f.exp_chain(16, 16, 1);
  f.subgraph(CoreType::AIV, concat({c0, c1}), 2);
  f.subgraph(CoreType::AIV, f.exp_chain(32, 16, 0));
  auto d = DiagEngine("t.yaml", "x\n");
  REQUIRE(f.run(d));
  Gm gm;
  auto x = randoms(64 * 128, 1);
  gm.t = {f32_bytes(x), f32_bytes(std::vector<float>(128 * 64)), f32_bytes(std::vector<float>(64 * 128, -7.f)),
          f32_bytes(std::vector<float>(64 * 64))};
  int rc = run_checked(f, gm, [&](const Gm& g) {
    for (size_t i = 0; i < 64 * 128; ++i) {
      float want = i < 48 * 128 ? std::exp(x[i]) : -7.f;  // rows 48.. are not written
      if (std::fabs(f32_at(g.t[2], i) - want) > 1e-6f * std::fabs(want) + 1e-7f) return false;
    }
    return true;
  });
  CHECK(rc == 0);
}

TEST_CASE("run: tail rows, row max broadcast and scalar multiply", "[codegen][run]") {
  Fixture f;
  build_tail_reduce_leaf(f);
  auto d = DiagEngine("t.yaml", "x\n");
  REQUIRE(f.run(d));
  Gm gm;
  auto xv = randoms(64 * 128, 2);
  gm.t = {f32_bytes(xv), f32_bytes(std::vector<float>(128 * 64)), f32_bytes(std::vector<float>(64 * 128, -7.f)),
          f32_bytes(std::vector<float>(64 * 64))};
  int rc = run_checked(f, gm, [&](const Gm& g) {
    for (int r = 0; r < 64; ++r) {
      float mx = -1e30f;
      for (int c = 0; c < 128; ++c) mx = std::max(mx, xv[r * 128 + c]);
      for (int c = 0; c < 128; ++c) {
        float want = (r >= 48 && r < 53) ? (xv[r * 128 + c] - mx) * 0.5f : -7.f;
        if (f32_at(g.t[2], r * 128 + c) != want) return false;
      }
    }
    return true;
  });
  CHECK(rc == 0);
}

TEST_CASE("run: cube leaf computes a fp16 matmul into fp32", "[codegen][run]") {
  Fixture f(64, 128, DType::fp16);
  f.subgraph(CoreType::AIC, f.matmul_leaf(DType::fp16));
  auto d = DiagEngine("t.yaml", "x\n");
  REQUIRE(f.run(d));
  // Quarter-integers: exact in fp16, products and sums exact in fp32.
  std::mt19937 g(3);
  std::uniform_int_distribution<int> q(-8, 8);
  std::vector<float> xv(64 * 128), wv(128 * 64);
  for (auto& v : xv) v = q(g) / 4.f;
  for (auto& v : wv) v = q(g) / 4.f;
  auto half = [](const std::vector<float>& v) {
    std::vector<unsigned char> b(v.size() * 2);
    for (size_t i = 0; i < v.size(); ++i) {
      uint16_t h = float_to_half(v[i]);
      std::memcpy(b.data() + 2 * i, &h, 2);
    }
    return b;
  };
  Gm gm;
  gm.t = {half(xv), half(wv), half(std::vector<float>(64 * 128)), f32_bytes(std::vector<float>(64 * 64, -7.f))};
  int rc = run_checked(f, gm, [&](const Gm& gg) {
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < 64; ++j) {
        float want = -7.f;
        if (i < 32 && j < 32) {
          want = 0;
          for (int k = 0; k < 64; ++k) want += xv[i * 128 + k] * wv[k * 64 + j];
        }
        if (f32_at(gg.t[3], i * 64 + j) != want) return false;
      }
    return true;
  });
  CHECK(rc == 0);
}

// A rank-4 tile with a tail on every axis (static [4, 8, 8, 8], valid
// [3, 5, 6, 7]): a sum over axis 1 (a leading axis: the [P, A, Q] view with a
// loop over axis 0), a transpose of axes 0 and 2 (strided row copies) and one
// of axes 1 and 3 (the last axis moves: a strided 2-D transpose), each stored
// and compared with loops over the logical indices here.
TEST_CASE("run: reduction over a leading axis and transposes of outer axes, tails everywhere", "[codegen][run]") {
  Fixture f;
  Program& p = f.r.program;
  const int tx = int(p.tensors.size());
  p.tensors.push_back({"x4", TensorRole::Input, DType::fp32, {3, 5, 6, 7}, Format::ND, false, {}});
  p.tensors.push_back({"s1", TensorRole::Output, DType::fp32, {3, 6, 7}, Format::ND, false, {}});
  p.tensors.push_back({"t02", TensorRole::Output, DType::fp32, {6, 5, 3, 7}, Format::ND, false, {}});
  p.tensors.push_back({"t13", TensorRole::Output, DType::fp32, {3, 7, 6, 5}, Format::ND, false, {}});
  auto dims = [](std::vector<int64_t> v) {
    std::vector<DimExpr> e;
    for (int64_t x : v) e.push_back(DimExpr(x));
    return e;
  };
  int x = f.tile(MemKind::UB, DType::fp32, {4, 8, 8, 8}, dims({3, 5, 6, 7}));
  int s = f.tile(MemKind::UB, DType::fp32, {4, 8, 8}, dims({3, 6, 7}));
  int t02 = f.tile(MemKind::UB, DType::fp32, {8, 8, 4, 8}, dims({6, 5, 3, 7}));
  int t13 = f.tile(MemKind::UB, DType::fp32, {4, 8, 8, 8}, dims({3, 7, 6, 5}));
  std::vector<int> ops = {f.copy_in(tx, x, dims({0, 0, 0, 0}), dims({3, 5, 6, 7}))};
  ops.push_back(f.vec(OpKind::Sum, {x}, s));
  f.root().ops.back().axes = {1};
  ops.push_back(f.vec(OpKind::Transpose, {x}, t02));
  f.root().ops.back().axes = {0, 2};
  ops.push_back(f.vec(OpKind::Transpose, {x}, t13));
  f.root().ops.back().axes = {3, -3};
  ops.push_back(f.copy_out(tx + 1, s, dims({0, 0, 0}), dims({3, 6, 7})));
  ops.push_back(f.copy_out(tx + 2, t02, dims({0, 0, 0, 0}), dims({6, 5, 3, 7})));
  ops.push_back(f.copy_out(tx + 3, t13, dims({0, 0, 0, 0}), dims({3, 7, 6, 5})));
  f.subgraph(CoreType::AIV, ops);
  auto d = DiagEngine("t.yaml", "x\n");
  REQUIRE(f.run(d));
  const std::string& src = f.r.compiled.kernels.at(0).source;
  INFO(src);
  CHECK(src.find("TREDUCE<PTO_RSUM, pto_f32, 8, 64, 0>") != std::string::npos);  // A = 8 rows of Q = 8 * 8
  CHECK(src.find("TCOPY2D<pto_f32, ") != std::string::npos);

  const int n = 3 * 5 * 6 * 7;
  auto xv = randoms(n, 4);
  Gm gm;
  gm.t = {f32_bytes(std::vector<float>(64 * 128)), f32_bytes(std::vector<float>(128 * 64)),
          f32_bytes(std::vector<float>(64 * 128)), f32_bytes(std::vector<float>(64 * 64)), f32_bytes(xv),
          f32_bytes(std::vector<float>(3 * 6 * 7, -7.f)), f32_bytes(std::vector<float>(n, -7.f)),
          f32_bytes(std::vector<float>(n, -7.f))};
  auto X = [&](int a, int b, int c, int e) { return xv[((a * 5 + b) * 6 + c) * 7 + e]; };
  int rc = run_checked(f, gm, [&](const Gm& g) {
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 6; ++c)
        for (int e = 0; e < 7; ++e) {
          float want = 0;  // the host TREDUCE's first-axis order: row by row
          for (int b = 0; b < 5; ++b) want += X(a, b, c, e);
          if (f32_at(g.t[tx + 1], (a * 6 + c) * 7 + e) != want) return false;
        }
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 5; ++b)
        for (int c = 0; c < 6; ++c)
          for (int e = 0; e < 7; ++e) {
            if (f32_at(g.t[tx + 2], ((c * 5 + b) * 3 + a) * 7 + e) != X(a, b, c, e)) return false;
            if (f32_at(g.t[tx + 3], ((a * 7 + e) * 6 + c) * 5 + b) != X(a, b, c, e)) return false;
          }
    return true;
  });
  CHECK(rc == 0);
}
