// Where int64 (PyPTO's DT_INT64) is accepted. PyPTO's operation docs list DT_INT64 for data movement
// (cast, concat, permute/transpose, view, reshape, assemble), isfinite, and the index tensors of gather,
// index_select, index_add, index_put_, scatter and scatter_update; no arithmetic, comparison, bitwise or
// reduction op takes it. ptoc follows that: every other op refuses an int64 operand with a located error.
// index_put_ also takes an int64 input and values (PyPTO's list), with accumulate=false only
// (index_put_int64_rule in elaborate_index_put.cpp).
#pragma once
#include <string_view>

#include "compiler/op_table.h"

namespace ptoc::fe {

// For messages: the ops whose operands may be int64.
inline constexpr std::string_view kInt64Ops =
    "cast, concat, permute, transpose, view, reshape, unsqueeze, clone, assemble and isfinite";

inline bool int64_operand_ok(const OpSpec& spec) {
  for (std::string_view n : {"tensor", "assemble", "cast", "transpose", "reshape", "view", "concat", "isfinite",
                             "permute", "unsqueeze", "clone",
                             "index_put_"})  // PyPTO lists DT_INT64 for its input and values (not with accumulate)
    if (spec.name == n) return true;
  return false;
}

}  // namespace ptoc::fe
