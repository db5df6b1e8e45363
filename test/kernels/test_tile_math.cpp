// mathops5's tile ops on the host (kernels/host/pto_host_ops.h) against the evaluator's scalar meaning
// (compiler/ops_math.cpp, ptoc::scalar_unary) and hand-worked values: integers bit for bit, floats within
// the ulp bound of fp32 libm against double; signbit's NaN rule; the fp16 row fast path only for the ops
// it computes (pow of two fp16 rows once took it and computed min).
#include <catch2/catch.hpp>

#include <cmath>

#include "compiler/ir.h"
#include "tile_test_util.h"

using namespace tt;

namespace {

constexpr int R = 4, C = 16;
constexpr int64_t VR = 3, VC = 13;  // a tail in both axes

template <typename T> T* ub(int64_t addr) { return PTO_UB(T, addr); }

template <int OP, typename T> std::vector<double> run_bin(const std::vector<double>& a, const std::vector<double>& b) {
  T* x = ub<T>(0);
  T* y = ub<T>(4096);
  T* d = ub<T>(8192);
  for (int i = 0; i < R * C; ++i) {
    x[i] = from_d<T>(a[size_t(i)]);
    y[i] = from_d<T>(b[size_t(i)]);
  }
  TBINARY<OP, T, R, C, PTO_BC_NONE, PTO_BC_NONE>(d, x, y, VR, VC);
  std::vector<double> out;
  for (int64_t i = 0; i < VR; ++i)
    for (int64_t j = 0; j < VC; ++j) out.push_back(to_d(d[i * C + j]));
  return out;
}

std::vector<double> operand(double lo, double hi, uint32_t seed, bool integer) {
  std::vector<double> v;
  uint32_t s = seed;
  for (int i = 0; i < R * C; ++i) {
    s = s * 1664525u + 1013904223u;
    const double u = lo + (hi - lo) * double(s >> 8) / double(1u << 24);
    v.push_back(integer ? std::floor(u) : u);
  }
  return v;
}

template <int OP, typename T> void check_ints(ptoc::OpKind k, double lo, double hi, double blo, double bhi) {
  const auto a = operand(lo, hi, 7, true), b = operand(blo, bhi, 11, true);
  const auto got = run_bin<OP, T>(a, b);
  size_t n = 0;
  for (int64_t i = 0; i < VR; ++i)
    for (int64_t j = 0; j < VC; ++j, ++n) {
      const double x = ptoc::round_to_dtype(a[size_t(i * C + j)], dtype_of<T>());
      const double y = ptoc::round_to_dtype(b[size_t(i * C + j)], dtype_of<T>());
      const double want = ptoc::round_to_dtype(*ptoc::scalar_binary_math(k, x, y, true), dtype_of<T>());
      INFO(ptoc::op_kind_name(k) << "(" << x << ", " << y << ")");
      CHECK(got[n] == want);
    }
}

}  // namespace

TEST_CASE("mathops5 integer ops: the host tile op is the evaluator's, bit for bit", "[kernels][math5]") {
  using K = ptoc::OpKind;
  check_ints<PTO_REMAINDER, int32_t>(K::Remainder, -1000, 1000, -6, 6);
  check_ints<PTO_FLOORDIV, int32_t>(K::FloorDiv, -1000, 1000, -6, 6);
  check_ints<PTO_CEILDIV, int32_t>(K::CeilDiv, -1000, 1000, -6, 6);
  check_ints<PTO_GCD, int32_t>(K::Gcd, -1000, 1000, -40, 40);
  check_ints<PTO_SHL, int32_t>(K::BitwiseLeftShift, -100000, 100000, -3, 40);
  check_ints<PTO_SHR, int32_t>(K::BitwiseRightShift, -100000, 100000, -3, 70);
  check_ints<PTO_FLOORDIV, int8_t>(K::FloorDiv, -128, 128, -5, 5);
  check_ints<PTO_GCD, int8_t>(K::Gcd, -128, 128, -5, 5);
  check_ints<PTO_SHL, int8_t>(K::BitwiseLeftShift, -128, 128, 0, 12);
  check_ints<PTO_SHR, uint8_t>(K::BitwiseRightShift, 0, 256, 0, 12);
  check_ints<PTO_GCD, uint8_t>(K::Gcd, 0, 256, 0, 40);
}

TEST_CASE("mathops5 integer ops: worked values", "[kernels][math5]") {
  using K = ptoc::OpKind;
  auto f = [](K k, double a, double b) { return *ptoc::scalar_binary_math(k, a, b, true); };
  CHECK(f(K::Remainder, -7, 2) == 1);
  CHECK(f(K::Remainder, 7, -2) == -1);
  CHECK(f(K::Remainder, 7, 0) == 0);
  CHECK(f(K::FloorDiv, -7, 2) == -4);
  CHECK(f(K::FloorDiv, 7, 0) == 0);
  CHECK(f(K::CeilDiv, -7, 2) == -3);
  CHECK(f(K::CeilDiv, 7, 2) == 4);
  CHECK(f(K::Gcd, -12, 18) == 6);
  CHECK(f(K::Gcd, 0, 0) == 0);
  CHECK(f(K::BitwiseLeftShift, 1, 31) == -2147483648.0);
  CHECK(f(K::BitwiseLeftShift, 1, 32) == 0);
  CHECK(f(K::BitwiseLeftShift, 1, -1) == 0);
  CHECK(f(K::BitwiseRightShift, -16, 2) == -4);
  CHECK(f(K::BitwiseRightShift, -16, 99) == -1);
  CHECK(f(K::BitwiseRightShift, 16, 99) == 0);
}

TEST_CASE("mathops5 float binary ops: fp32 tile op against the double meaning", "[kernels][math5]") {
  using K = ptoc::OpKind;
  const auto a = operand(-20, 20, 3, false), b = operand(-3, 3, 5, false);
  auto check = [&](auto got, K k, double ulps) {
    size_t n = 0;
    for (int64_t i = 0; i < VR; ++i)
      for (int64_t j = 0; j < VC; ++j, ++n) {
        const double x = double(float(a[size_t(i * C + j)])), y = double(float(b[size_t(i * C + j)]));
        const double want = double(float(*ptoc::scalar_binary_math(k, x, y, false)));
        INFO(ptoc::op_kind_name(k) << "(" << x << ", " << y << ") = " << got[n] << ", want " << want);
        CHECK(std::fabs(got[n] - want) <= ulps * std::ldexp(1.0, std::ilogb(want) - 23));
      }
  };
  check(run_bin<PTO_ATAN2, float>(a, b), K::Atan2, 2);
  check(run_bin<PTO_FMOD, float>(a, b), K::Fmod, 0);         // exact
  check(run_bin<PTO_REMAINDER, float>(a, b), K::Remainder, 0);
  check(run_bin<PTO_FLOORDIV, float>(a, b), K::FloorDiv, 0);  // both floor the fp32 quotient
  // remainder has the divisor's sign, fmod the dividend's; a zero remainder takes the divisor's sign.
  CHECK(*ptoc::scalar_binary_math(K::Remainder, -7.5, 2, false) == 0.5);
  CHECK(*ptoc::scalar_binary_math(K::Fmod, -7.5, 2, false) == -1.5);
  CHECK(std::signbit(*ptoc::scalar_binary_math(K::Remainder, 4, -2, false)));
  // floor_div floors the fp32 quotient (PyPTO's formula): 1 / 0.1f rounds to 10 in fp32.
  CHECK(*ptoc::scalar_binary_math(K::FloorDiv, 1.0, double(0.1f), false) == 10);
}

TEST_CASE("mathops5 unary ops and signbit on the host", "[kernels][math5]") {
  float* x = ub<float>(0);
  float* d = ub<float>(4096);
  const float vals[] = {-0.9f, -0.5f, 0.0f, 0.25f, 0.75f, 1.5f, -2.0f, 3.0f, 8.0f, -8.0f, 0.999f, -0.001f, 2.5f};
  for (int i = 0; i < R * C; ++i) x[i] = vals[i % 13];
  auto check = [&](auto run, ptoc::OpKind k) {
    run();
    for (int64_t i = 0; i < VR; ++i)
      for (int64_t j = 0; j < VC; ++j) {
        const double want = double(float(ptoc::scalar_unary(k, double(x[i * C + j]))));
        const double got = double(d[i * C + j]);
        INFO(ptoc::op_kind_name(k) << "(" << x[i * C + j] << ") = " << got << ", want " << want);
        if (std::isnan(want)) CHECK(std::isnan(got));
        else if (std::isinf(want)) CHECK(got == want);
        else CHECK(std::fabs(got - want) <= 4 * std::ldexp(1.0, std::ilogb(want) - 23) + 1e-30);
      }
  };
  using K = ptoc::OpKind;
  check([&] { TUNARY<PTO_ACOS, float, R, C>(d, x, VR, VC); }, K::Acos);
  check([&] { TUNARY<PTO_ASIN, float, R, C>(d, x, VR, VC); }, K::Asin);
  check([&] { TUNARY<PTO_ATAN, float, R, C>(d, x, VR, VC); }, K::Atan);
  check([&] { TUNARY<PTO_ACOSH, float, R, C>(d, x, VR, VC); }, K::Acosh);
  check([&] { TUNARY<PTO_ASINH, float, R, C>(d, x, VR, VC); }, K::Asinh);
  check([&] { TUNARY<PTO_ATANH, float, R, C>(d, x, VR, VC); }, K::Atanh);
  check([&] { TUNARY<PTO_SINH, float, R, C>(d, x, VR, VC); }, K::Sinh);
  check([&] { TUNARY<PTO_COSH, float, R, C>(d, x, VR, VC); }, K::Cosh);
  check([&] { TUNARY<PTO_TAN, float, R, C>(d, x, VR, VC); }, K::Tan);
  check([&] { TUNARY<PTO_CBRT, float, R, C>(d, x, VR, VC); }, K::Cbrt);
  check([&] { TUNARY<PTO_ERFC, float, R, C>(d, x, VR, VC); }, K::Erfc);
  CHECK(std::cbrt(-8.0) == -2.0);
  // signbit: -0.0 and -inf are true, NaN (either sign) is false.
  const float sv[] = {-0.0f, 0.0f, -INFINITY, INFINITY, -NAN, NAN, -1e-30f, 5.0f};
  pto_bool* o = ub<pto_bool>(8192);
  for (int i = 0; i < 8; ++i) x[i] = sv[i];
  TPRED<PTO_SIGNBIT, float, 1, 8>(o, x, 1, 8);
  const int want[] = {1, 0, 1, 0, 0, 0, 1, 0};
  for (int i = 0; i < 8; ++i) {
    INFO(i);
    CHECK(int(o[i].v) == want[i]);
    CHECK(ptoc::scalar_unary(ptoc::OpKind::Signbit, double(sv[i])) == want[i]);
  }
}

TEST_CASE("fp16 pow of two rows is pow, not the fast path's min (regression)", "[kernels][math5]") {
  pto_f16* a = ub<pto_f16>(0);
  pto_f16* b = ub<pto_f16>(4096);
  pto_f16* d = ub<pto_f16>(8192);
  for (int i = 0; i < R * C; ++i) {
    a[i] = from_d<pto_f16>(1.5 + 0.125 * (i % 5));
    b[i] = from_d<pto_f16>(2.0);
  }
  TBINARY<PTO_POW, pto_f16, R, C, PTO_BC_NONE, PTO_BC_NONE>(d, a, b, VR, VC);
  for (int64_t i = 0; i < VR; ++i)
    for (int64_t j = 0; j < VC; ++j) {
      const double x = to_d(a[i * C + j]);
      CHECK(to_d(d[i * C + j]) == ptoc::round_to_dtype(double(std::pow(float(x), 2.0f)), ptoc::DType::fp16));
    }
}
