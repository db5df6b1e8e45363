// dtype names and the fp16/bf16 conversions (round to nearest even) the
// evaluator and the host twin rely on.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/core/dtype.h"

using namespace ptoc;

TEST_CASE("dtype names round-trip", "[core][dtype]") {
  for (DType t : kAllDTypes) CHECK(parse_dtype(dtype_name(t)) == t);
  CHECK(dtype_name(DType::boolean) == "bool");
  CHECK_FALSE(parse_dtype("float16").has_value());
  CHECK(dtype_size(DType::bf16) == 2);
  CHECK(dtype_size(DType::int32) == 4);
  CHECK(dtype_size(DType::uint8) == 1);
  CHECK(dtype_is_float(DType::bf16));
  CHECK_FALSE(dtype_is_float(DType::int8));
}

TEST_CASE("fp16 rounds to nearest, ties to even", "[core][dtype]") {
  const float ulp1 = std::ldexp(1.0f, -10);  // fp16 spacing at 1.0
  CHECK(float_to_half(1.0f) == 0x3c00);
  CHECK(half_to_float(0x3c00) == 1.0f);
  CHECK(float_to_half(1.0f + ulp1 / 2) == 0x3c00);          // tie -> even (down)
  CHECK(float_to_half(1.0f + 3 * ulp1 / 2) == 0x3c02);      // tie -> even (up)
  CHECK(float_to_half(1.0f + ulp1 / 2 + ulp1 / 8) == 0x3c01);  // above the tie
  CHECK(float_to_half(65504.0f) == 0x7bff);                 // largest finite
  CHECK(float_to_half(65519.0f) == 0x7bff);                 // below the tie to 65536
  CHECK(float_to_half(65520.0f) == 0x7c00);                 // tie rounds to even = overflow to inf
  CHECK(float_to_half(-1e9f) == 0xfc00);
  CHECK(float_to_half(std::ldexp(1.0f, -24)) == 0x0001);    // smallest subnormal
  CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);    // tie between 0 and the smallest: even = 0
  CHECK(float_to_half(std::ldexp(3.0f, -26)) == 0x0001);    // 0.75 of the smallest rounds up
  CHECK(float_to_half(std::ldexp(1.0f, -14)) == 0x0400);    // smallest normal
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(half_to_float(0x03ff) == std::ldexp(1023.0f, -24));  // largest subnormal
  CHECK(float_to_half(-0.0f) == 0x8000);
  CHECK(std::isnan(half_to_float(float_to_half(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isinf(half_to_float(0x7c00)));
  // Every half value survives the round trip.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;  // NaN payloads
    REQUIRE(float_to_half(half_to_float(uint16_t(h))) == h);
  }
}

TEST_CASE("bf16 rounds to nearest, ties to even", "[core][dtype]") {
  const float ulp1 = std::ldexp(1.0f, -7);  // bf16 spacing at 1.0
  CHECK(float_to_bf16(1.0f) == 0x3f80);
  CHECK(float_to_bf16(1.0f + ulp1 / 2) == 0x3f80);       // tie -> even (down)
  CHECK(float_to_bf16(1.0f + 3 * ulp1 / 2) == 0x3f82);   // tie -> even (up)
  CHECK(float_to_bf16(1.0f + ulp1 / 2 + ulp1 / 64) == 0x3f81);
  CHECK(bf16_to_float(0x3f81) == 1.0f + ulp1);
  CHECK(float_to_bf16(std::numeric_limits<float>::max()) == 0x7f80);  // rounds up to inf
  CHECK(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  uint32_t snan_bits = 0x7f800001u;  // a NaN whose payload sits only in the low bits stays NaN
  float snan;
  std::memcpy(&snan, &snan_bits, 4);
  CHECK(std::isnan(bf16_to_float(float_to_bf16(snan))));
}

TEST_CASE("round_to_dtype matches the device's storage", "[core][dtype]") {
  CHECK(round_to_dtype(0.1, DType::fp32) == double(0.1f));
  CHECK(round_to_dtype(1.0 + std::ldexp(1.0, -11), DType::fp16) == 1.0);
  CHECK(round_to_dtype(1.0 + std::ldexp(3.0, -8), DType::bf16) == 1.0 + std::ldexp(1.0, -6));
  CHECK(round_to_dtype(-1.7, DType::int32) == -1.0);  // truncation toward zero
  CHECK(round_to_dtype(200.0, DType::int8) == -56.0);  // wraps to the type width
  CHECK(round_to_dtype(300.0, DType::uint8) == 44.0);
  CHECK(round_to_dtype(-0.5, DType::boolean) == 1.0);
  CHECK(round_to_dtype(0.0, DType::boolean) == 0.0);
}
