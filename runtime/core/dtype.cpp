#include "dtype.h"

#include "fp8.h"

#include <cmath>

namespace ptoc {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::fp32: return "fp32";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::int32: return "int32";
    case DType::int8: return "int8";
    case DType::uint8: return "uint8";
    case DType::boolean: return "bool";
    case DType::int64: return "int64";
    case DType::int16: return "int16";
    case DType::uint16: return "uint16";
    case DType::uint32: return "uint32";
    case DType::uint64: return "uint64";
    case DType::fp8e4m3: return "fp8e4m3";
    case DType::fp8e5m2: return "fp8e5m2";
    case DType::fp8e8m0: return "fp8e8m0";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == s) return t;
  return std::nullopt;
}

int dtype_size(DType t) {
  switch (t) {
    case DType::int64: case DType::uint64: return 8;
    case DType::fp32: case DType::int32: case DType::uint32: return 4;
    case DType::fp16: case DType::bf16: case DType::int16: case DType::uint16: return 2;
    default: return 1;
  }
}

bool dtype_is_float(DType t) { return t == DType::fp32 || t == DType::fp16 || t == DType::bf16; }

bool dtype_is_fp8(DType t) { return t == DType::fp8e4m3 || t == DType::fp8e5m2 || t == DType::fp8e8m0; }

bool dtype_is_int(DType t) {
  switch (t) {
    case DType::int32: case DType::int8: case DType::uint8: case DType::int64:
    case DType::int16: case DType::uint16: case DType::uint32: case DType::uint64: return true;
    default: return false;
  }
}

bool dtype_is_unsigned(DType t) {
  return t == DType::uint8 || t == DType::uint16 || t == DType::uint32 || t == DType::uint64;
}

double dtype_int_min(DType t) {
  switch (t) {
    case DType::int32: return -2147483648.0;
    case DType::int8: return -128.0;
    case DType::int16: return -32768.0;
    case DType::int64: return -9223372036854775808.0;
    default: return 0.0;
  }
}

double dtype_int_max(DType t) {
  switch (t) {
    case DType::int32: return 2147483647.0;
    case DType::int8: return 127.0;
    case DType::uint8: return 255.0;
    case DType::int16: return 32767.0;
    case DType::uint16: return 65535.0;
    case DType::uint32: return 4294967295.0;
    case DType::int64: return 9223372036854775808.0;
    case DType::uint64: return 18446744073709551616.0;
    case DType::boolean: return 1.0;
    default: return 0.0;
  }
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mant = x & 0x7fffffu;
  int32_t exp = int32_t((x >> 23) & 0xff);
  if (exp == 0xff) return uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0u));  // inf / nan
  exp = exp - 127 + 15;
  if (exp >= 0x1f) return uint16_t(sign | 0x7c00u);                        // overflow -> inf
  if (exp <= 0) {                                                           // subnormal or zero
    if (exp < -10) return uint16_t(sign);
    mant |= 0x800000u;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half_mant = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1))) ++half_mant;
    return uint16_t(sign | half_mant);
  }
  uint32_t h = sign | (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;  // may carry into exponent: correct
  return uint16_t(h);
}

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do { ++e; mant <<= 1; } while (!(mant & 0x400u));
      x = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else {
    x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu)) return uint16_t((x >> 16) | 0x40u);
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return uint16_t(x >> 16);
}

float bf16_to_float(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

double round_to_dtype(double v, DType t) {
  switch (t) {
    case DType::fp32: return double(float(v));
    case DType::fp16: return double(half_to_float(float_to_half(float(v))));
    case DType::bf16: return double(bf16_to_float(float_to_bf16(float(v))));
    case DType::int32: return std::isfinite(v) ? double(int32_t(int64_t(std::trunc(v)))) : 0.0;
    case DType::int8: return std::isfinite(v) ? double(int8_t(int64_t(std::trunc(v)))) : 0.0;
    case DType::uint8: return std::isfinite(v) ? double(uint8_t(int64_t(std::trunc(v)))) : 0.0;
    case DType::boolean: return v != 0.0 ? 1.0 : 0.0;
    case DType::int64:
      if (!std::isfinite(v)) return 0.0;
      if (v >= 9223372036854775807.0) return 9223372036854775807.0;
      if (v <= -9223372036854775808.0) return -9223372036854775808.0;
      return std::trunc(v);
    case DType::int16: return std::isfinite(v) ? double(int16_t(int64_t(std::trunc(v)))) : 0.0;
    case DType::uint16: return std::isfinite(v) ? double(uint16_t(int64_t(std::trunc(v)))) : 0.0;
    case DType::uint32: return std::isfinite(v) ? double(uint32_t(int64_t(std::trunc(v)))) : 0.0;
    case DType::uint64: {
      if (!std::isfinite(v)) return 0.0;
      const double r = std::trunc(v);
      if (r >= 18446744073709551616.0) return 18446744073709551615.0;  // rounds to 2^64 as a double
      if (r >= 0) return r;
      if (r <= -9223372036854775808.0) return 0.0;
      return double(uint64_t(int64_t(r)));  // wraps modulo 2^64
    }
    case DType::fp8e4m3: return decode_fp8e4m3(encode_fp8e4m3(v));
    case DType::fp8e5m2: return decode_fp8e5m2(encode_fp8e5m2(v));
    case DType::fp8e8m0: return decode_fp8e8m0(encode_fp8e8m0(v));
  }
  return v;
}

}  // namespace ptoc
