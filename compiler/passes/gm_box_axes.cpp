#include "compiler/passes/gm_box_axes.h"

namespace ptoc::tiling {

bool size_one_axes_after_mapped(const GmLoc& loc, size_t rank) {
  std::vector<bool> mapped(rank, false);
  int last = -1;
  for (int m : loc.map) {
    if (m < 0) continue;
    if (m <= last || size_t(m) >= rank) return false;
    mapped[size_t(m)] = true;
    last = m;
  }
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
    while (e < loc.map.size() && (loc.map[e] < 0 || size_t(loc.map[e]) < upto)) keep();
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
