// OpList (compiler/passes/op_list.h): a described list reads as its base plus the shift, element by
// element, through iterators and in comparisons; the first mutation makes it its own without
// touching the shared base; explicit lists behave as vectors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "compiler/passes/op_list.h"

using ptoc::OpList;

TEST_CASE("op list: a described list reads as base plus shift", "[family]") {
  auto base = std::make_shared<const std::vector<int>>(std::vector<int>{3, 1, 4, 1, 5});
  const OpList l = OpList::shifted(base, 100);
  REQUIRE(l.described());
  REQUIRE(l.size() == 5);
  CHECK(l[0] == 103);
  CHECK(l.front() == 103);
  CHECK(l.back() == 105);
  std::vector<int> seen(l.begin(), l.end());
  CHECK(seen == std::vector<int>{103, 101, 104, 101, 105});
  CHECK(*std::max_element(l.begin(), l.end()) == 105);
  CHECK(std::accumulate(l.begin(), l.end(), 0) == 514);
  CHECK(l.end() - l.begin() == 5);
  CHECK(l == std::vector<int>{103, 101, 104, 101, 105});
  CHECK(l != std::vector<int>{3, 1, 4, 1, 5});
  CHECK(l == OpList(std::vector<int>{103, 101, 104, 101, 105}));
  CHECK(l.vec() == std::vector<int>{103, 101, 104, 101, 105});
}

TEST_CASE("op list: mutation copies on write and leaves the base alone", "[family]") {
  auto base = std::make_shared<const std::vector<int>>(std::vector<int>{0, 1, 2});
  OpList a = OpList::shifted(base, 10), b = OpList::shifted(base, 20);
  a.push_back(99);
  CHECK_FALSE(a.described());
  CHECK(a == std::vector<int>{10, 11, 12, 99});
  CHECK(b == std::vector<int>{20, 21, 22});
  CHECK(*base == std::vector<int>{0, 1, 2});
  b.mut()[1] = 7;
  CHECK(b == std::vector<int>{20, 7, 22});
  b.clear();
  CHECK(b.empty());
  CHECK_FALSE(b.described());
  OpList c = OpList::shifted(base, 0);
  c = std::vector<int>{5};
  CHECK_FALSE(c.described());
  CHECK(c.size() == 1);
  CHECK(c[0] == 5);
}

TEST_CASE("op list: an explicit list is a vector", "[family]") {
  OpList l{4, 2};
  CHECK_FALSE(l.described());
  l.push_back(8);
  CHECK(l.size() == 3);
  CHECK(std::vector<int>(l.begin(), l.end()) == std::vector<int>{4, 2, 8});
  CHECK(OpList().empty());
  CHECK(OpList() == std::vector<int>{});
}
