// The buffer liveness model (compiler/passes/buffer_liveness.h) and the buffer
// planner's in-place writes and overflow report, on hand-built tile graphs.
#include <catch2/catch.hpp>

#include <regex>
#include <string>

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

constexpr std::array<int64_t, 6> kAlign{1, 32, 32, 512, 512, 64};

int scalar_op(Fixture& f, OpKind k, int src, int dst, double s, bool first = false) {
  int o = f.vec(k, {src}, dst);
  f.root().ops[o].scalar = s;
  f.root().ops[o].scalar_first = first;
  return o;
}

}  // namespace

TEST_CASE("in place: elementwise ops write over a same-shape source, never over a broadcast", "[buffer][inplace]") {
  Fixture f;
  const int x = f.tile(MemKind::UB, DType::fp32, {16, 128});
  const int y = f.tile(MemKind::UB, DType::fp32, {16, 128});
  const int col = f.tile(MemKind::UB, DType::fp32, {16, 1});
  const int row = f.tile(MemKind::UB, DType::fp32, {1, 128});
  const int out = f.tile(MemKind::UB, DType::fp32, {16, 128});
  const TileRoot& r = f.root();
  auto src = [&](int op) { return in_place_source(r, r.ops[op]); };

  CHECK(src(f.vec(OpKind::Exp, {x}, out)) == x);
  CHECK(src(f.vec(OpKind::Add, {x, y}, out)) == x);
  CHECK(src(f.vec(OpKind::Mul, {x, x}, out)) == x);        // both operands the aliased tile
  CHECK(src(f.vec(OpKind::Sub, {x, col}, out)) == x);      // column broadcast second: vadds(-s)
  CHECK(src(f.vec(OpKind::Mul, {col, x}, out)) == x);      // column broadcast first, commutative
  CHECK(src(f.vec(OpKind::Add, {row, y}, out)) == y);      // over the full operand, never the row
  CHECK(src(f.vec(OpKind::Div, {x, row}, out)) == x);      // a row broadcast is a tile-tile op
  CHECK(src(scalar_op(f, OpKind::Mul, x, out, 2.0)) == x);
  CHECK(src(scalar_op(f, OpKind::Sub, x, out, 2.0)) == x);

  // The device stages a scalar in the result buffer before the source is read.
  CHECK(src(f.vec(OpKind::Div, {x, col}, out)) == -1);
  CHECK(src(f.vec(OpKind::Sub, {col, x}, out)) == -1);
  CHECK(src(f.vec(OpKind::Div, {col, x}, out)) == -1);
  CHECK(src(scalar_op(f, OpKind::Div, x, out, 2.0)) == -1);
  CHECK(src(scalar_op(f, OpKind::Sub, x, out, 2.0, true)) == -1);
  // gelu and silu are composed in the result, then read the input again.
  CHECK(src(f.vec(OpKind::Gelu, {x}, out)) == -1);
  CHECK(src(f.vec(OpKind::Silu, {x}, out)) == -1);
}

TEST_CASE("in place: never for reductions, transposes, concat, widening or narrowing casts, cube tiles",
          "[buffer][inplace]") {
  Fixture f;
  const int sq = f.tile(MemKind::UB, DType::fp32, {32, 32});
  const int sq2 = f.tile(MemKind::UB, DType::fp32, {32, 32});
  const int red = f.tile(MemKind::UB, DType::fp32, {32, 1});
  const int h = f.tile(MemKind::UB, DType::fp16, {32, 32});
  const int i32 = f.tile(MemKind::UB, DType::int32, {32, 32});
  const int l1 = f.tile(MemKind::L1, DType::fp32, {32, 32});
  const int l1b = f.tile(MemKind::L1, DType::fp32, {32, 32});
  const TileRoot& r = f.root();
  auto src = [&](int op) { return in_place_source(r, r.ops[op]); };

  int t = f.vec(OpKind::Transpose, {sq}, sq2);  // square: same shape, still never in place
  f.root().ops[t].axes = {0, 1};
  CHECK(src(t) == -1);
  CHECK(src(f.vec(OpKind::Sum, {sq}, red)) == -1);
  CHECK(src(f.vec(OpKind::Concat, {sq}, sq2)) == -1);
  CHECK(src(f.vec(OpKind::Full, {}, sq2)) == -1);
  int c = f.vec(OpKind::Cast, {h}, sq2);  // fp16 -> fp32 widens
  f.root().ops[c].dtype = DType::fp32;
  CHECK(src(c) == -1);
  c = f.vec(OpKind::Cast, {sq}, h);  // fp32 -> fp16 narrows
  f.root().ops[c].dtype = DType::fp16;
  CHECK(src(c) == -1);
  c = f.vec(OpKind::Cast, {sq}, sq2);  // fp32 -> fp32 is a copy
  CHECK(src(c) == -1);
  c = f.vec(OpKind::Cast, {sq}, i32);  // fp32 -> int32: same width
  f.root().ops[c].dtype = DType::int32;
  CHECK(src(c) == sq);
  CHECK(src(f.vec(OpKind::Exp, {l1}, l1b)) == -1);  // only UB
}

TEST_CASE("liveness: a result written in place costs nothing at its op; peak_bytes agrees", "[buffer][liveness]") {
  Fixture f;
  // load -> exp -> exp -> gelu -> store, [128, 128] fp32 = 64 KiB per tile.
  std::vector<int> t;
  for (int i = 0; i < 4; ++i) t.push_back(f.tile(MemKind::UB, DType::fp32, {128, 128}));
  std::vector<int> ops = {f.copy_in(0, t[0], {0, 0}, {128, 128}), f.vec(OpKind::Exp, {t[0]}, t[1]),
                          f.vec(OpKind::Exp, {t[1]}, t[2]), f.vec(OpKind::Gelu, {t[2]}, t[3]),
                          f.copy_out(2, t[3], {0, 0}, {128, 128})};
  const TileRoot& r = f.root();
  auto lives = tile_lives(r, ops, kAlign);
  REQUIRE(lives.size() == 4);
  CHECK(lives[1].inherits == t[0]);
  CHECK(lives[2].inherits == t[1]);
  CHECK(lives[3].inherits == -1);  // gelu: never in place
  CHECK(peak_point(r, lives, MemKind::UB, int(ops.size())).bytes == 2 * 65536);
  CHECK(peak_bytes(r, ops, kAlign)[int(MemKind::UB)] == 2 * 65536);
  // The plain model holds the source and the result together at each exp.
  auto plain = tile_lives(r, ops, kAlign, false);
  CHECK(peak_point(r, plain, MemKind::UB, int(ops.size())).bytes == 2 * 65536);
  for (const TileLive& l : plain) CHECK(l.inherits == -1);

  // A source read again later does not die at the op: no takeover.
  Fixture g;
  int a = g.tile(MemKind::UB, DType::fp32, {16, 128});
  int b = g.tile(MemKind::UB, DType::fp32, {16, 128});
  int c = g.tile(MemKind::UB, DType::fp32, {16, 128});
  std::vector<int> ops2 = {g.copy_in(0, a, {0, 0}, {16, 128}), g.vec(OpKind::Exp, {a}, b), g.vec(OpKind::Add, {a, b}, c),
                           g.copy_out(2, c, {0, 0}, {16, 128})};
  auto l2 = tile_lives(g.root(), ops2, kAlign);
  CHECK(l2[1].inherits == -1);  // a is read by the add
  CHECK(l2[2].inherits == a);   // a dies at the add
  CHECK(peak_bytes(g.root(), ops2, kAlign)[int(MemKind::UB)] == 2 * 8192);
}

TEST_CASE("buffer plan: in-place results take their source's address; sync still orders other readers",
          "[buffer][inplace]") {
  Fixture f;
  std::vector<int> t;
  for (int i = 0; i < 3; ++i) t.push_back(f.tile(MemKind::UB, DType::fp32, {16, 128}));
  std::vector<int> ops = {f.copy_in(0, t[0], {0, 0}, {16, 128}), f.vec(OpKind::Exp, {t[0]}, t[1]),
                          f.vec(OpKind::Relu, {t[1]}, t[2]), f.copy_out(2, t[2], {0, 0}, {16, 128})};
  f.subgraph(CoreType::AIV, ops);
  auto diags = make_diags();
  REQUIRE(f.run(diags));
  const LeafPlan& p = f.r.plans.at(0);
  CHECK(p.buffer(t[1])->addr == p.buffer(t[0])->addr);
  CHECK(p.buffer(t[2])->addr == p.buffer(t[0])->addr);
  CHECK(p.peak[int(MemKind::UB)] == 8192);

  // A source also stored by MTE3 is not written over while memory is ample (the
  // in-place write would wait for the store): the result gets a fresh address.
  Fixture g;
  int a = g.tile(MemKind::UB, DType::fp32, {16, 128});
  int b = g.tile(MemKind::UB, DType::fp32, {16, 128});
  std::vector<int> ops2 = {g.copy_in(0, a, {0, 0}, {16, 128}), g.copy_out(2, a, {0, 0}, {16, 128}),
                           g.vec(OpKind::Exp, {a}, b), g.copy_out(3, b, {0, 0}, {16, 128})};
  g.subgraph(CoreType::AIV, ops2);
  auto d2 = make_diags();
  REQUIRE(g.run(d2));
  const LeafPlan& p2 = g.r.plans.at(0);
  CHECK(p2.buffer(b)->addr != p2.buffer(a)->addr);

  // ... but it is when that is the only way to fit: [384, 128] fp32 = 192 KiB, the whole UB.
  Fixture h(384, 128, DType::fp32, 384, 128);
  int c = h.tile(MemKind::UB, DType::fp32, {384, 128});
  int d = h.tile(MemKind::UB, DType::fp32, {384, 128});
  std::vector<int> ops3 = {h.copy_in(0, c, {0, 0}, {384, 128}), h.copy_out(2, c, {0, 0}, {384, 128}),
                           h.vec(OpKind::Exp, {c}, d), h.copy_out(2, d, {0, 0}, {384, 128})};
  h.subgraph(CoreType::AIV, ops3);
  auto d3 = make_diags();
  REQUIRE(h.run(d3));
  const LeafPlan& p3 = h.r.plans.at(0);
  CHECK(p3.buffer(d)->addr == p3.buffer(c)->addr);
  // The exp (V) waits for the store of c (MTE3) before writing over it.
  bool waits = false;
  for (const SyncInstr& s : p3.steps.at(2).before)
    waits |= s.kind == SyncInstr::Kind::WaitFlag && s.src == PipeId::MTE3 && s.dst == PipeId::V;
  CHECK(waits);
}

TEST_CASE("overflow: reported once per op, every live buffer named, the numbers add up", "[buffer][overflow]") {
  // Two isomorphic leaves (two tile instances of one op), each [256, 128] fp32 in and out of a gelu
  // (never in place): 128 KiB + 128 KiB > 192 KiB. One error, not two.
  Fixture f(512, 128, DType::fp32, 256, 128);
  for (int k = 0; k < 2; ++k) {
    int a = f.tile(MemKind::UB, DType::fp32, {256, 128});
    int b = f.tile(MemKind::UB, DType::fp32, {256, 128});
    f.subgraph(CoreType::AIV, {f.copy_in(0, a, {256 * k, 0}, {256, 128}), f.vec(OpKind::Gelu, {a}, b),
                               f.copy_out(2, b, {256 * k, 0}, {256, 128})});
  }
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
  // 256 rows -> 192 fit: 96 KiB for the load at this op, 96 KiB for the result.
  CHECK(d.hint == "vec_tile [192, 128] at line 9 fits (196608 bytes live here)");
}

TEST_CASE("overflow: alignment padding is named and counted", "[buffer][overflow]") {
  Fixture f(512, 128, DType::fp32, 16, 128);
  // A [5, 3] fp16 tile is 30 bytes, 32 in UB: 2 bytes of padding; a [96, 512] fp32 tile is all of UB.
  int small = f.tile(MemKind::UB, DType::fp16, {5, 3});
  int big = f.tile(MemKind::UB, DType::fp32, {96, 512});
  int big2 = f.tile(MemKind::UB, DType::fp32, {96, 512});
  f.subgraph(CoreType::AIV, {f.copy_in(0, small, {0, 0}, {5, 3}), f.copy_in(0, big, {0, 0}, {96, 512}),
                             f.vec(OpKind::Gelu, {big}, big2), f.copy_out(2, big2, {0, 0}, {96, 512}),
                             f.copy_out(2, small, {0, 0}, {5, 3})});
  auto diags = make_diags();
  REQUIRE_FALSE(f.run(diags));
  REQUIRE(diags.error_count() == 1);
  const std::string& m = diags.diagnostics().at(0).message;
  INFO(m);
  CHECK(m.find("load of x [5, 3] fp16 30 + 2 alignment padding") != std::string::npos);
  // held + free = capacity
  std::smatch g;
  REQUIRE(std::regex_search(m, g, std::regex(R"(of its (\d+) bytes, \d+ live buffers? holds? (\d+) .* and (\d+) are free)")));
  CHECK(std::stoll(g[2]) + std::stoll(g[3]) == std::stoll(g[1]));
  CHECK(std::stoll(g[2]) == 32);  // the padded small load is what is live when the big one is placed
}

TEST_CASE("buffer plan: a UB filled to the byte fits by the largest-first placement the sweep fragments",
          "[buffer][placement]") {
  Fixture f;
  const int s = f.tile(MemKind::UB, DType::fp32, {64, 128});   // 32 KiB, steps 0-2
  const int a = f.tile(MemKind::UB, DType::fp32, {128, 128});  // 64 KiB, steps 1-4
  const int b = f.tile(MemKind::UB, DType::fp32, {256, 128});  // 128 KiB, steps 3-5: a + b = all of UB
  std::vector<int> ops = {f.copy_in(0, s, {0, 0}, {64, 128}),  f.copy_in(0, a, {0, 0}, {128, 128}),
                          f.copy_out(2, s, {0, 0}, {64, 128}), f.copy_in(0, b, {0, 0}, {256, 128}),
                          f.copy_out(2, a, {0, 0}, {128, 128}), f.copy_out(2, b, {0, 0}, {256, 128})};
  LeafPlan p;
  for (int o : ops) p.steps.push_back({o, op_pipe(f.root().ops[size_t(o)]), {}, {}});
  // The step sweep puts s at 0 and a at 32 KiB; when b starts, 128 KiB are free but in two pieces.
  auto ov = plan_buffers(f.root(), fixed_platform(), p, PlacePolicy::Spread);
  REQUIRE(ov);
  CHECK(ov->largest_free == 98304);
  CHECK(ov->live + ov->needed == 196608);
  // Largest first: b at 0, a above it, s (dead before b starts) below a, at 0.
  REQUIRE_FALSE(plan_buffers(f.root(), fixed_platform(), p, PlacePolicy::FirstFit));
  CHECK(p.buffer(b)->addr == 0);
  CHECK(p.buffer(a)->addr == 131072);
  CHECK(p.buffer(s)->addr == 0);
  CHECK(p.peak[int(MemKind::UB)] == 196608);
}
