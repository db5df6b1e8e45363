// Scheduler modes, the L2 and HBM models, streaming vs stored traces.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "runtime/sim/l2_cache.h"
#include "synth.h"

using namespace ptoc;
using namespace ptoc::sim;
using namespace ptoc::sim::test;

namespace {

Platform small_l2(uint64_t bytes) {
  Platform p = *find_platform("ascend910b1");
  p.l2 = int64_t(bytes);
  p.l2_reuse = 0;  // the model keeps all of it
  return p;
}

// P producer -> consumer pairs through a 64 KiB intermediate each.
std::vector<SynthRoot> pairs(CompiledProgram& p, const Platform& pf, int P) {
  const uint64_t t = 65536;
  const int prod = add_leaf(p, CoreType::AIV, 2000, 2 * t, 1, pf);
  const int cons = add_leaf(p, CoreType::AIV, 2000, 2 * t, 1, pf);
  std::vector<SynthRoot> r(1);
  for (int i = 0; i < P; ++i)
    r[0].tasks.push_back({prod, {rd((1ull << 32) + i * t, t), wr((2ull << 32) + i * t, t)}, {P + i}});
  for (int i = 0; i < P; ++i)
    r[0].tasks.push_back({cons, {rd((2ull << 32) + i * t, t), wr((3ull << 32) + i * t, t)}, {}});
  return r;
}

double consumer_hit_rate(const RoundTrace& r, int P) {
  uint64_t h = 0, m = 0;
  for (const auto& t : r.tasks)
    if ((t.task_id & 0xffff) >= uint32_t(P)) h += t.l2_read_hits, m += t.l2_read_misses;
  return double(h) / double(h + m);
}

}  // namespace

TEST_CASE("L2 affinity (device_sched_mode 1): consumers run after their producers and hit L2", "[sim][sched][l2]") {
  const Platform pf = small_l2(32u << 20);  // 32 MiB L2 against 128 MiB of intermediates
  CompiledProgram p = base_program();
  const int P = 2048;
  auto roots = pairs(p, pf, P);
  SimOptions fifo, aff;
  fifo.device_sched_mode = 0;
  aff.device_sched_mode = 1;
  Trace a = run(pf, p, roots, 1, fifo);
  Trace b = run(pf, p, roots, 1, aff);
  const double ha = consumer_hit_rate(a.rounds[0], P), hb = consumer_hit_rate(b.rounds[0], P);
  INFO("consumer L2 hit rate FIFO " << ha << ", L2 affinity " << hb);
  CHECK(ha < 0.2);
  CHECK(hb > 0.8);
  CHECK(b.rounds[0].summary.bytes_hbm < a.rounds[0].summary.bytes_hbm);
  // FIFO: every producer is dispatched before any consumer; affinity: consumers interleave.
  auto interleaved = [&](const RoundTrace& r) {
    int64_t last_prod = 0, first_cons = INT64_MAX;
    for (const auto& t : r.tasks) {
      if ((t.task_id & 0xffff) < uint32_t(P)) last_prod = std::max(last_prod, t.dispatch_ps);
      else first_cons = std::min(first_cons, t.dispatch_ps);
    }
    return first_cons < last_prod;
  };
  CHECK(interleaved(b.rounds[0]));
  CHECK_FALSE(interleaved(a.rounds[0]));
}

TEST_CASE("device_sched_mode 2: ready tasks shared fairly across scheduler threads", "[sim][sched]") {
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  const int leaf = add_leaf(p, CoreType::AIV, 3000, 0, 1, pf);
  std::vector<SynthRoot> chain(1);
  for (int i = 0; i < 100; ++i) chain[0].tasks.push_back({leaf, {}, i + 1 < 100 ? std::vector<int>{i + 1} : std::vector<int>{}});
  auto scheds_used = [&](int mode) {
    SimOptions o;
    o.device_sched_mode = mode;
    Trace t = run(pf, p, chain, 1, o);
    std::set<int> s;
    for (const auto& r : t.rounds[0].tasks) s.insert(t.rounds[0].cores[r.core].sched);
    return s.size();
  };
  CHECK(scheds_used(0) == 1);  // the resolving thread keeps the chain on its own cores
  CHECK(scheds_used(1) == 1);
  CHECK(scheds_used(2) == 5);  // round-robin over the 5 scheduler threads
  CHECK(scheds_used(3) == 5);
}

TEST_CASE("cache_policy bypass: read-once data does not evict reused data", "[sim][l2]") {
  // Per round: 2 MiB of weights read by every task, then 64 MiB of read-once activations. The
  // weights are reused by the next round. 8 MiB L2.
  const Platform pf = small_l2(8u << 20);
  auto make = [&](bool bypass) {
    CompiledProgram p = base_program();
    GmTensor w, x;
    w.name = "w";
    x.name = "x";
    x.l2_bypass = bypass;
    p.tensors = {w, x};
    const int leaf = add_leaf(p, CoreType::AIV, 1000, 65536 + 32768, 2, pf);
    std::vector<SynthRoot> r(1);
    for (int i = 0; i < 64; ++i) r[0].tasks.push_back({leaf, {rd((1ull << 30) + uint64_t(i) * 32768, 32768, 0)}, {}});
    for (int i = 0; i < 1024; ++i) r[0].tasks.push_back({leaf, {rd((1ull << 32) + uint64_t(i) * 65536, 65536, 1)}, {}});
    SimOptions o;
    o.rounds = 2;
    return run(pf, p, r, 1, o);
  };
  Trace keep = make(false), byp = make(true);
  auto weight_hits = [](const RoundTrace& r) {
    uint64_t h = 0;
    for (const auto& t : r.tasks)
      if (t.task_index < 64) h += t.l2_read_hits;
    return h;
  };
  // Round 2's first tasks: with bypass the weights are still in L2.
  CHECK(weight_hits(byp.rounds[1]) == 4096);  // all 2 MiB of weights
  CHECK(weight_hits(keep.rounds[1]) < 512);
  CHECK(byp.rounds[1].summary.bytes_hbm < keep.rounds[1].summary.bytes_hbm);
  // Bypassed data never allocates: round 2 reads it from HBM again.
  CHECK(byp.rounds[1].summary.bytes_hbm >= 64ull << 20);
}

TEST_CASE("shared HBM: many cores at once slow each transfer down, a few do not", "[sim][hbm]") {
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  const uint64_t mb = 1u << 20;
  const int leaf = add_leaf(p, CoreType::AIV, 100, mb, 1, pf);
  auto mean_span = [&](int n) {
    std::vector<SynthRoot> r(1);
    for (int i = 0; i < n; ++i) r[0].tasks.push_back({leaf, {rd((1ull << 32) + i * mb, mb)}, {}});
    Trace t = run(pf, p, r, 1, {});
    double s = 0;
    for (const auto& tr : t.rounds[0].tasks) s += double(tr.end_ps - tr.start_ps - tr.head_cycles * 1e6 / pf.core_mhz);
    return s / n;
  };
  const double one = mean_span(1), eight = mean_span(8), all = mean_span(48);
  // 8 x 59 GB/s fits in 1.6 TB/s; 48 x 59 GB/s does not: each gets 1.6 TB/s / 48 = 33 GB/s.
  CHECK(eight / one == Approx(1.0).epsilon(0.02));
  CHECK(all / one > 1.5);
  CHECK(all / one < 1.9);
}

TEST_CASE("L2 hits: data written by a producer is read at L2 rate; capacity evicts", "[sim][l2]") {
  L2Cache c(1u << 20, 512);
  L2Result r;
  c.access(0, 1u << 20, true, r);
  CHECK(r.miss_lines == 2048);
  L2Result h;
  c.access(0, 1u << 20, true, h);
  CHECK(h.hit_lines == 2048);
  CHECK(h.hit_bytes == 1u << 20);
  L2Result s;
  c.access(1u << 24, 2u << 20, true, s);  // 2 MiB stream evicts the first 1 MiB
  L2Result again;
  c.access(0, 1u << 20, true, again);
  CHECK(again.miss_lines == 2048);
  // Partial lines count the bytes they cover.
  L2Result part;
  c.access((1u << 24) + (2u << 20) - 100, 50, true, part);
  CHECK(part.hit_bytes + part.miss_bytes == 50);

  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  const int leaf = add_leaf(p, CoreType::AIV, 100, 1u << 20, 1, pf);
  std::vector<SynthRoot> r2(1);
  r2[0].tasks.push_back({leaf, {wr(1ull << 32, 1u << 20)}, {1}});
  r2[0].tasks.push_back({leaf, {rd(1ull << 32, 1u << 20)}, {}});
  r2[0].tasks.push_back({leaf, {rd(2ull << 32, 1u << 20)}, {}});
  Trace t = run(pf, p, r2, 1, {});
  const TaskRecord *warm = nullptr, *cold = nullptr;
  for (const auto& tr : t.rounds[0].tasks) {
    if (tr.task_index == 1) warm = &tr;
    if (tr.task_index == 2) cold = &tr;
  }
  REQUIRE(warm);
  REQUIRE(cold);
  CHECK(warm->l2_read_misses == 0);
  CHECK(warm->bytes_l2 == 1u << 20);
  CHECK(cold->bytes_l2 == 0);
  CHECK(warm->end_ps - warm->start_ps < cold->end_ps - cold->start_ps);
}

TEST_CASE("streaming records and the start hook leave the timeline unchanged", "[sim][trace]") {
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  auto roots = pairs(p, pf, 200);
  Trace stored = run(pf, p, roots, 1, {});
  std::vector<TaskRecord> streamed;
  std::vector<uint32_t> started;
  std::map<uint32_t, int64_t> end_of;
  bool order_ok = true;
  SimOptions o;
  o.task_sink = [&](const TaskRecord& r, const runtime::DeviceTask&) { streamed.push_back(r); end_of[r.task_id] = r.end_ps; };
  o.on_task_start = [&](const runtime::DeviceTask& dt, uint32_t i) {
    // numerics may run here: every predecessor already finished
    for (size_t j = 0; j < dt.tasks.size(); ++j)
      for (uint32_t s : dt.tasks[j].succ)
        if (s == i && !end_of.count(dt.tasks[j].task_id)) order_ok = false;
    started.push_back(i);
  };
  Trace s = run(pf, p, roots, 1, o);
  CHECK(order_ok);
  CHECK(started.size() == 400);
  CHECK(s.rounds[0].tasks.empty());
  REQUIRE(streamed.size() == stored.rounds[0].tasks.size());
  for (size_t i = 0; i < streamed.size(); ++i) {
    CHECK(streamed[i].start_ps == stored.rounds[0].tasks[i].start_ps);
    CHECK(streamed[i].end_ps == stored.rounds[0].tasks[i].end_ps);
  }
  CHECK(s.rounds[0].summary.operator_e2e_ps == stored.rounds[0].summary.operator_e2e_ps);
}

TEST_CASE("device-task done hook: once per device task, in order, after its last task", "[sim]") {
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  const int leaf = add_leaf(p, CoreType::AIV, 2000, 0, 1, pf);
  std::vector<SynthRoot> r(10);
  for (auto& x : r)
    for (int i = 0; i < 30; ++i) x.tasks.push_back({leaf, {}, {}});
  std::vector<int> done;
  std::map<int, int> ended;  // seq -> tasks ended before its done call
  bool ok = true;
  SimOptions o;
  o.rounds = 2;
  o.task_sink = [&](const TaskRecord& t, const runtime::DeviceTask&) { ended[t.seq]++; };
  o.on_device_task_done = [&](int round, const runtime::DeviceTask& dt) {
    done.push_back(round * 100 + dt.seq);
    if (ended[dt.seq] != int(dt.tasks.size())) ok = false;
    ended[dt.seq] = 0;
  };
  run(pf, p, r, 3, o);  // 4 device tasks per round
  CHECK(ok);
  CHECK(done == std::vector<int>{0, 1, 2, 3, 100, 101, 102, 103});
}

TEST_CASE("a device task that cannot complete is an error, not a hang", "[sim]") {
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  const int leaf = add_leaf(p, CoreType::AIV, 100, 0, 1, pf);
  std::vector<SynthRoot> r(1);
  r[0].tasks.push_back({leaf, {}, {1}});
  r[0].tasks.push_back({leaf, {}, {0}});  // a cycle
  CHECK_THROWS_WITH(run(pf, p, r, 1, {}), Catch::Contains("never completed"));
}

TEST_CASE("device-task stage cap: stamps past 200 device tasks are dropped and flagged", "[sim][trace]") {
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  const int leaf = add_leaf(p, CoreType::AIV, 100, 0, 1, pf);
  std::vector<SynthRoot> r(250);
  for (auto& x : r) x.tasks.push_back({leaf, {}, {}});
  Trace t = run(pf, p, r, 1, {});
  CHECK(t.rounds[0].summary.device_tasks == 250);
  CHECK(t.rounds[0].summary.devtask_stages_dropped);
  int builds = 0;
  for (const auto& e : t.rounds[0].cpu[0].events) builds += e.stage == uint8_t(CpuStage::DEV_TASK_BUILD);
  CHECK(builds == 200);
}

TEST_CASE("empty device tasks and empty rounds complete with every lane closed", "[sim]") {
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  const int leaf = add_leaf(p, CoreType::AIC, 500, 0, 1, pf);
  std::vector<SynthRoot> r(3);
  r[1].tasks.push_back({leaf, {}, {}});  // roots 0 and 2 have no tasks
  Trace t = run(pf, p, r, 1, {});
  CHECK(t.rounds[0].summary.device_tasks == 3);
  CHECK(t.rounds[0].summary.tasks == 1);
  for (const auto& lane : t.rounds[0].cpu) CHECK(lane.events.back().stage == uint8_t(CpuStage::EXIT));
  for (const auto& lane : t.rounds[0].cores) CHECK(lane.events.back().stage == uint8_t(CoreStage::WAIT_EXIT_NOTIFY));

  Trace none = run(pf, p, {}, 1, {});
  CHECK(none.rounds[0].summary.device_tasks == 0);
  CHECK(none.rounds[0].summary.tasks == 0);
  for (const auto& lane : none.rounds[0].cpu) CHECK(lane.events.back().stage == uint8_t(CpuStage::EXIT));
  CHECK(none.rounds[0].summary.operator_e2e_ps > 0);
}
