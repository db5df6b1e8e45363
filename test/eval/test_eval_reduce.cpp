// Reductions (sum, amax, amin, mean) on every axis and dtype, keepdim, and
// the identities of whole operators built from them: softmax rows sum to 1,
// layernorm rows have mean 0 and variance 1, rmsnorm rows have mean square 1.
#include <catch2/catch.hpp>

#include <cmath>

#include "program_builder.h"

using namespace ptoc;
using namespace ptoc::test;

namespace {

TensorData reduce(OpKind k, DType t, std::vector<int64_t> shape, const std::vector<double>& x, int axis,
                  bool keepdim) {
  ProgramBuilder b;
  b.input("x", t, Dims(shape.begin(), shape.end()));
  int v = b.reduce(k, b.ref("x"), axis, keepdim);
  const Dims& ys = b.val(v).shape;
  b.output("y", t, ys);
  b.assemble("y", v, Dims(ys.size(), DimExpr(0)));
  return run(b.p, {{"x", tensor_of(t, shape, x)}}).at("y");
}

// A [rows, cols] fp32 input with varied values (deterministic).
std::vector<double> sample(int64_t rows, int64_t cols) {
  std::vector<double> v;
  for (int64_t i = 0; i < rows * cols; ++i) v.push_back(std::sin(double(i) * 0.7) * 3 + double(i % 5) * 0.25);
  return v;
}

}  // namespace

TEST_CASE("sum, amax, amin and mean over each axis, with and without keepdim", "[eval][reduce]") {
  // x = [[1, 2, 3], [4, 5, 6]]
  const std::vector<double> x = {1, 2, 3, 4, 5, 6};
  auto s0 = reduce(OpKind::Sum, DType::fp32, {2, 3}, x, 0, false);
  CHECK(s0.shape == std::vector<int64_t>{3});
  CHECK(values_of(s0) == std::vector<double>{5, 7, 9});
  auto s1 = reduce(OpKind::Sum, DType::fp32, {2, 3}, x, 1, true);
  CHECK(s1.shape == std::vector<int64_t>{2, 1});
  CHECK(values_of(s1) == std::vector<double>{6, 15});
  CHECK(values_of(reduce(OpKind::Amax, DType::fp32, {2, 3}, x, 1, false)) == std::vector<double>{3, 6});
  CHECK(values_of(reduce(OpKind::Amin, DType::fp32, {2, 3}, x, 0, false)) == std::vector<double>{1, 2, 3});
  CHECK(values_of(reduce(OpKind::Mean, DType::fp32, {2, 3}, x, 1, false)) == std::vector<double>{2, 5});
  CHECK(values_of(reduce(OpKind::Mean, DType::fp32, {2, 3}, x, 0, true)) == std::vector<double>{2.5, 3.5, 4.5});
  // rank 3, middle axis
  std::vector<double> z(24);
  for (int i = 0; i < 24; ++i) z[size_t(i)] = i;
  auto m = reduce(OpKind::Sum, DType::int32, {2, 3, 4}, z, 1, false);
  CHECK(m.shape == std::vector<int64_t>{2, 4});
  CHECK(values_of(m) == std::vector<double>{12, 15, 18, 21, 48, 51, 54, 57});
}

TEST_CASE("reductions round to the dtype once, at the end", "[eval][reduce]") {
  // fp16: 2048 + 1 + 1 = 2050 exactly representable; summed in double and rounded once.
  CHECK(values_of(reduce(OpKind::Sum, DType::fp16, {3}, {2048, 1, 1}, 0, false)) == std::vector<double>{2050});
  // mean of fp16 [1, 2, 2] = 5/3 -> nearest fp16 1.6669921875
  CHECK(values_of(reduce(OpKind::Mean, DType::fp16, {3}, {1, 2, 2}, 0, false)) ==
        std::vector<double>{1.6669921875});
  // bf16 sum [1, 1/256, 1/256] = 1.0078125 -> exactly representable in bf16
  CHECK(values_of(reduce(OpKind::Sum, DType::bf16, {3}, {1, 0.00390625, 0.00390625}, 0, false)) ==
        std::vector<double>{1.0078125});
}

TEST_CASE("integer reductions: exact sums that wrap, mean truncates", "[eval][reduce]") {
  CHECK(values_of(reduce(OpKind::Sum, DType::int8, {3}, {100, 100, 1}, 0, false)) == std::vector<double>{-55});
  CHECK(values_of(reduce(OpKind::Mean, DType::int32, {2, 2}, {-3, -4, 3, 4}, 1, false)) ==
        std::vector<double>{-3, 3});  // -3.5 and 3.5 truncate toward zero
  CHECK(values_of(reduce(OpKind::Amax, DType::uint8, {3}, {7, 255, 0}, 0, false)) == std::vector<double>{255});
  CHECK(values_of(reduce(OpKind::Amin, DType::int8, {3}, {7, -128, 0}, 0, false)) == std::vector<double>{-128});
  CHECK(values_of(reduce(OpKind::Amax, DType::boolean, {2, 2}, {0, 0, 0, 1}, 1, false)) ==
        std::vector<double>{0, 1});
}

TEST_CASE("softmax built from ops: rows sum to 1 and match a direct computation", "[eval][reduce][identity]") {
  const int64_t R = 5, C = 37;
  ProgramBuilder b;
  b.input("x", DType::fp32, {R, C});
  b.output("y", DType::fp32, {R, C});
  int x = b.ref("x");
  int mx = b.reduce(OpKind::Amax, x, 1, true);
  int e = b.un(OpKind::Exp, b.bin(OpKind::Sub, x, mx));
  int s = b.reduce(OpKind::Sum, e, 1, true);
  b.assemble("y", b.bin(OpKind::Div, e, s), {0, 0});
  auto xs = sample(R, C);
  auto y = values_of(run(b.p, {{"x", tensor_of(DType::fp32, {R, C}, xs)}}).at("y"));
  for (int64_t r = 0; r < R; ++r) {
    double sum = 0, m = -INFINITY, den = 0;
    for (int64_t c = 0; c < C; ++c) m = std::max(m, double(float(xs[size_t(r * C + c)])));
    for (int64_t c = 0; c < C; ++c) den += std::exp(double(float(xs[size_t(r * C + c)])) - m);
    for (int64_t c = 0; c < C; ++c) {
      double got = y[size_t(r * C + c)];
      sum += got;
      CHECK(got == Approx(std::exp(double(float(xs[size_t(r * C + c)])) - m) / den).epsilon(1e-6));
    }
    CHECK(sum == Approx(1.0).epsilon(1e-6));
  }
}

TEST_CASE("layernorm built from ops: rows have mean 0 and variance 1", "[eval][reduce][identity]") {
  const int64_t R = 4, C = 64;
  for (DType t : {DType::fp32, DType::bf16, DType::fp16}) {
    ProgramBuilder b;
    b.input("x", t, {R, C});
    b.output("y", DType::fp32, {R, C});
    // Normalise in fp32 as the library's layernorm does: cast, mean, centre, variance, rsqrt.
    int x = b.cast(b.ref("x"), DType::fp32);
    int mu = b.reduce(OpKind::Mean, x, 1, true);
    int d = b.bin(OpKind::Sub, x, mu);
    int var = b.reduce(OpKind::Mean, b.bin(OpKind::Mul, d, d), 1, true);
    int inv = b.un(OpKind::Rsqrt, b.bin_s(OpKind::Add, var, 1e-6));
    b.assemble("y", b.bin(OpKind::Mul, d, inv), {0, 0});
    auto y = values_of(run(b.p, {{"x", tensor_of(t, {R, C}, sample(R, C))}}).at("y"));
    INFO(dtype_name(t));
    for (int64_t r = 0; r < R; ++r) {
      double mean = 0, sq = 0;
      for (int64_t c = 0; c < C; ++c) mean += y[size_t(r * C + c)] / C;
      for (int64_t c = 0; c < C; ++c) sq += (y[size_t(r * C + c)] - mean) * (y[size_t(r * C + c)] - mean) / C;
      CHECK(std::fabs(mean) < 1e-5);
      CHECK(sq == Approx(1.0).epsilon(1e-4));
    }
  }
}

TEST_CASE("rmsnorm built from ops: rows have mean square 1", "[eval][reduce][identity]") {
  const int64_t R = 3, C = 48;
  ProgramBuilder b;
  b.input("x", DType::fp32, {R, C});
  b.output("y", DType::fp32, {R, C});
  int x = b.ref("x");
  int ms = b.reduce(OpKind::Mean, b.bin(OpKind::Mul, x, x), 1, true);
  b.assemble("y", b.bin(OpKind::Mul, x, b.un(OpKind::Rsqrt, ms)), {0, 0});
  auto y = values_of(run(b.p, {{"x", tensor_of(DType::fp32, {R, C}, sample(R, C))}}).at("y"));
  for (int64_t r = 0; r < R; ++r) {
    double sq = 0;
    for (int64_t c = 0; c < C; ++c) sq += y[size_t(r * C + c)] * y[size_t(r * C + c)] / C;
    CHECK(sq == Approx(1.0).epsilon(1e-5));
  }
}
