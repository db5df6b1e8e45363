// The tile graph of one root function: what tile expansion produces and
// partition/merging group into subgraphs (future leaf functions). Every
// subgraph touches GM only through CopyIn/CopyOut/FixOut ops, so a subgraph
// is self-contained and becomes one kernel; data between subgraphs goes
// through GM tensors (spec tensors or compiler temps).
//
// Producer: the tiling passes (expansion, partition, depth and breadth merge).
// Consumer: the backend passes (schedule, buffer plan, sync, cost, codegen).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "compiler/ir.h"
#include "compiler/passes/lazy_array.h"
#include "compiler/passes/op_list.h"

namespace ptoc {

enum class MemKind : uint8_t { GM, UB, L1, L0A, L0B, L0C };
std::string_view mem_kind_name(MemKind m);  // "GM", "UB", "L1", "L0A", "L0B", "L0C"

// A tile in an on-chip buffer. `shape` is static (the tile size, the buffer is
// sized for it); `valid` is what is really there (tails), as dim expressions.
struct LocalTile {
  int id = -1;
  MemKind mem = MemKind::UB;
  DType dtype = DType::fp32;
  std::vector<int64_t> shape;
  std::vector<DimExpr> valid;
  Format layout = Format::ND;      // NZ/fractal layouts in L1/L0 for cube operands
  int64_t bytes() const;           // shape product * dtype size (before alignment padding)
};

// A box of a GM tensor (CompiledProgram-level tensor index: spec tensors first, then temps).
struct GmRef {
  int tensor = -1;
  std::vector<DimExpr> offset;     // element offsets, over dims / loop vars / factor
  std::vector<DimExpr> extent;     // valid extent actually moved (<= the tile shape)
  // Reshaped view (general reshape of a row-major ND tensor): when non-empty,
  // `offset`/`extent` (and the GM strides) are in this shape, which has the
  // tensor's element count and addresses the same bytes row-major. Empty: the
  // tensor's own shape. Task regions are reported in the tensor's own shape.
  std::vector<DimExpr> view;
};

enum class TileOpKind : uint8_t {
  CopyIn,    // GM -> UB (vector) or GM -> L1 (cube), pipe MTE2; `gm` is the source
  CopyOut,   // UB -> GM, pipe MTE3; `gm` is the destination
  L1ToL0A,   // L1 -> L0A, pipe MTE1 (offset inside the L1 tile in `sub_offset`)
  L1ToL0B,   // L1 -> L0B, pipe MTE1
  Mmad,      // L0A x L0B -> L0C (accumulate when `accumulate`), pipe M
  FixOut,    // L0C -> GM with cast to the GM dtype, pipe FIX; `gm` is the destination
  Vec,       // a vector op on UB tiles (`vop` says which), pipe V
};

struct TileOp {
  int id = -1;
  TileOpKind kind = TileOpKind::Vec;
  OpKind vop = OpKind::Add;        // Vec: elementwise, reductions, Cast, Transpose, Full, Concat (copy into a slice)
  std::vector<int> srcs;           // LocalTile ids read
  int dst = -1;                    // LocalTile id written (-1 for CopyOut / FixOut)
  GmRef gm;                        // CopyIn / CopyOut / FixOut
  // attributes, by kind
  std::vector<int> axes;           // reductions {axis}; Transpose {d0, d1}
  std::optional<double> scalar;    // binary with a literal
  bool scalar_first = false;
  double fill = 0;                 // Full
  DType dtype = DType::fp32;       // Cast / FixOut target
  bool trans_a = false, trans_b = false;
  bool accumulate = false;         // Mmad: add into L0C (not the first k step)
  bool atomic_add = false;         // FixOut/CopyOut: accumulate into GM (split_k partial sums)
  std::vector<int64_t> sub_offset; // L1ToL0A/B: element offset inside the L1 tile; Concat: offset in dst
  int source_op = -1;              // tensor-graph op this came from (location, label, scope)
  int chain = 0;                   // independent chain inside a merged subgraph (breadth merge), 0-based
  // Program position of the op's GM access: GM hazards (RAW, WAR, WAW) are ordered by (seq, id),
  // not by id, because partition creates reloads and stores long after the ops they serve.
  // Expansion gives each op its id; a reload or a cut load sits just before its reader, a cut store
  // just after its producer.
  double seq = -1;
};
// Conventions of the tiling passes (tiling.h) that the backend relies on:
// - A LocalTile may differ in rank from the GmRef it is copied from/to only by
//   size-1 axes (squeezed views, batched matmul G axis); element order is the same.
// - Vector tiles have static shape min(vec_tile, full extent) per axis; `valid`
//   clips tails. Reductions: dst rank = the op's output rank (the reduced axis
//   kept as 1 with keepdim, dropped otherwise).
// - A tile may have several writers: accumulating Mmads into one L0C tile, and
//   Concat ops each copying one source into its part of dst (the first defines it).
// - Cube: an L1 tile has the GM box's stored orientation (A is [k, m] when
//   trans_a); L1ToL0A/B carry trans_a/trans_b and sub_offset in L1 coordinates;
//   L0A is [m, k], L0B [k, n], L0C [m, n] fp32. L1 `layout` = the GM tensor's
//   format (NZ: CopyIn reads fractal blocks).
// - split_k: FixOut with atomic_add into a region zero-filled by an AIV subgraph
//   (Vec Full 0 + CopyOut) that precedes it in Subgraph::succ.
// - A subgraph may read back a GM region it wrote itself (scope-forced merges
//   across misaligned tiles): CopyIn after the CopyOut of an overlapping region
//   in `ops` order needs an MTE3 -> MTE2 sync.

// A group of tile ops that will run as one leaf function on one core.
struct Subgraph {
  int id = -1;
  CoreType core = CoreType::AIV;
  OpList ops;                      // TileOp ids, a valid execution order (op_list.h)
  std::vector<int> succ;           // Subgraph ids that must run after this one (GM data or order)
  std::string label;               // semantic label of its ops ("" if none)
  int64_t scope = -1;
  int chains = 1;                  // independent chains merged by breadth merging
  std::string merge_info;          // for the swimlane hint, e.g. "l1ReuseInfo hashOrder: func8_0, subGraphCount: 24"
  uint64_t iso_hash = 0;           // structural hash (isomorphism class); hash_order follows first appearance
  int hash_order = 0;
};

namespace tiling { struct FamilyReplicas; }  // tile_families.h

struct TileRoot {
  int root = -1;                   // Program::roots index
  std::vector<GmTensor> temps;     // compiler GM temps of this root (appended to CompiledProgram::tensors)
  // Copied matmul blocks may be described instead of stored (lazy_array.h, block_replica.h): any
  // read builds them, so readers see the explicit path's ops and tiles.
  LazyArray<LocalTile> tiles;
  LazyArray<TileOp> ops;
  std::vector<Subgraph> subgraphs; // after partition and merging; the empty ones removed
  // Statistics for the compile report.
  int64_t tile_ops_before_merge = 0;
  std::vector<std::string> merges_applied;  // human-readable lines: "depth: 3 ops into sg 4", "vec_nbuffer: 4 x 8"
  // A tile family root whose subgraphs are all plain copies of member 0's (tile_families.h): which
  // copy each subgraph is, so the backend can derive a copy's results from member 0's. Null: none.
  std::shared_ptr<const tiling::FamilyReplicas> replicas;
  // Static shape per CompiledProgram tensor index (spec tensors, then this root's temps; empty:
  // not static or not known here): the GM hazard test compares boxes of two reshaped views of one
  // tensor by their row-major element ranges, which needs the shape of a view written as empty.
  std::vector<std::vector<int64_t>> gm_static_shapes;
};

// Bytes (index = MemKind) live at the worst point when `ops` run in the given
// order, each tile occupying its size rounded up to align[mem] from its first to
// its last touch. The tiling passes keep every Subgraph's own `ops` order within
// the platform buffers by this measure, so the backend can always fall back to it.
std::array<int64_t, 6> peak_bytes(const TileRoot& root, const std::vector<int>& ops,
                                  const std::array<int64_t, 6>& align);

}  // namespace ptoc
