// Shape arithmetic shared by the elaborator's op builders: NumPy
// broadcasting, valid-extent propagation, element counts.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/dim_expr.h"

namespace ptoc::fe {

using Shape = std::vector<DimExpr>;

std::string shape_str(const Shape& s);
// "[1, 2, 3]": a constant list (a vec_tile) as diagnostics quote it.
std::string ints_str(const std::vector<int64_t>& v);
Shape simplify_all(const Shape& s);

struct Broadcast {
  Shape shape, valid;
  int bad_axis = -1;  // >= 0: the axis (of the result) where the shapes clash
};
// NumPy rules: align at the end; size-1 axes stretch; equal sizes (provably) pass.
Broadcast broadcast(const Shape& a, const Shape& va, const Shape& b, const Shape& vb);

// The valid extent of two operands on one axis of the same size.
DimExpr combine_valid(const DimExpr& a, const DimExpr& b);

DimExpr element_count(const Shape& s);
bool fully_valid(const Shape& shape, const Shape& valid);

}  // namespace ptoc::fe
