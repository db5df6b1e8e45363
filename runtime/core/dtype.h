// Element types of the spec language and their host representations.
#pragma once
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace ptoc {

// New dtypes are appended so that the numbering of the others (bundles, leaf programs) stays as it was:
// int64, then int16 uint16 uint32 uint64 (PyPTO's DT_INT16 DT_UINT16 DT_UINT32 DT_UINT64), then the 8-bit
// floats fp8e4m3 fp8e5m2 fp8e8m0 (DT_FP8E4M3 DT_FP8E5M2 DT_FP8E8M0; codecs in fp8.h).
enum class DType : uint8_t {
  fp32, fp16, bf16, int32, int8, uint8, boolean, int64, int16, uint16, uint32, uint64, fp8e4m3, fp8e5m2, fp8e8m0
};

inline constexpr DType kAllDTypes[] = {DType::fp32,  DType::fp16,   DType::bf16,    DType::int32,
                                       DType::int8,  DType::uint8,  DType::boolean, DType::int64,
                                       DType::int16, DType::uint16, DType::uint32,  DType::uint64,
                                       DType::fp8e4m3, DType::fp8e5m2, DType::fp8e8m0};

// Spec spelling: fp32 fp16 bf16 int32 int8 uint8 bool int64 int16 uint16 uint32 uint64 fp8e4m3 fp8e5m2 fp8e8m0.
std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view s);
// Bytes per element on the device.
int dtype_size(DType t);
// fp32 fp16 bf16 (the 8-bit floats are storage types: see dtype_is_fp8).
bool dtype_is_float(DType t);
// fp8e4m3 fp8e5m2 fp8e8m0: held as raw bytes, converted only by cast and produced by quant_mx.
bool dtype_is_fp8(DType t);
// int32 int8 uint8 int64 int16 uint16 uint32 uint64 (not bool).
bool dtype_is_int(DType t);
// uint8 uint16 uint32 uint64.
bool dtype_is_unsigned(DType t);
// The representable range of an integer dtype as doubles (uint64's top is 2^64, int64's 2^63: the first
// double past the range; the others are exact). Saturating casts clamp to it.
double dtype_int_min(DType t);
double dtype_int_max(DType t);

// IEEE binary16 <-> float, round to nearest even.
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);
// bfloat16 <-> float, round to nearest even (NaN stays NaN).
uint16_t float_to_bf16(float f);
float bf16_to_float(uint16_t b);

// Round a value to what the device would store for dtype `t` (the evaluator's
// "round after every op"). Integers saturate/wrap as int casts do on the device
// (we use truncation toward zero and wrap to the type width; bool is x != 0). int64 values are
// exact while |v| <= 2^53 (the evaluator computes in double); beyond that they saturate at +-2^63.
// int16 uint16 uint32 wrap like int32; uint64 wraps a value in (-2^63, 2^64) modulo 2^64 and saturates
// beyond (a double past 2^53 holds no low bits anyway).
// The 8-bit floats round as their encoders do (fp8.h): once, from the double, to nearest even.
double round_to_dtype(double v, DType t);

}  // namespace ptoc
