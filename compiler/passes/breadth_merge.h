// Helpers shared by the breadth-merge passes (vec_nbuffer.cpp, l1_reuse.cpp, cube_nbuffer.cpp).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
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
// Whether try_absorb would absorb `from` into `into` (no cycle, the merged order fits); changes
// neither (a refusal is remembered as try_absorb's is). L1Reuse's class proof asks it of one pair
// per pattern instead of trying every pair.
bool absorb_fits(Builder& b, SgGraph& g, int into, int from, bool chain_major,
                 const std::vector<std::pair<int, int>>& tile_rewrite, const std::vector<int>& drop_ops);
// The live bytes of chains interleaved by (rank in chain, chain), grown one last chain at a time:
// a new last chain changes only the bytes at the ranks it has (at an earlier chain's op of rank k
// it sits between its ops k - 1 and k; at its own op of rank k every earlier chain sits between
// its ops k and k + 1), so adding a chain costs that chain's ops, not a recount of all.
struct InterleavedBytes {
  int chains = 0;
  std::vector<std::vector<int>> rows;           // rows[k]: each chain's op of rank k, chain order
  std::vector<std::array<int64_t, 6>> most;     // per rank: most bytes live at one of its ops
  std::vector<std::array<int64_t, 6>> gap_sum;  // per rank k: bytes all chains hold between ops k and k + 1
  std::array<int64_t, 6> peak{};                // = peak_bytes of the interleaved order
  std::vector<int> tile_chain;  // on-chip tile -> the chain touching it (-1: none)
  std::vector<int> marked;      // tiles set in tile_chain
  void clear();
};
// peak_bytes of `chains` interleaved by (rank, chain), counted a chain at a time as above; nullopt
// when the per-chain count does not apply (two chains share an on-chip tile, or a result taken
// over in place by two ops in a row). For tests against peak_bytes.
std::optional<std::array<int64_t, 6>> interleaved_peak(const TileRoot& r, const std::vector<std::vector<int>>& chains,
                                                       const std::array<int64_t, 6>& align);

// One anchor absorbing members one after another (VecNBuffer). While no edge joins any two of its
// chains and none shares an on-chip tile, the merged order is by (rank, chain) and the fit test
// reads InterleavedBytes: each absorb costs the member's ops, not a sort and a recount of the whole
// leaf (which made an anchor of 1 365 one-element subgraphs quadratic). Same decisions and same op
// order as the plain try_absorb. The anchor's `ops` are written back by flush(): when the run moves
// to another anchor, before a plain absorb, and at the end; until then they are stale, so nothing
// else may read them.
struct AbsorbRun {
  explicit AbsorbRun(Builder& b) : b(b) {}
  AbsorbRun(const AbsorbRun&) = delete;
  AbsorbRun& operator=(const AbsorbRun&) = delete;
  ~AbsorbRun() { flush(); }
  void flush();  // writes the merged order into the anchor's ops and forgets the anchor

  Builder& b;
  int into = -1;         // the anchor described (-1: none)
  bool usable = false;   // its ops are a (rank, chain) order of tile-disjoint chains
  bool changed = false;  // bytes.rows hold members not yet in its ops
  InterleavedBytes bytes;
};
// try_absorb for an anchor in `run` (chains interleaved by rank, VecNBuffer's order).
bool try_absorb(Builder& b, SgGraph& g, AbsorbRun& run, int into, int from);
// PyPTO's automatic VecNBuffer count: start at ceil(n/L), lower it while the
// merged groups would be fewer than L; 1 when n <= L.
int64_t auto_vec_count(int64_t n, int64_t lanes);

}  // namespace ptoc::tiling
