#include "compiler/frontend/cube_tile_rules.h"

namespace ptoc::fe {

std::vector<CubeAxisIssue> cube_axis_issues(const std::string& a, const std::vector<int64_t>& out) {
  std::vector<CubeAxisIssue> issues;
  if (out.empty()) return issues;
  const std::string l0 = std::to_string(out[0]);
  // Every axis is cut into 16-element fractals by the cube unit (16x16
  // blocks of 16-bit operands), m as much as k and n.
  if (out[0] % 16 != 0) {
    int64_t lo = out[0] / 16 * 16, hi = lo + 16;
    issues.push_back({"cube_tile " + a + ": the L0 tile " + l0 + " must be a multiple of 16 (one cube fractal)",
                      lo > 0 ? "use " + std::to_string(lo) + " or " + std::to_string(hi) : "use " + std::to_string(hi)});
  }
  for (size_t j = 1; j < out.size(); ++j) {
    const std::string which = j == 2 ? "the L1 tile of B " : "the L1 tile ";
    const std::string l1 = std::to_string(out[j]);
    if (out[j] < out[0]) {
      issues.push_back({"cube_tile " + a + ": the L0 tile " + l0 + " is larger than " + which + l1,
                        "L0 tiles are cut from the L1 tile: use L0 <= L1, e.g. [" + l0 + ", " + l0 + "]"});
    } else if (out[0] > 0 && out[j] % out[0] != 0) {
      int64_t lo = out[j] / out[0] * out[0];
      issues.push_back({"cube_tile " + a + ": " + which + l1 + " must be a multiple of the L0 tile " + l0,
                        "use " + std::to_string(lo) + " or " + std::to_string(lo + out[0])});
    }
  }
  return issues;
}

}  // namespace ptoc::fe
