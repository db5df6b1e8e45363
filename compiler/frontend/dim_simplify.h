// Canonical form of dim expressions: a polynomial over symbols and opaque
// atoms (floor divisions, minima, ...), so that `(b + 4) * 64 - b * 64` is
// `256` and two shapes written differently compare equal.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "runtime/core/dim_expr.h"

namespace ptoc::fe {

DimExpr simplify(const DimExpr& e);
// True when a - b simplifies to 0.
bool provably_equal(const DimExpr& a, const DimExpr& b);
// a - b as a constant, when the difference does not depend on any symbol.
std::optional<int64_t> const_difference(const DimExpr& a, const DimExpr& b);

// Interval bounds [lo, hi] of an expression whose symbols all have known
// ranges (loop variables of loops with static bounds); nullopt otherwise.
using Ranges = std::map<std::string, std::pair<int64_t, int64_t>, std::less<>>;
std::optional<std::pair<int64_t, int64_t>> bounds(const DimExpr& e, const Ranges& ranges);
// Symbolic ranges of loop variables: first and last start, e.g. b in [0, B - k].
struct SymRange {
  DimExpr lo, hi;
};
using SymRanges = std::map<std::string, SymRange, std::less<>>;
// Replaces symbol `name` by `by` (and folds).
DimExpr substitute_sym(const DimExpr& e, const std::string& name, const DimExpr& by);
// min(a, b), resolved to a or b when the numeric or symbolic ranges decide it.
// `divisible` maps dynamic dims to their divisible_by (so (B // 64) * 64 == B when B is a multiple of 64).
DimExpr min_in(const DimExpr& a, const DimExpr& b, const Ranges& ranges, const SymRanges& sym = {},
               const std::map<std::string, int64_t>& divisible = {});

}  // namespace ptoc::fe
