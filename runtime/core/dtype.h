// Element types of the spec language and their host representations.
#pragma once
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace ptoc {

// int64 is last so that the numbering of the others (bundles, leaf programs) stays as it was.
enum class DType : uint8_t { fp32, fp16, bf16, int32, int8, uint8, boolean, int64 };

inline constexpr DType kAllDTypes[] = {DType::fp32, DType::fp16, DType::bf16, DType::int32,
                                       DType::int8, DType::uint8, DType::boolean, DType::int64};

// Spec spelling: fp32 fp16 bf16 int32 int8 uint8 bool int64.
std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view s);
// Bytes per element on the device.
int dtype_size(DType t);
bool dtype_is_float(DType t);
// int32 int8 uint8 int64 (not bool).
bool dtype_is_int(DType t);

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
double round_to_dtype(double v, DType t);

}  // namespace ptoc
