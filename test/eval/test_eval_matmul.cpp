// matmul: against a naive triple loop written here, for fp32/fp16/bf16 inputs
// and fp32/fp16/bf16 outputs, trans_a / trans_b, batched and broadcast
// batches, int8 -> int32 (the int32 product where every partial sum fits, int64 past that); and the fp32
// accumulation the cube performs.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>

#include "program_builder.h"

using namespace ptoc;
using namespace ptoc::test;

namespace {

std::vector<double> fill(int64_t n, double scale, int seed) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(std::cos(double(i * 13 + seed) * 0.37) * scale);
  return v;
}

struct MM {
  DType in = DType::fp32, out = DType::fp32;
  bool ta = false, tb = false;
};

// y = matmul(a, b) for the given stored shapes.
TensorData matmul(const MM& m, std::vector<int64_t> sa, const std::vector<double>& a, std::vector<int64_t> sb,
                  const std::vector<double>& bv) {
  ProgramBuilder b;
  b.input("a", m.in, Dims(sa.begin(), sa.end()));
  b.input("b", m.in, Dims(sb.begin(), sb.end()));
  int v = b.matmul(b.ref("a"), b.ref("b"), m.out, m.ta, m.tb);
  const Dims& ys = b.val(v).shape;
  b.output("y", m.out, ys);
  b.assemble("y", v, Dims(ys.size(), DimExpr(0)));
  return run(b.p, {{"a", tensor_of(m.in, sa, a)}, {"b", tensor_of(m.in, sb, bv)}}).at("y");
}

// The reference: a[i,k] * b[k,j] summed in double over the input values as stored in `in`.
std::vector<double> naive(int64_t M, int64_t K, int64_t N, const std::vector<double>& a,
                          const std::vector<double>& b, DType in, bool ta = false, bool tb = false) {
  std::vector<double> y(size_t(M * N), 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) {
        double x = a[size_t(ta ? k * M + i : i * K + k)], w = b[size_t(tb ? j * K + k : k * N + j)];
        s += round_to_dtype(x, in) * round_to_dtype(w, in);
      }
      y[size_t(i * N + j)] = s;
    }
  return y;
}

}  // namespace

TEST_CASE("matmul matches a naive triple loop for float dtypes", "[eval][matmul]") {
  const int64_t M = 7, K = 33, N = 5;
  auto a = fill(M * K, 1.0, 1), bv = fill(K * N, 0.5, 2);
  for (DType in : {DType::fp32, DType::fp16, DType::bf16}) {
    for (DType out : {DType::fp32, DType::fp16, DType::bf16}) {
      auto y = values_of(matmul({in, out}, {M, K}, a, {K, N}, bv));
      auto want = naive(M, K, N, a, bv, in);
      INFO(dtype_name(in) << " -> " << dtype_name(out));
      // fp32 accumulation differs from the double sum by a few fp32 ulps; then one rounding to `out`.
      double rel = out == DType::fp32 ? 1e-5 : out == DType::fp16 ? 1e-3 : 8e-3;
      for (size_t i = 0; i < want.size(); ++i) CHECK(y[i] == Approx(want[i]).epsilon(rel).margin(1e-5));
      // And the result is exactly representable in `out`.
      for (double v : y) CHECK(round_to_dtype(v, out) == v);
    }
  }
}

TEST_CASE("matmul with trans_a and trans_b", "[eval][matmul]") {
  const int64_t M = 3, K = 4, N = 2;
  auto a = fill(M * K, 1.0, 3), bv = fill(K * N, 1.0, 4);
  // Stored transposed: a as [K, M], b as [N, K].
  auto y = values_of(matmul({DType::fp32, DType::fp32, true, true}, {K, M}, a, {N, K}, bv));
  auto want = naive(M, K, N, a, bv, DType::fp32, true, true);
  for (size_t i = 0; i < want.size(); ++i) CHECK(y[i] == Approx(want[i]).epsilon(1e-6));
  // Hand case: [[1,2],[3,4]]^T x [[5,6],[7,8]] = [[26,30],[38,44]]
  CHECK(values_of(matmul({DType::fp32, DType::fp32, true, false}, {2, 2}, {1, 2, 3, 4}, {2, 2}, {5, 6, 7, 8})) ==
        std::vector<double>{26, 30, 38, 44});
  // [[1,2],[3,4]] x [[5,6],[7,8]]^T = [[17,23],[39,53]]
  CHECK(values_of(matmul({DType::fp32, DType::fp32, false, true}, {2, 2}, {1, 2, 3, 4}, {2, 2}, {5, 6, 7, 8})) ==
        std::vector<double>{17, 23, 39, 53});
}

TEST_CASE("batched matmul, and a shared right matrix broadcast over the batch", "[eval][matmul]") {
  const int64_t G = 3, M = 2, K = 5, N = 4;
  auto a = fill(G * M * K, 1.0, 5), bv = fill(G * K * N, 1.0, 6);
  auto y = matmul({DType::fp16, DType::fp32}, {G, M, K}, a, {G, K, N}, bv);
  CHECK(y.shape == std::vector<int64_t>{G, M, N});
  auto yv = values_of(y);
  for (int64_t g = 0; g < G; ++g) {
    std::vector<double> ag(a.begin() + g * M * K, a.begin() + (g + 1) * M * K);
    std::vector<double> bg(bv.begin() + g * K * N, bv.begin() + (g + 1) * K * N);
    auto want = naive(M, K, N, ag, bg, DType::fp16);
    for (int64_t i = 0; i < M * N; ++i) CHECK(yv[size_t(g * M * N + i)] == Approx(want[size_t(i)]).epsilon(1e-5).margin(1e-6));
  }
  std::vector<double> b2(bv.begin(), bv.begin() + K * N);
  auto yb = values_of(matmul({DType::fp32, DType::fp32}, {G, M, K}, a, {K, N}, b2));
  for (int64_t g = 0; g < G; ++g) {
    std::vector<double> ag(a.begin() + g * M * K, a.begin() + (g + 1) * M * K);
    auto want = naive(M, K, N, ag, b2, DType::fp32);
    for (int64_t i = 0; i < M * N; ++i) CHECK(yb[size_t(g * M * N + i)] == Approx(want[size_t(i)]).epsilon(1e-5).margin(1e-6));
  }
}

TEST_CASE("matmul accumulates in fp32, not in the input dtype and not in double", "[eval][matmul]") {
  // 4096 ones in fp16: an fp16 accumulator would stall at 2048; fp32 reaches 4096.
  const int64_t K = 4096;
  auto y = values_of(matmul({DType::fp16, DType::fp16}, {1, K}, std::vector<double>(K, 1.0), {K, 1},
                            std::vector<double>(K, 1.0)));
  CHECK(y == std::vector<double>{4096});
  // 1 + 2^-24 + 2^-24 in fp32 order: each addition ties back to 1; a double sum would give 1 + 2^-23.
  const double e = std::ldexp(1.0, -24);
  auto z = values_of(matmul({DType::fp32, DType::fp32}, {1, 3}, {1, e, e}, {3, 1}, {1, 1, 1}));
  CHECK(z == std::vector<double>{1.0});
}

TEST_CASE("int8 matmul accumulates exactly into int32", "[eval][matmul]") {
  const int64_t M = 2, K = 300, N = 2;
  std::vector<double> a(size_t(M * K), 127), bv(size_t(K * N), -128);
  auto y = values_of(matmul({DType::int8, DType::int32}, {M, K}, a, {K, N}, bv));
  CHECK(y == std::vector<double>(4, 127.0 * -128 * K));
}

// Checks every (si, sj)-th element of y = a @ b (row-major M x K and K x N) against a sum in Acc taken
// in k order, single-threaded: the reference the threaded evaluator must match bit for bit.
template <class Acc>
void check_sampled_sums(const std::vector<double>& y, const std::vector<double>& a, const std::vector<double>& b,
                        std::array<int64_t, 3> mkn, int64_t si, int64_t sj) {
  const auto [M, K, N] = mkn;
  for (int64_t i = 0; i < M; i += si)
    for (int64_t j = 0; j < N; j += sj) {
      Acc s = 0;
      for (int64_t k = 0; k < K; ++k) s += Acc(a[size_t(i * K + k)]) * Acc(b[size_t(k * N + j)]);
      CHECK(y[size_t(i * N + j)] == double(s));
    }
}

TEST_CASE("a large matmul splits rows over threads without changing any bit", "[eval][matmul]") {
  // 96 x 512 x 160 = 7.9M multiply-adds: above the threading threshold.
  const int64_t M = 96, K = 512, N = 160;
  auto a = fill(M * K, 1.0, 7), bv = fill(K * N, 1.0, 8);
  auto y = values_of(matmul({DType::fp32, DType::fp32}, {M, K}, a, {K, N}, bv));
  // Each element again, summed in the same fp32 order, single-threaded here.
  check_sampled_sums<float>(y, a, bv, {M, K, N}, 19, 7);
}

TEST_CASE("an int8 matmul at the edge of int32 sums exactly", "[eval][matmul]") {
  // 127 * -128 * 131072 = -2130706432: every partial sum fits int32, the bound the 32-bit product is taken at.
  const int64_t K = 131072;
  std::vector<double> a(size_t(K), 127), bv(size_t(K), -128);
  CHECK(values_of(matmul({DType::int8, DType::int32}, {1, K}, a, {K, 1}, bv)) == std::vector<double>{-2130706432.0});
}

TEST_CASE("an integer matmul whose sums pass int32 is summed in int64, then wrapped to its dtype", "[eval][matmul]") {
  // 3 * 100000 * 100000 = 3e10: past int32, so the int64 sum; an int32 result wraps (two's complement, as the
  // kernels store integers), an int64 result keeps it.
  std::vector<double> a(3, 100000), bv(3, 100000);
  const int64_t sum = 30000000000;
  CHECK(values_of(matmul({DType::int32, DType::int32}, {1, 3}, a, {3, 1}, bv)) ==
        std::vector<double>{double(int32_t(uint32_t(uint64_t(sum))))});
  CHECK(values_of(matmul({DType::int64, DType::int64}, {1, 3}, a, {3, 1}, bv)) == std::vector<double>{double(sum)});
  // An operand outside int32 (2^40) with a small product still takes the int64 path: 2^40 * 1 + 0 * 1.
  std::vector<double> big = {1099511627776.0, 0}, one = {1, 1};
  CHECK(values_of(matmul({DType::int64, DType::int64}, {1, 2}, big, {2, 1}, one)) ==
        std::vector<double>{1099511627776.0});
}

TEST_CASE("a large int8 matmul over threads matches the exact integer sum", "[eval][matmul]") {
  // 64 x 512 x 160 = 5.2M multiply-adds: threaded, 32-bit product.
  const int64_t M = 64, K = 512, N = 160;
  std::vector<double> a, bv;
  for (int64_t i = 0; i < M * K; ++i) a.push_back(double((i * 37) % 255 - 127));
  for (int64_t i = 0; i < K * N; ++i) bv.push_back(double((i * 91) % 256 - 128));
  auto y = values_of(matmul({DType::int8, DType::int32}, {M, K}, a, {K, N}, bv));
  check_sampled_sums<int64_t>(y, a, bv, {M, K, N}, 7, 11);
}
