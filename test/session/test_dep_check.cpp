// runtime_debug_mode 3: unordered tasks touching the same GM bytes with a write are found; ordered
// ones, read-read sharing and interleaved (non-overlapping) strided windows are not.
#include <catch2/catch.hpp>

#include "runtime/dep_check.h"

using namespace ptoc;
using namespace ptoc::runtime;

namespace {
GmAccess win(uint64_t addr, uint64_t rows, uint64_t row_bytes, uint64_t stride, bool write) {
  GmAccess a;
  a.addr = addr, a.rows = rows, a.row_bytes = row_bytes, a.row_stride = stride, a.tensor = 0, a.write = write;
  return a;
}
TaskInstance task(uint32_t id, std::vector<GmAccess> acc, std::vector<uint32_t> succ = {}) {
  TaskInstance t;
  t.task_id = id;
  t.accesses = std::move(acc);
  t.succ = std::move(succ);
  return t;
}
CompiledProgram one_tensor() {
  CompiledProgram p;
  p.tensors = {{"ws", GmTensor::Role::Workspace, DType::fp32, {64, 64}}};
  return p;
}
}  // namespace

TEST_CASE("strided windows overlap exactly where their bytes meet") {
  // Rows of 64 bytes every 256 bytes: A at offset 0, B at offset 128 interleave without touching.
  CHECK(first_overlap(win(0, 8, 64, 256, true), win(128, 8, 64, 256, true)) == UINT64_MAX);
  CHECK(first_overlap(win(0, 8, 64, 256, true), win(32, 8, 64, 256, false)) == 32);
  CHECK(first_overlap(win(0, 1, 100, 0, true), win(99, 1, 10, 0, true)) == 99);
  CHECK(first_overlap(win(0, 1, 100, 0, true), win(100, 1, 10, 0, true)) == UINT64_MAX);
  CHECK(first_overlap(win(1000, 4, 16, 512, true), win(1000 + 3 * 512 + 8, 1, 4, 0, false)) == 1000 + 3 * 512 + 8);
}

TEST_CASE("unordered writers of the same bytes are violations; an edge or read-only sharing is not") {
  auto p = one_tensor();
  DeviceTask dt;
  dt.seq = 3;
  dt.tasks = {task(10, {win(0, 4, 64, 256, true)}), task(11, {win(64 + 3 * 256 - 8, 1, 16, 0, true)}),
              task(12, {win(0, 4, 64, 256, false)}), task(13, {win(0, 4, 64, 256, false)})};
  DependencyChecker c(p);
  c.check(dt);
  // 11 writes [824, 840), inside row 3 of the window the others use: 10/11 (write/write), 10/12, 10/13,
  // 11/12 and 11/13 (write/read) are unordered; 12/13 only read.
  REQUIRE(c.violations().size() == 5);
  CHECK(c.describe().find("device task 3: tasks 10 and 11 are unordered but both touch ws") != std::string::npos);
  CHECK(c.violations_csv().find("3,10,11,ws,") != std::string::npos);

  dt.tasks[0].succ = {1};  // 10 -> 11 -> {12, 13}
  dt.tasks[1].succ = {2, 3};
  DependencyChecker ordered(p);
  ordered.check(dt);
  CHECK(ordered.violations().empty());
  CHECK(ordered.pairs_compared() >= 3);
  CHECK(ordered.access_csv().find("3,10,ws,0x0,4,64,256,w") != std::string::npos);
}

TEST_CASE("reachability is transitive") {
  auto p = one_tensor();
  DeviceTask dt;
  dt.tasks = {task(1, {win(0, 1, 64, 0, true)}, {1}), task(2, {}, {2}), task(3, {win(0, 1, 64, 0, false)})};
  DependencyChecker c(p);
  c.check(dt);
  CHECK(c.violations().empty());
}
