// Host tile ops of the vector path (GM <-> UB and UB -> UB) against scalar
// reference code over compiler/dtype.h: all dtypes, tail extents, broadcasts.
#include <catch2/catch.hpp>

#include "tile_test_util.h"

using namespace tt;

namespace {

constexpr int R = 16, C = 24;   // static tile shape for most tests
constexpr int64_t VR = 11, VC = 19;  // a tail in both axes

template <typename T> T* ub(int64_t addr) { return PTO_UB(T, addr); }

// Fills a whole R x C tile with `vals` in the valid region and poison elsewhere.
template <typename T, int RR = R, int CC = C> void put_tile(T* t, const std::vector<T>& vals, int64_t vr, int64_t vc) {
  for (int64_t i = 0; i < RR; ++i)
    for (int64_t j = 0; j < CC; ++j) t[i * CC + j] = (i < vr && j < vc) ? vals[size_t(i * CC + j)] : poison<T>();
}

template <typename T> void check_close(T got, double want, double rel, double abs_tol, const char* what, int64_t i,
                                       int64_t j) {
  const double g = to_d(got);
  INFO(what << " at (" << i << ", " << j << "): got " << g << " want " << want);
  if (std::isnan(want)) {
    CHECK(std::isnan(g));
  } else if (std::isinf(want)) {
    CHECK(g == want);
  } else {
    CHECK(std::fabs(g - want) <= abs_tol + rel * std::fabs(want));
  }
}

template <int OP> double ref_bin(double a, double b) {
  switch (OP) {
    case PTO_ADD: return a + b;
    case PTO_SUB: return a - b;
    case PTO_MUL: return a * b;
    case PTO_DIV: return a / b;
    case PTO_MAX: return a > b ? a : b;
    default: return a < b ? a : b;
  }
}

template <int BC> int64_t ref_index(int64_t i, int64_t j) {
  return BC == PTO_BC_NONE ? i * C + j : BC == PTO_BC_ROW ? j : BC == PTO_BC_COL ? i : 0;
}

template <typename T, int OP, int BA, int BB> void run_binary() {
  auto av = random_values<T>(R * C, -8, 8, 1 + OP * 7 + BA * 3 + BB);
  auto bv = random_values<T>(R * C, 0.5, 9, 2 + OP * 5 + BA + BB * 11);  // positive divisors
  T* a = ub<T>(0);
  T* b = ub<T>(32 * 1024);
  T* d = ub<T>(64 * 1024);
  put_tile<T>(a, av, VR, VC);
  put_tile<T>(b, bv, VR, VC);
  // A broadcast operand's elements sit at the start of its buffer.
  for (int64_t k = 0; k < R * C; ++k) {
    if (BA != PTO_BC_NONE) a[k] = av[size_t(k)];
    if (BB != PTO_BC_NONE) b[k] = bv[size_t(k)];
  }
  for (int64_t k = 0; k < R * C; ++k) d[k] = poison<T>();
  TBINARY<OP, T, R, C, BA, BB>(d, a, b, VR, VC);
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      if (i < VR && j < VC) {
        const T want = from_d<T>(ref_bin<OP>(to_d(a[ref_index<BA>(i, j)]), to_d(b[ref_index<BB>(i, j)])));
        INFO("op " << OP << " bc " << BA << "/" << BB << " at " << i << "," << j << ": got " << to_d(d[i * C + j])
                   << " want " << to_d(want));
        REQUIRE(same_bits(d[i * C + j], want));
      } else {
        REQUIRE(same_bits(d[i * C + j], poison<T>()));  // outside the valid region: untouched
      }
    }
}

template <typename T, int OP> void run_binary_all_bc() {
  run_binary<T, OP, PTO_BC_NONE, PTO_BC_NONE>();
  run_binary<T, OP, PTO_BC_NONE, PTO_BC_ROW>();
  run_binary<T, OP, PTO_BC_NONE, PTO_BC_COL>();
  run_binary<T, OP, PTO_BC_NONE, PTO_BC_SCALAR>();
  run_binary<T, OP, PTO_BC_ROW, PTO_BC_NONE>();
  run_binary<T, OP, PTO_BC_COL, PTO_BC_NONE>();
  run_binary<T, OP, PTO_BC_SCALAR, PTO_BC_NONE>();
  run_binary<T, OP, PTO_BC_ROW, PTO_BC_COL>();
}

template <typename T, int OP> void run_binary_scalar(double s) {
  auto av = random_values<T>(R * C, 1, 9, 77 + OP);
  T* a = ub<T>(0);
  T* d = ub<T>(64 * 1024);
  put_tile<T>(a, av, VR, VC);
  const double sv = to_d(from_d<T>(s));  // the literal takes the tensor's dtype first
  TBINARY_S<OP, T, R, C, 0>(d, a, s, VR, VC);
  for (int64_t i = 0; i < VR; ++i)
    for (int64_t j = 0; j < VC; ++j)
      REQUIRE(same_bits(d[i * C + j], from_d<T>(ref_bin<OP>(to_d(a[i * C + j]), sv))));
  TBINARY_S<OP, T, R, C, 1>(d, a, s, VR, VC);
  for (int64_t i = 0; i < VR; ++i)
    for (int64_t j = 0; j < VC; ++j)
      REQUIRE(same_bits(d[i * C + j], from_d<T>(ref_bin<OP>(sv, to_d(a[i * C + j])))));
}

template <typename T> void run_binary_dtype() {
  run_binary_all_bc<T, PTO_ADD>();
  run_binary_all_bc<T, PTO_SUB>();
  run_binary_all_bc<T, PTO_MUL>();
  run_binary_all_bc<T, PTO_DIV>();
  run_binary_all_bc<T, PTO_MAX>();
  run_binary_all_bc<T, PTO_MIN>();
  run_binary_scalar<T, PTO_ADD>(2.3);
  run_binary_scalar<T, PTO_SUB>(3.7);
  run_binary_scalar<T, PTO_MUL>(-1.9);
  run_binary_scalar<T, PTO_DIV>(3.0);
  run_binary_scalar<T, PTO_MAX>(4.5);
  run_binary_scalar<T, PTO_MIN>(4.5);
}

template <int OP> double ref_un(double x) {
  switch (OP) {
    case PTO_EXP: return std::exp(x);
    case PTO_LOG: return std::log(x);
    case PTO_SQRT: return std::sqrt(x);
    case PTO_RSQRT: return 1 / std::sqrt(x);
    case PTO_ABS: return std::fabs(x);
    case PTO_NEG: return -x;
    case PTO_RECIPROCAL: return 1 / x;
    case PTO_RELU: return x > 0 ? x : 0;
    case PTO_SIGMOID: return 1 / (1 + std::exp(-x));
    case PTO_TANH: return std::tanh(x);
    case PTO_GELU: return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    default: return x / (1 + std::exp(-x));
  }
}

template <typename T, int OP> void run_unary(double lo, double hi) {
  auto av = random_values<T>(R * C, lo, hi, 300 + OP);
  T* a = ub<T>(0);
  T* d = ub<T>(64 * 1024);
  put_tile<T>(a, av, VR, VC);
  for (int64_t k = 0; k < R * C; ++k) d[k] = poison<T>();
  TUNARY<OP, T, R, C>(d, a, VR, VC);
  // fp32 math in the kernel vs double here: a few fp32 ulps, then one rounding to T.
  const double rel = 2 * ulp_rel<T>() + 4.0 / (1 << 23);
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      if (i < VR && j < VC) check_close(d[i * C + j], ref_un<OP>(to_d(a[i * C + j])), rel, 1e-6, "unary", i, j);
      else REQUIRE(same_bits(d[i * C + j], poison<T>()));
    }
}

template <typename T> void run_unary_dtype() {
  run_unary<T, PTO_EXP>(-5, 5);
  run_unary<T, PTO_LOG>(0.01, 50);
  run_unary<T, PTO_SQRT>(0, 50);
  run_unary<T, PTO_RSQRT>(0.01, 50);
  run_unary<T, PTO_ABS>(-5, 5);
  run_unary<T, PTO_NEG>(-5, 5);
  run_unary<T, PTO_RECIPROCAL>(0.1, 5);
  run_unary<T, PTO_RELU>(-5, 5);
  run_unary<T, PTO_SIGMOID>(-8, 8);
  run_unary<T, PTO_TANH>(-4, 4);
  run_unary<T, PTO_GELU>(-4, 4);
  run_unary<T, PTO_SILU>(-6, 6);
}

template <int OP> double ref_reduce(const std::vector<double>& v) {
  double r = v[0];
  for (size_t k = 1; k < v.size(); ++k)
    r = OP == PTO_RMAX ? std::max(r, v[k]) : OP == PTO_RMIN ? std::min(r, v[k]) : r + v[k];
  if (OP == PTO_RMEAN) r /= double(v.size());
  return r;
}

template <typename T, int OP, int AXIS> void run_reduce(int64_t vr, int64_t vc) {
  auto av = random_values<T>(R * C, -9, 9, 500 + OP * 3 + AXIS);
  T* a = ub<T>(0);
  T* d = ub<T>(64 * 1024);
  put_tile<T>(a, av, vr, vc);  // poison in the padding must not enter
  TREDUCE<OP, T, R, C, AXIS>(d, a, vr, vc);
  const int64_t n = AXIS == 1 ? vr : vc;
  for (int64_t o = 0; o < n; ++o) {
    std::vector<double> v;
    for (int64_t k = 0; k < (AXIS == 1 ? vc : vr); ++k)
      v.push_back(to_d(AXIS == 1 ? a[o * C + k] : a[k * C + o]));
    const double want = ref_reduce<OP>(v);
    if (OP == PTO_RMAX || OP == PTO_RMIN || !is_float<T>()) {
      INFO("reduce op " << OP << " axis " << AXIS << " out " << o);
      REQUIRE(same_bits(d[o], from_d<T>(want)));
    } else {
      // fp32 accumulation in a different order than the exact double sum.
      double mag = 0;
      for (double x : v) mag += std::fabs(x);
      check_close(d[o], want, ulp_rel<T>(), mag * 64.0 / (1 << 23) + mag / double(v.size()) * ulp_rel<T>(),
                  "reduce", o, AXIS);
    }
  }
}

template <typename T> void run_reduce_dtype() {
  for (auto [vr, vc] : {std::pair<int64_t, int64_t>{VR, VC}, {R, C}, {1, 1}, {3, 9}, {R, 8}}) {
    run_reduce<T, PTO_RSUM, 1>(vr, vc);
    run_reduce<T, PTO_RMAX, 1>(vr, vc);
    run_reduce<T, PTO_RMIN, 1>(vr, vc);
    run_reduce<T, PTO_RMEAN, 1>(vr, vc);
    run_reduce<T, PTO_RSUM, 0>(vr, vc);
    run_reduce<T, PTO_RMAX, 0>(vr, vc);
    run_reduce<T, PTO_RMIN, 0>(vr, vc);
    run_reduce<T, PTO_RMEAN, 0>(vr, vc);
  }
}

template <typename TD, typename TS> void run_cast() {
  // Include halfway cases, negatives, out-of-range values for the narrow types.
  auto sv = random_values<TS>(R * C, -300, 300, 900);
  if constexpr (is_float<TS>()) {
    sv[0] = from_d<TS>(2.5);
    sv[1] = from_d<TS>(-2.5);
    sv[2] = from_d<TS>(0.0);
    sv[3] = from_d<TS>(1.0009765625 + 1.0 / 4096);  // between two fp16 values
  }
  TS* s = ub<TS>(0);
  TD* d = ub<TD>(64 * 1024);
  put_tile<TS>(s, sv, VR, VC);
  TCAST<TD, TS, R, C>(d, s, VR, VC);
  for (int64_t i = 0; i < VR; ++i)
    for (int64_t j = 0; j < VC; ++j) {
      const double x = to_d(s[i * C + j]);
      // float -> integer rounds half to even before the wrap (the spec's `cast`).
      const bool rounds = is_float<TS>() && !is_float<TD>() && !std::is_same_v<TD, pto_bool>;
      const TD want = std::is_same_v<TD, pto_bool> ? from_d<TD>(x != 0 ? 1 : 0)
                                                   : from_d<TD>(rounds ? std::nearbyint(x) : x);
      INFO("cast " << int(dtype_of<TS>()) << " -> " << int(dtype_of<TD>()) << " of " << x);
      REQUIRE(same_bits(d[i * C + j], want));
    }
}

template <typename TD> void run_cast_from_all() {
  run_cast<TD, float>();
  run_cast<TD, pto_f16>();
  run_cast<TD, pto_bf16>();
  run_cast<TD, int32_t>();
  run_cast<TD, int8_t>();
  run_cast<TD, uint8_t>();
  run_cast<TD, pto_bool>();
}

}  // namespace

TEST_CASE("TLOAD / TSTORE move the valid box with row strides, padding and atomics", "[kernels]") {
  constexpr int64_t ld = 37;
  std::vector<pto_f16> gm = random_values<pto_f16>(40 * ld, -4, 4, 5);
  pto_f16* t = ub<pto_f16>(1024);
  for (int pad = 0; pad < 2; ++pad) {
    for (int64_t k = 0; k < R * C; ++k) t[k] = poison<pto_f16>();
    const int64_t off = 3 * ld + 5;
    if (pad) TLOAD<pto_f16, R, C, PTO_PAD_ZERO>(t, gm.data(), off, ld, VR, VC);
    else TLOAD<pto_f16, R, C, PTO_PAD_LEAVE>(t, gm.data(), off, ld, VR, VC);
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j) {
        pto_f16 want = (i < VR && j < VC) ? gm[size_t(off + i * ld + j)] : pad ? pto_f16{0} : poison<pto_f16>();
        REQUIRE(same_bits(t[i * C + j], want));
      }
  }
  // Store: only the valid box is written.
  std::vector<pto_f16> out(40 * ld, poison<pto_f16>());
  TSTORE<pto_f16, R, C>(out.data(), t, 2 * ld + 1, ld, VR, VC);
  for (int64_t r = 0; r < 40; ++r)
    for (int64_t c = 0; c < ld; ++c) {
      const int64_t i = r - 2, j = c - 1;
      const bool in = i >= 0 && i < VR && j >= 0 && j < VC;
      REQUIRE(same_bits(out[size_t(r * ld + c)], in ? t[i * C + j] : poison<pto_f16>()));
    }
  // Atomic store adds (split_k partial sums), rounding to the element type.
  std::vector<float> acc(40 * ld, 1.25f);
  float* tf = ub<float>(4096);
  for (int64_t k = 0; k < R * C; ++k) tf[k] = float(k) * 0.5f;
  TSTORE<float, R, C, 1>(acc.data(), tf, 0, ld, VR, VC);
  TSTORE<float, R, C, 1>(acc.data(), tf, 0, ld, VR, VC);
  for (int64_t i = 0; i < VR; ++i)
    for (int64_t j = 0; j < VC; ++j) REQUIRE(acc[size_t(i * ld + j)] == 1.25f + 2 * tf[i * C + j]);
  REQUIRE(acc[size_t(VR * ld)] == 1.25f);
}

TEST_CASE("TLOAD_B / TSTORE_B handle a batch axis with its own stride and tails", "[kernels]") {
  // GM tensor [5, 9, 13], tile [2, 8, 16], box starting at (1, 2, 3) with valid [2, 6, 10].
  std::vector<int32_t> gm(5 * 9 * 13);
  for (size_t k = 0; k < gm.size(); ++k) gm[k] = int32_t(k);
  int32_t* t = ub<int32_t>(0);
  const int64_t off = 1 * 117 + 2 * 13 + 3;
  TLOAD_B<int32_t, 2, 8, 16, PTO_PAD_ZERO>(t, gm.data(), off, 117, 13, 2, 6, 10);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t j = 0; j < 16; ++j) {
        const int32_t want = (i < 6 && j < 10) ? int32_t(off + b * 117 + i * 13 + j) : 0;
        REQUIRE(t[(b * 8 + i) * 16 + j] == want);
      }
  std::vector<int32_t> out(gm.size(), -1);
  TSTORE_B<int32_t, 2, 8, 16>(out.data(), t, off, 117, 13, 2, 6, 10);
  for (size_t k = 0; k < gm.size(); ++k) {
    const int64_t b = int64_t(k) / 117, i = int64_t(k) % 117 / 13, j = int64_t(k) % 13;
    const bool in = b >= 1 && b < 3 && i >= 2 && i < 8 && j >= 3 && j < 13;
    REQUIRE(out[k] == (in ? gm[k] : -1));
  }
}

TEST_CASE("TBINARY / TBINARY_S match the rounded reference for every dtype and broadcast", "[kernels]") {
  SECTION("fp32") { run_binary_dtype<float>(); }
  SECTION("fp16") { run_binary_dtype<pto_f16>(); }
  SECTION("bf16") { run_binary_dtype<pto_bf16>(); }
  SECTION("int32") { run_binary_dtype<int32_t>(); }
  SECTION("int8") { run_binary_dtype<int8_t>(); }
  SECTION("uint8") { run_binary_dtype<uint8_t>(); }
}

TEST_CASE("integer results wrap and fp16 overflow gives inf", "[kernels]") {
  int8_t* a = ub<int8_t>(0);
  int8_t* d = ub<int8_t>(4096);
  a[0] = 100;
  a[1] = -100;
  TBINARY_S<PTO_ADD, int8_t, 1, 2, 0>(d, a, 100.0, 1, 2);
  REQUIRE(d[0] == int8_t(-56));  // 200 wraps
  REQUIRE(d[1] == 0);
  pto_f16* h = ub<pto_f16>(8192);
  h[0] = from_d<pto_f16>(60000.0);
  TBINARY<PTO_ADD, pto_f16, 1, 1>(h, h, h, 1, 1);
  REQUIRE(std::isinf(to_d(h[0])));
}

TEST_CASE("TUNARY matches the reference within one rounding for float dtypes", "[kernels]") {
  SECTION("fp32") { run_unary_dtype<float>(); }
  SECTION("fp16") { run_unary_dtype<pto_f16>(); }
  SECTION("bf16") { run_unary_dtype<pto_bf16>(); }
  SECTION("int32 abs neg relu") {
    run_unary<int32_t, PTO_ABS>(-50, 50);
    run_unary<int32_t, PTO_NEG>(-50, 50);
    run_unary<int32_t, PTO_RELU>(-50, 50);
  }
}

TEST_CASE("TREDUCE covers the valid extent only, along either axis", "[kernels]") {
  SECTION("fp32") { run_reduce_dtype<float>(); }
  SECTION("fp16") { run_reduce_dtype<pto_f16>(); }
  SECTION("bf16") { run_reduce_dtype<pto_bf16>(); }
  SECTION("int32") { run_reduce_dtype<int32_t>(); }
  SECTION("int8") { run_reduce_dtype<int8_t>(); }
}

TEST_CASE("reduction output feeds a column broadcast (softmax shape)", "[kernels]") {
  float* x = ub<float>(0);
  float* m = ub<float>(16384);
  float* y = ub<float>(32768);
  auto v = random_values<float>(R * C, -3, 3, 42);
  put_tile<float>(x, v, VR, VC);
  TREDUCE<PTO_RMAX, float, R, C, 1>(m, x, VR, VC);
  TBINARY<PTO_SUB, float, R, C, PTO_BC_NONE, PTO_BC_COL>(y, x, m, VR, VC);
  for (int64_t i = 0; i < VR; ++i) {
    float mx = -1e30f;
    for (int64_t j = 0; j < VC; ++j) mx = std::max(mx, x[i * C + j]);
    for (int64_t j = 0; j < VC; ++j) REQUIRE(y[i * C + j] == x[i * C + j] - mx);
  }
}

TEST_CASE("TCAST rounds to nearest even, also to integers, wraps, and maps bool", "[kernels]") {
  SECTION("to fp32") { run_cast_from_all<float>(); }
  SECTION("to fp16") { run_cast_from_all<pto_f16>(); }
  SECTION("to bf16") { run_cast_from_all<pto_bf16>(); }
  SECTION("to int32") { run_cast_from_all<int32_t>(); }
  SECTION("to int8") { run_cast_from_all<int8_t>(); }
  SECTION("to uint8") { run_cast_from_all<uint8_t>(); }
  SECTION("to bool") { run_cast_from_all<pto_bool>(); }
  SECTION("fp32 -> fp16 ties go to even") {
    float* s = ub<float>(0);
    pto_f16* d = ub<pto_f16>(4096);
    s[0] = 1.0f + 1.0f / 2048;      // halfway between 1 and 1 + 2^-10: to 1 (even)
    s[1] = 1.0f + 3.0f / 2048;      // halfway between 1 + 2^-10 and 1 + 2^-9: to 1 + 2^-9 (even)
    TCAST<pto_f16, float, 1, 2>(d, s, 1, 2);
    REQUIRE(d[0].bits == 0x3c00);
    REQUIRE(d[1].bits == 0x3c02);
  }
}

// Hand values (not derived from any rounding helper): float -> integer casts
// round half to even and then wrap to the width, as NumPy's
// np.round(x).astype(...); integer division keeps truncating toward zero.
TEST_CASE("TCAST float -> integer rounds halves to even, then wraps", "[kernels]") {
  const float in[12] = {-155.5f, -0.5f, 0.5f, 1.5f, 2.5f, 127.5f, 255.5f, -2.5f, 0.49999997f, -1.5f, 3.7f, -3.7f};
  const int32_t want_i32[12] = {-156, 0, 0, 2, 2, 128, 256, -2, 0, -2, 4, -4};
  const int8_t want_i8[12] = {100, 0, 0, 2, 2, -128, 0, -2, 0, -2, 4, -4};  // -156 wraps to 100, 128 to -128
  const uint8_t want_u8[12] = {100, 0, 0, 2, 2, 128, 0, 254, 0, 254, 4, 252};  // 256 -> 0, -2 -> 254
  // Rows of 4 in a 3 x 8 tile: the valid region is 3 x 4, padding stays.
  float* s = ub<float>(0);
  for (int k = 0; k < 24; ++k) s[k] = (k % 8) < 4 ? in[(k / 8) * 4 + k % 8] : 0.75f;
  int32_t* d32 = ub<int32_t>(4096);
  int8_t* d8 = ub<int8_t>(8192);
  uint8_t* du8 = ub<uint8_t>(12288);
  for (int k = 0; k < 24; ++k) d32[k] = -7, d8[k] = -7, du8[k] = 7;
  TCAST<int32_t, float, 3, 8>(d32, s, 3, 4);
  TCAST<int8_t, float, 3, 8>(d8, s, 3, 4);
  TCAST<uint8_t, float, 3, 8>(du8, s, 3, 4);
  for (int k = 0; k < 24; ++k) {
    INFO("element " << k);
    const bool v = (k % 8) < 4;
    const int e = (k / 8) * 4 + k % 8;
    CHECK(d32[k] == (v ? want_i32[e] : -7));
    CHECK(int(d8[k]) == (v ? int(want_i8[e]) : -7));
    CHECK(int(du8[k]) == (v ? int(want_u8[e]) : 7));
  }
  SECTION("from fp16 and bf16 too") {
    pto_f16* h = ub<pto_f16>(16384);
    pto_bf16* b = ub<pto_bf16>(20480);
    h[0] = pto_f16{0x3e00};  // 1.5
    h[1] = pto_f16{0x4100};  // 2.5
    h[2] = pto_f16{0xd8dc};  // -155.5
    b[0] = pto_bf16{0x3fc0};  // 1.5
    b[1] = pto_bf16{0x4020};  // 2.5
    b[2] = pto_bf16{0xc31b};  // -155.0 (bf16 has no -155.5): stays -155
    int8_t* o = ub<int8_t>(24576);
    TCAST<int8_t, pto_f16, 1, 3>(o, h, 1, 3);
    CHECK(int(o[0]) == 2);
    CHECK(int(o[1]) == 2);
    CHECK(int(o[2]) == 100);
    TCAST<int8_t, pto_bf16, 1, 3>(o, b, 1, 3);
    CHECK(int(o[0]) == 2);
    CHECK(int(o[1]) == 2);
    CHECK(int(o[2]) == 101);
  }
  SECTION("integer division still truncates toward zero") {
    int32_t* a = ub<int32_t>(28672);
    int32_t* q = ub<int32_t>(32768);
    a[0] = 7, a[1] = -7, a[2] = 5, a[3] = -5;
    TBINARY_S<PTO_DIV, int32_t, 1, 4>(q, a, 2.0, 1, 4);
    CHECK(q[0] == 3);
    CHECK(q[1] == -3);
    CHECK(q[2] == 2);
    CHECK(q[3] == -2);
  }
}

// TCOPY2D against index arithmetic written here: a row copy between
// different row strides and a strided transpose, only the n0 x n1 elements
// written (the rest keeps its marker).
TEST_CASE("TCOPY2D copies a strided plane, by rows or transposed", "[kernels]") {
  float* s = ub<float>(0);
  float* d = ub<float>(8192);
  for (int k = 0; k < 200; ++k) s[k] = float(k);
  for (int k = 0; k < 400; ++k) d[k] = -1;
  TCOPY2D<float, 20, 1, 9, 1>(d, s, 5, 7);  // rows of 7: src stride 9, dst stride 20
  for (int k = 0; k < 400; ++k) {
    const int i = k / 20, j = k % 20;
    INFO("row copy at " << k);
    CHECK(d[k] == ((i < 5 && j < 7) ? float(i * 9 + j) : -1.0f));
  }
  for (int k = 0; k < 400; ++k) d[k] = -1;
  TCOPY2D<float, 3, 30, 24, 2>(d, s, 4, 6);  // dst[i*3 + j*30] = src[i*24 + j*2]
  std::vector<float> want(400, -1.0f);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) want[size_t(i * 3 + j * 30)] = float(i * 24 + j * 2);
  for (int k = 0; k < 400; ++k) {
    INFO("strided transpose at " << k);
    CHECK(d[k] == want[size_t(k)]);
  }
  TCOPY2D<float, 3, 30, 24, 2>(d, s, 0, 6);  // an empty plane writes nothing
  CHECK(d[0] == want[0]);
}

TEST_CASE("TTRANSPOSE, TFILL and TCOPY", "[kernels]") {
  auto v = random_values<pto_bf16>(R * C, -5, 5, 7);
  pto_bf16* s = ub<pto_bf16>(0);
  pto_bf16* d = ub<pto_bf16>(8192);
  put_tile<pto_bf16>(s, v, VR, VC);
  TTRANSPOSE<pto_bf16, R, C>(d, s, VR, VC);
  for (int64_t i = 0; i < VR; ++i)
    for (int64_t j = 0; j < VC; ++j) REQUIRE(same_bits(d[j * R + i], s[i * C + j]));

  int8_t* f = ub<int8_t>(16384);
  for (int64_t k = 0; k < R * C; ++k) f[k] = 7;
  TFILL<int8_t, R, C>(f, -3.9, VR, VC);  // the value is rounded to the dtype: -3
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) REQUIRE(f[i * C + j] == ((i < VR && j < VC) ? -3 : 7));

  // Concat [4 x 5] and [4 x 3] along columns into an [8 x 16] tile at column 5.
  float* a = ub<float>(20000);
  float* b = ub<float>(21000);
  float* o = ub<float>(22000);
  for (int k = 0; k < 40; ++k) a[k] = float(k);
  for (int k = 0; k < 32; ++k) b[k] = float(100 + k);
  for (int k = 0; k < 128; ++k) o[k] = -1;
  TCOPY<float, 4, 8, 8, 16>(o, a, 4, 5, 0, 0);
  TCOPY<float, 4, 8, 8, 16>(o, b, 4, 3, 0, 5);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j) {
      float want = i < 4 && j < 5 ? a[i * 8 + j] : i < 4 && j < 8 ? b[i * 8 + j - 5] : -1;
      REQUIRE(o[i * 16 + j] == want);
    }
}
