// Each effect of the tuning guide (shared/reference/tuning-guide.md), asserted as a direction on a
// synthetic program built to show it. The reason is checked too (gaps, heads, bytes, tasks, hits).
#include <catch2/catch.hpp>

#include "synth.h"

using namespace ptoc;
using namespace ptoc::sim;
using namespace ptoc::sim::test;

namespace {

const Platform& b1() { return *find_platform("ascend910b1"); }

// Independent vector tasks: `roots` roots of `per_root` tasks, each a ~`us` microsecond vector op on
// its own 16 KiB tile.
std::vector<SynthRoot> vec_roots(CompiledProgram& p, int roots, int per_root, double us) {
  const Platform& pf = b1();
  const int64_t cyc = int64_t(us * pf.core_mhz);
  const int leaf = add_leaf(p, CoreType::AIV, cyc, 32768, 2, pf);
  std::vector<SynthRoot> out(roots);
  uint64_t addr = 1ull << 32;
  for (auto& r : out)
    for (int t = 0; t < per_root; ++t, addr += 32768)
      r.tasks.push_back({leaf, {rd(addr, 16384), wr(addr + 16384, 16384)}, {}});
  return out;
}

int64_t ctrl_first_build(const RoundTrace& r) {
  for (const auto& e : r.cpu[0].events)
    if (e.stage == uint8_t(CpuStage::DEV_TASK_BUILD)) return e.ps;
  return -1;
}

// Sum of gaps: core-time inside the AICore span when no task ran, over cores that ran tasks.
double idle_fraction(const RoundSummary& s) { return 1.0 - s.aicore_utilization; }

}  // namespace

TEST_CASE("stitch: too small pays gaps and sync, too large delays the first dispatch", "[sim][tuning][stitch]") {
  CompiledProgram p = base_program();
  auto roots = vec_roots(p, 256, 16, 10.0);
  struct R { int s; RoundSummary sum; int64_t first_build; };
  std::vector<R> rs;
  for (int s : {1, 8, 64, 256}) {
    Trace t = run(b1(), p, roots, s, {});
    rs.push_back({s, t.rounds[0].summary, ctrl_first_build(t.rounds[0])});
    INFO("stitch " << s << ": op e2e " << Trace::us(rs.back().sum.operator_e2e_ps) << " us, kernel "
                   << Trace::us(rs.back().sum.aicore_e2e_ps) << " us, first build "
                   << Trace::us(rs.back().first_build - rs.back().sum.launch_ps) << " us");
    CHECK(true);
  }
  // Too small: many device tasks, each ending in a synchronisation with idle cores.
  CHECK(rs[0].sum.device_tasks == 256);
  CHECK(rs[0].sum.operator_e2e_ps > 2 * rs[2].sum.operator_e2e_ps);
  CHECK(idle_fraction(rs[0].sum) > idle_fraction(rs[2].sum) + 0.2);
  CHECK(rs[1].sum.operator_e2e_ps > rs[2].sum.operator_e2e_ps);
  // Too large: kernel time keeps falling, but end-to-end rises again because the first (only) device
  // task takes long to build before anything is dispatched.
  CHECK(rs[3].sum.aicore_e2e_ps < rs[2].sum.aicore_e2e_ps);
  CHECK(rs[3].sum.operator_e2e_ps > rs[2].sum.operator_e2e_ps);
  CHECK(rs[3].first_build - rs[3].sum.launch_ps > 3 * (rs[2].first_build - rs[2].sum.launch_ps));
  CHECK(rs[3].sum.first_task_start_ps > rs[2].sum.first_task_start_ps);
}

TEST_CASE("tiles: too small drowns in head and scheduling cost; too large leaves cores idle", "[sim][tuning][tiles]") {
  const Platform& pf = b1();
  // Elementwise over 16 MiB fp16 tensors (A + B -> C), one root, tile of `tile` bytes per tensor.
  auto build = [&](CompiledProgram& p, uint64_t total, uint64_t tile, int ops = 1) {
    const int leaf = add_leaf(p, CoreType::AIV, int64_t(ops * tile / pf.vec_bytes_per_cycle) + pf.vec_startup_cycles,
                              3 * tile, 2, pf);
    std::vector<SynthRoot> roots(1);
    for (uint64_t off = 0; off < total; off += tile)
      roots[0].tasks.push_back({leaf, {rd((1ull << 32) + off, tile), rd((2ull << 32) + off, tile),
                                       wr((3ull << 32) + off, tile)}, {}});
    return roots;
  };
  CompiledProgram ps = base_program(), pm = base_program(), pl = base_program();
  Trace small = run(pf, ps, build(ps, 16u << 20, 1024), 1, {});
  Trace mid = run(pf, pm, build(pm, 16u << 20, 32768), 1, {});
  const auto& s = small.rounds[0].summary;
  const auto& m = mid.rounds[0].summary;
  INFO("1 KiB tiles: " << Trace::us(s.aicore_e2e_ps) << " us; 32 KiB tiles: " << Trace::us(m.aicore_e2e_ps) << " us");
  CHECK(s.aicore_e2e_ps > 3 * m.aicore_e2e_ps);
  CHECK(s.tasks == 32 * m.tasks);
  // Why: the head is most of each small task's time.
  double head = 0, busy = 0;
  for (const auto& t : small.rounds[0].tasks) head += double(t.head_cycles), busy += double(t.total_cycles);
  CHECK(head / busy > 0.5);
  double head_m = 0, busy_m = 0;
  for (const auto& t : mid.rounds[0].tasks) head_m += double(t.head_cycles), busy_m += double(t.total_cycles);
  CHECK(head_m / busy_m < 0.3);
  // ... and the schedulers' serial per-task cost (dispatch + completion + resolve) bounds the run.
  const double sched_us = double(pf.sched_dispatch_cycles + pf.sched_completion_cycles + pf.sched_resolve_cycles) /
                          pf.aicpu_mhz;
  CHECK(Trace::us(s.aicore_e2e_ps) > 0.9 * double(s.tasks) * sched_us / pf.sched_threads());

  // Too large: a 1 MiB tensor under a long vector chain (128 ops per element) in 64 KiB tiles gives
  // 16 tasks for 48 vector cores; 16 KiB tiles give 64 (tasks long enough that scheduling keeps up).
  CompiledProgram pa = base_program(), pb = base_program();
  Trace big = run(pf, pa, build(pa, 1u << 20, 65536, 128), 1, {});
  Trace fit = run(pf, pb, build(pb, 1u << 20, 16384, 128), 1, {});
  CHECK(big.rounds[0].summary.cores_used == 16);
  CHECK(fit.rounds[0].summary.cores_used == 48);
  CHECK(big.rounds[0].summary.aicore_e2e_ps > fit.rounds[0].summary.aicore_e2e_ps);
}

TEST_CASE("split reduction axis: extra GM round trips and tasks", "[sim][tuning][reduce]") {
  // RMSNorm over (rows, 1024) fp16, 56-row tiles. Whole axis: one task per tile. Split into 4 column
  // tiles: 4 partial-sum tasks write fp32 partials to GM, a combine task reads them, then 4 normalise
  // tasks re-read x and the sums (the guide: splitting costs GM traffic and scheduling).
  const Platform& pf = b1();
  const uint64_t rows = 56 * 96, cols = 1024, tr = 56;
  const uint64_t X = 1ull << 32, Y = 2ull << 32, W = 3ull << 32;
  CompiledProgram pw = base_program(), ps = base_program();
  const uint64_t tile = tr * cols * 2;
  const int whole = add_leaf(pw, CoreType::AIV, int64_t(3 * tile / pf.vec_bytes_per_cycle) + 60, 2 * tile, 1, pf);
  std::vector<SynthRoot> rw(1), rs(1);
  for (uint64_t r = 0; r < rows; r += tr) rw[0].tasks.push_back({whole, {rd(X + r * cols * 2, tile), wr(Y + r * cols * 2, tile)}, {}});
  const uint64_t q = tile / 4, part = tr * 4;
  const int partial = add_leaf(ps, CoreType::AIV, int64_t(2 * q / pf.vec_bytes_per_cycle) + 40, q + part, 1, pf);
  const int combine = add_leaf(ps, CoreType::AIV, 80, 4 * part + part, 1, pf);
  const int norm = add_leaf(ps, CoreType::AIV, int64_t(q / pf.vec_bytes_per_cycle) + 40, 2 * q + part, 1, pf);
  for (uint64_t r = 0; r < rows; r += tr) {
    auto& T = rs[0].tasks;
    const int b = int(T.size());
    const uint64_t ws = W + r * 64;
    for (int j = 0; j < 4; ++j) {
      SynthTask t{partial, {}, {b + 4}};
      for (uint64_t i = 0; i < tr; ++i) t.acc.push_back(rd(X + (r + i) * cols * 2 + j * 512, 512));
      t.acc.push_back(wr(ws + j * part, part));
      T.push_back(t);
    }
    SynthTask c{combine, {rd(ws, 4 * part), wr(ws + 4 * part, part)}, {b + 5, b + 6, b + 7, b + 8}};
    T.push_back(c);
    for (int j = 0; j < 4; ++j) {
      SynthTask t{norm, {rd(ws + 4 * part, part)}, {}};
      for (uint64_t i = 0; i < tr; ++i) {
        t.acc.push_back(rd(X + (r + i) * cols * 2 + j * 512, 512));
        t.acc.push_back(wr(Y + (r + i) * cols * 2 + j * 512, 512));
      }
      T.push_back(t);
    }
  }
  Trace a = run(pf, pw, rw, 1, {});
  Trace b = run(pf, ps, rs, 1, {});
  const auto& sa = a.rounds[0].summary;
  const auto& sb = b.rounds[0].summary;
  CHECK(sb.tasks == 9 * sa.tasks);
  CHECK(sb.bytes_hbm + sb.bytes_l2 > sa.bytes_hbm + sa.bytes_l2);
  CHECK(sb.aicore_e2e_ps > sa.aicore_e2e_ps);
}

TEST_CASE("misaligned tiles: many-to-many dependencies and GM traffic; aligned tiles fuse", "[sim][tuning][align]") {
  // transpose-like op with tile (64,128) then an elementwise op with tile (128,64) over a (4096, 4096)
  // fp16 tensor: each consumer tile needs 2 producer tiles through GM (no depth merge). Aligned
  // (128,64) then (128,64): the pass fuses both into one leaf, the intermediate never reaches GM.
  const Platform& pf = b1();
  const uint64_t n = 4096, tb = 64 * 128 * 2;
  const uint64_t X = 1ull << 32, T = 2ull << 32, Y = 3ull << 32;
  CompiledProgram pm = base_program(), pa = base_program();
  const int prod = add_leaf(pm, CoreType::AIV, int64_t(tb / pf.vec_bytes_per_cycle) * 2, 2 * tb, 1, pf);
  const int cons = add_leaf(pm, CoreType::AIV, int64_t(tb / pf.vec_bytes_per_cycle), 3 * tb, 1, pf);
  const int fused = add_leaf(pa, CoreType::AIV, int64_t(tb / pf.vec_bytes_per_cycle) * 3, 2 * tb, 1, pf);
  std::vector<SynthRoot> rm(1), ra(1);
  const uint64_t tiles = n * n * 2 / tb;  // 2048 tiles
  for (uint64_t i = 0; i < tiles; ++i) rm[0].tasks.push_back({prod, {rd(X + i * tb, tb), wr(T + i * tb, tb)}, {}});
  for (uint64_t i = 0; i < tiles; ++i) {
    // consumer i reads halves of producers i and (i+1) mod tiles: a 2-to-1, 1-to-2 pattern.
    const int a = int(i), b = int((i + 1) % tiles);
    rm[0].tasks[a].succ.push_back(int(tiles + i));
    rm[0].tasks[b].succ.push_back(int(tiles + i));
    rm[0].tasks.push_back({cons, {rd(T + a * tb + tb / 2, tb / 2), rd(T + b * tb, tb / 2), wr(Y + i * tb, tb)}, {}});
  }
  for (uint64_t i = 0; i < tiles; ++i) ra[0].tasks.push_back({fused, {rd(X + i * tb, tb), wr(Y + i * tb, tb)}, {}});
  Trace m = run(pf, pm, rm, 1, {});
  Trace a = run(pf, pa, ra, 1, {});
  const auto& sm = m.rounds[0].summary;
  const auto& sa = a.rounds[0].summary;
  CHECK(sm.tasks == 2 * sa.tasks);
  CHECK(sm.bytes_hbm + sm.bytes_l2 > 1.4 * double(sa.bytes_hbm + sa.bytes_l2));
  CHECK(sm.aicore_e2e_ps > sa.aicore_e2e_ps);
}

TEST_CASE("breadth merging: fewer heads and no duplicate loads", "[sim][tuning][merge]") {
  // Groups of 8 isomorphic vector subgraphs of ~2 us, each reading a shared 32 KiB gamma vector and its
  // own 16 KiB tile. VecNBuffer x8: one leaf with 8 chains loads gamma once and pays one head.
  const Platform& pf = b1();
  const uint64_t own = 16384, shared = 32768;
  const uint64_t G = 1ull << 31, X = 1ull << 32, Y = 2ull << 32;
  CompiledProgram pu = base_program(), pm = base_program();
  const int64_t work = int64_t(2.0 * pf.core_mhz);
  const int single = add_leaf(pu, CoreType::AIV, work, shared + 2 * own, 1, pf);
  const int merged = add_leaf(pm, CoreType::AIV, 8 * work, shared + 16 * own, 8, pf);
  std::vector<SynthRoot> ru(1), rm(1);
  const int groups = 48 * 8;
  for (int g = 0; g < groups; ++g) {
    SynthTask m{merged, {rd(G + uint64_t(g) * shared, shared)}, {}};
    for (int j = 0; j < 8; ++j) {
      const uint64_t o = (uint64_t(g) * 8 + j) * own;
      ru[0].tasks.push_back({single, {rd(G + uint64_t(g) * shared, shared), rd(X + o, own), wr(Y + o, own)}, {}});
      m.acc.push_back(rd(X + o, own));
      m.acc.push_back(wr(Y + o, own));
    }
    rm[0].tasks.push_back(m);
  }
  Trace u = run(pf, pu, ru, 1, {});
  Trace mg = run(pf, pm, rm, 1, {});
  const auto& su = u.rounds[0].summary;
  const auto& sm = mg.rounds[0].summary;
  CHECK(su.tasks == 8 * sm.tasks);
  uint64_t read_u = 0, read_m = 0;
  for (const auto& t : u.rounds[0].tasks) read_u += t.bytes_read;
  for (const auto& t : mg.rounds[0].tasks) read_m += t.bytes_read;
  CHECK(read_u > read_m + uint64_t(groups) * 6 * shared);  // 7 duplicate gamma loads per group gone
  CHECK(sm.aicore_e2e_ps < su.aicore_e2e_ps);
}

TEST_CASE("skinny matmul reshape: (884736,16)x(16,16) vs (221184,64)x block-diagonal 64x64", "[sim][tuning][skinny]") {
  // The guide's trick. Same cube tile rule (m = 128 rows per task) in both forms: the naive form has
  // 6912 tasks of 128x16x16 whose head and fixed DMA start-up dwarf their work; the reshaped form has
  // 1728 tasks of 128x64x64 moving 4x the bytes each for the same total traffic.
  const Platform& pf = b1();
  CompiledProgram pn = base_program(), pr = base_program();
  auto leaf = [&](CompiledProgram& p, uint64_t m, uint64_t k, uint64_t n) {
    const int64_t cube = int64_t(((m + 15) / 16) * ((k + 15) / 16) * ((n + 15) / 16));
    return add_leaf(p, CoreType::AIC, cube + 2 * pf.l1_dma_startup_cycles, (m * k + k * n + m * n) * 2, 1, pf);
  };
  const int ln = leaf(pn, 128, 16, 16), lr = leaf(pr, 128, 64, 64);
  auto build = [&](int lf, uint64_t rows, uint64_t k, uint64_t n) {
    std::vector<SynthRoot> roots(1);
    for (uint64_t m = 0; m < rows; m += 128)
      roots[0].tasks.push_back({lf, {rd((1ull << 32) + m * k * 2, 128 * k * 2), rd(2ull << 32, k * n * 2),
                                     wr((3ull << 32) + m * n * 2, 128 * n * 2)}, {}});
    return roots;
  };
  Trace naive = run(pf, pn, build(ln, 884736, 16, 16), 1, {});
  Trace reshaped = run(pf, pr, build(lr, 221184, 64, 64), 1, {});
  const double speedup = double(naive.rounds[0].summary.aicore_e2e_ps) / double(reshaped.rounds[0].summary.aicore_e2e_ps);
  INFO("skinny matmul reshape speed-up " << speedup);
  CHECK(speedup > 3.0);
  // Why: 4x the tasks, each dominated by its fixed cost; the data moved is the same.
  CHECK(naive.rounds[0].summary.tasks == 4 * reshaped.rounds[0].summary.tasks);
  uint64_t rn = 0, rr = 0;
  for (const auto& t : naive.rounds[0].tasks) rn += t.bytes_written;
  for (const auto& t : reshaped.rounds[0].tasks) rr += t.bytes_written;
  CHECK(rn == rr);
}
