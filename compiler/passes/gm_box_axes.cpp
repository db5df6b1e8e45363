#include "compiler/passes/gm_box_axes.h"

namespace ptoc::tiling {

static bool is_one(const DimExpr& e) { return e.as_const() == 1; }

bool size_one_axes_after_mapped(const GmLoc& loc, size_t rank, const std::vector<DimExpr>* shape) {
  std::vector<bool> mapped(rank, false);
  int last = -1;
  bool dropped_after = false;  // a size-1 tensor axis no value axis maps to, after a mapped one
  for (size_t e = 0; e < loc.map.size(); ++e) {
    const int m = loc.map[e];
    if (m < 0) {
      if (last >= 0 && shape && e < shape->size() && is_one((*shape)[e])) dropped_after = true;
      continue;
    }
    if (m <= last || size_t(m) >= rank) return false;
    mapped[size_t(m)] = true;
    last = m;
  }
  if (dropped_after) return true;
  bool seen = false;
  for (size_t d = 0; d < rank; ++d) {
    if (mapped[d]) seen = true;
    else if (seen) return true;
  }
  return false;
}

GmRef with_value_axes(const GmRef& r, const GmLoc& loc, size_t rank, const std::vector<DimExpr>& shape) {
  GmRef out;
  out.tensor = r.tensor;
  size_t e = 0;
  auto keep = [&] {
    out.view.push_back(shape[e]);
    out.offset.push_back(r.offset[e]);
    out.extent.push_back(r.extent[e]);
    ++e;
  };
  auto take = [&](size_t upto) {  // tensor axes before the one mapped to value axis `upto`
    while (e < loc.map.size() && (loc.map[e] < 0 || size_t(loc.map[e]) < upto)) {
      if (loc.map[e] < 0 && is_one(shape[e]))
        ++e;  // a squeezed size-1 axis: out of the view (the copy pairs axes from the right)
      else
        keep();
    }
  };
  for (size_t d = 0; d < rank; ++d) {
    take(d);
    if (e < loc.map.size() && loc.map[e] == int(d)) {
      keep();
    } else {
      out.view.push_back(DimExpr(1));
      out.offset.push_back(DimExpr(0));
      out.extent.push_back(DimExpr(1));
    }
  }
  take(rank);
  return out;
}

}  // namespace ptoc::tiling
