// CubeNBuffer: runs of N consecutive isomorphic AIC subgraphs merged into one
// leaf of N chains where L1Reuse finds no shared load (independent batch
// blocks, K too long to keep a row in L1). Off by default
// (cube_nbuffer_setting {DEFAULT: 1}); automatic N spreads the class over the
// AIC cores; lowered when the merged leaf would not fit.
#include <map>
#include <optional>

#include "compiler/passes/breadth_merge.h"

namespace ptoc::tiling {

void cube_nbuffer(Builder& b) {
  TileRoot& r = b.root;
  // Off unless the setting names a count (merge_count gives 1 for every class): then
  // nothing merges and nothing is reported, and finalize_subgraphs hashes again anyway.
  const MergeSetting& set = b.prog.options.cube_nbuffer_setting;
  if (!set.given || set.entries.empty()) return;
  refresh_iso_hashes(b);
  std::map<int, std::vector<int>> classes;
  for (auto& sg : r.subgraphs)
    if (sg.core == CoreType::AIC && !sg.ops.empty()) classes[sg.hash_order].push_back(sg.id);
  std::optional<SgGraph> g_local;
  SgGraph* g = nullptr;  // built only when there is something to merge
  int64_t merged = 0;
  for (auto& [order, members] : classes) {
    MergeCount mc =
        merge_count(b.prog.options.cube_nbuffer_setting, false, b.magic, order, r.subgraphs[members.front()].label);
    int64_t n = int64_t(members.size());
    int64_t N = mc.automatic ? std::max<int64_t>(1, n / std::max(1, b.plat.aic)) : mc.count;
    if (N <= 1 || n < 2) continue;
    if (!g) g = &sg_graph(b, g_local);
    int anchor = -1;
    int64_t in_anchor = 0, groups = 0;
    for (int m : members) {
      if (anchor >= 0 && in_anchor < N && try_absorb(b, *g, anchor, m, true)) {
        ++in_anchor;
        ++merged;
        continue;
      }
      anchor = m;
      in_anchor = 1;
      ++groups;
    }
    std::string info = "cubeNBufferInfo hashOrder: func" + std::to_string(b.magic) + "_" + std::to_string(order) +
                       ", subGraphCount: " + std::to_string(n) + ", nbuffer: " + std::to_string(N);
    for (int m : members)
      if (r.subgraphs[m].chains > 1 && r.subgraphs[m].merge_info.empty()) r.subgraphs[m].merge_info = info;
    r.merges_applied.push_back("cube_nbuffer: func" + std::to_string(b.magic) + "_" + std::to_string(order) + " " +
                               std::to_string(n) + " subgraphs -> " + std::to_string(groups) + " (N=" +
                               std::to_string(N) + ")");
  }
  b.stats.cube_nbuffer_merges += merged;
}

}  // namespace ptoc::tiling
