// The control-flow walk: gears, stitch sizes, workspace cuts, dependencies by
// GM overlap inside and across device tasks, run-time checks, and memory that
// stays flat while millions of root instances stream through.
#include <catch2/catch.hpp>

#include <chrono>
#include <ctime>
#include <fstream>
#include <set>

#include "programs.h"
#include "runtime/control_flow.h"

using namespace ptoc;
using namespace ptoc::runtime;
using test::region;
using test::S;

namespace {

std::vector<DeviceTask> all_device_tasks(ControlFlow& cf, bool release = true) {
  std::vector<DeviceTask> v;
  DeviceTask dt;
  while (cf.next(dt)) {
    v.push_back(dt);
    if (release) cf.release(dt.seq);
  }
  return v;
}

std::vector<uint32_t> preds_of(const DeviceTask& dt, uint32_t t) {
  std::vector<uint32_t> p;
  for (uint32_t i = 0; i < dt.tasks.size(); ++i)
    for (uint32_t s : dt.tasks[i].succ)
      if (s == t) p.push_back(i);
  return p;
}

ControlFlowOptions stitch(int64_t n, int64_t ws_kb = 0) {
  ControlFlowOptions o;
  o.stitch_function_max_num = n;
  o.max_workspace_kb = ws_kb;
  return o;
}

DimExpr::Env env208() { return {{"N", 208}, {"C", 64}}; }

int64_t rss_kb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  return 0;
}

// One loop; one root per iteration with one task.
CompiledProgram single_loop(std::vector<GmTensor> tensors, DimExpr trip, std::vector<Task> tasks) {
  CompiledProgram p;
  p.name = "t";
  p.tensors = std::move(tensors);
  LeafFunction l;
  l.id = 0;
  l.kernel = 0;
  p.leaves = {l};
  Kernel k;
  k.name = "k";
  p.kernels = {k};
  RootFunction r;
  r.index = 0;
  r.name = "LOOP";
  r.loop_vars = {"j"};
  r.tasks = std::move(tasks);
  p.roots = {r};
  LoopNode loop;
  loop.kind = LoopNode::Kind::Loop;
  loop.var = "j";
  loop.name = "LOOP";
  loop.end = trip;
  Gear g;
  LoopNode call;
  call.root = 0;
  g.body = {call};
  loop.gears = {g};
  p.control = {loop};
  return p;
}

GmTensor tensor(const char* name, GmTensor::Role role, std::vector<DimExpr> shape) {
  GmTensor t;
  t.name = name;
  t.role = role;
  t.shape = std::move(shape);
  return t;
}

}  // namespace

TEST_CASE("loops are covered greedily by unroll gears and stitched by stitch_function_max_num") {
  CompiledProgram p = test::flip_program();
  ControlFlow cf(p, env208(), stitch(4));
  auto dts = all_device_tasks(cf);
  // Loop A: 13 iterations = 4 + 4 + 4 + 1; loop B: 13 roots. 17 roots in stitches of 4.
  REQUIRE(dts.size() == 5);
  std::vector<size_t> sizes;
  for (auto& d : dts) sizes.push_back(d.roots.size());
  CHECK(sizes == std::vector<size_t>{4, 4, 4, 4, 1});
  const auto& a = dts[0].roots;
  CHECK(a[0].root == 0);
  CHECK(a[1].root == 0);
  CHECK(a[2].root == 0);
  CHECK(a[3].root == 1);
  CHECK(a[0].env.at("i") == 0);
  CHECK(a[1].env.at("i") == 4);
  CHECK(a[2].env.at("i") == 8);
  CHECK(a[3].env.at("i") == 12);
  CHECK(a[0].env.at("k") == 4);
  CHECK(a[3].env.at("k") == 1);
  CHECK(a[3].env.at("N") == 208);
  CHECK(dts[1].roots[2].env.at("j") == 2);
  CHECK(dts[1].roots[2].env.count("i") == 0);  // loop A's variable is out of scope in loop B
  for (size_t i = 0; i < dts.size(); ++i) CHECK(dts[i].seq == int(i));
  CHECK(cf.stats().root_instances == 17);
  CHECK(cf.stats().tasks == 4 * 2 + 13);
  // Args and task ids of an instance.
  const TaskInstance& b2 = dts[1].tasks[2];  // B_2
  CHECK(b2.args == std::vector<int64_t>{(13 - 1 - 2) * 16, 2 * 16, 64});
  CHECK(b2.task_id == (6u << 16));  // 7th root instance of the round, task 0
  CHECK(dts[0].tasks[3].task_id == ((1u << 16) | 1u));
}

TEST_CASE("trip counts of every size are covered exactly") {
  CompiledProgram p = test::flip_program();
  for (int64_t nb : {0, 1, 3, 4, 5, 8, 9, 17}) {
    ControlFlow cf(p, {{"N", nb * 16}, {"C", 64}}, stitch(1024));
    auto dts = all_device_tasks(cf);
    int64_t covered = 0, expect_roots = nb / 4 + nb % 4 + nb;
    int64_t roots = 0;
    for (auto& d : dts)
      for (auto& r : d.roots) {
        ++roots;
        if (r.root <= 1) {
          CHECK(r.env.at("i") == covered);
          covered += r.env.at("k");
        }
      }
    CHECK(covered == nb);
    CHECK(roots == expect_roots);
  }
}

TEST_CASE("GM addresses: spec tensors at fixed bases, temps per instance") {
  CompiledProgram p = test::flip_program();
  ControlFlow cf(p, env208(), stitch(1024));
  const GmLayout& l = cf.layout();
  CHECK(l.base[0] == kGmBase);
  CHECK(l.base[1] == kGmBase + 208 * 64 * 4);
  CHECK(l.base[0] % kGmAlign == 0);
  CHECK(l.base[3] % kGmAlign == 0);
  CHECK(l.base[4] == 0);  // temps have no fixed base
  CHECK(l.pool_base > l.base[3]);
  DeviceTask dt;
  REQUIRE(cf.next(dt));
  std::set<uint64_t> temp_bases;
  for (size_t r = 0; r < 4; ++r) {
    REQUIRE(dt.roots[r].temp_base.size() == 1);
    uint64_t tb = dt.roots[r].temp_base[0];
    CHECK(tb >= l.pool_base);
    temp_bases.insert(tb);
    const TaskInstance& add = dt.tasks[2 * r];
    CHECK(add.gm == std::vector<uint64_t>{l.base[0], l.base[1], tb});
    // Accesses: x and y rows of this instance, the whole temp.
    REQUIRE(add.accesses.size() == 3);
    CHECK(add.accesses[0].addr == l.base[0] + uint64_t(dt.roots[r].env.at("i")) * 16 * 64 * 4);
    CHECK(add.accesses[0].bytes() == uint64_t(dt.roots[r].env.at("k")) * 16 * 64 * 4);
    CHECK(add.accesses[2].write);
    CHECK(add.accesses[2].addr == tb);
  }
  CHECK(temp_bases.size() == 4);
  CHECK(dt.roots[0].workspace_bytes == 64 * 64 * 4);
  CHECK(dt.roots[3].workspace_bytes == 16 * 64 * 4);
  CHECK(dt.workspace_bytes == 3 * 64 * 64 * 4 + 16 * 64 * 4);
}

TEST_CASE("dependencies between root instances of one device task follow GM overlap") {
  CompiledProgram p = test::flip_program();
  ControlFlow cf(p, env208(), stitch(1024));
  auto dts = all_device_tasks(cf);
  REQUIRE(dts.size() == 1);
  const DeviceTask& dt = dts[0];
  REQUIRE(dt.tasks.size() == 21);
  CHECK(dt.waits_for.empty());
  // A instance r: tasks 2r (add) -> 2r+1 (scale), intra-root only.
  for (uint32_t r = 0; r < 4; ++r) {
    CHECK(dt.tasks[2 * r].pred_count == 0);
    CHECK(preds_of(dt, 2 * r + 1) == std::vector<uint32_t>{2 * r});
  }
  // B_j reads block 12-j of ws: it waits for exactly the scale task of the A instance that wrote it.
  for (uint32_t j = 0; j < 13; ++j) {
    uint32_t block = 12 - j, a = block < 12 ? block / 4 : 3;
    INFO("B_" << j);
    CHECK(preds_of(dt, 8 + j) == std::vector<uint32_t>{2 * a + 1});
    CHECK(dt.tasks[8 + j].pred_count == 1);
  }
  CHECK(cf.stats().edges_cross_root == 13);
}

TEST_CASE("waits_for lists only device tasks not released yet") {
  CompiledProgram p = test::flip_program();
  ControlFlow cf(p, env208(), stitch(2));
  auto dts = all_device_tasks(cf, true);
  REQUIRE(dts.size() == 9);
  for (auto& d : dts) CHECK(d.waits_for.empty());
}

TEST_CASE("dependencies across device tasks become waits_for") {
  CompiledProgram p = test::flip_program();
  ControlFlow cf(p, env208(), stitch(2));
  auto dts = all_device_tasks(cf, false);
  // dt0 [A0 A4] dt1 [A8 A12] dt2 [B0 B1] ... dt8 [B12]
  REQUIRE(dts.size() == 9);
  CHECK(dts[0].waits_for.empty());
  CHECK(dts[1].waits_for.empty());
  CHECK(dts[2].waits_for == std::vector<int>{1});     // blocks 12, 11
  CHECK(dts[3].waits_for == std::vector<int>{1});     // blocks 10, 9
  CHECK(dts[4].waits_for == std::vector<int>{0, 1});  // blocks 8, 7
  CHECK(dts[5].waits_for == std::vector<int>{0});     // blocks 6, 5
  CHECK(dts[8].waits_for == std::vector<int>{0});     // block 0
  for (auto& d : dts)
    for (auto& t : d.tasks) CHECK(t.pred_count == (t.leaf == 1 ? 1u : 0u));  // no stitched edge needed here
}

TEST_CASE("max_workspace_kb cuts a stitch before the workspace would exceed it") {
  CompiledProgram p = test::flip_program();
  ControlFlow cf(p, env208(), stitch(1024, 32));
  auto dts = all_device_tasks(cf);
  // A0, A4 hold 16 KiB of temp each: A8 would make 48 KiB.
  REQUIRE(dts.size() == 2);
  CHECK(dts[0].roots.size() == 2);
  CHECK(dts[0].workspace_bytes == 32 * 1024);
  CHECK(dts[1].roots.size() == 15);
  CHECK(dts[1].workspace_bytes == 16 * 1024 + 4 * 1024);
  // A root larger than the cap still runs, alone.
  ControlFlow small(p, env208(), stitch(1024, 8));
  auto d2 = all_device_tasks(small);
  CHECK(d2[0].roots.size() == 1);
  CHECK(d2[0].workspace_bytes == 16 * 1024);
}

TEST_CASE("released device tasks give their workspace back to the pool") {
  CompiledProgram p = test::flip_program();
  ControlFlow keep(p, env208(), stitch(1));
  auto held = all_device_tasks(keep, false);
  ControlFlow rec(p, env208(), stitch(1));
  auto recycled = all_device_tasks(rec, true);
  CHECK(held[0].roots[0].temp_base != held[1].roots[0].temp_base);
  CHECK(recycled[0].roots[0].temp_base == recycled[1].roots[0].temp_base);
  CHECK(keep.stats().peak_workspace_bytes == 3 * 64 * 64 * 4 + 16 * 64 * 4);
  CHECK(rec.stats().peak_workspace_bytes == 64 * 64 * 4);
}

TEST_CASE("2-D tiles: column-disjoint tiles are independent, overlaps order RAW, WAR and WAW") {
  // ws [16, 128]: loop W writes column tiles j (16 wide); loop R reads tiles shifted by 8 columns;
  // then one root overwrites the whole of ws.
  CompiledProgram p = single_loop({tensor("ws", GmTensor::Role::Workspace, {16, 128}),
                                   tensor("out", GmTensor::Role::Output, {16, 128})},
                                  8, {});
  DimExpr j = S("j");
  Task w;
  w.leaf = 0;
  w.writes = {region(0, {0, j * 16}, {16, 16})};
  p.roots[0].tasks = {w};
  RootFunction rr = p.roots[0];
  rr.index = 1;
  Task r;
  r.leaf = 0;
  r.reads = {region(0, {0, j * 16 + 8}, {16, 16})};
  r.writes = {region(1, {0, j * 16}, {16, 16})};
  rr.tasks = {r};
  RootFunction whole = p.roots[0];
  whole.index = 2;
  whole.loop_vars = {};
  Task ww;
  ww.leaf = 0;
  ww.writes = {region(0, {0, 0}, {16, 128})};
  whole.tasks = {ww};
  p.roots.push_back(rr);
  p.roots.push_back(whole);
  LoopNode lr = p.control[0];
  lr.end = 7;
  lr.gears[0].body[0].root = 1;
  LoopNode call2;
  call2.root = 2;
  p.control = {p.control[0], lr, call2};

  ControlFlow cf(p, {}, stitch(1024));
  auto dts = all_device_tasks(cf);
  REQUIRE(dts.size() == 1);
  const DeviceTask& dt = dts[0];
  REQUIRE(dt.tasks.size() == 16);
  for (uint32_t t = 0; t < 8; ++t) CHECK(dt.tasks[t].pred_count == 0);  // W tiles are disjoint
  for (uint32_t k = 0; k < 7; ++k) CHECK(preds_of(dt, 8 + k) == std::vector<uint32_t>{k, k + 1});
  // The whole overwrite follows every W (WAW) and every R (WAR).
  auto last = preds_of(dt, 15);
  CHECK(last.size() == 15);
}

TEST_CASE("runtime_debug_mode 4 checks bounds and divisible_by") {
  CompiledProgram p = test::flip_program();
  ControlFlowOptions o = stitch(4);
  o.check_bounds = true;
  o.check_divisible = true;
  {
    ControlFlow cf(p, env208(), o);
    CHECK(all_device_tasks(cf).size() == 5);  // a correct program passes
  }
  CompiledProgram bad = p;
  bad.roots[2].tasks[0].reads[0].offset[0] = bad.roots[2].tasks[0].reads[0].offset[0] + 8;
  {
    ControlFlow cf(bad, env208(), o);
    DeviceTask dt;
    CHECK(cf.next(dt));
    CHECK_THROWS_WITH(cf.next(dt), Catch::Contains("GM bounds check failed: task 0 (leaf 2) of root function "
                                                   "'LOOP_B' (j=0) reads tensor 'ws' at offset [200, 0] extent [16, 64]: "
                                                   "axis 0 spans [200, 216) but the bound is 208"));
  }
  {
    // An empty box touches nothing: its offset may point past the end (a tail tile of extent 0),
    // but a negative extent is still reported.
    CompiledProgram empty = p;
    auto& rd = empty.roots[2].tasks[0].reads[0];
    rd.offset[0] = rd.offset[0] + 208;
    rd.extent[0] = DimExpr(0);
    ControlFlow ok(empty, env208(), o);
    CHECK(all_device_tasks(ok).size() == 5);
    rd.extent[0] = DimExpr(-1);
    ControlFlow neg(empty, env208(), o);
    DeviceTask dt;
    CHECK(neg.next(dt));
    CHECK_THROWS_WITH(neg.next(dt), Catch::Contains("extent [-1, 64]: axis 0 spans"));
  }
  {
    ControlFlow cf(p, {{"N", 200}, {"C", 64}}, o);
    DeviceTask dt;
    CHECK_THROWS_WITH(cf.next(dt), Catch::Contains("dim N = 200 is not divisible by 16"));
  }
  {
    ControlFlow cf(p, {{"N", 200}, {"C", 64}}, stitch(4));  // unchecked: runs
    DeviceTask dt;
    CHECK(cf.next(dt));
  }
}

TEST_CASE("every box is checked against its tensor in every mode, naming the statement") {
  CompiledProgram bad = test::flip_program();
  auto& rd = bad.roots[2].tasks[0].reads[0];
  rd.offset[0] = rd.offset[0] + 8;
  rd.loc = {12, 7};
  ControlFlow cf(bad, env208(), stitch(4));  // runtime_debug_mode 0
  DeviceTask dt;
  CHECK(cf.next(dt));  // loop A, in bounds
  CHECK_THROWS_WITH(cf.next(dt), Catch::Equals(
      "flip.yaml:12:7: out-of-bounds read of tensor 'ws': axis 0 offset 200 extent 16 spans [200, 216) but the "
      "bound is 208 (box offset [200, 0] extent [16, 64], root function 'LOOP_B' at j=0); the dims bound for this "
      "run (N=208, C=64) do not fit the tensor's shape: check the --dim values against the input shapes"));
  // A box of extent 0 touches nothing and passes wherever its offset points.
  rd.extent[0] = DimExpr(0);
  ControlFlow ok(bad, env208(), stitch(4));
  CHECK(all_device_tasks(ok).size() == 5);
}

TEST_CASE("the test switch drops the compiler's edges inside root functions only") {
  CompiledProgram p = test::flip_program();
  ControlFlowOptions o = stitch(1024);
  ControlFlow with(p, env208(), o);
  auto a = all_device_tasks(with);
  o.drop_compiler_edges = true;
  ControlFlow without(p, env208(), o);
  auto b = all_device_tasks(without);
  REQUIRE(a.size() == 1);
  REQUIRE(b.size() == 1);
  REQUIRE(a[0].tasks.size() == b[0].tasks.size());
  size_t intra_a = 0, intra_b = 0, cross_a = 0, cross_b = 0;
  auto count = [](const DeviceTask& dt, size_t& intra, size_t& cross) {
    for (const auto& t : dt.tasks)
      for (uint32_t s : t.succ) (dt.tasks[s].root_instance == t.root_instance ? intra : cross)++;
  };
  count(a[0], intra_a, cross_a);
  count(b[0], intra_b, cross_b);
  CHECK(intra_a > 0);
  CHECK(intra_b == 0);
  CHECK(cross_b > 0);  // GM overlap between root instances is the runtime's own finding: kept
}

TEST_CASE("malformed programs give clear errors") {
  CompiledProgram p = test::flip_program();
  CompiledProgram nogear = p;
  nogear.control[0].gears.pop_back();  // only factor 4 left
  {
    ControlFlow cf(nogear, {{"N", 16 * 5}, {"C", 64}}, stitch(1024));
    DeviceTask dt;
    CHECK_THROWS_WITH(cf.next(dt), Catch::Contains("loop 'LOOP_A' has no unroll gear that fits 1 remaining"));
  }
  CompiledProgram unbound = p;
  unbound.roots[2].tasks[0].args[0] = S("i");  // loop A's variable used in loop B
  {
    ControlFlow cf(unbound, env208(), stitch(1024));
    DeviceTask dt;
    CHECK_THROWS_WITH(cf.next(dt), Catch::Contains("root function 'LOOP_B': task 0 argument 0 uses 'i'"));
  }
}

TEST_CASE("one million root instances stream with flat memory") {
  // out [M, 16] written row by row; every row also reads a shared table (never written: untracked)
  // and the previous row of out (tracked, a chain of RAW dependencies through the whole run).
  const int64_t M = 1000000;
  DimExpr j = S("j");
  Task t;
  t.leaf = 0;
  t.gm = {0, 1};
  t.args = {j, j * 16};
  t.reads = {region(0, {0, 0}, {4, 16}), region(1, {max(j - 1, DimExpr(0)), 0}, {1, 16})};
  t.writes = {region(1, {j, 0}, {1, 16})};
  CompiledProgram p = single_loop({tensor("table", GmTensor::Role::Input, {4, 16}),
                                   tensor("out", GmTensor::Role::Output, {S("M"), 16})},
                                  S("M"), {t});
  ControlFlow cf(p, {{"M", M}}, stitch(128));
  DeviceTask dt;
  int64_t rss_early = 0;
  uint64_t n = 0, waits = 0;
  const std::clock_t c0 = std::clock();  // CPU time: wall time means little on a loaded machine
  // Two device tasks in flight: each is released after the next one was built, so the
  // chain shows up in waits_for (a device task waits only for unreleased ones).
  while (cf.next(dt)) {
    n += dt.tasks.size();
    waits += dt.waits_for.size();
    if (dt.seq > 0 && dt.waits_for != std::vector<int>{dt.seq - 1}) FAIL("device task " << dt.seq << " waits wrongly");
    if (dt.seq > 0) cf.release(dt.seq - 1);
    if (n == 100 * 128) rss_early = rss_kb();
  }
  double secs = double(std::clock() - c0) / CLOCKS_PER_SEC;
  int64_t rss_late = rss_kb();
  WARN("1M root instances: " << secs << " CPU s (" << double(n) / secs / 1e6 << " M tasks/s), RSS " << rss_early
                             << " kB after 12.8k, " << rss_late << " kB at the end");
  CHECK(n == uint64_t(M));
  CHECK(waits == uint64_t(M / 128 + (M % 128 ? 1 : 0) - 1));
  CHECK(rss_late - rss_early < 16 * 1024);  // the state of a million tasks would be far more
}
