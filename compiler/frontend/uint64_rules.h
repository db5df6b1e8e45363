// Where uint64 (PyPTO's DT_UINT64) is accepted. The evaluator and the host tile kernels compute uint64
// exactly (every bit, unsigned ordering) in data movement, full, expand_clone, cast (with the saturation and
// rounding modes), comparisons, maximum / minimum, amax / amin / sum, where, the bitwise ops and the
// wrapping add / sub / mul. Every other op (division, the math and float ops, prod, argmax, matmul, ...)
// refuses a uint64 operand with a located error naming this list; int16, uint16 and uint32 take every
// op int32 takes but matmul.
#pragma once
#include <string_view>

#include "compiler/op_table.h"

namespace ptoc::fe {

// For messages: the ops whose operands may be uint64.
inline constexpr std::string_view kUint64Ops =
    "cast, concat, permute, transpose, view, reshape, unsqueeze, clone, assemble, full, expand_clone, where, "
    "eq, ne, lt, le, gt, ge, maximum, minimum, amax, amin, sum, add, sub, mul, bitwise_and, bitwise_or, "
    "bitwise_xor, bitwise_not, pack and unpack";

inline bool uint64_operand_ok(const OpSpec& spec) {
  for (std::string_view n : {"tensor", "assemble", "cast", "transpose", "reshape", "view", "concat", "permute",
                             "unsqueeze", "clone", "full", "expand_clone", "where", "eq", "ne", "lt", "le", "gt",
                             "ge", "maximum", "minimum", "amax", "amin", "sum", "add", "sub", "mul", "bitwise_and",
                             "bitwise_or", "bitwise_xor", "bitwise_not", "isfinite", "pack", "unpack"})
    if (spec.name == n) return true;
  return false;
}

}  // namespace ptoc::fe
