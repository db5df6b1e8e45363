// Reads back the canonical text of a DimExpr (DimExpr::str()), as the bundle
// stores every shape, offset, argument and loop bound. The grammar is the dim
// sub-language of the spec: + - * // % unary -, ceil_div/min/max, parentheses.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

#include "runtime/core/dim_expr.h"

namespace ptoc::runtime {

struct DimParseError : std::runtime_error {
  using std::runtime_error::runtime_error;  // says the text and the column
};

// parse_dim_expr(e.str()).str() == e.str() for every DimExpr e.
DimExpr parse_dim_expr(std::string_view text);

}  // namespace ptoc::runtime
