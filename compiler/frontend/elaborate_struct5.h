// structops5's ops of PyPTO's catalogue, written by the front end as ops ptoc has (elaborate_struct5.cpp):
// interleave, deinterleave, gathermask, index_add_ub, index_add__ub, transposed_batchmatmul, and the statement
// atomic_add(src, offsets, dst).
#pragma once
#include <string_view>

#include "compiler/frontend/elaborate_call.h"

namespace ptoc::fe {

bool is_struct5_op(std::string_view fn);
EV call_struct5(Elaborator& el, const Elaborator::Call& c);
// The call statement `atomic_add(src, offsets, dst)` (the parser's one statement without a target).
void atomic_add_stmt(Elaborator& el, const Stmt& s);

}  // namespace ptoc::fe
