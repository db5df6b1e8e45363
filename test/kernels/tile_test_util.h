// Test helpers for the host tile ops: element <-> double conversions written
// against compiler/dtype.h (independent of kernels/host), random data, and a
// tolerance per dtype.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "runtime/core/dtype.h"
#include "kernels/pto_tile.h"

namespace tt {

template <typename T> constexpr ptoc::DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return ptoc::DType::fp32;
  else if constexpr (std::is_same_v<T, pto_f16>) return ptoc::DType::fp16;
  else if constexpr (std::is_same_v<T, pto_bf16>) return ptoc::DType::bf16;
  else if constexpr (std::is_same_v<T, int32_t>) return ptoc::DType::int32;
  else if constexpr (std::is_same_v<T, int8_t>) return ptoc::DType::int8;
  else if constexpr (std::is_same_v<T, uint8_t>) return ptoc::DType::uint8;
  else return ptoc::DType::boolean;
}

template <typename T> double to_d(T x) {
  if constexpr (std::is_same_v<T, pto_f16>) return ptoc::half_to_float(x.bits);
  else if constexpr (std::is_same_v<T, pto_bf16>) return ptoc::bf16_to_float(x.bits);
  else if constexpr (std::is_same_v<T, pto_bool>) return x.v ? 1.0 : 0.0;
  else return double(x);
}

// The value `v` rounded as the device stores it (ptoc::round_to_dtype), as a T.
template <typename T> T from_d(double v) {
  const double r = ptoc::round_to_dtype(v, dtype_of<T>());
  if constexpr (std::is_same_v<T, pto_f16>) return pto_f16{ptoc::float_to_half(float(r))};
  else if constexpr (std::is_same_v<T, pto_bf16>) return pto_bf16{ptoc::float_to_bf16(float(r))};
  else if constexpr (std::is_same_v<T, pto_bool>) return pto_bool{uint8_t(r != 0 ? 1 : 0)};
  else return T(r);
}

template <typename T> bool same_bits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

template <typename T> constexpr bool is_float() {
  return std::is_same_v<T, float> || std::is_same_v<T, pto_f16> || std::is_same_v<T, pto_bf16>;
}

// Relative tolerance of one rounding step of T (ints: exact).
template <typename T> double ulp_rel() {
  if constexpr (std::is_same_v<T, float>) return 1.0 / (1 << 23);
  else if constexpr (std::is_same_v<T, pto_f16>) return 1.0 / (1 << 10);
  else if constexpr (std::is_same_v<T, pto_bf16>) return 1.0 / (1 << 7);
  else return 0;
}

// Values in [lo, hi] rounded to T (integers: whole numbers).
template <typename T> std::vector<T> random_values(size_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = from_d<T>(is_float<T>() ? d(g) : std::floor(d(g)));
  return v;
}

// Marks padding with a value that would show up in any result it entered.
template <typename T> T poison() {
  if constexpr (std::is_same_v<T, float>) return 1e30f;
  else if constexpr (is_float<T>()) return from_d<T>(30000.0);
  else if constexpr (std::is_same_v<T, pto_bool>) return pto_bool{1};
  else return T(99);
}

}  // namespace tt
