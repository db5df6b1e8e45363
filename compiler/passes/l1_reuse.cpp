// L1Reuse: cube subgraphs that copy the same GM block into L1 merge into an
// earlier "anchor" subgraph holding that copy; the duplicate copies are
// removed and the merged chains read the anchor's L1 tile. Count from
// cube_l1_reuse_setting (on and automatic by default: class size / (2 * #AIC)),
// optionally restricted to left (L0A) or right (L0B) operands. A merge that
// would not fit L1/L0 (all chains' shared tiles stay resident) is refused.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

#include "compiler/passes/breadth_merge.h"
#include "compiler/passes/l1_reuse_class_proof.h"
#include "compiler/passes/l1_reuse_keys.h"
#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

namespace {
// Feature key -> a list of anchor subgraphs, open addressing over a power-of-two table: one probe
// per look-up and no division (std::unordered_map's prime-modulo buckets cost two divisions per
// look-up, most of this pass at 8x GEMM 6144, where every member looks up and registers its 48
// keys). An absent key and a key with an empty list mean the same. Lists never move (a deque), so
// a reference to one stays valid while other keys are added.
class AnchorTable {
 public:
  // The list of `k`, -1 when the key was never added.
  int find(const FeatureKey& k) const {
    if (slots_.empty()) return -1;
    for (size_t i = k.hash & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const int s = slots_[i];
      if (s < 0) return -1;
      if (keys_[size_t(s)] == k) return s;
    }
  }
  // The list of `k`, added empty when new.
  int add(const FeatureKey& k) {
    if (2 * (keys_.size() + 1) > slots_.size()) grow();
    size_t i = k.hash & (slots_.size() - 1);
    for (;; i = (i + 1) & (slots_.size() - 1)) {
      const int s = slots_[i];
      if (s < 0) break;
      if (keys_[size_t(s)] == k) return s;
    }
    slots_[i] = int(keys_.size());
    keys_.push_back(k);
    lists_.emplace_back();
    return slots_[i];
  }
  std::vector<int>& list(int id) { return lists_[size_t(id)]; }

 private:
  void grow() {
    std::vector<int> bigger(std::max<size_t>(64, 2 * slots_.size()), -1);
    for (size_t s = 0; s < keys_.size(); ++s) {
      size_t i = keys_[s].hash & (bigger.size() - 1);
      while (bigger[i] >= 0) i = (i + 1) & (bigger.size() - 1);
      bigger[i] = int(s);
    }
    slots_ = std::move(bigger);
  }
  std::vector<int> slots_;  // -1: empty, else an index into keys_ / lists_
  std::vector<FeatureKey> keys_;
  std::deque<std::vector<int>> lists_;
};

// An anchor's features after it absorbed a member: its own (`feats`, in the order of its ops) then
// the member's copies it kept (`kept`, in the member's order), which is the order of its copies in
// the merged ops when that is a subsequence of them: then `feats` becomes that list and true (the
// L1 copies are not rebuilt; their keys depend on the copy op alone). False, `feats` unchanged:
// the merge moved a copy before another, l1_features decides.
bool merged_features(const Subgraph& anchor, std::vector<Feature>& feats, const std::vector<Feature>& kept) {
  const size_t n = feats.size() + kept.size();
  auto op_at = [&](size_t i) { return i < feats.size() ? feats[i].op : kept[i - feats.size()].op; };
  size_t next = 0;
  for (int o : anchor.ops)
    if (next < n && o == op_at(next)) ++next;
  if (next != n) return false;
  feats.insert(feats.end(), kept.begin(), kept.end());
  return true;
}

}  // namespace

void l1_reuse(Builder& b) {
  TileRoot& r = b.root;
  refresh_iso_hashes(b);
  // Built at the first merge attempt (nothing has changed before it): most roots of a
  // many-root spec have classes too small for N > 1 and never need it.
  std::optional<SgGraph> g_local;
  SgGraph* g = nullptr;
  std::map<int, std::vector<int>> classes;
  for (auto& sg : r.subgraphs)
    if (sg.core == CoreType::AIC && !sg.ops.empty()) classes[sg.hash_order].push_back(sg.id);
  // Feature key -> the anchor subgraphs holding it that are still open, in the order they became
  // anchors. A closed anchor (full, or refused a merge) never opens again and leaves the lists as
  // they are walked: with every anchor tried for every later member, the walk was quadratic.
  AnchorTable anchors;  // looked up only, never walked
  ShapeIds shapes;
  const size_t nsg = r.subgraphs.size();
  std::vector<int64_t> limit(nsg, 0), count(nsg, 0);       // anchor -> its N, merged members
  std::vector<std::vector<Feature>> feats_of(nsg);         // anchor -> its L1 copies (refreshed on merge)
  // anchor -> (key hash, index in feats_of) sorted: the first copy with a key by a binary search,
  // not a scan of all of the anchor's copies per copy of the member (built when first asked).
  std::vector<std::vector<std::pair<size_t, int>>> by_hash_of(nsg);
  auto feats_by_hash = [&](int a) -> const std::vector<std::pair<size_t, int>>& {
    auto& v = by_hash_of[size_t(a)];
    if (v.size() != feats_of[size_t(a)].size()) v = sorted_key_hashes(feats_of[size_t(a)]);
    return v;
  };
  auto closed = [&](int a) { return r.subgraphs[a].ops.empty() || count[a] >= limit[a]; };
  int64_t merged = 0, removed = 0;
  int64_t skipped_classes = 0;            // classes where no member may absorb another (N <= 1)
  int64_t proved_classes = 0;             // classes proved once to merge nothing (l1_reuse_class_proof.h)
  int64_t rendered = 0, moved_keys = 0;  // feature keys built from their op's text, moved from member 0's
  // A tile family's unmerged copy of member 0's subgraph j has its L1 copies at the positions of
  // member 0's, on the tiles moved one to one, so with the same sides: the walk over its ops (all
  // of a GEMM's 388 k tile ops) is done once per j, and only the copies' keys are built per member.
  std::vector<std::optional<std::vector<std::pair<size_t, char>>>> family_copies;
  const BlockCopies* blocks = copied_blocks(b);
  std::vector<std::optional<std::vector<Feature>>> member0_features;  // per j, when blocks
  // Subgraph j's copy positions (read from `m`, its first copy asked), member 0's keys of j.
  auto copies_of = [&](int j, int m) -> const std::vector<std::pair<size_t, char>>& {
    if (family_copies.size() < b.family_rep_ops.size()) family_copies.resize(b.family_rep_ops.size());
    auto& copies = family_copies[size_t(j)];
    if (!copies) copies = l1_copies(r, r.subgraphs[size_t(m)]);
    return *copies;
  };
  auto member0_of = [&](int j, const std::vector<std::pair<size_t, char>>& copies) -> const std::vector<Feature>& {
    if (member0_features.size() < b.family_rep_ops.size()) member0_features.resize(b.family_rep_ops.size());
    auto& f0 = member0_features[size_t(j)];
    if (!f0) {
      Subgraph s0;  // member 0's copy of j as partitioned (member 0's ops are ids 0..P-1)
      s0.ops = *b.family_rep_ops[size_t(j)];
      f0 = l1_features(r, s0, copies, shapes, rendered);
    }
    return *f0;
  };
  auto features_of = [&](int m) {
    const Subgraph& s = r.subgraphs[size_t(m)];
    if (!b.family || s.chains != 1 || size_t(m) >= b.family_sg_local.size()) return l1_features(r, s, shapes, rendered);
    const int j = b.family_sg_local[size_t(m)];
    if (j < 0 || size_t(j) >= b.family_rep_ops.size() || b.family_rep_ops[size_t(j)]->size() != s.ops.size())
      return l1_features(r, s, shapes, rendered);
    const auto& copies = copies_of(j, m);
    // A copied block's keys are member 0's moved: its ops are not read.
    const int k = b.family_sg_member[size_t(m)];
    auto member0 = [&]() -> const std::vector<Feature>& { return member0_of(j, copies); };
    // Member 0's own subgraph j, unmerged: its keys are the ones its copies will be moved from.
    if (blocks && k == 0 && s.ops == *b.family_rep_ops[size_t(j)]) return member0();
    if (blocks && k > 0 && k < int(blocks->copied.size()) && blocks->copied[size_t(k)]) {
      const std::vector<Feature>& f0 = member0();
      if (auto moved = moved_features(r, *blocks, k, f0, s, copies)) {
        moved_keys += int64_t(moved->size());
        return std::move(*moved);
      }
    }
    return l1_features(r, s, copies, shapes, rendered);
  };
  // The setting per member (its label may pick another key), decided once per label; per class,
  // whether any member may absorb another.
  // Per class: the distinct settings in order of first use, and per member the index of its own
  // (a class of 9 216 members with one label holds one setting, not 9 216 copies).
  struct ClassSettings {
    std::vector<std::pair<MergeCount, int64_t>> distinct;
    std::vector<int> of_member;
    const std::pair<MergeCount, int64_t>& operator[](size_t i) const { return distinct[size_t(of_member[i])]; }
  };
  std::map<int, ClassSettings> settings;
  std::map<int, bool> may_merge;
  int merging_classes = 0;
  for (auto& [order, members] : classes) {
    ClassSettings& setting_of = settings[order];
    setting_of.of_member.resize(members.size());
    const std::string* last_label = nullptr;
    bool any_merge = false;
    for (size_t i = 0; i < members.size(); ++i) {
      const std::string& label = r.subgraphs[size_t(members[i])].label;
      if (last_label && *last_label == label) {
        setting_of.of_member[i] = setting_of.of_member[i - 1];
      } else {
        MergeCount mc = merge_count(b.prog.options.cube_l1_reuse_setting, true, b.magic, order, label);
        const int64_t N = mc.automatic
                              ? std::max<int64_t>(1, int64_t(members.size()) / (2 * std::max(1, b.plat.aic)))
                              : mc.count;
        setting_of.of_member[i] = int(setting_of.distinct.size());
        setting_of.distinct.push_back({std::move(mc), N});
      }
      last_label = &label;
      any_merge |= setting_of[i].second > 1;
    }
    may_merge[order] = any_merge;
    merging_classes += any_merge;
  }
  for (auto& [order, members] : classes) {
    int64_t before_merged = merged;
    int64_t N_shown = 1;
    const auto& setting_of = settings[order];
    // No member may absorb another: each would become an anchor that is full at once (count 1 of
    // N <= 1), and a full anchor is never tried, so the class changes nothing, later classes
    // included; its L1 copies need no keys.
    if (!may_merge[order]) {
      ++skipped_classes;
      continue;
    }
    // The only class whose members may merge (no other class's anchor is met, none of its
    // anchors is met by another class): proved once that none can, it changes nothing either.
    if (merging_classes == 1 && blocks && r.subgraphs[size_t(members[0])].chains == 1 &&
        size_t(members[0]) < b.family_sg_local.size()) {
      const int j = b.family_sg_local[size_t(members[0])];
      // The copy positions as features_of would read them (from the class's first member).
      if (j >= 0 && size_t(j) < b.family_rep_ops.size() &&
          b.family_rep_ops[size_t(j)]->size() == r.subgraphs[size_t(members[0])].ops.size()) {
        const auto& copies = copies_of(j, members[0]);
        auto graph = [&]() -> SgGraph& {
          if (!g) g = &sg_graph(b, g_local);
          return *g;
        };
        if (no_member_can_merge(b, *blocks, members, j, member0_of(j, copies), copies, graph, moved_keys)) {
          ++proved_classes;
          continue;
        }
      }
    }
    for (size_t mi = 0; mi < members.size(); ++mi) {
      const int m = members[mi];
      const MergeCount& mc = setting_of[mi].first;
      const int64_t N = setting_of[mi].second;
      N_shown = std::max(N_shown, N);
      auto feats = features_of(m);
      bool done = false;
      if (N > 1) {
        for (auto& f : feats) {
          if ((mc.side == "left" && f.side != 'L') || (mc.side == "right" && f.side != 'R')) continue;
          const int id = anchors.find(f.key);
          if (id < 0) continue;
          std::vector<int>& open = anchors.list(id);  // stays put when the merge below adds keys
          size_t kept = 0, i = 0;
          for (; i < open.size(); ++i) {
            const int a = open[i];
            if (closed(a)) continue;  // dropped from the list
            open[kept++] = a;
            if (a == m) continue;
            // Every copy of s that the anchor already holds is dropped.
            const auto& afeats = feats_of[a];
            const auto& by_hash = feats_by_hash(a);
            std::vector<std::pair<int, int>> rewrite;
            std::vector<int> drop;
            shared_copies(feats, afeats, by_hash, rewrite, drop);
            if (!g) g = &sg_graph(b, g_local);
            if (try_absorb(b, *g, a, m, true, rewrite, drop)) {
              ++count[a];
              ++merged;
              removed += int64_t(drop.size());
              // The anchor is open, so it is still in the list of each of its keys (only a closed
              // anchor leaves a list, and it never opens again): only the member's copies that were
              // not dropped bring keys, and none of them is the anchor's (an equal key is dropped).
              std::vector<Feature> kept;
              for (const Feature& sf : feats)
                if (std::find(drop.begin(), drop.end(), sf.op) == drop.end()) kept.push_back(sf);
              if (!merged_features(r.subgraphs[a], feats_of[a], kept))
                feats_of[a] = l1_features(r, r.subgraphs[a], shapes, rendered);
              by_hash_of[size_t(a)].clear();
              for (const Feature& nf : kept) {
                auto& list = anchors.list(anchors.add(nf.key));
                if (std::find(list.begin(), list.end(), a) == list.end()) list.push_back(a);
              }
              done = true;
              ++i;
              break;
            }
            // It did not fit (or would close a cycle): a bigger anchor will not fit
            // either, so close it rather than retry it for every later subgraph.
            limit[a] = count[a];
            --kept;
          }
          // The anchors not walked (after a merge) stay as they are.
          for (; i < open.size(); ++i) open[kept++] = open[i];
          open.resize(kept);
          if (done) break;
        }
      }
      if (!done) {
        for (auto& f : feats) anchors.list(anchors.add(f.key)).push_back(m);
        feats_of[m] = std::move(feats);
        limit[m] = N;
        count[m] = 1;
      }
    }
    if (merged == before_merged) continue;
    std::string info = "l1ReuseInfo hashOrder: func" + std::to_string(b.magic) + "_" + std::to_string(order) +
                       ", subGraphCount: " + std::to_string(members.size());
    for (int m : members)
      if (r.subgraphs[m].chains > 1) r.subgraphs[m].merge_info = info;
    r.merges_applied.push_back("l1_reuse: func" + std::to_string(b.magic) + "_" + std::to_string(order) + " " +
                               std::to_string(merged - before_merged) + " subgraphs absorbed (N=" +
                               std::to_string(N_shown) + ")");
  }
  r.merges_applied.push_back("l1_reuse: " + std::to_string(removed) + " duplicate L1 loads removed");
  b.stats.l1_reuse_merges += merged;
  b.stats.l1_loads_removed += removed;
  b.stats.l1_keys_rendered += rendered;
  b.stats.l1_keys_moved += moved_keys;
  b.stats.l1_classes_skipped += skipped_classes;
  b.stats.l1_classes_proved += proved_classes;
}

}  // namespace ptoc::tiling
