// The host-twin executor on hand-written kernels compiled into a shared object
// here: numbers against a direct computation, parallel == serial, and the
// twin loader's errors.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "programs.h"
#include "runtime/executor.h"

using namespace ptoc;
using namespace ptoc::runtime;
namespace fs = std::filesystem;

namespace {

const char* kKernels = R"(
#include "kernels/pto_abi.h"
extern "C" void add_rows(const PtoKernelArgs* a) {
  const float* x = (const float*)a->gm[0];
  const float* y = (const float*)a->gm[1];
  float* t = (float*)a->gm[2];
  int64_t r0 = a->args[0], rows = a->args[1], C = a->args[2];
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < C; ++c) t[r * C + c] = x[(r0 + r) * C + c] + y[(r0 + r) * C + c];
}
extern "C" void scale_rows(const PtoKernelArgs* a) {
  const float* t = (const float*)a->gm[0];
  float* ws = (float*)a->gm[1];
  int64_t r0 = a->args[0], rows = a->args[1], C = a->args[2];
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < C; ++c) ws[(r0 + r) * C + c] = 2.0f * t[r * C + c];
}
extern "C" void flip_add(const PtoKernelArgs* a) {
  const float* ws = (const float*)a->gm[0];
  float* out = (float*)a->gm[1];
  int64_t src = a->args[0], dst = a->args[1], C = a->args[2];
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < C; ++c) out[(dst + r) * C + c] = ws[(src + r) * C + c] + 1.0f;
}
)";

fs::path work_dir() {
  fs::path d = fs::temp_directory_path() / ("ptoc-rt-exec-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// Builds the test kernels once per process.
const std::string& twin_so() {
  static std::string path = [] {
    fs::path d = work_dir();
    std::ofstream(d / "k.cpp") << kKernels;
    const char* cxx = std::getenv("CXX");
    std::string cmd = std::string(cxx && *cxx ? cxx : "c++") + " -O1 -shared -fPIC -I" PTOC_SOURCE_ROOT " " +
                      (d / "k.cpp").string() + " -o " + (d / "k.so").string();
    if (std::system(cmd.c_str()) != 0) FAIL("cannot compile the test kernels: " << cmd);
    return (d / "k.so").string();
  }();
  return path;
}

TensorData random_rows(int64_t n, uint32_t seed) {
  TensorData t = TensorData::zeros(DType::fp32, {n, 64});
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, u(g));
  return t;
}

TensorData run_flip(int64_t n, int64_t stitch_n, int jobs, const HostTwin& twin, const TensorData& x,
                    const TensorData& y, uint64_t* tasks = nullptr) {
  CompiledProgram p = test::flip_program();
  ControlFlowOptions o;
  o.stitch_function_max_num = stitch_n;
  ControlFlow cf(p, {{"N", n}, {"C", 64}}, o);
  Executor ex(p, cf.layout(), twin, jobs);
  ex.load(0, x);
  ex.load(1, y);
  uint64_t k = ex.run_all(cf);
  if (tasks) *tasks = k;
  return ex.read(3);
}

}  // namespace

TEST_CASE("executor computes the program's numbers, in parallel exactly as serially") {
  const int64_t n = 16 * 29;
  HostTwin twin(twin_so(), test::flip_program().kernels);
  TensorData x = random_rows(n, 1), y = random_rows(n, 2);
  uint64_t tasks = 0;
  TensorData serial = run_flip(n, 1024, 1, twin, x, y, &tasks);
  CHECK(tasks == uint64_t(29 / 4 * 2 + 29 % 4 * 2 + 29));
  // Direct computation: out block j = 2 * (x + y) of block nb-1-j, plus 1.
  const int64_t nb = n / 16;
  int64_t bad = 0;
  for (int64_t j = 0; j < nb; ++j)
    for (int64_t r = 0; r < 16; ++r)
      for (int64_t c = 0; c < 64; ++c) {
        int64_t src = ((nb - 1 - j) * 16 + r) * 64 + c, dst = (j * 16 + r) * 64 + c;
        float want = 2.0f * (float(x.get(src)) + float(y.get(src))) + 1.0f;
        bad += serial.get(dst) != double(want);
      }
  CHECK(bad == 0);
  for (int64_t st : {1, 2, 7, 1024})
    for (int jobs : {2, 4}) {
      INFO("stitch " << st << ", jobs " << jobs);
      CHECK(run_flip(n, st, jobs, twin, x, y).bytes == serial.bytes);
    }
}

TEST_CASE("executor drives single tasks for a simulator") {
  HostTwin twin(twin_so(), test::flip_program().kernels);
  CompiledProgram p = test::flip_program();
  ControlFlow cf(p, {{"N", 64}, {"C", 64}}, ControlFlowOptions{});
  Executor ex(p, cf.layout(), twin, 1);
  TensorData x = random_rows(64, 3), y = random_rows(64, 4);
  ex.load(0, x);
  ex.load(1, y);
  DeviceTask dt;
  REQUIRE(cf.next(dt));
  ex.map_slabs(cf.slabs());
  // Run in reverse-topological-safe order chosen by hand: A's two tasks, then B's.
  REQUIRE(dt.tasks.size() == 2 + 4);
  ex.execute_task(dt.tasks[0]);
  ex.execute_task(dt.tasks[1]);
  for (size_t i = 2; i < 6; ++i) ex.execute_task(dt.tasks[i]);
  TensorData out = ex.read(3);
  CHECK(out.get(0) == double(2.0f * (float(x.get(48 * 64)) + float(y.get(48 * 64))) + 1.0f));
}

TEST_CASE("the host twin loads from bundle bytes and refuses bad objects") {
  std::ifstream f(twin_so(), std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  fs::path cache = work_dir() / "cache";
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  {
    HostTwin twin(bytes, test::flip_program().kernels);
    CHECK(twin.path().rfind(cache.string(), 0) == 0);
    CHECK(twin.kernel(2) != nullptr);
    HostTwin again(bytes, test::flip_program().kernels);  // cached file reused
    CHECK(again.path() == twin.path());
  }
  std::vector<uint8_t> junk(100, 0x5a);
  CHECK_THROWS_WITH(HostTwin(junk, test::flip_program().kernels), Catch::Contains("cannot load the host twin"));
  CHECK_THROWS_WITH(HostTwin(std::vector<uint8_t>{}, test::flip_program().kernels),
                    Catch::Contains("the bundle has no compiled host twin") && Catch::Contains("--host-twin=cce"));
  auto ks = test::flip_program().kernels;
  ks[1].name = "no_such_kernel";
  CHECK_THROWS_WITH(HostTwin(bytes, ks), Catch::Contains("has no kernel 'no_such_kernel'"));
}
