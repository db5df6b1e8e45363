// LazyArray (compiler/passes/lazy_array.h): described runs are built once, on the first read, into
// exactly the elements the Source says; stored and described runs interleave with their ids in
// order; peek reads an element without building its run; copies are deep.
#include <catch2/catch.hpp>

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "compiler/passes/lazy_array.h"

using ptoc::LazyArray;

namespace {

// Run r's element i is "r<r>:<first + i>"; counts the elements it built.
struct Counting final : LazyArray<std::string>::Source {
  mutable int built = 0;
  void build_one(int run, size_t first, size_t i, std::string& out) const override {
    ++built;
    out = "r" + std::to_string(run) + ":" + std::to_string(first + i);
  }
};

}  // namespace

TEST_CASE("lazy array: stored and described runs in order, built on first read", "[family]") {
  auto src = std::make_shared<Counting>();
  LazyArray<std::string> a;
  a.push_back("s0");
  a.push_back("s1");
  a.append_described(src, 0, 3);  // ids 2..4
  a.push_back("s5");
  a.append_described(src, 7, 2);  // ids 6..7
  a.append_described(src, 8, 0);  // nothing
  REQUIRE(a.size() == 8);
  CHECK(a.unbuilt() == 5);
  CHECK(src->built == 0);
  CHECK(a[5] == "s5");
  CHECK(src->built == 0);
  std::string scratch;
  CHECK(a.peek(3, scratch) == "r0:3");  // not built
  CHECK(a.unbuilt() == 5);
  CHECK(a[3] == "r0:3");  // builds run 0 whole
  CHECK(a.unbuilt() == 2);
  CHECK(src->built == 1 + 3);
  CHECK(a[2] == "r0:2");
  CHECK(a[4] == "r0:4");
  CHECK(src->built == 4);  // once
  a[4] = "changed";        // a built element is stored: writes stay
  CHECK(a.peek(4, scratch) == "changed");
  CHECK(a[4] == "changed");
  std::vector<std::string> all(a.begin(), a.end());
  CHECK(all == std::vector<std::string>{"s0", "s1", "r0:2", "r0:3", "changed", "s5", "r7:6", "r7:7"});
  CHECK(a.unbuilt() == 0);
  CHECK(a.back() == "r7:7");
  a.push_back("s8");  // after a described run: a new stored run
  CHECK(a.size() == 9);
  CHECK(a[8] == "s8");
  CHECK(a.back() == "s8");
}

TEST_CASE("lazy array: copies are deep, reserve and capacity follow the last stored run", "[family]") {
  auto src = std::make_shared<Counting>();
  LazyArray<std::string> a;
  a.reserve(4);
  CHECK(a.capacity() >= 4);
  a.push_back("x");
  a.append_described(src, 1, 2);
  CHECK(a.capacity() == a.size());  // the last run is described
  LazyArray<std::string> b = a;
  b[0] = "y";
  CHECK(a[0] == "x");
  CHECK(b[1] == "r1:1");
  CHECK(a.unbuilt() == 2);  // b's read built b's copy only
  CHECK(b.unbuilt() == 0);
  a = b;
  CHECK(a[0] == "y");
  CHECK(a.unbuilt() == 0);
  LazyArray<std::string> c = std::move(a);
  CHECK(c.size() == 3);
  CHECK(c[2] == "r1:2");
  c.clear();
  CHECK(c.empty());
  // Random access iteration, as the tiling passes' std algorithms use it.
  LazyArray<int> n;
  for (int i = 0; i < 10; ++i) n.push_back(9 - i);
  std::sort(n.begin(), n.end());
  CHECK(std::is_sorted(n.begin(), n.end()));
  CHECK(std::accumulate(n.begin(), n.end(), 0) == 45);
  CHECK(n.end() - n.begin() == 10);
}
