// VecNBuffer: isomorphic AIV subgraphs of one root, bucketed by the
// subgraphs they read from, merged N at a time into one leaf of N
// independent chains (the scheduler overlaps them: N-buffering).
// N from vec_nbuffer_setting (automatic by default: PyPTO's rule with
// L = number of AIV cores), lowered when the merged leaf would not fit UB.
#include <map>
#include <optional>

#include "compiler/passes/breadth_merge.h"

namespace ptoc::tiling {

void vec_nbuffer(Builder& b) {
  TileRoot& r = b.root;
  refresh_iso_hashes(b);
  std::map<int, std::vector<int>> classes;  // hash order -> members in id order
  for (auto& sg : r.subgraphs)
    if (sg.core == CoreType::AIV && !sg.ops.empty()) classes[sg.hash_order].push_back(sg.id);
  std::optional<SgGraph> g_local;
  SgGraph* g = nullptr;  // built only when there is something to merge
  int64_t merged = 0;
  for (auto& [order, members] : classes) {
    const Subgraph& first = r.subgraphs[members.front()];
    MergeCount mc = merge_count(b.prog.options.vec_nbuffer_setting, true, b.magic, order, first.label);
    int64_t N = mc.automatic ? auto_vec_count(int64_t(members.size()), b.plat.aiv) : mc.count;
    if (N <= 1 || members.size() < 2) continue;
    if (!g) g = &sg_graph(b, g_local);
    // Buckets: members sharing the same producer subgraphs.
    std::map<std::set<int>, std::vector<int>> buckets;
    for (int m : members) buckets[g->pred[m]].push_back(m);
    int64_t groups = 0;
    AbsorbRun run(b);  // each anchor's absorbs cost the member, not the whole leaf
    for (auto& [preds, list] : buckets) {
      int anchor = -1;
      int64_t in_anchor = 0;
      for (int m : list) {
        if (anchor >= 0 && in_anchor < N && try_absorb(b, *g, run, anchor, m)) {
          ++in_anchor;
          ++merged;
          continue;
        }
        anchor = m;
        in_anchor = 1;
        ++groups;
      }
      run.flush();
    }
    std::string info = "vecNBufferInfo hashOrder: func" + std::to_string(b.magic) + "_" + std::to_string(order) +
                       ", subGraphCount: " + std::to_string(members.size()) + ", nbuffer: " + std::to_string(N);
    for (int m : members)
      if (r.subgraphs[m].chains > 1) r.subgraphs[m].merge_info = info;
    r.merges_applied.push_back("vec_nbuffer: func" + std::to_string(b.magic) + "_" + std::to_string(order) + " " +
                               std::to_string(members.size()) + " subgraphs -> " + std::to_string(groups) +
                               " (N=" + std::to_string(N) + (mc.automatic ? ", auto" : "") + ")");
  }
  b.stats.vec_nbuffer_merges += merged;
}

}  // namespace ptoc::tiling
