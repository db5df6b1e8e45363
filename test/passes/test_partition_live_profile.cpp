// partition's incremental peak count (compiler/passes/partition_live_profile.cpp) against peak_bytes
// (tile_graph.cpp), the count it replaces, on random tile graphs: groups merged at random, in place
// takeovers (same-size unary results), tiles shared by both groups of a merge, several memories.
#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <random>

#include "compiler/passes/partition_live_profile.h"

using namespace ptoc;
using ptoc::tiling::GroupLiveProfile;

namespace {

// n_ops ops; each writes a fresh tile (or, with `rewrite`, sometimes one written before) from one or
// two earlier tiles, mostly recent ones, so that ranges overlap as expansion's chains do.
TileRoot random_root(std::mt19937& rng, int n_ops, bool rewrite) {
  TileRoot r;
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto new_tile = [&](MemKind mem) {
    LocalTile t;
    t.id = int(r.tiles.size());
    t.mem = mem;
    t.dtype = DType::fp32;
    t.shape = {int64_t(8 * pick(1, 3))};
    r.tiles.push_back(t);
    return t.id;
  };
  for (int i = 0; i < 4; ++i) new_tile(MemKind::UB);
  for (int o = 0; o < n_ops; ++o) {
    TileOp op;
    op.id = o;
    op.kind = TileOpKind::Vec;
    const int nt = int(r.tiles.size());
    auto src = [&] { return pick(0, 5) == 0 ? pick(0, nt - 1) : pick(std::max(0, nt - 6), nt - 1); };
    op.srcs.push_back(src());
    if (pick(0, 2) == 0) {
      op.vop = OpKind::Add;
      op.srcs.push_back(src());
    } else {
      op.vop = OpKind::Exp;  // unary: in place when its source dies here and has its size
    }
    const int kind = pick(0, 9);
    if (kind == 0) {
      op.kind = TileOpKind::CopyOut;  // reads only
    } else if (rewrite && kind == 1) {
      op.dst = pick(0, nt - 1);
    } else {
      LocalTile like = r.tiles[size_t(op.srcs[0])];
      const MemKind mem = pick(0, 7) == 0 ? MemKind::L1 : MemKind::UB;
      op.dst = new_tile(mem);
      if (pick(0, 1) == 0) r.tiles[size_t(op.dst)].shape = like.shape;  // a candidate for in place
    }
    r.ops.push_back(op);
  }
  return r;
}

std::array<int64_t, 6> reference(const TileRoot& r, const std::vector<int>& ops, const std::array<int64_t, 6>& align) {
  auto p = peak_bytes(r, ops, align);
  p[0] = 0;  // GM is not counted
  return p;
}

// Random merges over `r`, each attempt's count checked, about half of them committed. Returns the checks made.
int merge_at_random(std::mt19937& rng, const TileRoot& r, bool expect_incremental) {
  std::array<int64_t, 6> align{};
  align.fill(32);
  align[0] = 1;
  const int n = int(r.ops.size());
  GroupLiveProfile prof(r, align, n);
  CHECK(prof.incremental() == expect_incremental);
  std::vector<std::vector<int>> members(static_cast<size_t>(n));
  std::vector<int> roots;
  for (int i = 0; i < n; ++i) {
    members[size_t(i)] = {i};
    roots.push_back(i);
  }
  int checks = 0;
  while (roots.size() > 1) {
    std::uniform_int_distribution<size_t> any(0, roots.size() - 1);
    size_t ia = any(rng), ic = any(rng);
    if (ia == ic) continue;
    const int a = roots[ia], c = roots[ic];
    std::vector<int> m;
    std::merge(members[size_t(a)].begin(), members[size_t(a)].end(), members[size_t(c)].begin(),
               members[size_t(c)].end(), std::back_inserter(m));
    const bool counted = rng() % 4 != 0;  // a merge the bounds decide joins without a count
    if (counted) {
      INFO("merge of " << members[size_t(a)].size() << " and " << members[size_t(c)].size() << " ops");
      REQUIRE(prof.merged_peak(a, members[size_t(a)], c, members[size_t(c)]) == reference(r, m, align));
      ++checks;
    }
    if (rng() % 2 == 0 && counted) continue;  // refused
    prof.prepare_join(a, members[size_t(a)], c, members[size_t(c)]);
    // Groups::unite's rule: the larger group's root stays.
    const int u = members[size_t(a)].size() < members[size_t(c)].size() ? c : a;
    const int gone = u == a ? c : a;
    prof.joined(u);
    members[size_t(u)] = m;
    members[size_t(gone)].clear();
    roots.erase(std::find(roots.begin(), roots.end(), gone));
    REQUIRE(prof.peak(u, members[size_t(u)]) == reference(r, members[size_t(u)], align));
    ++checks;
  }
  return checks;
}

}  // namespace

TEST_CASE("the incremental peak count equals peak_bytes over random merges", "[tiling][partition][peak]") {
  std::mt19937 rng(12345);
  int checks = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const TileRoot r = random_root(rng, 20 + trial * 4, false);
    checks += merge_at_random(rng, r, true);
  }
  CHECK(checks > 3000);
}

TEST_CASE("the incremental peak count takes in-place results over as peak_bytes does", "[tiling][partition][peak]") {
  // a = load; b = exp(a) written over a (a dies there); c = exp(b) over b; d = a chain elsewhere.
  TileRoot r;
  for (int i = 0; i < 5; ++i) {
    LocalTile t;
    t.id = i;
    t.shape = {64};
    r.tiles.push_back(t);
  }
  auto op = [&](int id, std::vector<int> srcs, int dst) {
    TileOp o;
    o.id = id;
    o.kind = TileOpKind::Vec;
    o.vop = srcs.size() == 1 ? OpKind::Exp : OpKind::Add;
    o.srcs = std::move(srcs);
    o.dst = dst;
    r.ops.push_back(o);
  };
  op(0, {4}, 0);     // a
  op(1, {0}, 1);     // b over a
  op(2, {1}, 2);     // c over b
  op(3, {4}, 3);     // d
  op(4, {0, 3}, 4);  // reads a again: in the union a no longer dies at op 1
  std::array<int64_t, 6> align{};
  align.fill(32);
  align[0] = 1;
  GroupLiveProfile prof(r, align, 5);
  REQUIRE(prof.incremental());
  const std::vector<int> chain = {0, 1, 2}, other = {3, 4};
  // Each result of the chain is written over its source: one 256-byte buffer at a time.
  CHECK(prof.peak(0, chain)[size_t(MemKind::UB)] == 256);
  CHECK(prof.peak(0, chain) == reference(r, chain, align));
  CHECK(prof.merged_peak(0, chain, 3, other) == reference(r, {0, 1, 2, 3, 4}, align));
  // With op 4 reading a, a lives to the end: b is no longer written over it.
  CHECK(prof.merged_peak(0, chain, 3, other)[size_t(MemKind::UB)] > 256);
}

TEST_CASE("a root with a rewritten in-place result counts with peak_bytes", "[tiling][partition][peak]") {
  std::mt19937 rng(777);
  int fallback = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const TileRoot r = random_root(rng, 40, true);
    std::array<int64_t, 6> align{};
    align.fill(32);
    align[0] = 1;
    const bool inc = GroupLiveProfile(r, align, int(r.ops.size())).incremental();
    fallback += !inc;
    merge_at_random(rng, r, inc);
  }
  CHECK(fallback > 0);
}
