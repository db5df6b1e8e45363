// Entry points of the backend passes, one per file in compiler/passes/.
// compiler/pipeline.cpp runs them in order; tests call them one by one.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/diag.h"
#include "compiler/passes/leaf_plan.h"
#include "runtime/core/platform.h"

namespace ptoc {

// schedule.cpp: op order and pipe per op. With `interleave`, a list schedule
// over the pipes picks, among the ops whose inputs are ready, the one that can
// start first, so independent chains (breadth merges) overlap; otherwise the
// Subgraph's own order is kept (lowest buffer pressure).
void schedule_leaf(const TileRoot& root, const Subgraph& sg, const Platform& plat, bool interleave, LeafPlan& plan);

// buffer_plan.cpp: addresses in UB/L1/L0A/L0B/L0C, first fit with the
// platform's alignment, buffers reused once their last reader has issued, and
// elementwise results written in place over a source that dies at their op
// (buffer_liveness.h).
struct BufferOverflow {
  int step = -1;               // step position where allocation failed
  int tile = -1;               // the tile that did not fit
  MemKind mem = MemKind::UB;
  int64_t needed = 0;          // aligned bytes of that tile
  int64_t capacity = 0;        // the memory's size
  int64_t live = 0;            // bytes held by the tiles live at that point
  int live_tiles = 0;
  int64_t largest_free = 0;    // largest aligned hole left
  std::vector<BufferSlot> live_slots;  // the buffers of `mem` placed and live there (addresses set)
};
int64_t mem_capacity(const Platform& plat, MemKind m);
int64_t buffer_bytes(const LocalTile& t);  // before alignment; cube memories round to fractals
int64_t mem_alignment(const Platform& plat, MemKind m);
enum class PlacePolicy : uint8_t { Spread, FirstFit };
std::optional<BufferOverflow> plan_buffers(const TileRoot& root, const Platform& plat, LeafPlan& plan,
                                          PlacePolicy policy = PlacePolicy::Spread);
// plan_buffers under the placement policy: Spread, FirstFit, then the sequential order (buffer_plan.cpp).
std::optional<BufferOverflow> fit_leaf_buffers(const TileRoot& root, const Subgraph& sg, const Platform& plat,
                                               LeafPlan& plan, bool& sequential);
// The located "does not fit" error for `ov` (at the op's spec position, with
// every live buffer, the free bytes and the fix), once per op: a second
// overflow at an op already reported (another tile instance) adds nothing.
void report_overflow(const Program& prog, const TileRoot& root, const LeafPlan& plan, const BufferOverflow& ov,
                     const Platform& plat, DiagEngine& diags);

// insert_sync.cpp: set_flag/wait_flag for every cross-pipe hazard on buffer
// address ranges (RAW, WAR, WAW), pipe_barrier for same-pipe hazards on pipes
// that do not complete in order (V, M), events 0..7 per pipe pair.
void insert_sync(const TileRoot& root, LeafPlan& plan);

// kernel_args.cpp: GM slots and the int64 argument block (offsets, extents,
// tensor shapes, valid shapes) of one leaf.
void layout_kernel_args(const TileRoot& root, const std::vector<GmTensor>& tensors, LeafPlan& plan);
// What layout_kernel_args gives a leaf of the same structure as `rep`'s leaf (an unplanned copy of
// its class, leaf_classes.h) whose steps run `step_ops` and whose buffers hold `buffer_tiles`: the
// GM tensor per slot and the argument values; the positions are `rep`'s.
void kernel_arg_values(const TileRoot& root, const std::vector<GmTensor>& tensors, const LeafArgs& rep,
                       const std::vector<int>& step_ops, const std::vector<int>& buffer_tiles, std::vector<int>& gm,
                       std::vector<DimExpr>& values);

// leaf_cost.cpp: cycles of one tile op, and per pipe / end-to-end for a leaf
// (a list schedule over the pipes that honours the inserted syncs).
int64_t op_cycles(const TileRoot& root, const TileOp& op, const Platform& plat);
void estimate_leaf_cost(const TileRoot& root, const Platform& plat, LeafPlan& plan);

// leaf_dedup.cpp: canonical text and structural hash of each leaf, one
// Kernel per distinct hash, named `<spec name>_<hash hex 8>`. Leaves with the
// same `class_of` entry (equal LeafShaper keys, hence equal text) share the text of
// the first of them, which alone keeps it in LeafPlan::canonical.
std::string leaf_canonical_text(const TileRoot& root, const std::vector<GmTensor>& tensors, const LeafPlan& plan);
void dedup_leaves(const std::string& spec_name, const std::vector<TileRoot>& roots,
                  const std::vector<GmTensor>& tensors, std::vector<LeafPlan>& plans, CompiledProgram& out,
                  const std::vector<int>& class_of = {});

// task_graph.cpp: one RootFunction per TileRoot, one Task per subgraph (a lazy family root: its
// compact records, RootFunction::compact, instead of `tasks`; read them through root_tasks.h)
// (topological order, successors, predecessor counts, GM regions, args).
// A leaf left unplanned (lazy leaf copies, leaf_classes.h) is described by `lazy`: it returns the
// class representative's plan and fills the leaf's op per step and tile per buffer, or returns
// nullptr for a leaf whose plan is complete.
using LazyLeafFn = std::function<const LeafPlan*(int leaf, std::vector<int>& step_ops, std::vector<int>& buffer_tiles)>;
// A lazy leaf that is a family member's copy of a member-0 leaf (LeafClasses::moved): that leaf's plan
// index and the member, else {-1, 0}. With it a copied member's task is described without `lazy`
// filling its steps and buffers (task_replica.h, describe_moved).
using MovedLeafFn = std::function<std::pair<int, int>(int leaf)>;
void build_task_graphs(const Program& prog, const std::vector<TileRoot>& roots, const std::vector<LeafPlan>& plans,
                       CompiledProgram& out, const LazyLeafFn& lazy = {}, const MovedLeafFn& moved = {});
// The program's loop nest with LoopNode::root naming root functions (TileRoot order), not templates.
std::vector<LoopNode> control_nest(const Program& prog, const std::vector<TileRoot>& roots);

// gm_tensors.cpp: CompiledProgram::tensors: the spec's tensors, then every root's GM temps.
void collect_tensors(const Program& prog, const std::vector<TileRoot>& roots, CompiledProgram& out);

}  // namespace ptoc
