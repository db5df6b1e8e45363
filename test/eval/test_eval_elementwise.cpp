// Elementwise ops of the catalogue, every dtype: values against hand-computed
// results and NumPy-computed constants, rounding to the dtype after each op,
// broadcasting, scalar operands, integer wrap-around and division.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "program_builder.h"

using namespace ptoc;
using namespace ptoc::test;

namespace {

// y = k(x) over a rank-1 tensor.
std::vector<double> unary1(OpKind k, DType t, const std::vector<double>& x) {
  ProgramBuilder b;
  int64_t n = int64_t(x.size());
  b.input("x", t, {n});
  b.output("y", t, {n});
  b.assemble("y", b.un(k, b.ref("x")), {0});
  return values_of(run(b.p, {{"x", tensor_of(t, {n}, x)}}).at("y"));
}

// y = k(a, b) with NumPy broadcasting of the two shapes.
TensorData binary(OpKind k, DType t, std::vector<int64_t> sa, const std::vector<double>& a, std::vector<int64_t> sb,
                  const std::vector<double>& bv) {
  ProgramBuilder b;
  Dims da(sa.begin(), sa.end()), db(sb.begin(), sb.end());
  b.input("a", t, da);
  b.input("b", t, db);
  int v = b.bin(k, b.ref("a"), b.ref("b"));
  const Dims& ys = b.val(v).shape;
  b.output("y", t, ys);
  b.assemble("y", v, Dims(ys.size(), DimExpr(0)));
  return run(b.p, {{"a", tensor_of(t, sa, a)}, {"b", tensor_of(t, sb, bv)}}).at("y");
}

std::vector<double> scalar_op(OpKind k, DType t, const std::vector<double>& x, double s, bool first) {
  ProgramBuilder b;
  int64_t n = int64_t(x.size());
  b.input("x", t, {n});
  b.output("y", t, {n});
  b.assemble("y", b.bin_s(k, b.ref("x"), s, first), {0});
  return values_of(run(b.p, {{"x", tensor_of(t, {n}, x)}}).at("y"));
}

// An independent float -> bf16 -> float rounding (nearest even) for expected values.
double bf16_round(double v) {
  float f = float(v);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t lower = u & 0xffffu, keep = u & 0xffff0000u;
  if (lower > 0x8000u || (lower == 0x8000u && (keep & 0x10000u))) keep += 0x10000u;
  std::memcpy(&f, &keep, 4);
  return f;
}

const std::vector<double> kX = {-2.0, -0.5, 0.0, 0.5, 1.0, 3.0};

}  // namespace

TEST_CASE("unary ops in fp32 match NumPy (float64 math, rounded to float32)", "[eval][elementwise]") {
  // Constants: numpy float64 evaluation of each formula on kX, cast to float32.
  const std::map<OpKind, std::vector<double>> expect = {
      {OpKind::Gelu, {-0.04540230706334114, -0.1542859971523285, 0.0, 0.3457140028476715, 0.8411920070648193,
                      2.9963626861572266}},
      {OpKind::Silu, {-0.23840583860874176, -0.1887703388929367, 0.0, 0.3112296760082245, 0.7310585975646973,
                      2.857722282409668}},
      {OpKind::Sigmoid, {0.11920291930437088, 0.3775406777858734, 0.5, 0.622459352016449, 0.7310585975646973,
                         0.9525741338729858}},
      {OpKind::Tanh, {-0.9640275835990906, -0.46211716532707214, 0.0, 0.46211716532707214, 0.7615941762924194,
                      0.9950547814369202}},
      {OpKind::Exp, {0.1353352814912796, 0.6065306663513184, 1.0, 1.6487212181091309, 2.7182817459106445,
                     20.08553695678711}},
      {OpKind::Abs, {2, 0.5, 0, 0.5, 1, 3}},
      {OpKind::Neg, {2, 0.5, -0.0, -0.5, -1, -3}},
      {OpKind::Relu, {0, 0, 0, 0.5, 1, 3}},
  };
  for (const auto& [k, want] : expect) {
    auto got = unary1(k, DType::fp32, kX);
    INFO(op_kind_name(k));
    for (size_t i = 0; i < want.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-7).margin(1e-12));
  }
  const std::vector<double> pos = {0.25, 1.0, 4.0, 9.0};
  CHECK(unary1(OpKind::Sqrt, DType::fp32, pos) == std::vector<double>{0.5, 1, 2, 3});
  CHECK(unary1(OpKind::Rsqrt, DType::fp32, pos) == std::vector<double>{2, 1, 0.5, double(float(1.0 / 3))});
  CHECK(unary1(OpKind::Reciprocal, DType::fp32, pos) == std::vector<double>{4, 1, 0.25, double(float(1.0 / 9))});
  CHECK(unary1(OpKind::Log, DType::fp32, {1.0, std::exp(2.0), 0.5})[0] == 0);
  CHECK(unary1(OpKind::Log, DType::fp32, {1.0, 8.0, 0.5})[1] == double(float(std::log(8.0))));
  auto edge = unary1(OpKind::Log, DType::fp32, {0.0, -1.0});
  CHECK(std::isinf(edge[0]));
  CHECK(std::isnan(edge[1]));
}

TEST_CASE("unary ops in fp16 and bf16 round their result to the dtype", "[eval][elementwise]") {
  // numpy: np.exp(x).astype(np.float16)
  CHECK(unary1(OpKind::Exp, DType::fp16, kX) ==
        std::vector<double>{0.1353759765625, 0.6064453125, 1.0, 1.6484375, 2.71875, 20.078125});
  auto e = unary1(OpKind::Exp, DType::bf16, kX);
  for (size_t i = 0; i < kX.size(); ++i) CHECK(e[i] == bf16_round(std::exp(kX[i])));
  CHECK(e[4] == 2.71875);  // bf16 keeps 8 significant bits: e = 2.71875 exactly representable
  auto s = unary1(OpKind::Sigmoid, DType::bf16, kX);
  for (size_t i = 0; i < kX.size(); ++i) CHECK(s[i] == bf16_round(1 / (1 + std::exp(-kX[i]))));
}

TEST_CASE("binary ops in float dtypes, with rounding after the op", "[eval][elementwise]") {
  // fp16: 1 + 2^-11 is a tie between 1 and 1 + 2^-10, rounds to even (1); 1 + 3*2^-11 rounds up to 1 + 2^-9.
  auto h = values_of(binary(OpKind::Add, DType::fp16, {3}, {1, 1, 2048}, {3},
                            {std::ldexp(1.0, -11), 3 * std::ldexp(1.0, -11), 1}));
  CHECK(h == std::vector<double>{1.0, 1.0 + std::ldexp(1.0, -9), 2048});  // 2048 + 1 ties to 2048 in fp16
  auto b = values_of(binary(OpKind::Mul, DType::bf16, {2}, {3, 1.0078125}, {2}, {-0.5, 1.0078125}));
  CHECK(b[0] == -1.5);
  CHECK(b[1] == bf16_round(1.0078125 * 1.0078125));
  CHECK(b[1] == 1.015625);
  auto f = values_of(binary(OpKind::Div, DType::fp32, {4}, {1, 1, -3, 0}, {4}, {3, 0, 2, 0}));
  CHECK(f[0] == double(float(1.0 / 3)));
  CHECK(std::isinf(f[1]));
  CHECK(f[2] == -1.5);
  CHECK(std::isnan(f[3]));
  CHECK(values_of(binary(OpKind::Sub, DType::fp32, {2}, {5, 1}, {2}, {7, 0.25})) == std::vector<double>{-2, 0.75});
  CHECK(values_of(binary(OpKind::Maximum, DType::fp32, {3}, {1, -2, 3}, {3}, {0, -1, 5})) ==
        std::vector<double>{1, -1, 5});
  CHECK(values_of(binary(OpKind::Minimum, DType::fp16, {3}, {1, -2, 3}, {3}, {0, -1, 5})) ==
        std::vector<double>{0, -2, 3});
  auto m = values_of(binary(OpKind::Maximum, DType::fp32, {2}, {NAN, 1}, {2}, {0, 2}));
  CHECK(std::isnan(m[0]));  // NumPy's maximum propagates NaN
}

TEST_CASE("broadcasting follows NumPy: size-1 axes and missing leading axes", "[eval][elementwise]") {
  // [2,3] + [3]
  auto y = binary(OpKind::Add, DType::fp32, {2, 3}, {1, 2, 3, 4, 5, 6}, {3}, {10, 20, 30});
  CHECK(y.shape == std::vector<int64_t>{2, 3});
  CHECK(values_of(y) == std::vector<double>{11, 22, 33, 14, 25, 36});
  // [2,1] * [1,3] -> outer product
  auto o = binary(OpKind::Mul, DType::fp32, {2, 1}, {2, 3}, {1, 3}, {1, 10, 100});
  CHECK(o.shape == std::vector<int64_t>{2, 3});
  CHECK(values_of(o) == std::vector<double>{2, 20, 200, 3, 30, 300});
  // [2,1,2] - [3,1]
  auto s = binary(OpKind::Sub, DType::int32, {2, 1, 2}, {1, 2, 3, 4}, {3, 1}, {0, 10, 20});
  CHECK(s.shape == std::vector<int64_t>{2, 3, 2});
  CHECK(values_of(s) == std::vector<double>{1, 2, -9, -8, -19, -18, 3, 4, -7, -6, -17, -16});
}

TEST_CASE("a scalar literal takes the tensor's dtype and may be the left operand", "[eval][elementwise]") {
  CHECK(scalar_op(OpKind::Sub, DType::fp32, {1, 5}, 2, true) == std::vector<double>{1, -3});   // 2 - x
  CHECK(scalar_op(OpKind::Sub, DType::fp32, {1, 5}, 2, false) == std::vector<double>{-1, 3});  // x - 2
  CHECK(scalar_op(OpKind::Div, DType::fp32, {4, 8}, 1, true) == std::vector<double>{0.25, 0.125});
  // 0.1 as fp16 is 0.0999755859375; x * 0.1 with x = 1 gives exactly that.
  CHECK(scalar_op(OpKind::Mul, DType::fp16, {1, 10}, 0.1, false) ==
        std::vector<double>{0.0999755859375, 1.0});  // 10 * 0.0999755859375 = 1 - 2^-12, a tie: to even (1)
}

TEST_CASE("integer arithmetic: exact, wraps to the width, division truncates", "[eval][elementwise]") {
  auto d = values_of(binary(OpKind::Div, DType::int32, {5}, {7, -7, 7, -7, 5}, {5}, {2, 2, -2, -2, 0}));
  CHECK(d == std::vector<double>{3, -3, -3, 3, 0});  // toward zero; x / 0 is 0
  auto w = values_of(binary(OpKind::Add, DType::int32, {2}, {2147483647, -2147483648.0}, {2}, {1, -1}));
  CHECK(w == std::vector<double>{-2147483648.0, 2147483647});
  // 65537 * 65537 = 4295098369 = 2^32 + 131073: exact in int64 before wrapping to int32.
  auto m = values_of(binary(OpKind::Mul, DType::int32, {2}, {65537, 46341}, {2}, {65537, 46341}));
  CHECK(m == std::vector<double>{131073, -2147479015});
  CHECK(values_of(binary(OpKind::Add, DType::int8, {2}, {100, -100}, {2}, {100, -100})) ==
        std::vector<double>{-56, 56});
  CHECK(values_of(binary(OpKind::Sub, DType::uint8, {2}, {3, 250}, {2}, {5, 0})) == std::vector<double>{254, 250});
  CHECK(values_of(binary(OpKind::Maximum, DType::int8, {3}, {-5, 7, 0}, {3}, {-6, 8, 0})) ==
        std::vector<double>{-5, 8, 0});
  CHECK(unary1(OpKind::Abs, DType::int32, {-5, 3}) == std::vector<double>{5, 3});
  CHECK(unary1(OpKind::Neg, DType::int8, {-128, 5}) == std::vector<double>{-128, -5});  // -(-128) wraps
  CHECK(unary1(OpKind::Relu, DType::int32, {-5, 3}) == std::vector<double>{0, 3});
}

TEST_CASE("bool elementwise: maximum is or, minimum and mul are and", "[eval][elementwise]") {
  std::vector<double> a = {0, 0, 1, 1}, b = {0, 1, 0, 1};
  CHECK(values_of(binary(OpKind::Maximum, DType::boolean, {4}, a, {4}, b)) == std::vector<double>{0, 1, 1, 1});
  CHECK(values_of(binary(OpKind::Minimum, DType::boolean, {4}, a, {4}, b)) == std::vector<double>{0, 0, 0, 1});
  CHECK(values_of(binary(OpKind::Mul, DType::boolean, {4}, a, {4}, b)) == std::vector<double>{0, 0, 0, 1});
}
