// The 8-bit float codecs (runtime/core/fp8.h) against the OCP 8-bit float and MX specifications' tables:
// every code decodes to the value the format's fields give, encode(decode(c)) == c for every non-NaN code,
// ties to even at every rounding boundary, saturation / overflow, NaN, inf, subnormals.
#include <catch2/catch.hpp>

#include <cmath>

#include "runtime/core/dtype.h"
#include "runtime/core/fp8.h"

using namespace ptoc;

namespace {
// The value of an E<8-1-m>M<m> code from its fields (written out here, not through the codec).
double fields(int c, int m, int bias) {
  const int e = (c >> m) & ((1 << (7 - m)) - 1), f = c & ((1 << m) - 1);
  double v = e == 0 ? std::ldexp(f, 1 - bias - m) : std::ldexp(1.0 + f / double(1 << m), e - bias);
  return (c & 0x80) ? -v : v;
}
}  // namespace

TEST_CASE("fp8 dtypes by name", "[core][fp8]") {
  CHECK(parse_dtype("fp8e4m3") == DType::fp8e4m3);
  CHECK(parse_dtype("fp8e5m2") == DType::fp8e5m2);
  CHECK(parse_dtype("fp8e8m0") == DType::fp8e8m0);
  for (DType t : {DType::fp8e4m3, DType::fp8e5m2, DType::fp8e8m0}) {
    CHECK(dtype_size(t) == 1);
    CHECK(dtype_is_fp8(t));
    CHECK_FALSE(dtype_is_float(t));
    CHECK_FALSE(dtype_is_int(t));
  }
}

TEST_CASE("fp8e4m3: all 256 codes", "[core][fp8]") {
  for (int c = 0; c < 256; ++c) {
    const double v = decode_fp8e4m3(uint8_t(c));
    if ((c & 0x7F) == 0x7F) {
      CHECK(std::isnan(v));
      CHECK(encode_fp8e4m3(v) == 0x7F);  // NaN encodes as the positive NaN here (NaN's sign is not kept by v)
      continue;
    }
    CHECK(v == fields(c, 3, 7));
    CHECK(int(encode_fp8e4m3(v)) == c);  // -0 included: 0x80
    CHECK(round_to_dtype(v, DType::fp8e4m3) == v);
  }
  CHECK(decode_fp8e4m3(0x7E) == 448);
  CHECK(decode_fp8e4m3(0x01) == std::ldexp(1.0, -9));
  CHECK(decode_fp8e4m3(0x08) == std::ldexp(1.0, -6));
}

TEST_CASE("fp8e4m3: rounding to nearest even, saturation", "[core][fp8]") {
  CHECK(encode_fp8e4m3(1.0625) == 0x38);  // tie between 1 (0x38) and 1.125 (0x39): even = 1
  CHECK(encode_fp8e4m3(1.1875) == 0x3A);  // tie between 1.125 and 1.25: even = 1.25
  CHECK(encode_fp8e4m3(std::nextafter(1.0625, 2.0)) == 0x39);
  CHECK(encode_fp8e4m3(464) == 0x7E);     // tie between 448 and 480 (NaN's code): even = 448
  CHECK(encode_fp8e4m3(465) == 0x7E);     // saturates
  CHECK(encode_fp8e4m3(1e30) == 0x7E);
  CHECK(encode_fp8e4m3(-1e30) == 0xFE);
  CHECK(encode_fp8e4m3(INFINITY) == 0x7E);
  CHECK(encode_fp8e4m3(-INFINITY) == 0xFE);
  CHECK(encode_fp8e4m3(NAN) == 0x7F);
  CHECK(encode_fp8e4m3(-NAN) == 0xFF);
  CHECK(encode_fp8e4m3(std::ldexp(1.0, -10)) == 0x00);   // half the smallest subnormal: tie to 0
  CHECK(encode_fp8e4m3(std::ldexp(3.0, -11)) == 0x01);   // 0.75 of it
  CHECK(encode_fp8e4m3(std::ldexp(3.0, -10)) == 0x02);   // 1.5 subnormals: tie to 2
  CHECK(encode_fp8e4m3(-std::ldexp(1.0, -12)) == 0x80);  // -0
  CHECK(encode_fp8e4m3(std::ldexp(15.0, -10)) == 0x08);  // 7.5 subnormals rounds to the smallest normal
}

TEST_CASE("fp8e5m2: all 256 codes", "[core][fp8]") {
  for (int c = 0; c < 256; ++c) {
    const double v = decode_fp8e5m2(uint8_t(c));
    if ((c & 0x7C) == 0x7C) {
      if (c & 3) {
        CHECK(std::isnan(v));
      } else {
        CHECK(std::isinf(v));
        CHECK(int(encode_fp8e5m2(v)) == c);
      }
      continue;
    }
    CHECK(v == fields(c, 2, 15));
    CHECK(int(encode_fp8e5m2(v)) == c);
  }
  CHECK(decode_fp8e5m2(0x7B) == 57344);
  CHECK(decode_fp8e5m2(0x01) == std::ldexp(1.0, -16));
}

TEST_CASE("fp8e5m2: rounding to nearest even, overflow to inf", "[core][fp8]") {
  CHECK(encode_fp8e5m2(1.125) == 0x3C);  // tie between 1 and 1.25: even = 1
  CHECK(encode_fp8e5m2(1.375) == 0x3E);  // tie between 1.25 and 1.5: even = 1.5
  CHECK(encode_fp8e5m2(61439) == 0x7B);
  CHECK(encode_fp8e5m2(61440) == 0x7C);  // tie between 57344 and 65536 (inf): even = inf
  CHECK(encode_fp8e5m2(-1e30) == 0xFC);
  CHECK(encode_fp8e5m2(NAN) == 0x7E);
  CHECK(encode_fp8e5m2(std::ldexp(1.0, -17)) == 0x00);
  CHECK(encode_fp8e5m2(std::ldexp(3.0, -18)) == 0x01);
}

TEST_CASE("fp8e8m0: powers of two", "[core][fp8]") {
  for (int c = 0; c < 255; ++c) {
    CHECK(decode_fp8e8m0(uint8_t(c)) == std::ldexp(1.0, c - 127));
    CHECK(int(encode_fp8e8m0(std::ldexp(1.0, c - 127))) == c);
  }
  CHECK(std::isnan(decode_fp8e8m0(0xFF)));
  CHECK(encode_fp8e8m0(3.0) == 128);  // the power of two at or below
  CHECK(encode_fp8e8m0(0.0) == 0xFF);
  CHECK(encode_fp8e8m0(-1.0) == 0xFF);
  CHECK(encode_fp8e8m0(1e300) == 254);
  CHECK(encode_fp8e8m0(1e-300) == 0);
}
