// Helpers shared by the breadth-merge passes (vec_nbuffer.cpp, l1_reuse.cpp, cube_nbuffer.cpp).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

struct MergeCount {
  bool automatic = false;
  int64_t count = 1;     // when not automatic
  std::string side;      // cube_l1_reuse_setting: "", "auto", "left", "right"
  std::string key;       // the key that applied ("" for the built-in default)
};
// The setting for one subgraph (root magic, hash order, label). `default_auto`:
// what an absent or empty map means (automatic, or off).
MergeCount merge_count(const MergeSetting& set, bool default_auto, int64_t magic, int64_t order,
                       const std::string& label);
// Absorbs `from` into `into` as extra chains (tiles of `from` renamed per
// tile_rewrite, drop_ops removed) when no cycle appears and the merged op
// order fits the buffers; otherwise changes nothing and returns false.
bool try_absorb(Builder& b, SgGraph& g, int into, int from, bool chain_major,
                const std::vector<std::pair<int, int>>& tile_rewrite = {}, const std::vector<int>& drop_ops = {});
// PyPTO's automatic VecNBuffer count: start at ceil(n/L), lower it while the
// merged groups would be fewer than L; 1 when n <= L.
int64_t auto_vec_count(int64_t n, int64_t lanes);

}  // namespace ptoc::tiling
