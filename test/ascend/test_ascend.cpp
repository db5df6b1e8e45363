// The ascend backend driven end to end through a fake ACL library (fake_acl.cpp:
// host memory, host shared objects as "device binaries"): a real spec compiled
// by ptoc, its kernels launched by the launcher in dependency order over
// streams, outputs compared with values computed here; ACL errors reported with
// call, code and message; missing device and missing binaries refused.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "runtime/ascend/acl_api.h"
#include "runtime/ascend/ascend_launcher.h"
#include "runtime/ascend/device_binaries.h"
#include "runtime/program/bundle.h"

using namespace ptoc;
using namespace ptoc::ascend;

namespace {

std::string env(const char* n) {
  const char* v = std::getenv(n);
  return v ? v : "";
}

// Compiles samples/make/specs/scaled_add.yaml once with the real ptoc.
const runtime::LoadedBundle& scaled_add_bundle() {
  static runtime::LoadedBundle b = [] {
    auto dir = std::filesystem::temp_directory_path() / ("ptoc_ascend_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::string out = (dir / "scaled_add.bundle").string();
    std::string cmd = env("PTOC_EXE") + " " + env("PTOC_SOURCE_ROOT") + "/samples/make/specs/scaled_add.yaml --host-twin=cce -o " + out;
    REQUIRE(std::system(cmd.c_str()) == 0);
    return runtime::read_bundle(out);
  }();
  return b;
}

// The fake runtime runs host code: every kernel's "device object" is the host twin.
std::vector<uint8_t> host_twin_as_device_bin(const runtime::LoadedBundle& b) {
  std::vector<DeviceBinary> bins;
  for (const auto& k : b.program.kernels) bins.push_back({k.name, k.core, "host", b.host_twin_so});
  return pack_device_binaries(bins);
}

TensorData ramp(int64_t rows, int64_t cols, double scale) {
  auto t = TensorData::zeros(DType::fp32, {rows, cols});
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, scale * double(i % 97) - 3.0);
  return t;
}

}  // namespace

TEST_CASE("device binaries pack and unpack; malformed sections are refused") {
  std::vector<DeviceBinary> bins = {{"k0", CoreType::AIC, "dav-c220-cube", {1, 2, 3}}, {"k1", CoreType::AIV, "dav-c220-vec", {}}};
  auto bytes = pack_device_binaries(bins);
  auto back = unpack_device_binaries(bytes);
  REQUIRE(back.size() == 2);
  CHECK(back[0].kernel == "k0");
  CHECK(back[0].core == CoreType::AIC);
  CHECK(back[0].arch == "dav-c220-cube");
  CHECK(back[0].bytes == std::vector<uint8_t>{1, 2, 3});
  CHECK(back[1].bytes.empty());
  bytes.pop_back();
  bytes.pop_back();
  CHECK_THROWS_WITH(unpack_device_binaries(bytes), Catch::Contains("device_bin section: truncated"));
}

TEST_CASE("the launcher runs a compiled bundle through ACL and gets the right numbers") {
  REQUIRE(!env("PTORUN_ACL_LIBRARY").empty());
  const auto& b = scaled_add_bundle();
  const auto& p = b.program;
  const int64_t rows = 40;  // not a multiple of the 16-row tile: tails too
  DimExpr::Env dims{{"B", rows}, {"N", 256}};
  AscendOptions opt;
  opt.streams = 3;
  opt.rounds = 2;
  AscendLauncher launcher(p, host_twin_as_device_bin(b), dims, runtime::ControlFlowOptions::from(p.options), opt);
  auto a = ramp(rows, 256, 0.5), bb = ramp(rows, 256, -0.25);
  launcher.load(0, a);  // spec tensors in spec order: a, b, y
  launcher.load(1, bb);
  auto trace = launcher.run();
  auto y = launcher.read(2);
  REQUIRE(y.shape == std::vector<int64_t>{rows, 256});
  for (int64_t i = 0; i < y.numel(); ++i) REQUIRE(y.get(i) == Approx((a.get(i) + bb.get(i)) * 0.5));
  REQUIRE(trace.rounds.size() == 2);
  CHECK(trace.platform.find("host-measured") != std::string::npos);
  CHECK(launcher.tasks_launched() == 2 * trace.rounds[0].tasks.size());
  for (const auto& r : trace.rounds[1].tasks) {
    CHECK(r.end_ps >= r.start_ps);
    CHECK(r.core < 3);  // lanes are the streams
  }
  CHECK(trace.rounds[1].tasks.front().start_ps > trace.rounds[0].summary.end_ps);
}

TEST_CASE("ACL errors name the call, the code and the runtime's message") {
  const auto& b = scaled_add_bundle();
  DimExpr::Env dims{{"B", 16}, {"N", 256}};
  setenv("FAKE_ACL_FAIL", "aclrtMalloc", 1);
  CHECK_THROWS_WITH(AscendLauncher(b.program, host_twin_as_device_bin(b), dims, {}, {}),
                    "aclrtMalloc failed with ACL error 507000: EE9999: fake failure injected in aclrtMalloc");
  unsetenv("FAKE_ACL_FAIL");
}

TEST_CASE("no device, or a bundle without device binaries, is refused with a way out") {
  const auto& b = scaled_add_bundle();
  DimExpr::Env dims{{"B", 16}, {"N", 256}};
  setenv("FAKE_ACL_DEVICE_COUNT", "0", 1);
  CHECK_THROWS_AS(AscendLauncher(b.program, host_twin_as_device_bin(b), dims, {}, {}), AclUnavailable);
  CHECK_THROWS_WITH(AscendLauncher(b.program, host_twin_as_device_bin(b), dims, {}, {}),
                    Catch::Contains("no Ascend device 0") && Catch::Contains("--backend sim"));
  unsetenv("FAKE_ACL_DEVICE_COUNT");
  CHECK_THROWS_WITH(AscendLauncher(b.program, {}, dims, {}, {}),
                    Catch::Contains("the bundle has no device binaries") && Catch::Contains("ASCEND_HOME_PATH"));
}
