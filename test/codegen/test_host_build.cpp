// compiler/codegen/host_build: hand-written kernels compiled into one shared
// object, loaded with dlopen and called through the PtoKernelArgs ABI; the
// content-hash cache (hits, per-kernel recompiles, header changes); parallel
// compiles; the errors for a missing compiler and for a kernel that does not
// compile.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/codegen/host_build.h"
#include "runtime/core/dtype.h"
#include "kernels/pto_abi.h"

namespace fs = std::filesystem;
using namespace ptoc::codegen;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/ptoc-hb-test-XXXXXX";
    REQUIRE(mkdtemp(t));
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// y[rows x cols] = x + bias (bias broadcast along rows), fp16, one 16 x 32 tile
// per call; args: rows, cols, row offset.
const char* kAddKernel = R"(#include "pto_tile.h"
PTO_KERNEL(add_bias_0) {
  pto_f16* x = PTO_GM(pto_f16, 0);
  pto_f16* bias = PTO_GM(pto_f16, 1);
  pto_f16* y = PTO_GM(pto_f16, 2);
  const int64_t cols = PTO_ARG(1), r0 = PTO_ARG(2);
  const int64_t vr = PTO_ARG(0) - r0 < 16 ? PTO_ARG(0) - r0 : 16;
  pto_f16* tx = PTO_UB(pto_f16, 0);
  pto_f16* tb = PTO_UB(pto_f16, 1024);
  TLOAD<pto_f16, 16, 32>(tx, x, r0 * cols, cols, vr, cols);
  TLOAD<pto_f16, 1, 32>(tb, bias, 0, cols, 1, cols);
  PTO_SET_FLAG(MTE2, V, 0);
  PTO_WAIT_FLAG(MTE2, V, 0);
  TBINARY<PTO_ADD, pto_f16, 16, 32, PTO_BC_NONE, PTO_BC_ROW>(tx, tx, tb, vr, cols);
  PTO_SET_FLAG(V, MTE3, 0);
  PTO_WAIT_FLAG(V, MTE3, 0);
  TSTORE<pto_f16, 16, 32>(y, tx, r0 * cols, cols, vr, cols);
}
)";

// c[m x n] = a[m x k] * b[k x n], fp32 out, one L0 tile (m, n <= 32, k <= 64).
const char* kMatmulKernel = R"(#include "pto_tile.h"
PTO_KERNEL(matmul_1) {
  const int64_t m = PTO_ARG(0), k = PTO_ARG(1), n = PTO_ARG(2);
  TLOAD_L1<pto_f16, 32, 64>(PTO_L1(pto_f16, 0), PTO_GM(pto_f16, 0), 0, 0, 0, k, m, k);
  TLOAD_L1<pto_f16, 64, 32>(PTO_L1(pto_f16, 8192), PTO_GM(pto_f16, 1), 0, 0, 0, n, k, n);
  TEXTRACT_L0A<pto_f16, 32, 64, 32, 64>(PTO_L0A(pto_f16, 0), PTO_L1(pto_f16, 0), 0, 0);
  TEXTRACT_L0B<pto_f16, 64, 32, 64, 32>(PTO_L0B(pto_f16, 0), PTO_L1(pto_f16, 8192), 0, 0);
  TMMAD<pto_f16, 32, 64, 32>(PTO_L0C(float, 0), PTO_L0A(pto_f16, 0), PTO_L0B(pto_f16, 0), m, k, n, 1);
  TFIXPIPE<float, 32, 32>(PTO_GM(float, 2), PTO_L0C(float, 0), 0, n, m, n);
}
)";

struct Library {
  void* handle = nullptr;
  fs::path file;
  Library(const std::vector<uint8_t>& bytes, const fs::path& dir, const std::string& name) {
    file = dir / name;
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    INFO(dlerror());
    REQUIRE(handle);
  }
  ~Library() {
    if (handle) dlclose(handle);
  }
  PtoKernelFn fn(const char* name) { return reinterpret_cast<PtoKernelFn>(dlsym(handle, name)); }
};

std::vector<uint16_t> halves(size_t n, float scale, int seed) {
  std::vector<uint16_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = ptoc::float_to_half(scale * float(int((i * 7 + seed) % 23) - 11) / 8.0f);
  return v;
}

HostBuildOptions opts_in(const TempDir& d) {
  HostBuildOptions o;
  o.cache_dir = (d.path / "cache").string();
  return o;
}

}  // namespace

TEST_CASE("host twin: kernels compile into one library that runs through the ABI", "[codegen][host_build]") {
  TempDir d;
  HostBuildResult r = build_host_twin({{"add_bias_0", kAddKernel}, {"matmul_1", kMatmulKernel}}, opts_in(d));
  INFO(r.error);
  REQUIRE(r.ok);
  REQUIRE(r.stats.compiled == 2);
  REQUIRE(r.stats.linked);
  REQUIRE(r.library.size() > 4);
  REQUIRE(std::string(r.library.begin(), r.library.begin() + 4) == "\x7f" "ELF");
  Library lib(r.library, d.path, "twin.so");

  SECTION("vector kernel: tiles with a row tail") {
    const int64_t rows = 37, cols = 32;
    auto x = halves(size_t(rows * cols), 1.0f, 1);
    auto bias = halves(size_t(cols), 0.5f, 5);
    std::vector<uint16_t> y(size_t(rows * cols), 0xffff);
    PtoKernelFn f = lib.fn("add_bias_0");
    REQUIRE(f);
    for (int64_t r0 = 0; r0 < rows; r0 += 16) {
      void* gm[] = {x.data(), bias.data(), y.data()};
      int64_t args[] = {rows, cols, r0};
      PtoKernelArgs a{gm, args, 3, nullptr};
      f(&a);
    }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const float want = ptoc::half_to_float(ptoc::float_to_half(
            ptoc::half_to_float(x[size_t(i * cols + j)]) + ptoc::half_to_float(bias[size_t(j)])));
        REQUIRE(ptoc::half_to_float(y[size_t(i * cols + j)]) == want);
      }
  }
  SECTION("cube kernel: one L0 tile with tails") {
    const int64_t m = 29, k = 50, n = 31;
    auto a = halves(size_t(m * k), 1.0f, 2);
    auto b = halves(size_t(k * n), 1.0f, 3);
    std::vector<float> c(size_t(m * n), -1.0f);
    void* gm[] = {a.data(), b.data(), c.data()};
    int64_t args[] = {m, k, n};
    PtoKernelArgs pa{gm, args, 3, nullptr};
    PtoKernelFn f = lib.fn("matmul_1");
    REQUIRE(f);
    f(&pa);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t p = 0; p < k; ++p)
          want += double(ptoc::half_to_float(a[size_t(i * k + p)])) * ptoc::half_to_float(b[size_t(p * n + j)]);
        REQUIRE(std::fabs(c[size_t(i * n + j)] - want) <= 1e-5 * (1 + std::fabs(want)));
      }
  }
}

TEST_CASE("host twin cache: unchanged rebuild runs no compiler, an edit recompiles one kernel",
          "[codegen][host_build]") {
  TempDir d;
  HostBuildOptions o = opts_in(d);
  std::vector<KernelSource> ks = {{"add_bias_0", kAddKernel}, {"matmul_1", kMatmulKernel}};
  HostBuildResult cold = build_host_twin(ks, o);
  REQUIRE(cold.ok);
  REQUIRE(cold.stats.compiled == 2);

  const int64_t before = host_compiler_invocations();
  HostBuildResult warm = build_host_twin(ks, o);
  REQUIRE(warm.ok);
  REQUIRE(warm.stats.library_hit);
  REQUIRE(warm.stats.compiled == 0);
  REQUIRE_FALSE(warm.stats.linked);
  REQUIRE(host_compiler_invocations() == before);  // no compile, no link
  REQUIRE(warm.library == cold.library);
  REQUIRE(warm.key == cold.key);

  // Edit one kernel: only it compiles, the other object comes from the cache.
  ks[1].source += "\n// edited\n";
  HostBuildResult edit = build_host_twin(ks, o);
  REQUIRE(edit.ok);
  REQUIRE(edit.stats.compiled == 1);
  REQUIRE(edit.stats.object_hits == 1);
  REQUIRE(edit.stats.linked);
  REQUIRE(edit.key != cold.key);
  REQUIRE(host_compiler_invocations() == before + 2);  // one compile, one link

  // A change in the kernels/ headers invalidates every object.
  fs::path kcopy = d.path / "kernels";
  fs::copy(kernels_include_dir(), kcopy, fs::copy_options::recursive);
  o.kernels_dir = kcopy.string();
  HostBuildResult same_headers = build_host_twin(ks, o);  // same content elsewhere: still cached
  REQUIRE(same_headers.stats.library_hit);
  std::ofstream(kcopy / "host" / "pto_host.h", std::ios::app) << "\n// changed\n";
  HostBuildResult hdr = build_host_twin(ks, o);
  REQUIRE(hdr.ok);
  REQUIRE(hdr.stats.compiled == 2);

  // Different flags: a different key.
  o.extra_flags = {"-DPTO_HOST_CHECK"};
  HostBuildResult flags = build_host_twin(ks, o);
  REQUIRE(flags.ok);
  REQUIRE(flags.stats.compiled == 2);
}

TEST_CASE("host twin: parallel compile of many kernels; no-cache mode keeps nothing", "[codegen][host_build]") {
  TempDir d;
  std::vector<KernelSource> ks;
  for (int i = 0; i < 5; ++i) {
    std::string name = "k" + std::to_string(i);
    ks.push_back({name, "#include \"pto_tile.h\"\nPTO_KERNEL(" + name + ") {\n  TFILL<pto_f32, 8, 8>(PTO_GM(pto_f32, 0), " +
                            std::to_string(i) + ".0, 8, 8);\n}\n"});
  }
  HostBuildOptions o = opts_in(d);
  o.jobs = 3;
  o.use_cache = false;
  HostBuildResult r = build_host_twin(ks, o);
  INFO(r.error);
  REQUIRE(r.ok);
  REQUIRE(r.stats.compiled == 5);
  REQUIRE_FALSE(fs::exists(o.cache_dir));
  Library lib(r.library, d.path, "many.so");
  for (int i = 0; i < 5; ++i) {
    std::vector<float> out(64, -1);
    void* gm[] = {out.data()};
    PtoKernelArgs a{gm, nullptr, 0, nullptr};
    lib.fn(("k" + std::to_string(i)).c_str())(&a);
    REQUIRE(out[63] == float(i));
  }
}

TEST_CASE("host twin: a missing compiler is a clear error naming what was tried", "[codegen][host_build]") {
  std::string tried;
  REQUIRE_FALSE(find_host_compiler("", nullptr, "/nonexistent-dir", tried));
  REQUIRE(tried == "$CXX is not set; c++, g++ and clang++ are not on PATH");
  REQUIRE_FALSE(find_host_compiler("", "my-cxx -O1", "/nonexistent-dir", tried));
  REQUIRE(tried == "$CXX (my-cxx -O1) was not found; c++, g++ and clang++ are not on PATH");
  // $CXX wins when it exists; its arguments are not part of the program name.
  auto found = find_host_compiler("", "g++ -O1", "/usr/bin:/bin", tried);
  REQUIRE(found);
  REQUIRE(fs::path(*found).filename() == "g++");

  TempDir d;
  HostBuildOptions o = opts_in(d);
  o.compiler = "/nonexistent/bin/g++";
  HostBuildResult r = build_host_twin({{"k", "int x;"}}, o);
  REQUIRE_FALSE(r.ok);
  REQUIRE(r.error ==
          "no host C++ compiler found: the compiler given (/nonexistent/bin/g++) was not found or is not executable. "
          "Install g++ or clang++, or set CXX to the compiler to use.");
}

TEST_CASE("host twin: compile errors name the kernel and carry the compiler's message", "[codegen][host_build]") {
  TempDir d;
  HostBuildResult r =
      build_host_twin({{"good", "#include \"pto_tile.h\"\nPTO_KERNEL(good) {}\n"},
                       {"broken_7", "#include \"pto_tile.h\"\nPTO_KERNEL(broken_7) { undeclared_thing(); }\n"}},
                      opts_in(d));
  REQUIRE_FALSE(r.ok);
  REQUIRE(r.error.find("host twin: compiling kernel broken_7 failed") == 0);
  REQUIRE(r.error.find("broken_7.cpp:2") != std::string::npos);
  REQUIRE(r.error.find("undeclared_thing") != std::string::npos);

  HostBuildResult dup = build_host_twin({{"a", ""}, {"a", ""}}, opts_in(d));
  REQUIRE(dup.error == "host twin: two kernels are named 'a'");
  HostBuildResult bad = build_host_twin({{"no-dash", ""}}, opts_in(d));
  REQUIRE(bad.error == "host twin: kernel name 'no-dash' is not a C identifier");

  HostBuildOptions o = opts_in(d);
  o.kernels_dir = (d.path / "nowhere").string();
  HostBuildResult nok = build_host_twin({{"a", ""}}, o);
  REQUIRE(nok.error.find("host twin: the tile library is not at") == 0);
  REQUIRE(nok.error.find("PTOC_KERNELS_DIR") != std::string::npos);
}

TEST_CASE("host twin: kernels dir and cache dir follow the environment", "[codegen][host_build]") {
  setenv("PTOC_KERNELS_DIR", "/some/where/kernels", 1);
  REQUIRE(kernels_include_dir() == "/some/where/kernels");
  unsetenv("PTOC_KERNELS_DIR");
  REQUIRE(fs::exists(fs::path(kernels_include_dir()) / "pto_tile.h"));
  auto headers = kernels_header_files(kernels_include_dir());
  REQUIRE(std::find_if(headers.begin(), headers.end(), [](const std::string& h) {
            return h.size() > 10 && h.substr(h.size() - 10) == "pto_tile.h";
          }) != headers.end());
  REQUIRE(std::is_sorted(headers.begin(), headers.end()));

  const char* old = getenv("XDG_CACHE_HOME");
  std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  REQUIRE(host_cache_dir() == "/x/cache/ptoc");
  unsetenv("XDG_CACHE_HOME");
  const char* home = getenv("HOME");
  std::string saved_home = home ? home : "";
  setenv("HOME", "/home/u", 1);
  REQUIRE(host_cache_dir() == "/home/u/.cache/ptoc");
  // A relative XDG_CACHE_HOME is invalid (XDG base directory spec) and ignored, as if unset.
  setenv("XDG_CACHE_HOME", "relcache", 1);
  REQUIRE(host_cache_dir() == "/home/u/.cache/ptoc");
  unsetenv("XDG_CACHE_HOME");
  if (home) setenv("HOME", saved_home.c_str(), 1);
  if (old) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

TEST_CASE("host twin: an empty kernel set still gives a loadable library", "[codegen][host_build]") {
  TempDir d;
  HostBuildResult r = build_host_twin(std::vector<KernelSource>{}, opts_in(d));
  REQUIRE(r.ok);
  REQUIRE(r.stats.kernels == 0);
  Library lib(r.library, d.path, "empty.so");
}
