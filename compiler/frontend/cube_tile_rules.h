// The rules a cube_tile axis's extents obey ([L0, L1] or [L0, L1_A, L1_B]): the L0 tile a whole number of
// 16-element cube fractals, each L1 tile at least the L0 tile and a multiple of it. Shared by the reader
// (integer entries, checked where they are written) and the elaborator (entries that are dim expressions,
// checked per gear once evaluated: elaborate_cube_tile.cpp), so both say the same thing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ptoc::fe {

struct CubeAxisIssue {
  std::string message, hint;
};

// Every rule axis `axis` ("m", "k", "n") with extents `v` (v[0] the L0 tile) breaks, in order.
std::vector<CubeAxisIssue> cube_axis_issues(const std::string& axis, const std::vector<int64_t>& v);

}  // namespace ptoc::fe
