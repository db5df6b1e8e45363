// Where the 8-bit floats (fp8e4m3 fp8e5m2 fp8e8m0, PyPTO's DT_FP8E4M3 DT_FP8E5M2 DT_FP8E8M0) are accepted.
// PyPTO has them on Ascend 950PR / 950DT only (DataType.md: Atlas A2 / A3 do not support them), and
// computes nothing in them: cast converts to and from them, quant_mx produces them, matmul-like ops read
// them. ptoc follows: an fp8 tensor or dtype on a 910 target is a located error, and an fp8 operand of any
// op but cast is refused at the op with the hint to cast it to fp32 first.
#pragma once
#include <string>
#include <string_view>

#include "compiler/op_table.h"
#include "runtime/core/dtype.h"
#include "runtime/core/platform.h"

namespace ptoc::fe {

inline bool fp8_target_ok(const std::string& target) {
  const Platform* p = find_platform(target);
  return p && p->is_950();
}
inline std::string fp8_target_message(DType t, const std::string& target) {
  return std::string(dtype_name(t)) + " needs an Ascend 950 target, the spec's target is " + target +
         " (PyPTO: Atlas A2 / A3 have no fp8 types)";
}
inline constexpr std::string_view kFp8TargetHint = "set 'target: ascend950pr' (or ascend950dt), or pass --target ascend950pr";

// The ops whose operands may be fp8 (data access and cast).
inline bool fp8_operand_ok(const OpSpec& spec) { return spec.name == "tensor" || spec.name == "cast"; }

}  // namespace ptoc::fe
