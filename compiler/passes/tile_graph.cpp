#include "compiler/passes/tile_graph.h"

#include "compiler/passes/buffer_liveness.h"

#include <algorithm>
#include <vector>

namespace ptoc {

std::string_view mem_kind_name(MemKind m) {
  static constexpr std::string_view names[] = {"GM", "UB", "L1", "L0A", "L0B", "L0C"};
  return names[int(m)];
}

int64_t LocalTile::bytes() const {
  int64_t n = dtype_size(dtype);
  for (auto d : shape) n *= d;
  return n;
}

std::array<int64_t, 6> peak_bytes(const TileRoot& root, const std::vector<int>& ops,
                                  const std::array<int64_t, 6>& align) {
  // First and last position touching each tile, then a sweep over positions.
  // Slots by tile id in a per-thread scratch array (this runs for every merge
  // attempt; a hash map per call was a visible cost), reset after use.
  struct Range { int first, last; };
  thread_local std::vector<std::pair<int, Range>> ranges;  // (tile, range) in first-touch order
  thread_local std::vector<std::array<int64_t, 6>> delta;
  thread_local std::vector<int> slot;
  ranges.clear();
  // Grown to the tiles touched, not the root's count (a family root's later members are never touched).
  auto touch = [&](int t, int pos) {
    if (t < 0) return;
    if (size_t(t) >= slot.size()) slot.resize(size_t(t) + 1, -1);
    int& s = slot[size_t(t)];
    if (s < 0) {
      s = int(ranges.size());
      ranges.push_back({t, {pos, pos}});
    } else {
      ranges[size_t(s)].second.last = pos;
    }
  };
  for (int i = 0; i < int(ops.size()); ++i) {
    const TileOp& op = root.ops[ops[i]];
    for (int s : op.srcs) touch(s, i);
    touch(op.dst, i);
  }
  // In place (buffer_liveness.h): a result written over a source that dies at
  // that op holds no bytes of its own there; it starts one position later.
  auto aligned = [&](const LocalTile& lt) {
    int64_t a = std::max<int64_t>(1, align[int(lt.mem)]);
    return (lt.bytes() + a - 1) / a * a;
  };
  for (int i = 0; i < int(ops.size()); ++i) {
    const TileOp& op = root.ops[ops[i]];
    const int c = op.dst >= 0 ? in_place_source(root, op) : -1;
    if (c < 0 || slot[size_t(c)] < 0) continue;
    Range& src = ranges[size_t(slot[size_t(c)])].second;
    Range& dst = ranges[size_t(slot[size_t(op.dst)])].second;
    if (src.last == i && dst.first == i && aligned(root.tiles[c]) == aligned(root.tiles[op.dst])) dst.first = i + 1;
  }
  for (auto& [t, r] : ranges) slot[size_t(t)] = -1;
  // delta[pos] per memory: +size at first, -size after last.
  std::array<int64_t, 6> peak{};
  delta.assign(ops.size() + 2, std::array<int64_t, 6>{});
  for (auto& [t, r] : ranges) {
    const LocalTile& lt = root.tiles[t];
    if (r.first > r.last) continue;  // taken over in place and never touched again
    int m = int(lt.mem);
    int64_t sz = aligned(lt);
    delta[r.first][m] += sz;
    delta[r.last + 1][m] -= sz;
  }
  std::array<int64_t, 6> cur{};
  for (size_t i = 0; i < ops.size(); ++i)
    for (int m = 0; m < 6; ++m) {
      cur[m] += delta[i][m];
      peak[m] = std::max(peak[m], cur[m]);
    }
  return peak;
}

}  // namespace ptoc
