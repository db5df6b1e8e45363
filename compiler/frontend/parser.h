// Recursive-descent parser for statement strings, dim expressions and `if`
// conditions (spec-language.md section 7 grammar, plus `//`, `%` and
// comparisons/and/or/not for conditions).
#pragma once
#include <optional>
#include <string_view>
#include <variant>

#include "compiler/frontend/ast.h"

namespace ptoc::fe {

// `NAME = EXPR` or `NAME[SLICES] = EXPR`.
std::variant<AssignAst, SyntaxError> parse_assignment(std::string_view s);
// A single expression (dim expressions, loop bounds, shapes).
std::variant<ExprPtr, SyntaxError> parse_expression(std::string_view s);
// An `if` condition: comparisons joined by and/or/not.
std::variant<ExprPtr, SyntaxError> parse_condition(std::string_view s);

}  // namespace ptoc::fe
