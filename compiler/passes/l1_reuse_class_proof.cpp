// L1Reuse's once-per-class "no member can merge" proof (l1_reuse_class_proof.h).
#include "compiler/passes/l1_reuse_class_proof.h"

#include <array>
#include <map>
#include <set>
#include <unordered_map>

#include "compiler/passes/breadth_merge.h"

namespace ptoc::tiling {

namespace {

constexpr int kOperands = 3;  // BlockOperand A, B, W

// One pair of class positions (earlier, later) whose deltas are equal exactly on the operands of
// `equal` (a bit mask within `used`), or {-1, -1} when no two members are so.
struct OffsetsHash {
  size_t operator()(const std::vector<int64_t>& v) const {
    uint64_t h = v.size();
    for (int64_t x : v) h = (h ^ uint64_t(x)) * 0x9E3779B97F4A7C15ull + (h >> 29);
    return size_t(h);
  }
};

std::pair<int, int> pair_equal_on(const std::vector<std::array<int, kOperands>>& id, unsigned equal, unsigned used) {
  std::vector<int> differ;  // operands whose deltas must differ
  for (int x = 0; x < kOperands; ++x)
    if ((used >> x & 1u) && !(equal >> x & 1u)) differ.push_back(x);
  if (differ.size() > 2) return {-1, -1};  // not reached: `equal` is not empty
  std::unordered_map<uint64_t, std::vector<int>> groups;  // same deltas on `equal`
  for (size_t p = 0; p < id.size(); ++p) {
    uint64_t key = 0;
    for (int x = 0; x < kOperands; ++x)
      if (equal >> x & 1u) key |= uint64_t(uint32_t(id[p][size_t(x)])) << (21 * x);
    groups[key].push_back(int(p));
  }
  std::pair<int, int> best{-1, -1};
  auto take = [&](int u, int v) {
    std::pair<int, int> pr{std::min(u, v), std::max(u, v)};
    if (best.first < 0 || pr < best) best = pr;
  };
  for (auto& [key, g] : groups) {
    if (g.size() < 2) continue;
    const int p = g[0];
    auto first_differing = [&](int x) {
      for (int q : g)
        if (id[size_t(q)][size_t(x)] != id[size_t(p)][size_t(x)]) return q;
      return -1;
    };
    if (differ.empty()) {
      take(g[0], g[1]);
    } else if (differ.size() == 1) {
      if (int q = first_differing(differ[0]); q >= 0) take(p, q);
    } else {
      // Two members differing on both exist iff each operand takes two values in the group.
      const int y = differ[0], z = differ[1];
      const int q = first_differing(y), s = first_differing(z);
      if (q < 0 || s < 0) continue;
      if (id[size_t(q)][size_t(z)] != id[size_t(p)][size_t(z)]) take(p, q);
      else if (id[size_t(s)][size_t(y)] != id[size_t(p)][size_t(y)]) take(p, s);
      else take(q, s);
    }
  }
  return best;
}

}  // namespace

bool no_member_can_merge(Builder& b, const BlockCopies& c, const std::vector<int>& members, int j,
                         const std::vector<Feature>& f0, const std::vector<std::pair<size_t, char>>& copies,
                         const std::function<SgGraph&()>& graph, int64_t& moved_keys) {
  const TileRoot& r = b.root;
  if (members.size() < 2 || f0.empty() || f0.size() != copies.size() || j < 0 ||
      size_t(j) >= b.family_rep_ops.size())
    return false;
  const std::vector<int>& rep = *b.family_rep_ops[size_t(j)];
  // Member 0's copies: each of one operand, its offsets numbers of that operand's rank.
  std::vector<int> operand(f0.size());
  std::array<int, kOperands> rank{-1, -1, -1};
  unsigned used = 0;
  for (size_t q = 0; q < f0.size(); ++q) {
    const BlockOperand x = size_t(f0[q].op) < c.operand.size() ? c.operand[size_t(f0[q].op)] : BlockOperand::None;
    if (x == BlockOperand::None) return false;
    const int xi = int(x);
    if (f0[q].key.n != int(r.ops[size_t(f0[q].op)].gm.offset.size())) return false;  // an offset in the text
    if (rank[size_t(xi)] >= 0 && rank[size_t(xi)] != f0[q].key.n) return false;
    rank[size_t(xi)] = f0[q].key.n;
    operand[q] = xi;
    used |= 1u << xi;
  }
  // Every member is member 0's subgraph j moved to its block, in increasing member order (so an
  // anchor is always the earlier member), as moved_features requires of it.
  std::vector<int> member(members.size());
  int last = -1;
  for (size_t p = 0; p < members.size(); ++p) {
    const int m = members[p];
    const Subgraph& s = r.subgraphs[size_t(m)];
    if (s.chains != 1 || size_t(m) >= b.family_sg_member.size() || b.family_sg_local[size_t(m)] != j) return false;
    const int k = b.family_sg_member[size_t(m)];
    if (k <= last || size_t(k) >= c.copied.size()) return false;
    last = member[p] = k;
    if (k == 0) {
      if (s.ops != rep) return false;
      continue;
    }
    if (!c.copied[size_t(k)] || s.ops.size() != rep.size()) return false;
    for (size_t q = 0; q < f0.size(); ++q)
      if (copies[q].first >= s.ops.size() || s.ops[copies[q].first] != f0[q].op + k * c.ops_per) return false;
    for (int x = 0; x < kOperands; ++x)
      if ((used >> x & 1u) && c.delta[size_t(k)][size_t(x)].size() != size_t(rank[size_t(x)])) return false;
  }
  // Nonzero differences of member 0's same-shape offsets, per operand; two operands never share a shape.
  using Offsets = std::vector<int64_t>;
  std::array<std::set<Offsets>, kOperands> diffs;
  for (size_t q = 0; q < f0.size(); ++q)
    for (size_t u = 0; u < f0.size(); ++u) {
      if (f0[q].key.shape != f0[u].key.shape) continue;
      if (operand[q] != operand[u]) return false;
      Offsets d(size_t(f0[q].key.n));
      bool zero = true;
      for (size_t e = 0; e < d.size(); ++e) zero &= (d[e] = f0[q].key.off[e] - f0[u].key.off[e]) == 0;
      if (!zero) diffs[size_t(operand[q])].insert(std::move(d));
    }
  // Each member's delta per operand as an id; no nonzero difference above is one of two deltas.
  auto delta_of = [&](int k, int x) { return k == 0 ? Offsets(size_t(rank[size_t(x)]), 0) : c.delta[size_t(k)][size_t(x)]; };
  std::vector<std::array<int, kOperands>> id(members.size(), {-1, -1, -1});
  for (int x = 0; x < kOperands; ++x) {
    if (!(used >> x & 1u)) continue;
    // Hashed, not ordered: an id is its delta's first member, whatever the container's order, and
    // the check below asks only whether a moved delta is there (a tree node per member was most of it).
    std::unordered_map<Offsets, int, OffsetsHash> ids;
    ids.reserve(members.size());
    for (size_t p = 0; p < members.size(); ++p)
      id[p][size_t(x)] = ids.emplace(delta_of(member[p], x), int(ids.size())).first->second;
    if (ids.size() >= (1u << 21)) return false;
    for (auto& [v, _] : ids)
      for (const Offsets& d : diffs[size_t(x)]) {
        Offsets w = v;
        for (size_t e = 0; e < w.size(); ++e) w[e] += d[e];
        if (ids.count(w)) return false;  // a pair may share part of an operand's keys
      }
  }
  // One pair per set of operands with equal deltas that occurs: every one must be refused.
  for (unsigned equal = 1; equal < (1u << kOperands); ++equal) {
    if ((equal & ~used) != 0) continue;
    auto [pa, pm] = pair_equal_on(id, equal, used);
    if (pa < 0) continue;
    auto features = [&](int p) -> std::optional<std::vector<Feature>> {
      if (member[size_t(p)] == 0) return f0;
      auto f = moved_features(r, c, member[size_t(p)], f0, r.subgraphs[size_t(members[size_t(p)])], copies);
      if (f) moved_keys += int64_t(f->size());
      return f;
    };
    auto fa = features(pa), fm = features(pm);
    if (!fa || !fm) return false;
    std::vector<std::pair<int, int>> rewrite;
    std::vector<int> drop;
    shared_copies(*fm, *fa, sorted_key_hashes(*fa), rewrite, drop);
    if (rewrite.empty()) return false;  // not reached: equal deltas share keys
    if (absorb_fits(b, graph(), members[size_t(pa)], members[size_t(pm)], true, rewrite, drop)) return false;
  }
  return true;
}

}  // namespace ptoc::tiling
