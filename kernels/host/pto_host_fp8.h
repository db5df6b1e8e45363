// Host twin: the 8-bit floats (fp8e4m3 fp8e5m2 fp8e8m0) as distinct one-byte types and their conversions
// from / to fp32, on the fp32 bits (an implementation of its own: the reference is
// runtime/core/fp8.cpp, which works on doubles; the conformance suite checks both against NumPy).
// Round to nearest even; e4m3 saturates to +-448 (inf too), e5m2 overflows to inf, NaN stays NaN;
// e8m0 stores the power of two at or below the value (its fp32 exponent field), NaN for <= 0, inf, NaN.
// Included by pto_host.h.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

namespace pto {

struct f8e4m3 { uint8_t bits; };
struct f8e5m2 { uint8_t bits; };
struct f8e8m0 { uint8_t bits; };

namespace host {

inline uint32_t fp8_f32_bits(float f) { uint32_t x; memcpy(&x, &f, 4); return x; }
inline float fp8_bits_f32(uint32_t x) { float f; memcpy(&f, &x, 4); return f; }

// |f| below the smallest normal: the number of subnormal steps, rounded half to even (an exact scaling).
inline uint32_t fp8_subnormal_steps(float a, int log2_step) { return uint32_t(nearbyintf(ldexpf(a, -log2_step))); }

inline uint8_t f32_to_e4m3_bits(float f) {
  const uint32_t x = fp8_f32_bits(f), sign = (x >> 24) & 0x80u, a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return uint8_t(sign | 0x7fu);
  if (a < (127u - 6u) << 23) return uint8_t(sign | fp8_subnormal_steps(fp8_bits_f32(a), -9));  // < 2^-6
  const uint32_t r = a + 0x7ffffu + ((a >> 20) & 1u);  // round the 23-bit mantissa to 3 bits, ties to even
  const uint32_t code = (r >> 20) - ((127u - 7u) << 3);
  return uint8_t(sign | (code > 0x7eu ? 0x7eu : code));
}
inline float e4m3_bits_to_f32(uint8_t b) {
  const uint32_t e = (b >> 3) & 15u, m = b & 7u;
  if (e == 15u && m == 7u) return fp8_bits_f32(0x7fc00000u);
  const float mag = e == 0 ? ldexpf(float(m), -9) : ldexpf(float(8u + m), int(e) - 10);
  return (b & 0x80u) ? -mag : mag;
}

inline uint8_t f32_to_e5m2_bits(float f) {
  const uint32_t x = fp8_f32_bits(f), sign = (x >> 24) & 0x80u, a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return uint8_t(sign | 0x7eu);
  if (a < (127u - 14u) << 23) return uint8_t(sign | fp8_subnormal_steps(fp8_bits_f32(a), -16));  // < 2^-14
  const uint64_t r = uint64_t(a) + 0xfffffu + ((a >> 21) & 1u);
  const uint64_t code = (r >> 21) - ((127u - 15u) << 2);
  return uint8_t(sign | (code >= 0x7cu ? 0x7cu : uint32_t(code)));
}
inline float e5m2_bits_to_f32(uint8_t b) {
  const uint32_t e = (b >> 2) & 31u, m = b & 3u;
  if (e == 31u) return fp8_bits_f32((b & 0x80u ? 0xff800000u : 0x7f800000u) | (m ? 0x400000u : 0u));
  const float mag = e == 0 ? ldexpf(float(m), -16) : ldexpf(float(4u + m), int(e) - 17);
  return (b & 0x80u) ? -mag : mag;
}

inline uint8_t f32_to_e8m0_bits(float f) {
  const uint32_t x = fp8_f32_bits(f);
  if ((x >> 31) || (x & 0x7fffffffu) == 0 || (x & 0x7fffffffu) >= 0x7f800000u) return 0xffu;
  return uint8_t(x >> 23);  // the fp32 exponent field is the e8m0 code (subnormals: 0, clamped to 2^-127)
}
inline float e8m0_bits_to_f32(uint8_t b) {
  if (b == 0xffu) return fp8_bits_f32(0x7fc00000u);
  return b == 0 ? fp8_bits_f32(0x00400000u) : fp8_bits_f32(uint32_t(b) << 23);
}

}  // namespace host
}  // namespace pto
