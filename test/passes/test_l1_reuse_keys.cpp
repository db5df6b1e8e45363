// L1Reuse's keys (compiler/passes/l1_reuse_keys.h): equal keys, the sorted hashes and the shared copies.
#include "compiler/passes/l1_reuse_keys.h"

#include <catch2/catch.hpp>

using namespace ptoc::tiling;

static Feature feature(int shape, std::vector<int64_t> off, int op, int tile) {
  Feature f{};
  f.key.shape = shape;
  f.key.n = int(off.size());
  for (size_t i = 0; i < off.size(); ++i) f.key.off[i] = off[i];
  f.key.rehash();
  f.side = 'L';
  f.op = op;
  f.tile = tile;
  return f;
}

TEST_CASE("L1Reuse keys: equal iff shape and every offset are equal", "[tiling][l1]") {
  CHECK(feature(1, {0, 256}, 0, 0).key == feature(1, {0, 256}, 5, 7).key);
  CHECK(!(feature(1, {0, 256}, 0, 0).key == feature(2, {0, 256}, 0, 0).key));
  CHECK(!(feature(1, {0, 256}, 0, 0).key == feature(1, {128, 256}, 0, 0).key));
  CHECK(!(feature(1, {0}, 0, 0).key == feature(1, {0, 0}, 0, 0).key));
}

TEST_CASE("L1Reuse keys: each member copy maps to the anchor's first copy with its key", "[tiling][l1]") {
  // The anchor holds the key (1, {0, 0}) twice: the first (tile 10) is the one shared.
  std::vector<Feature> anchor = {feature(1, {0, 256}, 1, 11), feature(1, {0, 0}, 0, 10), feature(1, {0, 0}, 2, 12)};
  std::vector<Feature> member = {feature(1, {0, 0}, 20, 30), feature(1, {64, 0}, 21, 31), feature(1, {0, 256}, 22, 32)};
  auto by_hash = sorted_key_hashes(anchor);
  REQUIRE(by_hash.size() == 3);
  CHECK(std::is_sorted(by_hash.begin(), by_hash.end()));
  std::vector<std::pair<int, int>> rewrite;
  std::vector<int> drop;
  shared_copies(member, anchor, by_hash, rewrite, drop);
  CHECK(rewrite == std::vector<std::pair<int, int>>{{30, 10}, {32, 11}});
  CHECK(drop == std::vector<int>{20, 22});
}
