// 8-bit float codecs: OCP E4M3FN, OCP E5M2 and the MX shared exponent E8M0 (PyPTO's DT_FP8E4M3,
// DT_FP8E5M2, DT_FP8E8M0). Encoding rounds to nearest, ties to even; the saturation rules are the ones
// specs/README.md documents (E4M3 saturates to +-448, E5M2 overflows to +-inf as IEEE does).
#pragma once
#include <cstdint>

namespace ptoc {

// E4M3FN: bias 7, no infinities, S.1111.111 is NaN, max 448, smallest subnormal 2^-9.
// NaN -> 0x7F (sign kept), |x| past 448 after rounding and +-inf -> +-448 (OCP's saturating conversion).
uint8_t encode_fp8e4m3(double v);
double decode_fp8e4m3(uint8_t b);
// E5M2: bias 15, IEEE-like: exponent 31 holds inf (mantissa 0) and NaN; max 57344, smallest 2^-16.
// NaN -> 0x7E (quiet, sign kept); rounding past 57344 (from 61440 up) -> +-inf.
uint8_t encode_fp8e5m2(double v);
double decode_fp8e5m2(uint8_t b);
// E8M0: 2^(b-127) for b in 0..254, 0xFF is NaN; no sign, no zero. Encoding takes the power of two at or
// below |v| clamped to [2^-127, 2^127]; zero, negative, inf and NaN values encode as NaN (0xFF).
uint8_t encode_fp8e8m0(double v);
double decode_fp8e8m0(uint8_t b);

}  // namespace ptoc
