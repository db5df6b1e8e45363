// index_put_ on int64 (PyPTO's DT_INT64 input and values, issue 13): the rule, and the scope in which the
// front end's own ops of its lowering (compares, selects, sums) may take int64 operands.
#pragma once
#include <optional>
#include <string>

#include "runtime/core/dtype.h"

namespace ptoc::fe {

// PyPTO's index_put_ takes an int64 input and values, but accumulate=true only for bf16 / fp16 / fp32 / int8 /
// int16 / int32: the error message and hint when `input_text` (of dtype t) breaks that, else nullopt.
inline std::optional<std::pair<std::string, std::string>> index_put_int64_error(DType t, bool accumulate,
                                                                                const std::string& input_text) {
  if (t != DType::int64 || !accumulate) return std::nullopt;
  return std::pair<std::string, std::string>{
      "'index_put_' with accumulate=true does not take int64 operands, '" + input_text +
          "' is int64 (PyPTO's rule: accumulate takes bf16, fp16, fp32, int8, int16 and int32)",
      "insert cast(" + input_text + ", int32), or accumulate=false"};
}

// Sets the elaborator's int64-lowering flag while it lives (when `on`), then restores it.
struct Int64Lowering {
  bool& flag;
  bool saved;
  Int64Lowering(bool& f, bool on) : flag(f), saved(f) { flag = flag || on; }
  ~Int64Lowering() { flag = saved; }
};

}  // namespace ptoc::fe
