// Core pieces hardened against hostile input (issue 12): checked dim
// arithmetic, output files (devices, directories, full disks), .npy inputs
// (size limit, devices, 0-row arrays), the limits table and bounded quoting
// of megabyte lines in diagnostics.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/core/atomic_file.h"
#include "compiler/diag.h"
#include "runtime/core/dim_expr.h"
#include "runtime/core/resource_limits.h"
#include "runtime/core/tensor_data.h"

using namespace ptoc;
namespace fs = std::filesystem;

namespace {
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}
std::string temp_dir() {
  std::string d = (fs::temp_directory_path() / ("ptoc_hard_" + std::to_string(::getpid()))).string();
  fs::create_directories(d);
  return d;
}
}  // namespace

TEST_CASE("dim arithmetic throws instead of wrapping", "[core][dims]") {
  const int64_t mx = INT64_MAX, mn = INT64_MIN;
  REQUIRE(message_of([&] { (void)floor_div_i64(mn, -1); }) == "dim arithmetic overflows int64: -9223372036854775808 // -1");
  REQUIRE(floor_mod_i64(mn, -1) == 0);
  REQUIRE(floor_mod_i64(mx, -2) == -1);  // Python: 9223372036854775807 % -2 == -1
  REQUIRE(floor_mod_i64(-7, 2) == 1);
  REQUIRE(floor_div_i64(-7, 2) == -4);
  REQUIRE(message_of([&] { (void)(DimExpr(mx) + DimExpr(1)); }).find("overflows int64: 9223372036854775807 + 1") !=
          std::string::npos);
  REQUIRE(message_of([&] { (void)(DimExpr(mn) - DimExpr(1)); }).find("overflows int64") != std::string::npos);
  REQUIRE(message_of([&] { (void)(DimExpr(int64_t(1) << 62) * DimExpr(4)); }).find("overflows int64") != std::string::npos);
  REQUIRE(message_of([&] { (void)(-DimExpr(mn)); }).find("overflows int64") != std::string::npos);
  REQUIRE(message_of([&] { (void)ceil_div(DimExpr(mn), DimExpr(-1)); }).find("overflows int64") != std::string::npos);
  REQUIRE(ceil_div(DimExpr(7), DimExpr(2)).as_const() == 4);
  REQUIRE(ceil_div(DimExpr(-7), DimExpr(2)).as_const() == -3);
  // Evaluation under a binding is checked too (run-time dims).
  DimExpr e = DimExpr::sym("B") * DimExpr(1024);
  REQUIRE(e.eval({{"B", 1000}}) == 1024000);
  REQUIRE(message_of([&] { (void)e.eval({{"B", int64_t(1) << 60}}); }).find("overflows int64") != std::string::npos);
}

TEST_CASE("write_file_atomic writes devices in place and reports errors with the path", "[core][atomic_file]") {
  // A null device stays a character device. As root the test makes its own
  // (a regression must not replace the system's /dev/null).
  std::string dir0 = temp_dir();
  std::string nulldev = dir0 + "/nulldev";
  if (::geteuid() != 0 || ::mknod(nulldev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) nulldev = "/dev/null";
  write_file_atomic(nulldev, "hello");
  struct stat st {};
  REQUIRE(::stat(nulldev.c_str(), &st) == 0);
  REQUIRE(S_ISCHR(st.st_mode));
  REQUIRE(!fs::exists(nulldev + ".tmp." + std::to_string(::getpid())));
  // ENOSPC is reported, not lost.
  if (fs::exists("/dev/full"))
    REQUIRE(message_of([] { write_file_atomic("/dev/full", std::string(100000, 'x')); }) ==
            "cannot write /dev/full: No space left on device");
  // A directory: a clear message, never "...: Success".
  std::string d = temp_dir();
  std::string m = message_of([&] { write_file_atomic(d, "x"); });
  REQUIRE(m == "cannot write " + d + ": it is a directory");
  // A missing folder: the errno of the create.
  REQUIRE(message_of([&] { write_file_atomic(d + "/no/such/f.bin", "x"); }) ==
          "cannot write " + d + "/no/such/f.bin: No such file or directory");
  // A regular file is replaced atomically; no temporary is left.
  std::string f = d + "/out.bin";
  write_file_atomic(f, "one");
  write_file_atomic(f, "two");
  std::ifstream in(f);
  std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(got == "two");
  // A symbolic link keeps being a link; the file it names is replaced.
  std::string link = d + "/link.bin";
  fs::create_symlink(f, link);
  write_file_atomic(link, "three");
  REQUIRE(fs::is_symlink(link));
  std::ifstream in2(f);
  std::string got2((std::istreambuf_iterator<char>(in2)), std::istreambuf_iterator<char>());
  REQUIRE(got2 == "three");
  size_t entries = 0;
  for (auto& x : fs::directory_iterator(d))
    entries += x.path().filename().string().find(".tmp.") == std::string::npos && x.path().filename() != "nulldev";
  REQUIRE(entries == 2);
  if (::geteuid() != 0) {
    // EACCES: a read-only folder (root ignores the mode bits).
    std::string ro = d + "/ro";
    fs::create_directories(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    REQUIRE(message_of([&] { write_file_atomic(ro + "/f", "x"); }) == "cannot write " + ro + "/f: Permission denied");
    fs::permissions(ro, fs::perms::owner_all);
  }
  fs::remove_all(d);
}

TEST_CASE(".npy inputs: devices, directories, the size limit and 0-row arrays", "[core][npy]") {
  REQUIRE(message_of([] { read_npy_as("/dev/zero", DType::fp32, "x"); }) ==
          "input 'x' (/dev/zero): is a device, not a .npy file");
  std::string d = temp_dir();
  REQUIRE(message_of([&] { read_npy_as(d, DType::fp32, "x"); }) == "input 'x' (" + d + "): is a directory, not a .npy file");
  // A 0-row array round-trips (no memcpy from a null pointer: UBSan checks it in build-asan).
  TensorData empty = TensorData::zeros(DType::fp32, {0, 16});
  REQUIRE(empty.bytes.empty());
  write_npy(d + "/empty.npy", empty);
  TensorData back = read_npy_as(d + "/empty.npy", DType::fp32, "x");
  REQUIRE(back.shape == std::vector<int64_t>{0, 16});
  REQUIRE(back.bytes.empty());
  // Over the npy_bytes limit: refused before reading, naming the limit.
  TensorData t = TensorData::zeros(DType::fp32, {64, 64});
  write_npy(d + "/big.npy", t);
  REQUIRE(limits::set("npy_bytes=1000").empty());
  std::string m = message_of([&] { read_npy_as(d + "/big.npy", DType::fp32, "x"); });
  limits::reset();
  REQUIRE(m.find("the file has 16512 bytes, more than the .npy size limit of 1000 bytes") != std::string::npos);
  REQUIRE(m.find("--limit npy_bytes=N") != std::string::npos);
  REQUIRE(read_npy_as(d + "/big.npy", DType::fp32, "x").shape == std::vector<int64_t>{64, 64});
  // A write error names the path.
  if (fs::exists("/dev/full"))
    REQUIRE(message_of([&] { write_npy("/dev/full", t); }) == "cannot write /dev/full: No space left on device");
  fs::remove_all(d);
}

TEST_CASE("limits: names, defaults, suffixes and ranges", "[core][limits]") {
  limits::reset();
  REQUIRE(limits::get(limits::Id::yaml_nodes) == 100000);
  REQUIRE(limits::get(limits::Id::spec_bytes) == 16 * 1024 * 1024);
  REQUIRE(limits::set("spec_bytes=2M").empty());
  REQUIRE(limits::get(limits::Id::spec_bytes) == 2 * 1024 * 1024);
  REQUIRE(limits::set("expr_depth=99999").find("must be in 1..5000") != std::string::npos);
  REQUIRE(limits::set("nope=1").find("unknown limit 'nope' (limits: spec_bytes, npy_bytes,") == 0);
  REQUIRE(limits::set("yaml_nodes").find("NAME=VALUE") != std::string::npos);
  REQUIRE(limits::set("yaml_nodes=-3").find("not a non-negative integer") != std::string::npos);
  REQUIRE(limits::set("gm_bytes=99999999999G").find("not a non-negative integer in range") != std::string::npos);
  ::setenv("PTOC_LIMITS", "yaml_depth=7,tiles_per_root=12", 1);
  REQUIRE(limits::apply_all({"yaml_depth=9"}).empty());
  ::unsetenv("PTOC_LIMITS");
  REQUIRE(limits::get(limits::Id::yaml_depth) == 9);  // the command line after the environment
  REQUIRE(limits::get(limits::Id::tiles_per_root) == 12);
  limits::reset();
  REQUIRE(limits::get(limits::Id::yaml_depth) == 100);
  // Every limit is in the table once, in Id order, with a doc line.
  REQUIRE(limits::table().size() == size_t(limits::Id::kCount));
  for (size_t i = 0; i < limits::table().size(); ++i) {
    REQUIRE(size_t(limits::table()[i].id) == i);
    REQUIRE(std::string(limits::table()[i].doc).size() > 10);
  }
}

TEST_CASE("a megabyte line is quoted as a bounded window around the column", "[core][diag]") {
  std::string line = std::string(5000000, 'a') + "BAD" + std::string(5000000, 'b');
  DiagEngine d("spec.yaml", "ptoc: 1\n" + line + "\n");
  d.error({2, 5000001}, "unknown thing " + std::string(100000, 'q'), {}, 3);
  std::ostringstream os;
  d.print(os);
  const std::string out = os.str();
  REQUIRE(out.size() < 3000);
  // The caret still points at BAD inside the window.
  std::istringstream is(out);
  std::string l1, l2, l3;
  std::getline(is, l1);
  std::getline(is, l2);
  std::getline(is, l3);
  REQUIRE(l1.rfind("spec.yaml:2:5000001: error: unknown thing ", 0) == 0);
  REQUIRE(l2.rfind("...", 0) == 0);
  size_t caret = l3.find('^');
  REQUIRE(caret != std::string::npos);
  REQUIRE(l2.substr(caret, 3) == "BAD");
  REQUIRE(l3.substr(caret) == "^~~");
}
