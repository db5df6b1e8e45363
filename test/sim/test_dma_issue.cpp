// The issue cost every DMA instruction pays on the MTE2 queue (runtime/sim/dma_issue.h): a leaf of many
// one-burst copies against the CANN asc-devkit data_copy board figure it was derived from.
#include <catch2/catch.hpp>

#include <cmath>

#include "runtime/sim/dma_issue.h"
#include "test/sim/synth.h"

using namespace ptoc;
using namespace ptoc::sim;
using namespace ptoc::sim::test;

namespace {

// Cycles per copy of one AIV task that copies `n` rows of 128 B (one burst each, 24 KiB apart: rows of
// the 12288-wide fp16 matrix), the leaf costed as the compiler costs a copy-in (start-up + burst floor).
double cycles_per_copy(const Platform& pf, int n) {
  CompiledProgram p = base_program();
  const int leaf = add_leaf(p, CoreType::AIV, 0, int64_t(n) * 128, 1, pf);
  const int64_t per_copy = pf.dma_startup_cycles + int64_t(std::ceil(pf.dma_burst_min_cycles));
  p.leaves[leaf].pipe_cycles[int(PipeId::MTE2)] = int64_t(n) * per_copy;
  p.leaves[leaf].est_cycles = int64_t(n) * per_copy;
  std::vector<SynthRoot> roots(1);
  SynthTask st;
  st.leaf = leaf;
  for (int i = 0; i < n; ++i) st.acc.push_back(rd((1ull << 32) + uint64_t(i) * 24576, 128));
  roots[0].tasks.push_back(st);
  Trace t = run(pf, p, roots, 1);
  const TaskRecord& r = t.rounds.at(0).tasks.at(0);
  return double(r.total_cycles - pf.task_head_cycles) / n;
}

}  // namespace

TEST_CASE("dma issue: one-burst copies back to back cost the board's cycles per instruction", "[sim][dma]") {
  // asc-devkit data_copy, GM -> UB scenario 1 ([1,64] tiles, one 128 B burst per DataCopyPad): 20.63
  // cycles an instruction on Atlas A2/A3, 39.44 on Ascend 950 (dma_issue.h). Without the issue cost
  // the model gave 6 (the burst floor and the bytes; every start-up after the first hidden).
  const Platform& a2 = *find_platform("ascend910b1");
  const Platform& a5 = *find_platform("ascend950pr");
  const double c2 = cycles_per_copy(a2, 4096), c5 = cycles_per_copy(a5, 4096);
  INFO("910B1 " << c2 << " cycles a copy (board 20.63), 950PR " << c5 << " (board 39.44)");
  CHECK(c2 == Approx(20.63).epsilon(0.05));
  CHECK(c5 == Approx(39.44).epsilon(0.05));
  // The issue cost never exceeds the start-up the compiler charges (it is a part of it).
  CHECK(dma_issue_cycles(a2) <= a2.dma_startup_cycles);
  CHECK(dma_issue_cycles(a5) <= a5.dma_startup_cycles);
}

TEST_CASE("dma issue: a few large copies are still bound by their bytes", "[sim][dma]") {
  // 16 copies of 64 KiB: the issue cost (15 cycles each) is under 1 % of 2048 cycles of transfer.
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram p = base_program();
  const uint64_t bytes = 64 * 1024;
  const int copies = 16;
  const int leaf = add_leaf(p, CoreType::AIV, 0, int64_t(copies * bytes), 1, pf);
  const int64_t transfer = int64_t(copies * bytes) / pf.gm_read_bpc;
  p.leaves[leaf].pipe_cycles[int(PipeId::MTE2)] = transfer + copies * pf.dma_startup_cycles;
  p.leaves[leaf].est_cycles = p.leaves[leaf].pipe_cycles[int(PipeId::MTE2)];
  std::vector<SynthRoot> roots(1);
  SynthTask st;
  st.leaf = leaf;
  for (int i = 0; i < copies; ++i) st.acc.push_back(rd((1ull << 32) + uint64_t(i) * bytes, bytes));
  roots[0].tasks.push_back(st);
  Trace t = run(pf, p, roots, 1);
  const TaskRecord& r = t.rounds.at(0).tasks.at(0);
  const double work = double(r.total_cycles - pf.task_head_cycles);
  CHECK(work == Approx(double(transfer + pf.gm_latency_cycles + (copies - 1) * dma_issue_cycles(pf))).epsilon(0.01));
}
