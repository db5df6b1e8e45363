// Tile families: a root whose expanded tile ops are B isomorphic copies of one
// block (a matmul's output tiles, an elementwise statement's tiles, the same
// structure per tile row) is partitioned and depth-merged on its first block
// only, and the resulting subgraphs are replicated for the other members. The
// breadth merges then run on the replicated subgraphs with their subgraph graph
// known by rule (no GM hazard scan over the whole root), and successor edges
// come from the same graph. The result is the TileRoot the explicit path gives,
// op for op and subgraph for subgraph (test/family checks bundles byte for byte).
//
// A root qualifies (find_tile_family) when, for some period P dividing its op
// count with B = ops / P >= 2 members:
// - op i + kP is op i of member 0 with every tile id moved by kT (T = tiles / B;
//   member 0's ops touch only tiles [0, T)), equal kind and attributes, equal
//   source op and chain, program position (seq) moved by exactly kP, the same GM
//   tensor, rank and view (offsets and valid extents may differ: tails);
//   tile k T + t has tile t's memory, dtype, static shape and layout;
// - no op reads a GM tensor the root writes (so the only GM hazards are between
//   writes), the writes of each member hazard each other as member 0's do, and
//   the write boxes of two members never overlap (each tensor's offsets have one
//   symbolic part per axis and constant-bounded extents);
// - no op is in a parallel_merge scope (it packs branches across members).
// Partition on member 0 must then make no cut, reload or temp (otherwise the
// root takes the explicit path): member k's groups are member 0's moved by kP.
#pragma once
#include <optional>
#include <string>

#include "compiler/ir.h"
#include "compiler/passes/tile_graph.h"

namespace ptoc::tiling {

struct Builder;

struct TileFamily {
  int members = 0;    // B
  int ops_per = 0;    // P: ops of one member
  int tiles_per = 0;  // T: tiles of one member
};

// The family of a freshly expanded root, or why it has none (`reason`).
struct FamilyCheck {
  std::optional<TileFamily> family;
  std::string reason;
};
FamilyCheck find_tile_family(const Program& prog, const TileRoot& r);

// Partition of a family root: member 0 partitioned alone, its subgraphs replicated, the
// statistics and merge lines those of the explicit partition. Also sets b.family_graph (the
// subgraph graph, replicated). False (root untouched): member 0 needed a cut or failed to
// fit; the caller runs the explicit partition.
bool partition_family(Builder& b, const TileFamily& f);

}  // namespace ptoc::tiling
