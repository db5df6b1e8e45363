// Backend passes on hand-built tile graphs: buffer planning, sync insertion,
// the overflow error, cost numbers, dedup, determinism.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>

#include "compiler/passes/buffer_liveness.h"
#include "test/codegen/tile_fixture.h"

using namespace ptoc;
using namespace ptoc::test;

namespace {

DiagEngine make_diags() {
  std::string src;
  for (int i = 1; i <= 20; ++i) src += "line " + std::to_string(i) + " of the spec, some text here\n";
  return DiagEngine("test.yaml", src);
}

bool overlap(const BufferSlot& a, const BufferSlot& b) {
  return a.mem == b.mem && a.addr < b.addr + b.size && b.addr < a.addr + a.size;
}

// Independent check of a leaf's syncs: replays the instruction stream,
// pairs every wait with the set it consumes, builds the happens-before graph
// (in-order pipes + set->wait edges) and checks that every hazard between
// two steps on different pipes is ordered by it, and that same-pipe hazards
// on V have a barrier between them.
void check_syncs(const TileRoot& root, const LeafPlan& p) {
  const int n = int(p.steps.size());
  std::vector<std::vector<int>> edges(n);
  std::map<std::tuple<int, int, int>, int> pending;  // (src, dst, ev) -> last src-pipe step before the set (-1 none)
  std::vector<int> last_on(kNumPipes, -1);
  std::vector<int> last_barrier_v_before(n, -1);     // step index before which the latest V barrier sits
  int last_v_barrier = -1;
  auto apply = [&](const SyncInstr& s, int step_for_wait) {
    REQUIRE(s.event >= 0);
    REQUIRE(s.event < 8);
    auto key = std::tuple<int, int, int>{int(s.src), int(s.dst), s.event};
    if (s.kind == SyncInstr::Kind::SetFlag) {
      REQUIRE(s.src != s.dst);
      INFO("set_flag twice without a wait between");
      REQUIRE(pending.count(key) == 0);
      pending[key] = last_on[int(s.src)];
    } else if (s.kind == SyncInstr::Kind::WaitFlag) {
      INFO("wait_flag without a matching set_flag");
      REQUIRE(pending.count(key) == 1);
      REQUIRE(step_for_wait >= 0);
      if (pending[key] >= 0) edges[pending[key]].push_back(step_for_wait);
      pending.erase(key);
    } else if (s.kind == SyncInstr::Kind::Barrier && s.src == PipeId::V) {
      last_v_barrier = step_for_wait;
    }
  };
  for (int i = 0; i < n; ++i) {
    for (const auto& s : p.steps[i].before) apply(s, i);
    last_barrier_v_before[i] = last_v_barrier;
    const int pipe = int(p.steps[i].pipe);
    if (last_on[pipe] >= 0) edges[last_on[pipe]].push_back(i);
    last_on[pipe] = i;
    for (const auto& s : p.steps[i].after) apply(s, -1);
  }
  INFO("a set_flag is never waited for");
  REQUIRE(pending.empty());

  auto reach = [&](int from, int to) {
    std::vector<bool> seen(n, false);
    std::vector<int> st = {from};
    while (!st.empty()) {
      int u = st.back();
      st.pop_back();
      if (u == to) return true;
      if (seen[u]) continue;
      seen[u] = true;
      for (int v : edges[u]) st.push_back(v);
    }
    return false;
  };
  struct Acc { int tile; bool write; };
  auto accesses = [&](int i) {
    const TileOp& op = tile_op(root, p.steps[i].op);
    std::vector<Acc> v;
    for (int t : op_reads(op)) v.push_back({t, false});
    if (op.dst >= 0) v.push_back({op.dst, true});
    return v;
  };
  int hazards = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j)
      for (const Acc& a : accesses(i))
        for (const Acc& b : accesses(j)) {
          if (!a.write && !b.write) continue;
          const BufferSlot* ba = p.buffer(a.tile);
          const BufferSlot* bb = p.buffer(b.tile);
          if (!ba || !bb || !overlap(*ba, *bb)) continue;
          ++hazards;
          INFO("hazard between step " << j << " and step " << i);
          if (p.steps[i].pipe != p.steps[j].pipe) {
            REQUIRE(reach(j, i));
          } else if (p.steps[i].pipe == PipeId::V) {
            REQUIRE(last_barrier_v_before[i] > j);
          }
        }
  CHECK(hazards > 0);
}

}  // namespace

TEST_CASE("buffer plan: aligned, live buffers disjoint, dead buffers reused", "[backend][buffer]") {
  Fixture f;
  // One leaf with a long chain: x -> exp -> exp -> exp -> y; each tile dies after its consumer.
  int a = f.tile(MemKind::UB, DType::fp32, {16, 100});  // 6400 B
  int b = f.tile(MemKind::UB, DType::fp16, {3, 5});     // 30 B, rounded up to 32
  int c = f.tile(MemKind::UB, DType::fp16, {3, 5});
  int d = f.tile(MemKind::UB, DType::fp32, {16, 100});
  std::vector<int> ops = {f.copy_in(0, a, {0, 0}, {16, 100}), f.vec(OpKind::Cast, {a}, b), f.vec(OpKind::Exp, {b}, c),
                          f.vec(OpKind::Cast, {c}, d), f.copy_out(2, d, {0, 0}, {16, 100})};
  f.root().ops[1].dtype = DType::fp16;
  f.subgraph(CoreType::AIV, ops);
  auto diags = make_diags();
  REQUIRE(f.run(diags));
  const LeafPlan& p = f.r.plans.at(0);
  REQUIRE(p.buffers.size() == 4);
  for (const auto& s : p.buffers) {
    CHECK(s.addr % 32 == 0);
    CHECK(s.size % 32 == 0);
    CHECK(s.addr + s.size <= 196608);
  }
  CHECK(p.buffer(b)->size == 32);
  // Live buffers never overlap, except a result written in place over the source
  // that dies at its op (c = exp(b), both [3, 5] fp16): same address, handed over at that step.
  for (size_t i = 0; i < p.buffers.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const auto &x = p.buffers[i], &y = p.buffers[j];
      bool live_together = x.first <= y.last && y.first <= x.last;
      const bool in_place = x.first == y.last && x.addr == y.addr &&
                            in_place_source(f.root(), f.root().ops[size_t(p.steps[size_t(x.first)].op)]) == y.tile;
      if (live_together && !in_place) CHECK_FALSE(overlap(x, y));
    }
  CHECK(p.buffer(c)->addr == p.buffer(b)->addr);
  // Spread (the default) keeps fresh addresses while there is room: nothing is
  // reused, so no write has to wait for an older reader of its range.
  CHECK(p.buffer(c)->addr != p.buffer(a)->addr);
  CHECK(p.buffer(d)->addr != p.buffer(a)->addr);

  // FirstFit: c is written over b (in place); a is dead once b is written
  // (step 1), so d (step 3, only c live, at 6400) takes a's address 0.
  LeafPlan ff = p;
  REQUIRE_FALSE(plan_buffers(f.root(), fixed_platform(), ff, PlacePolicy::FirstFit));
  CHECK(ff.buffer(c)->addr == ff.buffer(b)->addr);
  CHECK(ff.buffer(b)->addr == ff.buffer(a)->addr + ff.buffer(a)->size);
  CHECK(ff.buffer(d)->addr == ff.buffer(a)->addr);
  CHECK(ff.peak[int(MemKind::UB)] == ff.buffer(c)->addr + ff.buffer(c)->size);
  CHECK(ff.peak[int(MemKind::UB)] < p.peak[int(MemKind::UB)]);
}

TEST_CASE("buffer plan: when memory is tight, Spread reuses the buffer that died first", "[backend][buffer]") {
  Fixture f;
  // Chain of 64 KiB tiles: x0 -> t1 -> t2 -> t3 -> t4 -> y. UB holds three of them. (gelu: never
  // written in place, so every step needs a new buffer.)
  std::vector<int> t;
  for (int i = 0; i < 5; ++i) t.push_back(f.tile(MemKind::UB, DType::fp32, {128, 128}));
  std::vector<int> ops = {f.copy_in(0, t[0], {0, 0}, {128, 128})};
  for (int i = 1; i < 5; ++i) ops.push_back(f.vec(OpKind::Gelu, {t[i - 1]}, t[i]));
  ops.push_back(f.copy_out(2, t[4], {0, 0}, {128, 128}));
  f.subgraph(CoreType::AIV, ops);
  auto diags = make_diags();
  REQUIRE(f.run(diags));
  const LeafPlan& p = f.r.plans.at(0);
  // t0 @0, t1 @64K, t2 @128K (fresh); t3 must reuse: t0 died at step 1, t1 at step 2 (live) -> t0's place.
  CHECK(p.buffer(t[0])->addr == 0);
  CHECK(p.buffer(t[1])->addr == 65536);
  CHECK(p.buffer(t[2])->addr == 131072);
  CHECK(p.buffer(t[3])->addr == 0);
  // t4: t1 (died at step 2) is older than t2 (live) and t0's slot is taken by t3 -> t1's place.
  CHECK(p.buffer(t[4])->addr == 65536);
}

TEST_CASE("buffer plan: cube tiles use fractal sizes and L0 alignment", "[backend][buffer]") {
  Fixture f;
  int a = f.tile(MemKind::L0A, DType::fp16, {20, 24});   // rows -> 32, 48 B per row -> 64: 2048 B
  int b = f.tile(MemKind::L0A, DType::fp16, {16, 16});   // 512 B
  CHECK(buffer_bytes(f.root().tiles[a]) == 32 * 64);
  CHECK(buffer_bytes(f.root().tiles[b]) == 16 * 32);
  int c = f.tile(MemKind::L0C, DType::fp32, {16, 10});   // 40 B per row -> 64
  CHECK(buffer_bytes(f.root().tiles[c]) == 16 * 64);
}

TEST_CASE("sync: every cross-pipe hazard has a matching set/wait pair", "[backend][sync]") {
  Fixture f;
  // Four chains merged in one leaf (VecNBuffer 4) plus a reuse-heavy tail.
  std::vector<int> ops;
  for (int c = 0; c < 4; ++c) {
    auto ch = f.exp_chain(16 * c, 16, c);
    ops.insert(ops.end(), ch.begin(), ch.end());
  }
  f.subgraph(CoreType::AIV, ops, 4);
  // A cube leaf.
  f.subgraph(CoreType::AIC, f.matmul_leaf());
  auto diags = make_diags();
  REQUIRE(f.run(diags));
  REQUIRE(f.r.plans.size() == 2);
  for (const auto& p : f.r.plans) check_syncs(f.root(), p);

  // The chains are interleaved: the second copy-in is issued before the first exp.
  const LeafPlan& v = f.r.plans[0];
  CHECK(tile_op(f.root(), v.steps[0].op).kind == TileOpKind::CopyIn);
  CHECK(tile_op(f.root(), v.steps[1].op).kind == TileOpKind::CopyIn);
  // The cube leaf ends draining every pipe.
  CHECK(f.r.plans[1].steps.back().after.back().kind == SyncInstr::Kind::BarrierAll);
}

TEST_CASE("sync: more hazards in flight than event ids stays correct", "[backend][sync]") {
  Fixture f;
  // 12 independent loads, then 12 exps: 12 MTE2->V dependencies in flight at once.
  std::vector<int> loads, exps, outs;
  for (int c = 0; c < 12; ++c) {
    auto ch = f.exp_chain(4 * c, 4, c, 4, 64);
    loads.push_back(ch[0]);
    exps.push_back(ch[1]);
    outs.push_back(ch[2]);
  }
  f.subgraph(CoreType::AIV, concat({loads, exps, outs}), 12);
  auto diags = make_diags();
  REQUIRE(f.run(diags));
  check_syncs(f.root(), f.r.plans[0]);
}

TEST_CASE("overflow: located error naming op, buffer, bytes, and the knob", "[backend][overflow]") {
  Fixture f(512, 128, DType::fp32, 256, 128);
  // [256, 128] fp32 = 128 KiB in and 128 KiB out: 256 KiB > 192 KiB of UB (gelu: never in place).
  int a = f.tile(MemKind::UB, DType::fp32, {256, 128});
  int b = f.tile(MemKind::UB, DType::fp32, {256, 128});
  f.subgraph(CoreType::AIV, {f.copy_in(0, a, {0, 0}, {256, 128}), f.vec(OpKind::Gelu, {a}, b),
                             f.copy_out(2, b, {0, 0}, {256, 128})});
  auto diags = make_diags();
  REQUIRE_FALSE(f.run(diags));
  REQUIRE(diags.error_count() == 1);
  const Diagnostic& d = diags.diagnostics().at(0);
  CHECK(d.loc.line == 12);
  CHECK(d.loc.col == 9);
  CHECK(d.message ==
        "'exp' does not fit in UB: its output tile 'exp' result [256, 128] fp32 needs 131072 bytes but the largest "
        "free range of UB is 65536 bytes; of its 196608 bytes, 1 live buffer holds 131072 (load of x [256, 128] "
        "fp32 131072) and 65536 are free in 1 range");
  CHECK(d.hint == "vec_tile [192, 128] at line 9 fits (196608 bytes live here)");
  std::ostringstream os;
  diags.print(os);
  CHECK(os.str().find("test.yaml:12:9: error: 'exp' does not fit in UB") != std::string::npos);
  CHECK(f.r.compiled.kernels.empty());
}

TEST_CASE("overflow: a merged leaf falls back to sequential order, then names the merge knob", "[backend][overflow]") {
  Fixture f;
  // Two chains of [384, 64] fp32 (96 KiB per tile): interleaved, three tiles are live
  // at once (288 KiB > 192 KiB); in sequence only two (192 KiB, a tight fit).
  std::vector<int> ops;
  for (int c = 0; c < 2; ++c) {
    auto ch = f.exp_chain(384 * c, 384, c, 384, 64, OpKind::Gelu);  // gelu: never in place
    ops.insert(ops.end(), ch.begin(), ch.end());
  }
  f.subgraph(CoreType::AIV, ops, 2);
  auto diags = make_diags();
  REQUIRE(f.run(diags));
  CHECK(f.r.sequential_fallbacks == 1);
  CHECK_FALSE(f.r.plans[0].interleaved);

  // Tiles of 100 KiB cannot fit in any order: the hint names vec_tile and the merge.
  Fixture g(1024, 64, DType::fp32, 400, 64);
  std::vector<int> ops2;
  for (int c = 0; c < 2; ++c) {
    auto ch = g.exp_chain(400 * c, 400, c, 400, 64, OpKind::Gelu);
    ops2.insert(ops2.end(), ch.begin(), ch.end());
  }
  g.subgraph(CoreType::AIV, ops2, 2, {}, 3);
  auto d2 = make_diags();
  REQUIRE_FALSE(g.run(d2));
  CHECK(d2.diagnostics().at(0).hint ==
        "vec_tile [384, 64] at line 9 fits (196608 bytes live here), or merge fewer chains (2 now) with "
        "vec_nbuffer_setting for func0_3");
}

TEST_CASE("cost: hand-computed cycles of a known leaf", "[backend][cost]") {
  Fixture f;
  f.subgraph(CoreType::AIV, f.exp_chain(0, 16, 0));
  auto ch0 = f.exp_chain(0, 16, 0), ch1 = f.exp_chain(16, 16, 1);
  f.subgraph(CoreType::AIV, concat({ch0, ch1}), 2);
  f.subgraph(CoreType::AIC, f.matmul_leaf(DType::fp16));
  auto diags = make_diags();
  REQUIRE(f.run(diags));
  const Platform plat = fixed_platform();
  // copy-in 16x128 fp32 = 8192 B: 50 + 8192/32 = 306; exp: 12 + 8192/256 = 44; copy-out: 50 + 8192/64 = 178.
  const LeafFunction& one = f.r.compiled.leaves.at(0);
  CHECK(one.pipe_cycles[int(PipeId::MTE2)] == 306);
  CHECK(one.pipe_cycles[int(PipeId::V)] == 44);
  CHECK(one.pipe_cycles[int(PipeId::MTE3)] == 178);
  CHECK(one.est_cycles == 306 + 44 + 178);
  // Two chains: in0 0-306, in1 306-612, exp0 306-350, exp1 612-656, out0 350-528, out1 656-834.
  const LeafFunction& two = f.r.compiled.leaves.at(1);
  CHECK(two.pipe_cycles[int(PipeId::MTE2)] == 612);
  CHECK(two.pipe_cycles[int(PipeId::V)] == 88);
  CHECK(two.pipe_cycles[int(PipeId::MTE3)] == 356);
  CHECK(two.est_cycles == 834);
  CHECK(two.est_cycles < 2 * one.est_cycles);  // the overlap the merge buys
  // Matmul fp16 32x64 @ 64x32: A 4096 B, B 4096 B into L1: 200 + 128 each (MTE2 656);
  // L0A 4096/512 = 8, L0B 4096/256 = 16 (MTE1 24); mmad 2*2*4 = 16; fix-out 32x32 fp32 = 4096 B: 200 + 64.
  const LeafFunction& mm = f.r.compiled.leaves.at(2);
  CHECK(mm.pipe_cycles[int(PipeId::MTE2)] == 656);
  CHECK(mm.pipe_cycles[int(PipeId::MTE1)] == 24);
  CHECK(mm.pipe_cycles[int(PipeId::M)] == 16);
  CHECK(mm.pipe_cycles[int(PipeId::FIX)] == 264);
  CHECK(mm.est_cycles == 656 + 16 + 16 + 264);  // B's extract waits for B's load; mmad; fix-out
  CHECK(op_cycles(f.root(), f.root().ops[ch0[1]], plat) == 44);
}

TEST_CASE("dedup: isomorphic leaves share one kernel, tails included", "[backend][dedup]") {
  Fixture f;
  for (int i = 0; i < 4; ++i) f.subgraph(CoreType::AIV, f.exp_chain(16 * i, 16, 0));
  f.subgraph(CoreType::AIV, f.exp_chain(64, 5, 0));                     // tail: 5 valid rows
  f.subgraph(CoreType::AIV, f.exp_chain(0, 16, 0, 16, 128, OpKind::Log));  // different op
  f.subgraph(CoreType::AIV, f.exp_chain(0, 8, 0, 8, 128));                // different tile shape
  auto diags = make_diags();
  REQUIRE(f.run(diags));
  const CompiledProgram& cp = f.r.compiled;
  // 7 leaves in 4 classes: leaves with equal records (the 4 full tiles) are stored once.
  REQUIRE(f.r.plans.size() == 7);
  REQUIRE(cp.leaves.size() == 4);
  REQUIRE(cp.kernels.size() == 3);
  auto leaf = [&](int i) { return cp.leaves.at(size_t(f.r.plans[size_t(i)].leaf_class)); };
  for (int i = 0; i < 5; ++i) CHECK(leaf(i).kernel == 0);
  CHECK(leaf(5).kernel == 1);
  CHECK(leaf(6).kernel == 2);
  CHECK(leaf(0).hash == leaf(4).hash);
  CHECK(leaf(0).hash != leaf(5).hash);
  for (const auto& k : cp.kernels) {
    REQUIRE(k.name.size() == 2 + 8);
    CHECK(k.name.rfind("t_", 0) == 0);
    CHECK(k.name.find_first_not_of("0123456789abcdef", 2) == std::string::npos);
  }
  // The tail differs only in its arguments.
  const auto& tasks = cp.roots.at(0).tasks;
  REQUIRE(tasks.size() == 7);
  CHECK(tasks[0].args.size() == tasks[4].args.size());
  bool differ = false;
  for (size_t i = 0; i < tasks[0].args.size(); ++i) differ |= !tasks[0].args[i].same(tasks[4].args[i]);
  CHECK(differ);
  CHECK(cp.kernels[0].num_gm == 2);
}

TEST_CASE("task graph: successors, predecessor counts, regions, topological order", "[backend][tasks]") {
  Fixture f;
  // sg0 -> sg2, sg1 -> sg2 (given out of topological order as sg2 first is not allowed: use ids)
  int s_late = f.subgraph(CoreType::AIV, f.exp_chain(0, 16, 0));   // consumer, listed first
  int s_a = f.subgraph(CoreType::AIV, f.exp_chain(16, 16, 0), 1, {s_late});
  int s_b = f.subgraph(CoreType::AIC, f.matmul_leaf(), 1, {s_late});
  (void)s_a;
  (void)s_b;
  f.root().subgraphs[0].label = "L0";
  auto diags = make_diags();
  REQUIRE(f.run(diags));
  const RootFunction& rf = f.r.compiled.roots.at(0);
  REQUIRE(rf.tasks.size() == 3);
  // Kahn order: sg1, sg2 (no preds), then sg0.
  CHECK(rf.tasks[2].label == "L0");
  CHECK(rf.tasks[2].pred_count == 2);
  CHECK(rf.tasks[0].succ == std::vector<int>{2});
  CHECK(rf.tasks[1].succ == std::vector<int>{2});
  CHECK(rf.tasks[0].pred_count == 0);
  REQUIRE(rf.tasks[0].reads.size() == 1);
  CHECK(rf.tasks[0].reads[0].tensor == 0);
  CHECK(rf.tasks[0].reads[0].offset[0].str() == "16");
  REQUIRE(rf.tasks[0].writes.size() == 1);
  CHECK(rf.tasks[0].writes[0].tensor == 2);
  CHECK(rf.tasks[1].reads.size() == 2);
  CHECK(rf.tasks[0].op_magic != rf.tasks[1].op_magic);
  CHECK(rf.name == "top_0");
  REQUIRE(f.r.compiled.control.size() == 1);
  CHECK(f.r.compiled.control[0].root == 0);
}

TEST_CASE("determinism: the backend gives identical results twice", "[backend][determinism]") {
  auto build = [] {
    Fixture f;
    std::vector<int> ops;
    for (int c = 0; c < 3; ++c) {
      auto ch = f.exp_chain(16 * c, 16, c);
      ops.insert(ops.end(), ch.begin(), ch.end());
    }
    f.subgraph(CoreType::AIV, ops, 3);
    f.subgraph(CoreType::AIC, f.matmul_leaf());
    auto diags = make_diags();
    REQUIRE(f.run(diags));
    std::string s;
    for (const auto& k : f.r.compiled.kernels) s += k.name + "\n" + k.source;
    for (const auto& p : f.r.plans) s += p.canonical;
    return s;
  };
  std::string a = build(), b = build();
  CHECK(a == b);
  CHECK_FALSE(a.empty());
}
