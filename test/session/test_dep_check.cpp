// runtime_debug_mode 3: unordered tasks touching the same GM bytes with a write are found; ordered
// ones, read-read sharing and interleaved (non-overlapping) strided windows are not.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>

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

TEST_CASE("pairs are named by kind in program order, with byte spans from the tensor's start") {
  auto p = one_tensor();
  DeviceTask dt;
  // Task 0 reads rows 0..3, task 1 writes row 2 (WAR), task 2 writes rows 0..1 after task 0 read them (WAR),
  // task 3 reads row 2 after task 1 wrote it (RAW); tasks 1 and 2 write disjoint rows.
  const uint64_t base = 0x1000;
  dt.tasks = {task(100, {win(base, 4, 256, 256, false)}), task(101, {win(base + 512, 1, 256, 0, true)}),
              task(102, {win(base, 2, 256, 256, true)}), task(103, {win(base + 512, 1, 256, 0, false)})};
  DependencyChecker c(p);
  c.set_tensor_bases({base});
  c.check(dt);
  REQUIRE(c.violations().size() == 3);
  std::vector<std::string> kinds;
  for (auto& v : c.violations()) kinds.push_back(fmt::format("{}:{}-{}", v.kind(), v.task_a, v.task_b));
  std::sort(kinds.begin(), kinds.end());
  CHECK(kinds == std::vector<std::string>{"RAW:101-103", "WAR:100-101", "WAR:100-102"});
  const std::string d = c.describe();
  CHECK(d.find("tasks 100 and 101 are unordered but both touch ws at 0x1200 (read / write): WAR, task 100 reads "
               "bytes [0, 1024) and task 101 writes bytes [512, 768) of ws") != std::string::npos);
  CHECK(c.violations_csv().find(",WAR,0-1024,512-768\n") != std::string::npos);
}

TEST_CASE("atomic adds into the same bytes commute; an atomic add against a plain access does not") {
  auto p = one_tensor();
  DeviceTask dt;
  GmAccess add = win(0, 4, 64, 256, true);
  add.atomic = true;
  dt.tasks = {task(1, {add}), task(2, {add}), task(3, {add})};
  DependencyChecker c(p);
  c.check(dt);
  CHECK(c.violations().empty());
  dt.tasks.push_back(task(4, {win(0, 1, 64, 0, false)}));  // a plain read of row 0, unordered with the adds
  DependencyChecker d(p);
  d.check(dt);
  CHECK(d.violations().size() == 3);
}

TEST_CASE("observed accesses replace the declared ones; an empty observed read inside a written box counts") {
  auto p = one_tensor();
  DeviceTask dt;
  dt.tasks = {task(1, {win(0, 1, 64, 0, true)}), task(2, {})};  // declared: task 2 touches nothing
  std::vector<std::vector<GmAccess>> seen(2);
  seen[0] = {win(0, 1, 64, 0, true)};
  seen[1] = {win(32, 0, 64, 64, false)};  // a load of 0 rows starting inside task 1's bytes
  DependencyChecker declared(p);
  declared.check(dt);
  CHECK(declared.violations().empty());
  DependencyChecker observed(p);
  observed.check(dt, &seen);
  REQUIRE(observed.violations().size() == 1);
  CHECK(observed.violations()[0].addr == 32);
  CHECK(std::string(observed.violations()[0].kind()) == "RAW");
  // The same empty read at the end of the written bytes touches nothing.
  seen[1] = {win(64, 0, 64, 64, false)};
  DependencyChecker at_end(p);
  at_end.check(dt, &seen);
  CHECK(at_end.violations().empty());
}
