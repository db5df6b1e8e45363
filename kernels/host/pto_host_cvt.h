// Host twin: fp16 / bf16 <-> fp32 conversion of whole rows (tile rows are
// contiguous). The 16-bit tile ops convert their operand rows into an fp32
// scratch, compute in fp32 and convert the result row back, one pass each.
// Included by pto_host_ops.h (after pto_tile.h's op enums).
//
// Two implementations, bit-identical (test/kernels/test_tile_convert.cpp
// checks every fp16 and bf16 pattern and a large float sweep):
//   - scalar: the element functions of pto_host.h in a loop (any machine);
//   - F16C (x86): VCVTPH2PS / VCVTPS2PH with the rounding mode in the
//     immediate (round to nearest even, MXCSR ignored), chosen at run time
//     with CPUID, so a host twin built on one x86 machine runs on any other.
//     The hardware differs from the reference only on NaNs: it quiets a
//     signalling fp16 NaN (the reference keeps the payload bits) and keeps
//     the top payload bits of an fp32 NaN (the reference gives 0x7e00 with
//     the sign). A block of 8 that holds a NaN is redone by the scalar code.
// fp16 binary ops on whole rows are also fused in F16C registers
// (binary_half_row_f16c), with the same NaN fallback.
// bf16 needs no conversion instructions: shifts, adds and selects, in AVX2
// lanes when the CPU has AVX2 (also chosen at run time), else the scalar
// loops (which the compiler vectorizes for the baseline ISA).
#pragma once

#include <stdint.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define PTO_HOST_HAVE_F16C_PATH 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define PTO_HOST_HAVE_F16C_PATH 0
#endif

namespace pto {
namespace host {

// ---- scalar rows ----------------------------------------------------------

inline void half_to_float_row_scalar(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t j = 0; j < n; ++j) dst[j] = half_bits_to_float(src[j]);
}
inline void float_to_half_row_scalar(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t j = 0; j < n; ++j) dst[j] = float_to_half_bits(src[j]);
}
inline void bf16_to_float_row_scalar(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t j = 0; j < n; ++j) dst[j] = bf16_bits_to_float(src[j]);
}
inline void float_to_bf16_row_scalar(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t j = 0; j < n; ++j) dst[j] = float_to_bf16_bits(src[j]);
}

// ---- F16C rows ------------------------------------------------------------

#if PTO_HOST_HAVE_F16C_PATH
// CPUID: F16C and AVX present, and the OS saves the YMM registers (XCR0).
inline bool cpu_has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool osxsave = c & (1u << 27), avx = c & (1u << 28), f16c = c & (1u << 29);
  if (!(osxsave && avx && f16c)) return false;
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 0x6u) == 0x6u;  // XMM and YMM state enabled
}

__attribute__((target("avx,f16c"))) inline void half_to_float_row_f16c(const uint16_t* src, float* dst,
                                                                      int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + j)));
    if (__builtin_expect(_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) != 0, 0)) {
      half_to_float_row_scalar(src + j, dst + j, 8);  // NaN payloads as the reference
    } else {
      _mm256_storeu_ps(dst + j, v);
    }
  }
  half_to_float_row_scalar(src + j, dst + j, n - j);
}

__attribute__((target("avx,f16c"))) inline void float_to_half_row_f16c(const float* src, uint16_t* dst,
                                                                      int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_loadu_ps(src + j);
    if (__builtin_expect(_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) != 0, 0)) {
      float_to_half_row_scalar(src + j, dst + j, 8);  // NaN -> 0x7e00 | sign as the reference
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + j), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    }
  }
  float_to_half_row_scalar(src + j, dst + j, n - j);
}

// A binary fp16 row op fused in registers: 8 elements converted, combined and
// rounded back per step. A block with a NaN in an input or in the result is
// redone by the scalar conversions around the same fp32 operation, so the
// bits are those of the row-by-row path. Max and min agree with MAXPS / MINPS
// on ordered operands; a NaN operand takes the scalar path, which returns it.
template <int OP> inline float binary_f32(float a, float b) {
  if constexpr (OP == PTO_ADD) return a + b;
  else if constexpr (OP == PTO_SUB) return a - b;
  else if constexpr (OP == PTO_MUL) return a * b;
  else if constexpr (OP == PTO_DIV) return a / b;
  else if constexpr (OP == PTO_MAX) return a != a ? a : b != b ? b : a > b ? a : b;  // NaN propagates
  else return a != a ? a : b != b ? b : a < b ? a : b;
}

template <int OP>
__attribute__((target("avx,f16c"))) inline void binary_half_row_f16c(const uint16_t* a, const uint16_t* b,
                                                                     uint16_t* d, int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 x = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + j)));
    const __m256 y = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + j)));
    __m256 r;
    if constexpr (OP == PTO_ADD) r = _mm256_add_ps(x, y);
    else if constexpr (OP == PTO_SUB) r = _mm256_sub_ps(x, y);
    else if constexpr (OP == PTO_MUL) r = _mm256_mul_ps(x, y);
    else if constexpr (OP == PTO_DIV) r = _mm256_div_ps(x, y);
    else if constexpr (OP == PTO_MAX) r = _mm256_max_ps(x, y);
    else r = _mm256_min_ps(x, y);
    const __m256 nan = _mm256_or_ps(_mm256_cmp_ps(x, y, _CMP_UNORD_Q), _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
    if (__builtin_expect(_mm256_movemask_ps(nan) != 0, 0)) {
      for (int l = 0; l < 8; ++l)
        d[j + l] = float_to_half_bits(binary_f32<OP>(half_bits_to_float(a[j + l]), half_bits_to_float(b[j + l])));
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + j), _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT));
    }
  }
  for (; j < n; ++j) d[j] = float_to_half_bits(binary_f32<OP>(half_bits_to_float(a[j]), half_bits_to_float(b[j])));
}

// bf16 in AVX2 integer lanes: the same integer rounding as float_to_bf16_bits
// (add 0x7fff plus the kept lsb, NaN -> top half | 0x40), 16 elements a step.
__attribute__((target("avx2"))) inline void bf16_to_float_row_avx2(const uint16_t* src, float* dst, int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + j)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j), _mm256_slli_epi32(w, 16));
  }
  bf16_to_float_row_scalar(src + j, dst + j, n - j);
}

__attribute__((target("avx2"))) inline __m256i float_to_bf16_lanes_avx2(__m256i x) {
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), lsb), 16);
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)),
                                         _mm256_set1_epi32(0x7f800000));
  const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x40));
  return _mm256_blendv_epi8(rounded, quiet, nan);  // 32-bit lanes holding values <= 0xffff
}

__attribute__((target("avx2"))) inline void float_to_bf16_row_avx2(const float* src, uint16_t* dst, int64_t n) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m256i lo = float_to_bf16_lanes_avx2(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + j)));
    const __m256i hi = float_to_bf16_lanes_avx2(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + j + 8)));
    // packus works per 128-bit half: [lo0-3 hi0-3 lo4-7 hi4-7] -> reorder the 64-bit quarters
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j), packed);
  }
  float_to_bf16_row_scalar(src + j, dst + j, n - j);
}

// CPUID leaf 7: AVX2, on top of the AVX state checked by cpu_has_f16c's test.
inline bool cpu_has_avx2() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  if (!((c & (1u << 27)) && (c & (1u << 28)))) return false;
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 0x6u) != 0x6u) return false;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return b & (1u << 5);
}
#else
inline bool cpu_has_f16c() { return false; }
inline bool cpu_has_avx2() { return false; }
#endif

// Whether the F16C / AVX2 rows are used: detected once per process (per
// loaded host twin); tests and kernels_bench --scalar-cvt switch them off to
// compare with the portable path.
inline bool& f16c_rows_enabled() {
  static bool on = cpu_has_f16c();
  return on;
}
inline bool& avx2_rows_enabled() {
  static bool on = cpu_has_avx2();
  return on;
}

// ---- dispatching rows (what the tile ops call) ----------------------------

inline void half_to_float_row(const uint16_t* src, float* dst, int64_t n) {
#if PTO_HOST_HAVE_F16C_PATH
  if (n >= 8 && f16c_rows_enabled()) return half_to_float_row_f16c(src, dst, n);
#endif
  half_to_float_row_scalar(src, dst, n);
}

inline void float_to_half_row(const float* src, uint16_t* dst, int64_t n) {
#if PTO_HOST_HAVE_F16C_PATH
  if (n >= 8 && f16c_rows_enabled()) return float_to_half_row_f16c(src, dst, n);
#endif
  float_to_half_row_scalar(src, dst, n);
}

inline void bf16_to_float_row(const uint16_t* src, float* dst, int64_t n) {
#if PTO_HOST_HAVE_F16C_PATH
  if (n >= 8 && avx2_rows_enabled()) return bf16_to_float_row_avx2(src, dst, n);
#endif
  bf16_to_float_row_scalar(src, dst, n);
}

inline void float_to_bf16_row(const float* src, uint16_t* dst, int64_t n) {
#if PTO_HOST_HAVE_F16C_PATH
  if (n >= 16 && avx2_rows_enabled()) return float_to_bf16_row_avx2(src, dst, n);
#endif
  float_to_bf16_row_scalar(src, dst, n);
}

// Elements per fp32 scratch chunk of the 16-bit ops (stack arrays; a multiple
// of 8 so chunked reductions keep the order of the unchunked ones).
inline constexpr int64_t kRowChunk = 512;

}  // namespace host
}  // namespace pto
