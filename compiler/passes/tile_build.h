// Internal state shared by the tiling passes of one root template: how each
// tensor-graph value can be read (GM box, UB tiles, alias, constant), the GM
// homes of values, and the helpers that create tiles, ops and temps.
// Not part of the backend contract (that is tile_graph.h).
#pragma once
#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/diag.h"
#include "compiler/ir.h"
#include "compiler/passes/tile_families.h"
#include "compiler/passes/tile_graph.h"
#include "compiler/passes/tiling.h"
#include "runtime/core/platform.h"

namespace ptoc::tiling {

// A box in a value's coordinates: element offsets, static tile extents, valid extents.
struct Box {
  std::vector<DimExpr> off;
  std::vector<int64_t> ext;
  std::vector<DimExpr> valid;
};

// A value laid over a GM tensor: for each tensor axis its base offset and the
// value axis that moves it (-1: the value has no such axis; extent 1 there).
struct GmLoc {
  int tensor = -1;
  std::vector<DimExpr> base;
  std::vector<int> map;
  std::vector<DimExpr> view;  // reshaped view of the tensor (GmRef::view); empty: its own shape
};

struct ValueInfo {
  enum class Kind : uint8_t { None, Gm, Local, Alias, Full } kind = Kind::None;
  GmLoc gm;                                   // Gm: where it is; Local: its home once materialized
  std::vector<int64_t> tile;                  // Local: static tile shape of the grid
  std::map<std::vector<int64_t>, int> tiles;  // Local: tile offset -> LocalTile id
  std::set<std::vector<int64_t>> stored;      // Local: tiles already copied to the home
  int src = -1;                               // Alias: the value it windows; Full: the op
  GmLoc alias;                                // Alias: base/map relative to `src` (tensor unused)
  int64_t home_version = -1;                  // Local: write version of the home tensor after its last store
};

// Calls fn(offset, extent) for every tile of `tile` over `shape`, row-major.
template <class F>
void for_each_tile(const std::vector<int64_t>& shape, const std::vector<int64_t>& tile, F&& fn) {
  size_t r = shape.size();
  std::vector<int64_t> off(r, 0), ext(r);
  for (auto s : shape)
    if (s <= 0) return;
  while (true) {
    for (size_t d = 0; d < r; ++d) ext[d] = std::min(tile[d], shape[d] - off[d]);
    fn(off, ext);
    size_t d = r;
    while (d > 0) {
      --d;
      off[d] += tile[d];
      if (off[d] < shape[d]) break;
      off[d] = 0;
      if (d == 0) return;
    }
    if (r == 0) return;
  }
}

// DimExpr helpers.
std::optional<int64_t> const_of(const DimExpr& e);
// min(ext, rem) clipped at 0, folded when constant.
DimExpr clip_extent(int64_t ext, const DimExpr& rem);
DimExpr rename_symbol(const DimExpr& e, const std::string& from, const std::string& to);

struct SgGraph;
struct BlockCopies;  // block_replica.h

struct Builder {
  const Program& prog;
  const Platform& plat;
  DiagEngine& diags;
  TileRoot& root;
  TilingStats& stats;
  int magic = 0;              // RootTemplate::index
  int temp_base = 0;          // CompiledProgram tensor index of this root's first temp
  DimExpr::Env env;           // compile-time symbols of the root (unroll factor)
  std::array<int64_t, 6> cap{}, align{};
  std::vector<ValueInfo> vals;
  std::vector<int> home_assemble;  // value -> the Assemble op that gives it a GM home, -1 none
  // Origin of a registered UB tile: (value, offset) so a cut edge can reuse the value's home.
  std::map<int, std::pair<int, std::vector<int64_t>>> tile_origin;
  // GM box at a write version of its tensor -> UB tile already loaded for a reader. A load is
  // shared only by reads between the same two writes of its tensor.
  std::map<std::string, int> loaded;
  std::vector<int64_t> gm_version;   // tensor -> number of GM write ops emitted into it so far
  // Values held as GM boxes of each tensor (views of spec tensors), with the position in the root
  // of their last use: a write into the tensor first copies those still used (snapshot()).
  std::map<int, std::vector<int>> gm_values;
  std::unordered_map<int, int> last_use;  // value -> position in RootTemplate::ops of its last reader
  // The blocks of a root's first matmul, checked as they are emitted (tile_families.h).
  EmittedBlocks emitted_blocks;
  // Emit a matmul's later output blocks as copies of its first where they are alike
  // (block_replica.h); build_tile_roots sets it with the family path (off: every block built).
  bool copy_blocks = false;
  std::shared_ptr<BlockCopies> block_copies;  // what it copied, when the root starts with the matmul
  std::vector<int> tile_writer;    // tile -> first op writing it
  std::vector<double> tile_written_at;  // tile -> TileOp::seq of its last writer so far
  // Block copies whose tile_writer / tile_written_at entries are not written yet (block_replica.h):
  // each is its template's entries moved; written by settle_copied_writers, which every reader
  // and writer of the two arrays calls first (a family root of copies never needs them).
  struct PendingWriters {
    int tile_begin = 0, tile_end = 0;  // the template's tiles
    int tile_shift = 0, op_shift = 0;  // the copy's
    size_t tiles = 0;                  // the root's tile count after the copy
  };
  std::vector<PendingWriters> pending_writers;
  void settle_copied_writers();
  // Values whose home is a reshaped view of the tensor a reshape of them is
  // assembled into (the producer writes the final bytes, no round trip).
  std::set<int> reshape_home;
  int cur_op = -1;
  bool failed = false;
  // A tile family root (tile_families.h): the subgraph graph, known by rule and kept up to date by
  // the breadth merges, so that no pass scans the whole root for it. Null: built from the ops.
  std::shared_ptr<SgGraph> family_graph;
  std::optional<TileFamily> family;
  std::vector<int> family_sg_member, family_sg_local;  // subgraph -> its member, its subgraph of member 0
  std::vector<SharedOps> family_rep_ops;  // member 0's subgraph j -> its ops (member 0's local ids), shared by every member's OpList
  // Breadth merges of two unmerged family subgraphs that did not fit, by their pattern relative to
  // their members (try_absorb): every pair with that pattern fails alike, so it is tried once.
  std::set<std::vector<int64_t>> family_misfits;
  // The subgraphs' iso hashes are current: computed, and no merge since (refresh_iso_hashes).
  bool iso_fresh = false;
  // Subgraph -> its chains were merged only while no edge joined them (try_absorb), so no edge
  // joins two of its chains. A subgraph of one chain needs no entry.
  std::vector<char> chains_apart;

  // `size_values` false: the caller moves in `vals`/`home_assemble` sized to Program::values (reused
  // across roots by build_tile_roots, so a root does not pay for every value of the program).
  Builder(const Program& p, const Platform& pl, DiagEngine& d, TileRoot& r, TilingStats& s, bool size_values = true);

  // Creation helpers.
  int new_tile(MemKind m, DType t, std::vector<int64_t> shape, std::vector<DimExpr> valid, Format f = Format::ND);
  int emit(TileOp op);
  // emit()'s bookkeeping (GM write versions, tiles' writers) for ops [begin, end) already in place.
  void note_emitted(int begin, int end);
  int new_temp(DType t, const std::vector<int64_t>& shape, const std::string& what);
  DType tensor_dtype(int tensor) const;
  Format tensor_format(int tensor) const;
  DimExpr sub(const DimExpr& e) const { return e.substitute(env); }
  // Static shape of a value; reports an error at `op` when a dim stays symbolic.
  std::optional<std::vector<int64_t>> static_shape(int value, const Op& op);
  std::vector<DimExpr> valid_of(int value) const;
  void error(const Op& op, const std::string& msg, const std::string& hint = {});

  // Value access.
  GmRef gm_ref(const GmLoc& loc, const Box& b) const;
  GmLoc gm_of(int value);                     // materializes a UB value into its home
  int get_tile(int value, const Box& b);      // a UB tile holding box b of the value
  void store_tile(int value, const std::vector<int64_t>& off);
  GmLoc home_of(int value);
  int64_t version_of(int tensor) const {
    return tensor >= 0 && tensor < int(gm_version.size()) ? gm_version[size_t(tensor)] : 0;
  }
  // Copies a GM-box value into a temp of its own before its tensor is overwritten (issue 11 B2).
  void snapshot(int value, const Op& at);
  // Is GM-box value v already where assemble `op` would write it?
  bool assembled_in_place(int v, const Op& op) const;
  // Snapshots the values still read after position `pos` that view a tensor `op` writes.
  void snapshot_before_writes(const RootTemplate& rt, size_t pos, const Op& op);
  // Picks GM homes (assemble targets) only where no other access to the tensor lies between
  // the value's definition and the assemble (else the early store would be seen, or clobbered).
  void plan_assemble_homes(const RootTemplate& rt);
  Box value_box(int value, const std::vector<int64_t>& off, const std::vector<int64_t>& ext) const;

  // Expansion (tile_expand_vector.cpp / tile_expand_cube.cpp).
  void expand_root(const RootTemplate& rt);
  void expand_vector(const Op& op);
  void expand_reduction(const Op& op);
  void expand_assemble(const Op& op);
  void expand_reshape(const Op& op);
  void plan_reshape_homes(const RootTemplate& rt);
  void expand_matmul(const Op& op);
  std::optional<std::vector<int64_t>> vec_tile_for(const Op& op, size_t rank);
};

// Core type of a tile op.
CoreType op_core(const TileRoot& r, const TileOp& op);
// Dependency edges between live ops: local tile def->use and GM RAW/WAR/WAW in op order.
struct OpEdge {
  int from, to;
  bool local;
};
std::vector<OpEdge> op_edges(const TileRoot& r, const std::vector<char>& alive);
// Canonical execution order of a subgraph's ops: Kahn over their edges, ties
// by `key` (smaller first).
std::vector<int> order_ops(const TileRoot& r, const std::vector<int>& ops, const std::function<double(int)>& key);

// partition.cpp: supernodes, scopes, depth merge, cuts; fills root.subgraphs.
void partition(Builder& b);
// Located "does not fit" error for a group of ops.
bool check_fits(Builder& b, const std::vector<int>& ops, const std::string& context);

// Breadth merges (vec_nbuffer.cpp, l1_reuse.cpp, cube_nbuffer.cpp); helpers in breadth_merge.cpp.
void vec_nbuffer(Builder& b);
void l1_reuse(Builder& b);
void cube_nbuffer(Builder& b);
// subgraph_edges.cpp: structural hashes and hash orders; successor edges; renumbering.
void compute_iso_hashes(TileRoot& r);
// The same, given a class per subgraph (-1: none) whose members are known to hash alike (a tile
// family's copies of one subgraph of member 0): each class is hashed once, on its first subgraph.
void compute_iso_hashes_by_class(TileRoot& r, const std::vector<int>& cls);
// compute_iso_hashes unless nothing merged since the last time (b.iso_fresh).
void refresh_iso_hashes(Builder& b);
// `known`: the graph of r.subgraphs (ids before the empty ones are dropped), e.g. a family's;
// null: built from the ops.
// `hashes_fresh`: the iso hashes are current; kept when the renumbering changes nothing.
void finalize_subgraphs(TileRoot& r, const SgGraph* known = nullptr, bool hashes_fresh = false);
// GM box arithmetic of the hazard test: an offset as (symbolic part, constant), and the static
// upper bound of an extent (nullopt: unbounded).
std::pair<std::string, int64_t> gm_split(const DimExpr& e);
std::optional<int64_t> gm_extent_bound(const DimExpr& e);

// Subgraph-level graph used while breadth merging.
struct SgGraph {
  std::vector<std::set<int>> succ, pred;
  SgGraph() = default;
  explicit SgGraph(const TileRoot& r);
  bool reaches(int from, int to, int skip_direct_from = -1) const;  // path from -> to
  bool merge_creates_cycle(int a, int b) const;
  void merge(int into, int from);
};
// The graph of b.root's subgraphs for a breadth merge: the family's (shared, kept up to date), or
// one built into `local` on first use.
SgGraph& sg_graph(Builder& b, std::optional<SgGraph>& local);
// Absorb subgraph `from` into `into` (chains appended); `cube` orders chain-major.
void absorb_subgraph(TileRoot& r, int into, int from);
std::vector<int> merged_order(const TileRoot& r, const std::vector<int>& ops, bool chain_major);
bool fits(const Builder& b, const std::array<int64_t, 6>& peak);

}  // namespace ptoc::tiling
