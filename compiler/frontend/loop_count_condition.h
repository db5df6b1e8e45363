// PyPTO's `pypto.loop(cond)`: a loop whose argument is a condition runs its body once when the condition
// holds and not at all otherwise (`for _ in pypto.loop(eff_seq < selected_count):`, the trip count being the
// bool's 0 or 1). In a spec: `count: COND` or `range: [COND]`. The reader recognises the condition here and
// lowers the loop to `{cond: COND, then: [loop of count 1]}`, so the run-time `cond` machinery
// (elaborate_cond.cpp) decides it: folded and spliced when COND is static, a run-time branch otherwise.
#pragma once
#include <optional>
#include <string_view>
#include <variant>

#include "compiler/frontend/ast.h"
#include "compiler/frontend/spec_ast.h"

namespace ptoc::fe {

// Whether a loop count string is a condition: nullopt when it is an ordinary bound (or broken as one, which
// the bound's own parse reports); the condition when its top is a comparison, `and` / `or` / `not`, or
// `true` / `false`; the syntax error, at the offset where it breaks, when it is a condition written wrong
// (the text compares or uses `and` / `or` / `not` but does not parse).
std::optional<std::variant<ExprPtr, SyntaxError>> count_condition(std::string_view text);

// `loop` (a loop statement whose count is the condition `cond`, written at `pos` / `text`) becomes
// `{cond: COND, then: [loop]}` with the loop's count set to 1; `if_index` numbers the new `cond` statement
// (a fresh number after the loop's and its body's: statement numbers need only be unique, Op::stmt).
Stmt loop_under_condition(Stmt loop, ExprPtr cond, PosMapPtr pos, std::string text, int if_index);

}  // namespace ptoc::fe
