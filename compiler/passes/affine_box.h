// A GM box as the tiling passes compare them: per axis the offset split into its symbolic part
// (dim-expression text) and a constant, and the extent when it is a constant. Two boxes are
// proven disjoint only on an axis whose symbolic parts are equal; anything else may overlap.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptoc {

using AffineOffsets = std::vector<std::pair<std::string, int64_t>>;
using AffineExtents = std::vector<std::optional<int64_t>>;

inline bool affine_boxes_overlap(const AffineOffsets& aoff, const AffineExtents& aext, const AffineOffsets& boff,
                                 const AffineExtents& bext) {
  const size_t n = std::min(aoff.size(), boff.size());
  for (size_t d = 0; d < n; ++d) {
    if (aoff[d].first != boff[d].first) continue;
    const int64_t ca = aoff[d].second, cb = boff[d].second;
    if (aext[d] && (ca + *aext[d] <= cb || *aext[d] == 0)) return false;
    if (bext[d] && (cb + *bext[d] <= ca || *bext[d] == 0)) return false;
  }
  return true;
}

}  // namespace ptoc
