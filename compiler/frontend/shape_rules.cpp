#include "compiler/frontend/shape_rules.h"

#include "compiler/frontend/dim_simplify.h"

namespace ptoc::fe {

std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) { if (i) r += ", "; r += s[i].str(); }
  return r + "]";
}

std::string ints_str(const std::vector<int64_t>& v) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
  return r + "]";
}

Shape simplify_all(const Shape& s) {
  Shape r;
  for (const auto& d : s) r.push_back(simplify(d));
  return r;
}

DimExpr combine_valid(const DimExpr& a, const DimExpr& b) {
  if (provably_equal(a, b)) return a;
  return simplify(min(a, b));
}

Broadcast broadcast(const Shape& a, const Shape& va, const Shape& b, const Shape& vb) {
  Broadcast r;
  size_t n = std::max(a.size(), b.size());
  r.shape.resize(n);
  r.valid.resize(n);
  for (size_t i = 0; i < n; ++i) {
    // Axis i of the result, counted from the end in the operands.
    bool ha = i + a.size() >= n, hb = i + b.size() >= n;
    size_t ia = ha ? i + a.size() - n : 0, ib = hb ? i + b.size() - n : 0;
    if (!ha) { r.shape[i] = b[ib]; r.valid[i] = vb[ib]; continue; }
    if (!hb) { r.shape[i] = a[ia]; r.valid[i] = va[ia]; continue; }
    const DimExpr &x = a[ia], &y = b[ib];
    if (provably_equal(x, y)) {
      r.shape[i] = x;
      r.valid[i] = combine_valid(va[ia], vb[ib]);
    } else if (x.as_const() == 1) {
      r.shape[i] = y;
      r.valid[i] = vb[ib];
    } else if (y.as_const() == 1) {
      r.shape[i] = x;
      r.valid[i] = va[ia];
    } else {
      if (r.bad_axis < 0) r.bad_axis = int(i);
      r.shape[i] = x;
      r.valid[i] = va[ia];
    }
  }
  return r;
}

DimExpr element_count(const Shape& s) {
  DimExpr c(1);
  for (const auto& d : s) c = c * d;
  return simplify(c);
}

bool fully_valid(const Shape& shape, const Shape& valid) {
  if (shape.size() != valid.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (!provably_equal(shape[i], valid[i])) return false;
  return true;
}

}  // namespace ptoc::fe
