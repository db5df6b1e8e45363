// The row conversions of the host twin (kernels/host/pto_host_cvt.h): the
// F16C / AVX2 rows and the scalar rows give the bits of compiler/dtype.h's
// converters (an independent, branchy implementation) for every fp16 and
// bf16 pattern and for every float rounding boundary, and the 16-bit tile ops
// give the same bits on both paths.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "tile_test_util.h"

using namespace tt;

namespace {

using pto::bits_to_float;
using pto::float_to_bits;

// Restores the dispatch switches however a test ends.
struct FastRows {
  bool f16c = pto::host::f16c_rows_enabled(), avx2 = pto::host::avx2_rows_enabled();
  void set(bool on) {
    pto::host::f16c_rows_enabled() = on && f16c;
    pto::host::avx2_rows_enabled() = on && avx2;
  }
  ~FastRows() { set(true); }
};

bool fast_rows_available() {
  const bool any = pto::host::f16c_rows_enabled() || pto::host::avx2_rows_enabled();
  if (!any) WARN("this CPU has neither F16C nor AVX2: only the scalar rows are checked");
  return any;
}

// Every 16-bit pattern, as one row (and shifted by 1..7 so blocks of 8 and the
// tails start at every alignment).
std::vector<uint16_t> all_patterns() {
  std::vector<uint16_t> v(65536 + 7);
  for (size_t i = 0; i < v.size(); ++i) v[i] = uint16_t(i);
  return v;
}

// Floats at and around every rounding boundary of a 16-bit format, given its
// decoder: each representable value, the midpoint to the next one up (exact in
// fp32: both formats have fewer than 24 significant bits) and the floats next
// to both; plus NaNs with many payloads, infinities, fp32 subnormals and a
// strided walk over all 2^32 bit patterns.
std::vector<float> boundary_floats(float (*decode)(uint16_t)) {
  std::vector<float> v;
  for (uint32_t h = 0; h < 65536; ++h) {
    const float a = decode(uint16_t(h));
    if (std::isnan(a)) continue;
    v.push_back(a);
    v.push_back(std::nextafter(a, INFINITY));
    v.push_back(std::nextafter(a, -INFINITY));
    if ((h & 0x7fffu) == 0x7fffu) continue;
    const float b = decode(uint16_t(h + 1));  // next magnitude up, same sign
    if (std::isnan(b) || std::isinf(b) || std::isinf(a)) continue;
    const float mid = float((double(a) + double(b)) / 2);
    v.push_back(mid);
    v.push_back(std::nextafter(mid, INFINITY));
    v.push_back(std::nextafter(mid, -INFINITY));
  }
  // Overflow boundaries of fp16 (65504 is the largest; 65520 rounds to inf).
  for (float f : {65504.0f, 65519.996f, 65520.0f, 65536.0f, 1e10f, 3.4e38f}) {
    v.push_back(f);
    v.push_back(-f);
  }
  for (uint32_t m : {1u, 2u, 0x1fffu, 0x2000u, 0x3fffu, 0x200000u, 0x3fffffu, 0x400000u, 0x400001u, 0x7fffffu})
    for (uint32_t sign : {0u, 0x80000000u}) {
      v.push_back(bits_to_float(sign | 0x7f800000u | m));  // NaN payloads (quiet and signalling)
      v.push_back(bits_to_float(sign | m));               // fp32 subnormals
    }
  v.push_back(INFINITY);
  v.push_back(-INFINITY);
  for (uint64_t x = 0; x < (1ull << 32); x += 65521) v.push_back(bits_to_float(uint32_t(x)));
  return v;
}

float half_ref(uint16_t h) { return ptoc::half_to_float(h); }
float bf16_ref(uint16_t h) { return ptoc::bf16_to_float(h); }

template <typename Row> void check_decode(Row row, float (*ref)(uint16_t), const char* what) {
  const std::vector<uint16_t> in = all_patterns();
  for (size_t shift = 0; shift < 8; ++shift) {
    std::vector<float> out(in.size() - shift);
    row(in.data() + shift, out.data(), int64_t(out.size()));
    for (size_t i = 0; i < out.size(); ++i)
      if (float_to_bits(out[i]) != float_to_bits(ref(in[i + shift]))) {
        INFO(what << ": pattern 0x" << std::hex << in[i + shift] << " gave 0x" << float_to_bits(out[i])
                  << ", want 0x" << float_to_bits(ref(in[i + shift])));
        FAIL();
      }
  }
}

template <typename Row> void check_encode(Row row, const std::vector<float>& in, uint16_t (*ref)(float),
                                          const char* what) {
  for (size_t shift = 0; shift < 16; shift += 5) {
    std::vector<uint16_t> out(in.size() - shift);
    row(in.data() + shift, out.data(), int64_t(out.size()));
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i] != ref(in[i + shift])) {
        INFO(what << ": float 0x" << std::hex << float_to_bits(in[i + shift]) << " gave 0x" << out[i]
                  << ", want 0x" << ref(in[i + shift]));
        FAIL();
      }
  }
}

}  // namespace

TEST_CASE("fp16 rows: F16C and scalar equal compiler/dtype.h for every pattern", "[kernels]") {
  check_decode(pto::host::half_to_float_row_scalar, half_ref, "fp16->fp32 scalar");
  check_decode(pto::host::half_to_float_row, half_ref, "fp16->fp32 dispatched");
  const std::vector<float> floats = boundary_floats(half_ref);
  REQUIRE(floats.size() > 400000);  // ~6 per fp16 value + the 2^32 walk
  check_encode(pto::host::float_to_half_row_scalar, floats, ptoc::float_to_half, "fp32->fp16 scalar");
  check_encode(pto::host::float_to_half_row, floats, ptoc::float_to_half, "fp32->fp16 dispatched");
#if PTO_HOST_HAVE_F16C_PATH
  if (pto::host::f16c_rows_enabled()) {
    check_decode(pto::host::half_to_float_row_f16c, half_ref, "fp16->fp32 F16C");
    check_encode(pto::host::float_to_half_row_f16c, floats, ptoc::float_to_half, "fp32->fp16 F16C");
  }
#endif
  fast_rows_available();
}

TEST_CASE("bf16 rows: AVX2 and scalar equal compiler/dtype.h for every pattern", "[kernels]") {
  check_decode(pto::host::bf16_to_float_row_scalar, bf16_ref, "bf16->fp32 scalar");
  check_decode(pto::host::bf16_to_float_row, bf16_ref, "bf16->fp32 dispatched");
  const std::vector<float> floats = boundary_floats(bf16_ref);
  check_encode(pto::host::float_to_bf16_row_scalar, floats, ptoc::float_to_bf16, "fp32->bf16 scalar");
  check_encode(pto::host::float_to_bf16_row, floats, ptoc::float_to_bf16, "fp32->bf16 dispatched");
#if PTO_HOST_HAVE_F16C_PATH
  if (pto::host::avx2_rows_enabled()) {
    check_decode(pto::host::bf16_to_float_row_avx2, bf16_ref, "bf16->fp32 AVX2");
    check_encode(pto::host::float_to_bf16_row_avx2, floats, ptoc::float_to_bf16, "fp32->bf16 AVX2");
  }
#endif
}

namespace {

constexpr int TR = 4, TC = 1100;  // rows longer than one fp32 scratch chunk (512)
constexpr int64_t TVR = 3, TVC = 1037;

// A tile of 16-bit values full of specials: NaNs (both kinds), infinities,
// subnormals, zeros of both signs and values whose sums overflow or round.
template <typename T> std::vector<T> special_tile(uint32_t seed) {
  std::mt19937 g(seed);
  std::vector<T> v(size_t(TR) * TC);
  for (auto& x : v) {
    uint16_t bits = uint16_t(g());
    if (g() % 4 == 0) bits = uint16_t(bits & 0x83ffu);                    // subnormal / zero
    if (g() % 16 == 0) bits = uint16_t((bits & 0x8000u) | 0x7bffu);        // largest finite
    x.bits = bits;
  }
  return v;
}

// Equal bits, or both NaN: the element-by-element reference may order the
// operands of a commutative fp32 op differently, which picks the other NaN.
template <typename T> bool same_or_both_nan(T a, T b) {
  if (same_bits(a, b)) return true;
  if constexpr (std::is_same_v<T, float>) return std::isnan(a) && std::isnan(b);
  else return std::isnan(to_d(a)) && std::isnan(to_d(b));
}

template <typename T> uint32_t raw(T v) {
  uint32_t r = 0;
  memcpy(&r, &v, sizeof(T));
  return r;
}

// Runs `op` on both paths and requires equal bits over `n` outputs, and the
// value of `element` (the op computed element by element with the scalar
// converters). Output k is only required to be NaN on both paths where
// `two_nans(k)`: an fp32 add or mul of two NaNs returns one of them, and which
// one (so the sign of the fp16 NaN) depends on the operand order the compiler
// chose for a commutative operation; IEEE 754 leaves it open.
template <typename T, typename Op, typename Element, typename TwoNans>
void same_on_both_paths(Op op, T* out, int64_t n, Element element, const char* what, TwoNans two_nans) {
  FastRows rows;
  rows.set(true);
  op();
  std::vector<T> fast(out, out + n);
  rows.set(false);
  op();
  for (int64_t k = 0; k < n; ++k) {
    INFO(what << " element " << k << ": fast 0x" << std::hex << raw(fast[size_t(k)]) << ", scalar 0x" << raw(out[k])
              << ", element by element 0x" << raw(element(k)));
    if (two_nans(k)) {
      REQUIRE(std::isnan(to_d(fast[size_t(k)])));
      REQUIRE(std::isnan(to_d(out[k])));
    } else {
      REQUIRE(same_bits(fast[size_t(k)], out[k]));
    }
    REQUIRE(same_or_both_nan(out[k], element(k)));
  }
}
template <typename T, typename Op, typename Element>
void same_on_both_paths(Op op, T* out, int64_t n, Element element, const char* what) {
  same_on_both_paths(op, out, n, element, what, [](int64_t) { return false; });
}

template <typename T> void run_ops_both_paths() {
  using E = pto::host::Elem<T>;
  const std::vector<T> va = special_tile<T>(11), vb = special_tile<T>(12);
  T* a = PTO_UB(T, 0);
  T* b = PTO_UB(T, 16384);
  T* d = PTO_UB(T, 32768);
  std::copy(va.begin(), va.end(), a);
  std::copy(vb.begin(), vb.end(), b);
  auto at = [](int64_t k) { return std::pair<int64_t, int64_t>{k / TC, k % TC}; };
  const int64_t n = int64_t(TR) * TC;
  auto valid = [&](int64_t k) { return at(k).first < TVR && at(k).second < TVC; };
  auto nan_at = [](const T* p, int64_t k) { return std::isnan(to_d(p[k])); };
  // Outside the valid region the output keeps what was there: fill d the same way before each run.
  auto with_fill = [&](auto op) {
    return [=] {
      for (int64_t k = 0; k < n; ++k) d[k] = T{uint16_t(0x1234)};
      op();
    };
  };
  same_on_both_paths(with_fill([=] { TBINARY<PTO_ADD, T, TR, TC>(d, a, b, TVR, TVC); }), d, n,
                     [&](int64_t k) { return valid(k) ? E::store(E::load(a[k]) + E::load(b[k])) : T{0x1234}; },
                     "TBINARY add", [&](int64_t k) { return nan_at(a, k) && nan_at(b, k); });
  same_on_both_paths(
      with_fill([=] { TBINARY<PTO_MUL, T, TR, TC, PTO_BC_NONE, PTO_BC_ROW>(d, a, b, TVR, TVC); }), d, n,
      [&](int64_t k) { return valid(k) ? E::store(E::load(a[k]) * E::load(b[at(k).second])) : T{0x1234}; },
      "TBINARY mul row broadcast", [&](int64_t k) { return nan_at(a, k) && nan_at(b, at(k).second); });
  same_on_both_paths(
      with_fill([=] { TBINARY<PTO_SUB, T, TR, TC, PTO_BC_COL, PTO_BC_NONE>(d, a, b, TVR, TVC); }), d, n,
      [&](int64_t k) { return valid(k) ? E::store(E::load(a[at(k).first]) - E::load(b[k])) : T{0x1234}; },
      "TBINARY sub column broadcast");
  same_on_both_paths(with_fill([=] { TBINARY_S<PTO_DIV, T, TR, TC, 1>(d, a, 3.0, TVR, TVC); }), d, n,
                     [&](int64_t k) { return valid(k) ? E::store(3.0f / E::load(a[k])) : T{0x1234}; },
                     "TBINARY_S scalar first");
  same_on_both_paths(with_fill([=] { TUNARY<PTO_SQRT, T, TR, TC>(d, a, TVR, TVC); }), d, n,
                     [&](int64_t k) { return valid(k) ? E::store(sqrtf(E::load(a[k]))) : T{0x1234}; },
                     "TUNARY sqrt");
  // Reductions: both paths agree bit for bit (the order is fixed), and with
  // the fp32 reduction of the converted tile.
  float* fa = PTO_UB(float, 65536);
  float* fr = PTO_UB(float, 65536 + 4 * TR * TC);
  for (int64_t k = 0; k < n; ++k) fa[k] = E::load(a[k]);
  TREDUCE<PTO_RSUM, float, TR, TC, 1>(fr, fa, TVR, TVC);
  same_on_both_paths([=] { TREDUCE<PTO_RSUM, T, TR, TC, 1>(d, a, TVR, TVC); }, d, TVR,
                     [&](int64_t k) { return E::store(fr[k]); }, "TREDUCE sum along rows");
  TREDUCE<PTO_RMAX, float, TR, TC, 0>(fr, fa, TVR, TVC);
  same_on_both_paths([=] { TREDUCE<PTO_RMAX, T, TR, TC, 0>(d, a, TVR, TVC); }, d, TVC,
                     [&](int64_t k) { return E::store(fr[k]); }, "TREDUCE max along columns");
  // Casts to and from fp32.
  same_on_both_paths(
      [=] {
        for (int64_t k = 0; k < n; ++k) fr[k] = 7.0f;
        TCAST<float, T, TR, TC>(fr, a, TVR, TVC);
      },
      fr, n, [&](int64_t k) { return valid(k) ? E::load(a[k]) : 7.0f; }, "TCAST to fp32");
  same_on_both_paths(with_fill([=] { TCAST<T, float, TR, TC>(d, fa, TVR, TVC); }), d, n,
                     [&](int64_t k) { return valid(k) ? E::store(fa[k]) : T{0x1234}; }, "TCAST from fp32");
}

}  // namespace

TEST_CASE("16-bit tile ops give the same bits with and without F16C / AVX2 rows", "[kernels]") {
  SECTION("fp16") { run_ops_both_paths<pto_f16>(); }
  SECTION("bf16") { run_ops_both_paths<pto_bf16>(); }
  fast_rows_available();
}
