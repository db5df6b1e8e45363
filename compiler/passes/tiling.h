// Entry points of the tiling half of the compiler: loop merging on the tensor
// graph, then per root template tile expansion, partition with depth merging,
// breadth merging and subgraph successor edges. The result (one TileRoot per
// Program::roots entry) is the input of the backend passes (backend.h).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/diag.h"
#include "compiler/ir.h"
#include "compiler/passes/tile_graph.h"
#include "runtime/core/platform.h"

namespace ptoc {

// Counters and timings for the compile report.
struct TilingStats {
  int roots = 0;
  int64_t tile_ops = 0;              // after expansion
  int64_t supernodes = 0;            // groups after the mandatory unions
  int64_t depth_merges = 0;          // producer->consumer merges (scope-forced ones included)
  int64_t scope_merges = 0;          // merges forced by scopes (subset of depth_merges)
  int64_t cut_edges = 0;             // local tile edges turned into GM round trips
  int64_t vec_nbuffer_merges = 0;    // subgraphs absorbed by VecNBuffer
  int64_t l1_reuse_merges = 0;       // subgraphs absorbed by L1Reuse
  int64_t l1_loads_removed = 0;      // duplicate GM->L1 copies removed by L1Reuse
  int64_t l1_keys_rendered = 0;      // L1Reuse feature keys built from an L1 copy's text
  int64_t l1_keys_moved = 0;         // L1Reuse feature keys of a copied block, member 0's moved
  int64_t l1_classes_skipped = 0;    // L1Reuse classes where no member may absorb another (N <= 1)
  int64_t l1_classes_proved = 0;     // L1Reuse classes proved once to merge nothing (l1_reuse_class_proof.h)
  int64_t cube_nbuffer_merges = 0;   // subgraphs absorbed by CubeNBuffer
  int64_t subgraphs = 0;             // leaves after all merges
  int64_t family_roots = 0;          // roots partitioned as a tile family (tile_families.h)
  int64_t copied_blocks = 0;         // matmul output blocks emitted as copies of the first (block_replica.h)
  double ms_expand = 0, ms_partition = 0, ms_breadth = 0, ms_edges = 0;     // wall
  double cpu_expand = 0, cpu_partition = 0, cpu_breadth = 0, cpu_edges = 0; // process CPU
};

// Adjacent independent dynamic loops with equal bounds (and equal unroll
// gears) become one loop whose body roots hold both bodies (`--no-loop-merge`
// skips this). Independent: no tensor written by one is touched by the other.
// Returns the number of merges done.
int merge_loops(Program& prog);

// Makes every root template self-contained (cross_root_values.cpp): a value
// bound in one root and used in another is recomputed there when it is only a
// window of a spec tensor or a constant, else stored by its producer into a
// program-level workspace tensor `xroot_<value>` that the consumers read.
// Run after merge_loops, before build_tile_roots. Returns the values stored.
int carry_cross_root_values(Program& prog);

struct TilingOptions {
  // Partition a root of B isomorphic members on one member and replicate it (tile_families.h);
  // false (ptoc --no-families): every root takes the explicit path. Same output either way.
  bool families = true;
};

// Tiles every root template of `prog`. Errors (buffer overflow of a forced
// tile set, unsupported shapes, split_k on a non-fp32 matmul) are reported to
// `diags` at the spec position and CompileError is thrown after the last one.
// Temps: GmRef::tensor of a temp is prog.tensors.size() + its position in the
// concatenation of TileRoot::temps in root order.
std::vector<TileRoot> build_tile_roots(const Program& prog, const Platform& plat, DiagEngine& diags,
                                       TilingStats* stats = nullptr, const TilingOptions& opts = {});

// The platform table's entry for `target` ("" = ascend910b1); throws std::invalid_argument for an
// unknown one (the front end has refused it before).
Platform tiling_platform(const std::string& target);

}  // namespace ptoc
