// The L2 the model keeps for reuse (Platform::l2_reuse), looked up in K-slices, and the leaf overlap
// taken from the compiler's estimate (runtime/sim/MODEL.md, "Why these choices").
#include <catch2/catch.hpp>

#include "test/sim/synth.h"

using namespace ptoc;
using namespace ptoc::sim;
using namespace ptoc::sim::test;

namespace {

runtime::GmAccess block(uint64_t addr, uint64_t rows, uint64_t row_bytes, uint64_t stride) {
  runtime::GmAccess a = rd(addr, row_bytes);
  a.rows = rows;
  a.row_stride = stride;
  return a;
}

}  // namespace

TEST_CASE("the 910B model keeps PyPTO's CostModel L2 (20 MiB) for reuse, not the ini's 192 MiB", "[sim][l2]") {
  const Platform& pf = *find_platform("ascend910b1");
  CHECK(pf.l2 == (192ll << 20));
  CHECK(pf.l2_reuse == (20ll << 20));
}

TEST_CASE("K-slices: a block shared by one round of cores hits for every core but the first", "[sim][l2]") {
  // 24 AIC tasks start together; each reads the same A block (128 rows of 16 KiB: K along the row, 2 MiB)
  // and its own B block (98304 rows of 256 B: K down the rows, 24 MiB). Looked up whole at each task's
  // start, A is evicted by the 24 MiB of B between two cores' touches (more than the 20 MiB L2); slice by
  // slice, consecutive cores touch each eighth of A 3 MiB apart, so it stays for all but the first.
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  const int leaf = add_leaf(p, CoreType::AIC, 20000, 26 << 20, 1, pf);
  std::vector<SynthRoot> roots(1);
  const uint64_t a = 1ull << 32, b = 2ull << 32;
  for (int i = 0; i < pf.aic; ++i)
    roots[0].tasks.push_back({leaf, {block(a, 128, 16384, 16384), block(b + uint64_t(i) * (24 << 20), 98304, 256, 256)}, {}});
  Trace t = run(pf, p, roots, 1);
  uint64_t hits = 0, misses = 0;
  for (const auto& r : t.rounds[0].tasks) hits += r.l2_read_hits, misses += r.l2_read_misses;
  const uint64_t a_lines = (2u << 20) / 512;
  INFO("hits " << hits << " misses " << misses << " (A: " << a_lines << " lines per task)");
  CHECK(hits >= uint64_t(0.95 * double(a_lines) * (pf.aic - 1)));
  CHECK(hits <= a_lines * uint64_t(pf.aic - 1));  // B is private: never a hit
  CHECK(misses >= a_lines * uint64_t(pf.aic));     // every B line and the first core's A
}

TEST_CASE("leaf overlap from the estimate: L2 hits shorten an overlapped leaf to its compute", "[sim][l2][work]") {
  // One task reading 1 MiB, compute 20 000 cycles; round 2 finds the MiB in L2. A leaf whose estimate
  // hides the compute under the loads (a double-buffered K loop: est = memory phase) then costs
  // max(M, X) = X; a leaf whose estimate is load-then-compute costs M + X.
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  const int64_t x = 20000, mem_nom = (1 << 20) / 32 + pf.gm_latency_cycles;  // uncontended all-miss phase
  const int over = add_leaf(p, CoreType::AIC, x, 1 << 20, 1, pf);
  const int serial = add_leaf(p, CoreType::AIC, x, 1 << 20, 1, pf);
  p.leaves[over].est_cycles = mem_nom;
  p.leaves[serial].est_cycles = mem_nom + x;
  SimOptions o;
  o.rounds = 2;
  auto one = [&](int leaf) {
    std::vector<SynthRoot> roots(1);
    roots[0].tasks.push_back({leaf, {rd(1ull << 32, 1 << 20)}, {}});
    Trace t = run(pf, p, roots, 1, o);
    REQUIRE(t.rounds.size() == 2);
    const TaskRecord& cold = t.rounds[0].tasks.at(0);
    const TaskRecord& warm = t.rounds[1].tasks.at(0);
    CHECK(cold.l2_read_hits == 0);
    CHECK(warm.l2_read_misses == 0);
    return std::pair<int64_t, int64_t>(cold.total_cycles - pf.task_head_cycles, warm.total_cycles - pf.task_head_cycles);
  };
  const auto [over_cold, over_warm] = one(over);
  const auto [serial_cold, serial_warm] = one(serial);
  const double hit_phase = double(1 << 20) / pf.l2_read_bpc + double(pf.l2_hit_latency_cycles);
  INFO("overlapped " << over_cold << " -> " << over_warm << ", serial " << serial_cold << " -> " << serial_warm);
  // Cold: exactly the estimates.
  CHECK(double(over_cold) == Approx(double(mem_nom)).epsilon(0.01));
  CHECK(double(serial_cold) == Approx(double(mem_nom + x)).epsilon(0.01));
  // Warm: the overlapped leaf is bound by its compute, the serial one pays the L2 phase on top.
  CHECK(double(over_warm) == Approx(double(x)).epsilon(0.01));
  CHECK(double(serial_warm) == Approx(hit_phase + double(x)).epsilon(0.01));
}

TEST_CASE("leaf overlap: the start-ups of back-to-back copies are hidden, not overlap lost", "[sim][l2][work]") {
  // 16 copies in of 64 KiB, compute 20 000 cycles hidden under the loads by the estimate (a double-
  // buffered K loop: est = MTE2). The compiler's MTE2 charges each copy its 200-cycle start-up; the timed
  // phase charges one latency, since back-to-back copies hide the rest (asc-devkit board figures,
  // test_dma_bursts). Read against the timed phase alone, those 15 start-ups looked like overlap lost
  // (phi 0.85) and a warm leaf paid 15 % of its L2 phase on top of its compute.
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  const int copies = 16;
  const uint64_t bytes = 64 * 1024;
  const int64_t x = 20000, transfer = int64_t(copies * bytes / 32);
  const int leaf = add_leaf(p, CoreType::AIC, x, int64_t(copies * bytes), 1, pf);
  p.leaves[leaf].pipe_cycles[int(PipeId::MTE2)] = transfer + copies * pf.l1_dma_startup_cycles;
  p.leaves[leaf].est_cycles = p.leaves[leaf].pipe_cycles[int(PipeId::MTE2)];
  SimOptions o;
  o.rounds = 2;
  std::vector<SynthRoot> roots(1);
  SynthTask st;
  st.leaf = leaf;
  for (int i = 0; i < copies; ++i) st.acc.push_back(rd((1ull << 32) + uint64_t(i) * bytes, bytes));
  roots[0].tasks.push_back(st);
  Trace t = run(pf, p, roots, 1, o);
  REQUIRE(t.rounds.size() == 2);
  const TaskRecord& cold = t.rounds[0].tasks.at(0);
  const TaskRecord& warm = t.rounds[1].tasks.at(0);
  CHECK(cold.l2_read_hits == 0);
  CHECK(warm.l2_read_misses == 0);
  const int64_t cold_work = cold.total_cycles - pf.task_head_cycles, warm_work = warm.total_cycles - pf.task_head_cycles;
  INFO("cold " << cold_work << ", warm " << warm_work << " (estimate " << p.leaves[leaf].est_cycles << ")");
  // Cold: the transfer and one latency, the estimate less the 15 hidden start-ups.
  CHECK(double(cold_work) == Approx(double(transfer + pf.gm_latency_cycles)).epsilon(0.01));
  // Warm: the L2 phase (1 MiB / 110 B per cycle, ~9 500 cycles) is under the compute.
  CHECK(double(warm_work) == Approx(double(x)).epsilon(0.01));
}
