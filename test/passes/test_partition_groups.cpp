// partition's cycle test (compiler/passes/partition_groups.cpp): the two-ended search inside the
// order window against the previous one-ended walk (indirect_path_scan, its oracle) and against
// plain reachability over the graph (no order at all), on random group graphs merged at random;
// and the order unite keeps, checked topological after every merge.
#include <catch2/catch.hpp>

#include <numeric>
#include <random>

#include "compiler/passes/partition_groups.h"

using ptoc::tiling::PartitionGroups;

namespace {

// n singleton groups; edges i -> j (i < j) with a few hubs (a broadcast tile's group: edges to most
// later groups) and mostly near neighbours, as expansion's chains make them.
PartitionGroups random_graph(std::mt19937& rng, int n, double density, int hubs) {
  PartitionGroups g;
  g.parent.resize(size_t(n));
  std::iota(g.parent.begin(), g.parent.end(), 0);
  g.clear_graph(n);
  for (int i = 0; i < n; ++i) g.members[size_t(i)] = {i};
  std::uniform_real_distribution<double> coin(0, 1);
  auto edge = [&](int a, int c) {
    g.succ[size_t(a)].insert(c);
    g.pred[size_t(c)].insert(a);
  };
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (coin(rng) < (j - i <= 3 ? 0.5 : density)) edge(i, j);
  for (int h = 0; h < hubs; ++h) {
    int a = std::uniform_int_distribution<int>(0, n / 4)(rng);
    for (int j = a + 1; j < n; ++j)
      if (coin(rng) < 0.8) edge(a, j);
  }
  return g;
}

// Any path from `from` to `to` of two or more edges, by a search that knows no order.
bool reachable_indirect(const PartitionGroups& g, int from, int to) {
  std::vector<char> seen(g.parent.size(), 0);
  std::vector<int> stack;
  for (int s : g.succ[size_t(from)])
    if (s != to) stack.push_back(s);
  while (!stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    if (x == to) return true;
    if (seen[size_t(x)]) continue;
    seen[size_t(x)] = 1;
    for (int s : g.succ[size_t(x)]) stack.push_back(s);
  }
  return false;
}

void check_order(const PartitionGroups& g) {
  for (size_t v = 0; v < g.parent.size(); ++v) {
    if (g.parent[v] != int(v)) continue;
    REQUIRE(g.ord[v] >= 0);
    REQUIRE(g.at[size_t(g.ord[v])] == int(v));
    for (int s : g.succ[v]) REQUIRE(g.ord[v] < g.ord[size_t(s)]);
  }
}

}  // namespace

TEST_CASE("partition groups: the two-ended cycle test agrees with the one-ended walk under random merges") {
  std::mt19937 rng(20261202);
  int merges = 0, paths = 0, checks = 0;
  for (int round = 0; round < 300; ++round) {
    const int n = std::uniform_int_distribution<int>(2, 60)(rng);
    const double density = std::uniform_real_distribution<double>(0.0, 0.3)(rng);
    PartitionGroups g = random_graph(rng, n, density, round % 3);
    g.order();
    REQUIRE(g.ordered);
    check_order(g);
    for (int step = 0; step < 4 * n; ++step) {
      int a, c;
      std::vector<int> roots;
      for (int i = 0; i < n; ++i)
        if (g.find(i) == i) roots.push_back(i);
      if (roots.size() < 2) break;
      // Half the candidates along an edge (depth merging), half any two groups (parallel_merge).
      a = roots[std::uniform_int_distribution<size_t>(0, roots.size() - 1)(rng)];
      if (step % 2 == 0 && !g.succ[size_t(a)].empty()) {
        auto it = g.succ[size_t(a)].begin();
        std::advance(it, std::uniform_int_distribution<size_t>(0, g.succ[size_t(a)].size() - 1)(rng));
        c = *it;
      } else {
        do c = roots[std::uniform_int_distribution<size_t>(0, roots.size() - 1)(rng)];
        while (c == a);
      }
      for (auto [x, y] : {std::pair{a, c}, std::pair{c, a}}) {
        const bool want = reachable_indirect(g, x, y);
        REQUIRE(g.indirect_path_scan(x, y) == want);
        REQUIRE(g.indirect_path(x, y) == want);
        paths += want;
        ++checks;
      }
      if (g.indirect_path(a, c) || g.indirect_path(c, a)) continue;
      const int kept = g.unite(a, c);
      REQUIRE((kept == a || kept == c));
      REQUIRE(g.find(a) == kept);
      REQUIRE(g.find(c) == kept);
      REQUIRE(std::is_sorted(g.members[size_t(kept)].begin(), g.members[size_t(kept)].end()));
      ++merges;
      check_order(g);
    }
    // Every op is in exactly one group's members.
    std::vector<int> all;
    for (int i = 0; i < n; ++i)
      if (g.find(i) == i) all.insert(all.end(), g.members[size_t(i)].begin(), g.members[size_t(i)].end());
    std::sort(all.begin(), all.end());
    std::vector<int> want(static_cast<size_t>(n));
    std::iota(want.begin(), want.end(), 0);
    REQUIRE(all == want);
  }
  // The random graphs exercise both answers and many merges.
  CHECK(paths > 500);
  CHECK(checks - paths > 500);
  CHECK(merges > 2000);
}

TEST_CASE("partition groups: without an order (a cycle) the test walks the whole graph") {
  PartitionGroups g;
  g.parent = {0, 1, 2, 3};
  g.clear_graph(4);
  for (int i = 0; i < 4; ++i) g.members[size_t(i)] = {i};
  auto edge = [&](int a, int c) {
    g.succ[size_t(a)].insert(c);
    g.pred[size_t(c)].insert(a);
  };
  edge(0, 1);
  edge(1, 2);
  edge(2, 0);  // 0 -> 1 -> 2 -> 0
  edge(2, 3);
  g.order();
  REQUIRE_FALSE(g.ordered);
  CHECK(g.indirect_path(0, 2));   // 0 -> 1 -> 2
  CHECK(g.indirect_path(1, 0));   // 1 -> 2 -> 0
  CHECK(g.indirect_path(0, 3));   // 0 -> 1 -> 2 -> 3
  CHECK_FALSE(g.indirect_path(3, 0));
  CHECK(g.indirect_path(0, 1) == g.indirect_path_scan(0, 1));  // 0 -> 1 -> 2 -> 0 -> 1: through the cycle
}

TEST_CASE("partition groups: a hub's merge with a unique-edge successor needs no walk and keeps the order") {
  // The broadcast tile of seed 9004328: one group feeding every chain, each chain a -> b.
  const int chains = 200, n = 1 + 2 * chains;
  PartitionGroups g;
  g.parent.resize(size_t(n));
  std::iota(g.parent.begin(), g.parent.end(), 0);
  g.clear_graph(n);
  for (int i = 0; i < n; ++i) g.members[size_t(i)] = {i};
  auto edge = [&](int a, int c) {
    g.succ[size_t(a)].insert(c);
    g.pred[size_t(c)].insert(a);
  };
  for (int k = 0; k < chains; ++k) {
    edge(0, 1 + 2 * k);
    edge(1 + 2 * k, 2 + 2 * k);
    if (k > 0) edge(2 * k, 2 + 2 * k);  // chains read the previous chain's end
  }
  g.order();
  REQUIRE(g.ordered);
  int hub = 0;
  for (int k = 0; k < chains; ++k) {
    const int c = g.find(1 + 2 * k);
    REQUIRE(g.indirect_path(hub, c) == reachable_indirect(g, hub, c));
    REQUIRE(g.indirect_path(c, hub) == reachable_indirect(g, c, hub));
    if (!g.indirect_path(hub, c) && !g.indirect_path(c, hub)) hub = g.unite(hub, c);
    check_order(g);
  }
  CHECK(g.members[size_t(hub)].size() > 1);
}
