// The leaf-program executor (runtime/leaf_exec.h): runs a hand-built program on host GM arrays,
// loops over leading axes, records GM accesses, resolves every tile function, refuses bad programs.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "runtime/leaf_exec.h"
#include "test/program/leaf_program_sample.h"

using namespace ptoc;
using namespace ptoc::leaf;
using namespace ptoc::leaf::test;

namespace {
struct Trace {
  std::vector<int> kinds;
  std::vector<int64_t> rows;
};
void record(void* ctx, const void*, int64_t rows, int64_t, int64_t, int kind) {
  auto* t = static_cast<Trace*>(ctx);
  t->kinds.push_back(kind);
  t->rows.push_back(rows);
}
}  // namespace

TEST_CASE("leaf exec: y = x + x over the valid 5 x 11 box of an 8 x 16 tile", "[leaf_exec]") {
  runtime::LeafKernel k(sample_program());
  std::vector<float> x(8 * 16), y(8 * 16, -1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * float(i) - 3.0f;
  void* gm[2] = {x.data(), y.data()};
  int64_t args[2] = {5, 11};
  PtoKernelArgs a{gm, args, 2, nullptr};
  k.run(&a);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j) {
      const float want = i < 5 && j < 11 ? x[size_t(i * 16 + j)] + x[size_t(i * 16 + j)] : -1.0f;
      CHECK(y[size_t(i * 16 + j)] == want);
    }
}

TEST_CASE("leaf exec: the GM trace sees the load and the store", "[leaf_exec]") {
  runtime::LeafExecutor ex({Kernel{"sample_0", CoreType::AIV, "", 0, 2, 2, encode_leaf_program(sample_program())}});
  std::vector<float> x(128, 1.0f), y(128, 0.0f);
  void* gm[2] = {x.data(), y.data()};
  int64_t args[2] = {3, 16};
  PtoKernelArgs a{gm, args, 2, nullptr};
  Trace t;
  REQUIRE(ex.can_trace_gm());
  ex.set_gm_trace(&record, &t);
  ex.run(0, &a);
  ex.set_gm_trace(nullptr, nullptr);
  REQUIRE(t.kinds == std::vector<int>{0, 1});
  CHECK(t.rows == std::vector<int64_t>{3, 3});
  CHECK(y[2 * 16 + 15] == 2.0f);
  CHECK(y[3 * 16] == 0.0f);
  ex.run(0, &a);  // recorder removed: nothing more recorded
  CHECK(t.kinds.size() == 2);
}

TEST_CASE("leaf exec: a loop over a leading axis runs its body count times", "[leaf_exec]") {
  // Rows of 16 floats, each loop iteration i loads row i (GM offset i * 16) into b0 + i * 16 and
  // stores it to y; the trip count is PTO_ARG(0) and an empty loop runs nothing.
  LeafProgram p = sample_program();
  p.locals.push_back({LocalKind::LoopIndex, 7, 0});
  Instr lb;
  lb.kind = InstrKind::LoopBegin;
  lb.a = 3;
  lb.expr = a(0);
  Instr le;
  le.kind = InstrKind::LoopEnd;
  Expr row = Expr{{{ExprOp::Local, 3}, {ExprOp::Const, 16}, {ExprOp::Mul, 0}}};
  const TParam f32{TParamKind::DType, 0};
  std::vector<Instr> body = {
      lb,
      call(Fn::TLOAD, {f32, ti(1), ti(16), TParam{TParamKind::Pad, 0}}, {buf(0, row), gm(0), val(row), val(c(16)), val(c(1)), val(c(16))}),
      call(Fn::TSTORE, {f32, ti(1), ti(16), ti(0)}, {gm(1), buf(0, row), val(row), val(c(16)), val(c(1)), val(c(16))}),
      le};
  p.instrs.erase(p.instrs.begin() + 7, p.instrs.end() - 1);  // drop the 2-D calls
  p.instrs.insert(p.instrs.end() - 1, body.begin(), body.end());
  runtime::LeafKernel k(p);
  std::vector<float> x(128), y(128, 0.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i + 1);
  void* gm[2] = {x.data(), y.data()};
  int64_t args[2] = {6, 16};
  PtoKernelArgs pa{gm, args, 2, nullptr};
  k.run(&pa);
  for (size_t i = 0; i < 128; ++i) CHECK(y[i] == (i < 6 * 16 ? x[i] : 0.0f));
  std::fill(y.begin(), y.end(), 0.0f);
  args[0] = 0;
  k.run(&pa);
  CHECK(y[0] == 0.0f);
}

TEST_CASE("leaf exec: every tile function resolves for the types it takes", "[leaf_exec]") {
  auto dt = [](int t) { return TParam{TParamKind::DType, t}; };
  auto k = [](TParamKind kind, int v) { return TParam{kind, v}; };
  for (int t = 0; t < kNumElemTypes; ++t) {
    CHECK(runtime::resolve_leaf_call(Fn::TLOAD, {dt(t), ti(8), ti(8), k(TParamKind::Pad, 1)}));
    CHECK(runtime::resolve_leaf_call(Fn::TSTORE, {dt(t), ti(8), ti(8), ti(1)}));
    for (int s = 0; s < kNumElemTypes; ++s) CHECK(runtime::resolve_leaf_call(Fn::TCAST, {dt(t), dt(s), ti(8), ti(8)}));
    if (t >= int(ElemType::f8e4m3)) {  // the 8-bit floats only move and cast
      CHECK_FALSE(runtime::resolve_leaf_call(Fn::TBINARY, {k(TParamKind::BinOp, 0), dt(t), ti(8), ti(8), k(TParamKind::Bcast, 3), k(TParamKind::Bcast, 1)}));
      continue;
    }
    for (int op = 0; op < 10; ++op)
      CHECK(runtime::resolve_leaf_call(Fn::TBINARY, {k(TParamKind::BinOp, op), dt(t), ti(8), ti(8), k(TParamKind::Bcast, 3), k(TParamKind::Bcast, 1)}));
    for (int op = 0; op < 25; ++op) CHECK(runtime::resolve_leaf_call(Fn::TUNARY, {k(TParamKind::UnOp, op), dt(t), ti(8), ti(8)}));
    for (int op = 0; op < 7; ++op)
      CHECK(runtime::resolve_leaf_call(Fn::TREDUCE, {k(TParamKind::RedOp, op), dt(t), ti(8), ti(8), ti(0)}));
    CHECK(runtime::resolve_leaf_call(Fn::TSELECT, {dt(t), ti(8), ti(8), k(TParamKind::Bcast, 2), k(TParamKind::Bcast, 0), k(TParamKind::Bcast, 3)}));
    CHECK(runtime::resolve_leaf_call(Fn::TCOPY2D, {dt(t), ti(1), ti(1), ti(1), ti(1)}));
  }
  for (int t = 0; t < 3; ++t) {
    CHECK(runtime::resolve_leaf_call(Fn::TMMAD, {dt(t), ti(16), ti(16), ti(16)}));
    CHECK(runtime::resolve_leaf_call(Fn::TFIXPIPE, {dt(t), ti(16), ti(16), ti(1)}));
  }
  CHECK_FALSE(runtime::resolve_leaf_call(Fn::TMMAD, {dt(3), ti(16), ti(16), ti(16)}));  // no integer cube
}

TEST_CASE("leaf exec: a corrupted program is refused at load, naming the kernel", "[leaf_exec]") {
  LeafProgram p = sample_program();
  p.instrs[9].operands[2].expr = a(4);  // PTO_ARG(4) of 2
  std::vector<Kernel> ks = {Kernel{"sample_0", CoreType::AIV, "", 0, 2, 2, encode_leaf_program(p)}};
  CHECK_THROWS_WITH(runtime::LeafExecutor(ks), Catch::Contains("kernel 'sample_0'") && Catch::Contains("PTO_ARG(4)"));
  ks[0].program.clear();
  CHECK_THROWS_WITH(runtime::LeafExecutor(ks), Catch::Contains("no leaf program") && Catch::Contains("--twin=cce"));
  ks[0].program = encode_leaf_program(sample_program());
  ks[0].num_args = 3;
  CHECK_THROWS_WITH(runtime::LeafExecutor(ks), Catch::Contains("corrupted"));
}

#include "runtime/program/bundle.h"
#include "test/runtime/programs.h"

TEST_CASE("leaf exec: a bundle whose leaf program is corrupted (checksums valid) is refused at load", "[leaf_exec]") {
  CompiledProgram p = ptoc::test::flip_program();
  LeafProgram lp = sample_program();
  lp.kernel = p.kernels[0].name;
  p.kernels[0].num_args = lp.num_args;
  p.kernels[0].num_gm = lp.num_gm;
  p.kernels[0].program = encode_leaf_program(lp);
  runtime::LoadedBundle ok = runtime::decode_bundle(runtime::encode_bundle(p, {}), "good.bundle");
  CHECK(ok.program.kernels[0].program == p.kernels[0].program);
  lp.instrs[8].operands[1].index = 9;  // buffer 9 of 1; encode_bundle recomputes every checksum
  p.kernels[0].program = encode_leaf_program(lp);
  std::vector<uint8_t> bad = runtime::encode_bundle(p, {});
  CHECK_THROWS_WITH(runtime::decode_bundle(bad, "bad.bundle"),
                    Catch::Contains("bad.bundle") && Catch::Contains("leaf_programs") &&
                        Catch::Contains("kernel '" + p.kernels[0].name + "'") && Catch::Contains("buffer 9"));
}
