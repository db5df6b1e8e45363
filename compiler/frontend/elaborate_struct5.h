// structops5's ops of PyPTO's catalogue, written by the front end as ops ptoc has (elaborate_struct5.cpp):
// interleave, deinterleave, gathermask, index_add_ub, index_add__ub, transposed_batchmatmul, gather_in_ub, and
// the statements atomic_add(src, offsets, dst) and set_operation_options(combine_axis=...).
#pragma once
#include <string_view>

#include "compiler/frontend/elaborate_call.h"

namespace ptoc::fe {

bool is_struct5_op(std::string_view fn);
EV call_struct5(Elaborator& el, const Elaborator::Call& c);
// The call statements `atomic_add(src, offsets, dst)` and `set_operation_options(combine_axis=...)` (the
// parser's statements without a target).
void call_statement(Elaborator& el, const Stmt& s);

}  // namespace ptoc::fe
