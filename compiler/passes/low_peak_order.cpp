#include "compiler/passes/low_peak_order.h"

#include <algorithm>
#include <unordered_map>

#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

std::vector<int> low_peak_order(const Builder& b, const std::vector<int>& ops) {
  const TileRoot& r = b.root;
  std::vector<int> by_id = ops;
  std::sort(by_id.begin(), by_id.end());
  // Keys: just below the earliest consumer's key for an op with consumers in the group, else the op's
  // creation index; consumers first (descending ids), so a chain load -> mul -> sum -> store takes the
  // store's place.
  std::vector<double> key(r.ops.size(), 0);
  std::vector<char> in(r.ops.size(), 0), sunk(r.ops.size(), 0);
  for (int o : by_id) {
    in[size_t(o)] = 1;
    key[size_t(o)] = double(o);
  }
  // The first writer of each tile among `ops` (sparse: groups are small next to the root).
  std::unordered_map<int, int> writer;
  for (int o : by_id)
    if (r.ops[size_t(o)].dst >= 0) writer.emplace(r.ops[size_t(o)].dst, o);
  constexpr double kStep = 1.0 / 4096;  // below one creation index for chains up to 4096 ops long
  for (auto it = by_id.rbegin(); it != by_id.rend(); ++it) {
    const TileOp& op = r.ops[size_t(*it)];
    if (op.kind == TileOpKind::CopyOut) continue;  // a store follows its producer (below), never leads it
    for (int s : op.srcs) {
      auto wi = writer.find(s);
      if (wi == writer.end()) continue;
      const int w = wi->second;
      if (w == *it || !in[size_t(w)]) continue;
      const double k = key[size_t(*it)] - kStep;
      key[size_t(w)] = sunk[size_t(w)] ? std::min(key[size_t(w)], k) : k;
      sunk[size_t(w)] = 1;
    }
  }
  // A store runs right after its producer, so that the stored tile can die at its other last use.
  for (int o : by_id) {
    const TileOp& op = r.ops[size_t(o)];
    if (op.kind != TileOpKind::CopyOut || op.srcs.empty()) continue;
    auto wi = writer.find(op.srcs[0]);
    if (wi != writer.end() && in[size_t(wi->second)]) key[size_t(o)] = key[size_t(wi->second)] + kStep / 2;
  }
  return order_ops(r, by_id, [&](int o) { return key[size_t(o)]; });
}

bool fits_in_low_peak_order(const Builder& b, const std::vector<int>& ops, std::array<int64_t, 6>* peak,
                            std::vector<int>* order) {
  std::vector<int> o = low_peak_order(b, ops);
  const std::array<int64_t, 6> p = peak_bytes(b.root, o, b.align);
  if (peak) *peak = p;
  if (order) *order = std::move(o);
  return fits(b, p);
}

}  // namespace ptoc::tiling
