// Structural ops of PyPTO's catalogue, written by the front end as ops ptoc has (elaborate_structural_ops.cpp):
// interleave, deinterleave, gathermask, index_add_ub, index_add__ub, transposed_batchmatmul, gather_in_ub, and
// the statements atomic_add(src, offsets, dst) and set_operation_options(combine_axis=...).
#pragma once
#include <string_view>

#include "compiler/frontend/elaborate_call.h"

namespace ptoc::fe {

bool is_structural_op(std::string_view fn);
EV call_structural(Elaborator& el, const Elaborator::Call& c);
// The call statements `atomic_add(src, offsets, dst)` and `set_operation_options(combine_axis=...)` (the
// parser's statements without a target).
void call_statement(Elaborator& el, const Stmt& s);
// A paged cache's row of each token (PyPTO's gather_in_ub / gather_in_l1): token t lives in row
// block_table[0, t // block_size] * block_size + t % block_size. `tokens` is a [k, 1] int32 value,
// `block_table` [1, blocks]; the result is [k, 1] int32, -1 where no entry of the table holds the token's
// block (or t < 0). Built as a [k, blocks] mask and its sums, under the vec_tile the caller has in force.
// -1 (an error reported) when an op is refused.
int paged_token_rows(Elaborator& el, const Elaborator::Call& c, int tokens, int block_table, int64_t block_size,
                     int64_t blocks);

}  // namespace ptoc::fe
