// Canonical form of dim expressions: a polynomial over symbols and opaque
// atoms (floor divisions, minima, ...), so that `(b + 4) * 64 - b * 64` is
// `256` and two shapes written differently compare equal.
#pragma once
#include <optional>

#include "compiler/dim_expr.h"

namespace ptoc::fe {

DimExpr simplify(const DimExpr& e);
// True when a - b simplifies to 0.
bool provably_equal(const DimExpr& a, const DimExpr& b);
// a - b as a constant, when the difference does not depend on any symbol.
std::optional<int64_t> const_difference(const DimExpr& a, const DimExpr& b);

}  // namespace ptoc::fe
