// Ops that move, build or convert data: transpose, reshape, view, concat,
// full, cast (round to nearest even, every dtype pair that matters) and
// assemble into outputs and workspaces.
#include <catch2/catch.hpp>

#include <cmath>

#include "program_builder.h"

using namespace ptoc;
using namespace ptoc::test;

namespace {

std::vector<double> iota(int64_t n, double start = 0) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(start + double(i));
  return v;
}

std::vector<double> cast1(DType from, DType to, const std::vector<double>& x) {
  ProgramBuilder b;
  int64_t n = int64_t(x.size());
  b.input("x", from, {n});
  b.output("y", to, {n});
  b.assemble("y", b.cast(b.ref("x"), to), {0});
  return values_of(run(b.p, {{"x", tensor_of(from, {n}, x)}}).at("y"));
}

std::string eval_error(const Program& p, const std::map<std::string, TensorData>& in) {
  try {
    run(p, in);
  } catch (const EvalError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("transpose swaps two axes", "[eval][data]") {
  ProgramBuilder b;
  b.input("x", DType::fp16, {2, 3, 4});
  b.output("y", DType::fp16, {4, 3, 2});
  b.assemble("y", b.transpose(b.ref("x"), 0, 2), {0, 0, 0});
  auto y = values_of(run(b.p, {{"x", tensor_of(DType::fp16, {2, 3, 4}, iota(24))}}).at("y"));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) CHECK(y[size_t(k * 6 + j * 2 + i)] == i * 12 + j * 4 + k);
}

TEST_CASE("reshape keeps row-major order", "[eval][data]") {
  ProgramBuilder b;
  b.input("x", DType::int32, {2, 6});
  b.output("y", DType::int32, {3, 2, 2});
  b.assemble("y", b.reshape(b.ref("x"), {3, 2, 2}), {0, 0, 0});
  CHECK(values_of(run(b.p, {{"x", tensor_of(DType::int32, {2, 6}, iota(12))}}).at("y")) == iota(12));
}

TEST_CASE("reshape with a different element count is an error", "[eval][data]") {
  ProgramBuilder b;
  b.input("x", DType::fp32, {2, 6});
  b.output("y", DType::fp32, {5});
  b.assemble("y", b.reshape(b.ref("x"), {5}), {0});
  CHECK_THAT(eval_error(b.p, {{"x", tensor_of(DType::fp32, {2, 6}, iota(12))}}),
             Catch::Contains("cannot reshape [2, 6] (12 elements) into [5] (5 elements)"));
}

TEST_CASE("view takes a window at offsets, and slices read the source", "[eval][data]") {
  // x = 0..19 as [4, 5]; window [2, 3] at (1, 2) = [[7, 8, 9], [12, 13, 14]]
  ProgramBuilder b;
  b.input("x", DType::fp32, {4, 5});
  b.output("y", DType::fp32, {2, 3});
  b.assemble("y", b.view(b.ref("x"), {2, 3}, {1, 2}), {0, 0});
  CHECK(values_of(run(b.p, {{"x", tensor_of(DType::fp32, {4, 5}, iota(20))}}).at("y")) ==
        std::vector<double>{7, 8, 9, 12, 13, 14});
}

TEST_CASE("concat joins along any axis", "[eval][data]") {
  ProgramBuilder b;
  b.input("a", DType::bf16, {2, 2});
  b.input("c", DType::bf16, {2, 1});
  b.output("y", DType::bf16, {2, 3});
  b.output("z", DType::bf16, {4, 2});
  int a = b.ref("a");
  b.assemble("y", b.concat({a, b.ref("c")}, 1), {0, 0});
  b.assemble("z", b.concat({a, a}, 0), {0, 0});
  auto out = run(b.p, {{"a", tensor_of(DType::bf16, {2, 2}, {1, 2, 3, 4})}, {"c", tensor_of(DType::bf16, {2, 1}, {5, 6})}});
  CHECK(values_of(out.at("y")) == std::vector<double>{1, 2, 5, 3, 4, 6});
  CHECK(values_of(out.at("z")) == std::vector<double>{1, 2, 3, 4, 1, 2, 3, 4});
}

TEST_CASE("full builds a constant tensor in its dtype", "[eval][data]") {
  ProgramBuilder b;
  b.output("y", DType::fp16, {2, 2});
  b.output("m", DType::boolean, {3});
  b.output("i", DType::int8, {2});
  b.assemble("y", b.full({2, 2}, 0.1, DType::fp16), {0, 0});
  b.assemble("m", b.full({3}, 2.0, DType::boolean), {0});
  b.assemble("i", b.full({2}, -7.0, DType::int8), {0});
  auto out = run(b.p, {});
  CHECK(values_of(out.at("y")) == std::vector<double>(4, 0.0999755859375));
  CHECK(values_of(out.at("m")) == std::vector<double>{1, 1, 1});
  CHECK(values_of(out.at("i")) == std::vector<double>{-7, -7});
}

TEST_CASE("cast rounds to nearest even", "[eval][data][cast]") {
  // float -> int: ties to even, then the integer width.
  CHECK(cast1(DType::fp32, DType::int32, {2.5, 3.5, -2.5, -0.5, 1.4999, 1e3}) ==
        std::vector<double>{2, 4, -2, -0.0, 1, 1000});
  CHECK(cast1(DType::fp16, DType::int8, {0.5, 1.5, -1.5, 127}) == std::vector<double>{0, 2, -2, 127});
  CHECK(cast1(DType::bf16, DType::uint8, {254.0, 2.5}) == std::vector<double>{254, 2});
  // fp32 -> fp16: 1 + 2^-11 ties to 1, 1 + 3 * 2^-11 ties up to 1 + 2^-9; 70000 overflows to inf.
  auto h = cast1(DType::fp32, DType::fp16, {1 + std::ldexp(1.0, -11), 1 + 3 * std::ldexp(1.0, -11), 70000, 1e-8});
  CHECK(h[0] == 1.0);
  CHECK(h[1] == 1 + std::ldexp(1.0, -9));
  CHECK(std::isinf(h[2]));
  CHECK(h[3] == 0.0);  // below half the smallest fp16 subnormal (2^-24)
  // fp32 -> bf16: 1 + 2^-8 ties to 1; 1 + 3 * 2^-8 ties up.
  CHECK(cast1(DType::fp32, DType::bf16, {1 + std::ldexp(1.0, -8), 1 + 3 * std::ldexp(1.0, -8)}) ==
        std::vector<double>{1.0, 1 + std::ldexp(1.0, -6)});
  // widening casts are exact
  CHECK(cast1(DType::fp16, DType::fp32, {0.0999755859375, -65504}) == std::vector<double>{0.0999755859375, -65504});
  CHECK(cast1(DType::int32, DType::fp32, {16777217, -3}) == std::vector<double>{16777216, -3});  // nearest float
  CHECK(cast1(DType::int8, DType::int32, {-128, 127}) == std::vector<double>{-128, 127});
  CHECK(cast1(DType::int32, DType::int8, {300, -129}) == std::vector<double>{44, 127});  // wraps to the width
}

TEST_CASE("cast to and from bool", "[eval][data][cast]") {
  CHECK(cast1(DType::fp32, DType::boolean, {0.0, -0.0, 0.25, -3, NAN}) == std::vector<double>{0, 0, 1, 1, 1});
  CHECK(cast1(DType::boolean, DType::fp16, {1, 0}) == std::vector<double>{1, 0});
  CHECK(cast1(DType::boolean, DType::int32, {1, 0}) == std::vector<double>{1, 0});
  CHECK(cast1(DType::int8, DType::boolean, {0, 5, -1}) == std::vector<double>{0, 1, 1});
}

TEST_CASE("assemble writes at offsets; outputs and workspaces start zeroed", "[eval][data][assemble]") {
  ProgramBuilder b;
  b.input("x", DType::fp32, {2, 2});
  b.output("y", DType::fp32, {3, 4});
  b.workspace("ws", DType::fp32, {2, 2});
  int x = b.ref("x");
  b.assemble("y", x, {1, 2});
  // Through a workspace: write it, read it back (the read sees the write), double it.
  b.assemble("ws", x, {0, 0});
  int back = b.ref("ws");
  b.assemble("y", b.bin_s(OpKind::Mul, back, 2), {0, 0});
  auto y = values_of(run(b.p, {{"x", tensor_of(DType::fp32, {2, 2}, {1, 2, 3, 4})}}).at("y"));
  CHECK(y == std::vector<double>{2, 4, 0, 0, 6, 8, 1, 2, 0, 0, 3, 4});
}

TEST_CASE("assemble rounds to the target dtype and drops what lies outside it", "[eval][data][assemble]") {
  ProgramBuilder b;
  b.input("x", DType::fp32, {2, 3});
  b.output("y", DType::fp32, {3, 3});
  b.assemble("y", b.ref("x"), {2, 1});  // only row 0, columns 0..1 of x land inside y
  auto y = values_of(run(b.p, {{"x", tensor_of(DType::fp32, {2, 3}, {1, 2, 3, 4, 5, 6})}}).at("y"));
  CHECK(y == std::vector<double>{0, 0, 0, 0, 0, 0, 0, 1, 2});
}

TEST_CASE("a view of a tensor taken before an assemble keeps the old contents", "[eval][data][assemble]") {
  ProgramBuilder b;
  b.input("x", DType::fp32, {2});
  b.output("y", DType::fp32, {2});
  b.output("old", DType::fp32, {2});
  int before = b.ref("y");                 // zeros
  b.assemble("y", b.ref("x"), {0});
  b.assemble("old", before, {0});          // SSA: the value read before the write
  auto out = run(b.p, {{"x", tensor_of(DType::fp32, {2}, {5, 6})}});
  CHECK(values_of(out.at("y")) == std::vector<double>{5, 6});
  CHECK(values_of(out.at("old")) == std::vector<double>{0, 0});
}

TEST_CASE("out-of-range slices and assembles are run-time errors that say where", "[eval][data][errors]") {
  ProgramBuilder b;
  b.dyn_dim("B");
  b.input("x", DType::fp32, {S("B"), 4});
  b.output("y", DType::fp32, {S("B"), 4});
  b.loop("i", 2, [&] {
    int v = b.view(b.ref("x"), {2, 4}, {S("i") * 3, 0});
    b.p.ops.back().loc = {7, 11};
    b.assemble("y", v, {S("i") * 3, 0});
  });
  CHECK_THAT(eval_error(b.p, {{"x", tensor_of(DType::fp32, {2, 4}, iota(8))}}),
             Catch::Contains("test.yaml:7:11: view: slice start 3 on axis 0 is outside the source's extent 2") &&
                 Catch::Contains("(at i=1)"));

  ProgramBuilder c;
  c.input("x", DType::fp32, {2});
  c.output("y", DType::fp32, {2});
  c.assemble("y", c.ref("x"), {-1});
  CHECK_THAT(eval_error(c.p, {{"x", tensor_of(DType::fp32, {2}, {1, 2})}}),
             Catch::Contains("assemble into y: offset -1 on axis 0 is outside its extent 2"));
}

TEST_CASE("inputs that do not match their declaration are refused", "[eval][data][errors]") {
  ProgramBuilder b;
  b.input("x", DType::fp32, {2});
  b.output("y", DType::fp32, {2});
  b.assemble("y", b.ref("x"), {0});
  DimExpr::Env env;
  CHECK_THROWS_WITH(evaluate(b.p, {}, env), Catch::Contains("input x was not given"));
  CHECK_THROWS_WITH(evaluate(b.p, {{"x", tensor_of(DType::fp16, {2}, {1, 2})}}, env),
                    Catch::Contains("input x is fp16 but the tensor is declared fp32"));
  CHECK_THROWS_WITH(evaluate(b.p, {{"x", tensor_of(DType::fp32, {3}, {1, 2, 3})}}, env),
                    Catch::Contains("input x has shape [3] but the tensor is [2]"));
}

TEST_CASE("a whole-tensor reference defined outside every root is read where it is used", "[eval][data]") {
  // The front end may share one TensorRef value between root templates without listing its op in any.
  ProgramBuilder b;
  b.input("x", DType::fp32, {3});
  b.output("y", DType::fp32, {3});
  b.workspace("ws", DType::fp32, {3});
  int ws = b.ref("ws");
  b.assemble("ws", b.ref("x"), {0});
  b.loop("i", 1, [&] { b.assemble("y", b.bin_s(OpKind::Add, ws, 1), {0}); });
  auto& top = b.p.roots[0].ops;
  top.erase(std::find(top.begin(), top.end(), b.val(ws).def_op));  // not in any root now
  auto y = values_of(run(b.p, {{"x", tensor_of(DType::fp32, {3}, {1, 2, 3})}}).at("y"));
  CHECK(y == std::vector<double>{2, 3, 4});  // the workspace as it is when read: after the assemble
}
