#include "fp8.h"

#include <cmath>
#include <limits>

namespace ptoc {
namespace {

// Round-to-nearest-even of a non-negative double to an integer (exact: the callers scale by powers of 2).
double rne(double x) {
  double f = std::floor(x);
  double r = x - f;
  if (r > 0.5 || (r == 0.5 && std::fmod(f, 2.0) != 0.0)) f += 1.0;
  return f;
}

// |v| (finite, >= 0) as exponent field and mantissa of an E<ebits>M<mbits> format with `bias`, rounded to
// nearest even; subnormals below 2^(1-bias). Returns the magnitude code, which may exceed the finite
// range (the caller saturates or overflows): code = exp_field << mbits | mantissa.
uint32_t magnitude_code(double a, int mbits, int bias) {
  const int emin = 1 - bias;
  if (a < std::ldexp(1.0, emin)) return uint32_t(rne(std::ldexp(a, mbits - emin)));  // may reach min normal
  int e;
  double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  e -= 1;                        // a = (2m) * 2^e, 2m in [1, 2)
  double frac = rne((2.0 * m - 1.0) * double(1 << mbits));
  if (frac == double(1 << mbits)) {
    frac = 0;
    ++e;
  }
  const double field = double(e + bias);
  if (field > 1000) return 0xFFFFu;  // far past any 8-bit range
  return uint32_t(field) << mbits | uint32_t(frac);
}

double decode(uint8_t b, int mbits, int bias) {
  const int ebits = 7 - mbits;
  const uint32_t mant = b & ((1u << mbits) - 1), field = (b >> mbits) & ((1u << ebits) - 1);
  double mag = field == 0 ? std::ldexp(double(mant), 1 - bias - mbits)
                          : std::ldexp(1.0 + double(mant) / double(1 << mbits), int(field) - bias);
  return (b & 0x80) ? -mag : mag;
}

}  // namespace

uint8_t encode_fp8e4m3(double v) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  if (std::isnan(v)) return sign | 0x7F;
  if (std::isinf(v)) return sign | 0x7E;
  uint32_t c = magnitude_code(std::fabs(v), 3, 7);
  if (c > 0x7E) c = 0x7E;  // 0x7F is NaN: saturate to 448
  return uint8_t(sign | c);
}

double decode_fp8e4m3(uint8_t b) {
  if ((b & 0x7F) == 0x7F) return std::numeric_limits<double>::quiet_NaN();
  return decode(b, 3, 7);
}

uint8_t encode_fp8e5m2(double v) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  if (std::isnan(v)) return sign | 0x7E;
  if (std::isinf(v)) return sign | 0x7C;
  uint32_t c = magnitude_code(std::fabs(v), 2, 15);
  if (c >= 0x7C) c = 0x7C;  // rounded past 57344: inf
  return uint8_t(sign | c);
}

double decode_fp8e5m2(uint8_t b) {
  if ((b & 0x7C) == 0x7C) {
    if (b & 0x03) return std::numeric_limits<double>::quiet_NaN();
    return (b & 0x80) ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  return decode(b, 2, 15);
}

uint8_t encode_fp8e8m0(double v) {
  if (!(v > 0) || std::isinf(v)) return 0xFF;
  int e;
  std::frexp(v, &e);
  e -= 1;  // v in [2^e, 2^(e+1))
  if (e < -127) e = -127;
  if (e > 127) e = 127;
  return uint8_t(e + 127);
}

double decode_fp8e8m0(uint8_t b) {
  if (b == 0xFF) return std::numeric_limits<double>::quiet_NaN();
  return std::ldexp(1.0, int(b) - 127);
}

}  // namespace ptoc
