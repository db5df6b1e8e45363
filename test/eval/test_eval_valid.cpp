// Valid shapes (tails): a slice past the end of a dynamic extent is padded,
// the padding never enters a reduction or a matmul sum, never reaches an
// output, and assemble writes only the valid region.
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

bool all_finite(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

}  // namespace

TEST_CASE("row tiles with a tail: rowwise softmax over a batch not divisible by the tile", "[eval][valid]") {
  // x [B, 8] processed in tiles of 4 rows: B = 10 gives tiles of 4, 4 and a tail of 2.
  ProgramBuilder b;
  b.dyn_dim("B");
  b.input("x", DType::fp32, {S("B"), 8});
  b.output("y", DType::fp32, {S("B"), 8});
  b.loop("i", ceil_div(S("B"), 4), [&] {
    int t = b.view(b.ref("x"), {4, 8}, {S("i") * 4, 0});
    int e = b.un(OpKind::Exp, b.bin(OpKind::Sub, t, b.reduce(OpKind::Amax, t, 1, true)));
    b.assemble("y", b.bin(OpKind::Div, e, b.reduce(OpKind::Sum, e, 1, true)), {S("i") * 4, 0});
  });
  for (int64_t B : {8, 10, 3}) {
    std::vector<double> xs;
    for (int64_t i = 0; i < B * 8; ++i) xs.push_back(std::sin(double(i)) * 4);
    auto y = values_of(run(b.p, {{"x", tensor_of(DType::fp32, {B, 8}, xs)}}).at("y"));
    INFO("B = " << B);
    REQUIRE(y.size() == size_t(B * 8));
    CHECK(all_finite(y));
    for (int64_t r = 0; r < B; ++r) {
      double m = -INFINITY, den = 0, sum = 0;
      for (int c = 0; c < 8; ++c) m = std::max(m, double(float(xs[size_t(r * 8 + c)])));
      for (int c = 0; c < 8; ++c) den += std::exp(double(float(xs[size_t(r * 8 + c)])) - m);
      for (int c = 0; c < 8; ++c) {
        CHECK(y[size_t(r * 8 + c)] == Approx(std::exp(double(float(xs[size_t(r * 8 + c)])) - m) / den).epsilon(1e-6));
        sum += y[size_t(r * 8 + c)];
      }
      CHECK(sum == Approx(1).epsilon(1e-6));
    }
  }
}

TEST_CASE("a reduction over a clipped axis sees only the valid part", "[eval][valid]") {
  // Column tiles of 4 over x [2, C]: per tile sum, amax, amin and mean, written to [2, ceil(C/4)].
  ProgramBuilder b;
  b.dyn_dim("C");
  b.input("x", DType::fp32, {2, S("C")});
  const OpKind kinds[] = {OpKind::Sum, OpKind::Amax, OpKind::Amin, OpKind::Mean};
  const char* names[] = {"sum", "amax", "amin", "mean"};
  for (const char* n : names) b.output(n, DType::fp32, {2, ceil_div(S("C"), 4)});
  b.loop("j", ceil_div(S("C"), 4), [&] {
    int t = b.view(b.ref("x"), {2, 4}, {0, S("j") * 4});
    for (int k = 0; k < 4; ++k) b.assemble(names[k], b.reduce(kinds[k], t, 1, true), {0, S("j")});
  });
  // C = 6: tiles [0..3] and a tail [4..5]. x = -1 * [0..5], [6..11] so amax is the first valid element.
  std::vector<double> xs;
  for (int i = 0; i < 12; ++i) xs.push_back(-double(i));
  auto out = run(b.p, {{"x", tensor_of(DType::fp32, {2, 6}, xs)}});
  CHECK(values_of(out.at("sum")) == std::vector<double>{-6, -9, -30, -21});
  CHECK(values_of(out.at("amax")) == std::vector<double>{0, -4, -6, -10});
  CHECK(values_of(out.at("amin")) == std::vector<double>{-3, -5, -9, -11});
  CHECK(values_of(out.at("mean")) == std::vector<double>{-1.5, -4.5, -7.5, -10.5});  // tail divides by 2, not 4
}

TEST_CASE("matmul sums only the valid part of K", "[eval][valid]") {
  // K tiles of 4 over K = 6 accumulated in a workspace: the tail tile's K extent is 2.
  ProgramBuilder b;
  b.dyn_dim("K");
  b.input("a", DType::fp16, {2, S("K")});
  b.input("w", DType::fp16, {S("K"), 3});
  b.output("y", DType::fp32, {2, 3});
  b.loop("k", ceil_div(S("K"), 4), [&] {
    int at = b.view(b.ref("a"), {2, 4}, {0, S("k") * 4});
    int wt = b.view(b.ref("w"), {4, 3}, {S("k") * 4, 0});
    b.assemble("y", b.bin(OpKind::Add, b.ref("y"), b.matmul(at, wt)), {0, 0});
  });
  auto av = iota(12, 1), wv = iota(18, -5);
  auto y = values_of(run(b.p, {{"a", tensor_of(DType::fp16, {2, 6}, av)}, {"w", tensor_of(DType::fp16, {6, 3}, wv)}}).at("y"));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 6; ++k) s += av[size_t(i * 6 + k)] * wv[size_t(k * 3 + j)];
      CHECK(y[size_t(i * 3 + j)] == s);
    }
}

TEST_CASE("assemble writes only the valid region of a tail tile", "[eval][valid]") {
  ProgramBuilder b;
  b.input("x", DType::fp32, {5, 2});
  b.output("y", DType::fp32, {5, 2});
  b.output("z", DType::fp32, {8, 2});
  // An explicit valid= smaller than the window: only that 3x1 corner is written over the 7s.
  b.assemble("y", b.full({5, 2}, 7, DType::fp32), {0, 0});
  int t = b.view(b.ref("x"), {4, 2}, {0, 0}, {3, 1});
  b.assemble("y", b.bin_s(OpKind::Mul, t, 10), {0, 0});
  // Row tiles of 4 over 5 rows: the second tile has one valid row; z has room for all 8 window rows,
  // and rows 5..7 must keep their 7s.
  b.assemble("z", b.full({8, 2}, 7, DType::fp32), {0, 0});
  b.loop("i", 2, [&] { b.assemble("z", b.view(b.ref("x"), {4, 2}, {S("i") * 4, 0}), {S("i") * 4, 0}); });
  auto out = run(b.p, {{"x", tensor_of(DType::fp32, {5, 2}, iota(10))}});
  CHECK(values_of(out.at("y")) == std::vector<double>{0, 7, 20, 7, 40, 7, 7, 7, 7, 7});
  CHECK(values_of(out.at("z")) == std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 7, 7, 7, 7, 7, 7});
}

TEST_CASE("broadcasting with a padded operand keeps the padding out", "[eval][valid]") {
  // Row tiles of 4 of x [B, 3] plus a bias [1, 3]; then a sum over rows (axis 0) per tile.
  ProgramBuilder b;
  b.dyn_dim("B");
  b.input("x", DType::fp32, {S("B"), 3});
  b.input("bias", DType::fp32, {1, 3});
  b.output("y", DType::fp32, {ceil_div(S("B"), 4), 3});
  b.loop("i", ceil_div(S("B"), 4), [&] {
    int t = b.bin(OpKind::Add, b.view(b.ref("x"), {4, 3}, {S("i") * 4, 0}), b.ref("bias"));
    b.assemble("y", b.reduce(OpKind::Sum, t, 0, true), {S("i"), 0});
  });
  auto y = values_of(run(b.p, {{"x", tensor_of(DType::fp32, {5, 3}, iota(15))},
                               {"bias", tensor_of(DType::fp32, {1, 3}, {100, 200, 300})}})
                         .at("y"));
  // tile 0: rows 0..3 -> col sums 18, 22, 26 plus 4 * bias; tile 1: row 4 only -> 12, 13, 14 plus bias.
  CHECK(y == std::vector<double>{418, 822, 1226, 112, 213, 314});
}

TEST_CASE("concat may have a tail only in its last input; reshape keeps a box valid", "[eval][valid]") {
  ProgramBuilder b;
  b.dyn_dim("N");
  b.input("x", DType::fp32, {S("N")});
  b.output("y", DType::fp32, {6});
  b.output("r", DType::fp32, {2, 4});
  b.output("s", DType::fp32, {4});
  int x = b.ref("x");
  int full = b.full({2}, 9, DType::fp32);
  int tail = b.view(x, {4}, {0});                  // N = 3: valid 3 of 4
  b.assemble("y", b.concat({full, tail}, 0), {0});  // 9 9 x0 x1 x2 (pad)
  // [1, 4] valid [1, 3] -> [4] valid [3]: dropping a size-1 axis keeps the valid extent.
  int row = b.reshape(tail, {1, 4});
  b.assemble("s", b.reshape(row, {4}), {0});
  // [4, 2] valid [2, 2] is a flat prefix of 4 elements: reshaped to [2, 4] it is one whole valid row.
  int m = b.view(b.reshape(b.full({8}, 1, DType::fp32), {4, 2}), {4, 2}, {0, 0}, {2, 2});
  b.assemble("r", b.reshape(m, {2, 4}), {0, 0});
  auto out = run(b.p, {{"x", tensor_of(DType::fp32, {3}, {1, 2, 3})}});
  CHECK(values_of(out.at("y")) == std::vector<double>{9, 9, 1, 2, 3, 0});
  CHECK(values_of(out.at("s")) == std::vector<double>{1, 2, 3, 0});
  CHECK(values_of(out.at("r")) == std::vector<double>{1, 1, 1, 1, 0, 0, 0, 0});
}

TEST_CASE("padding in the middle of a concat or a scrambling reshape is refused", "[eval][valid]") {
  ProgramBuilder b;
  b.input("x", DType::fp32, {3});
  b.output("y", DType::fp32, {6});
  int tail = b.view(b.ref("x"), {4}, {0});
  b.assemble("y", b.concat({tail, b.full({2}, 1, DType::fp32)}, 0), {0});
  CHECK_THROWS_WITH(run(b.p, {{"x", tensor_of(DType::fp32, {3}, {1, 2, 3})}}),
                    Catch::Contains("input 0 has valid extent 3 of 4 on the concatenated axis 0"));

  ProgramBuilder c;
  c.input("x", DType::fp32, {4, 3});
  c.output("y", DType::fp32, {3, 4});
  int v = c.view(c.ref("x"), {4, 3}, {0, 0}, {4, 2});
  c.assemble("y", c.reshape(v, {3, 4}), {0, 0});
  CHECK_THROWS_WITH(run(c.p, {{"x", tensor_of(DType::fp32, {4, 3}, iota(12))}}),
                    Catch::Contains("valid shape [4, 2]") && Catch::Contains("rectangular"));
}
