// The backend's view of one leaf (one Subgraph of a TileRoot) as the backend
// passes refine it: schedule (op order and pipes) -> buffer plan (addresses)
// -> sync (set/wait flags, barriers) -> kernel argument layout -> cost ->
// structural hash (dedup) -> CCE text. Each pass fills its own fields.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "compiler/passes/tile_graph.h"

namespace ptoc {

inline constexpr int kNumMemKinds = 6;  // MemKind values, GM included
inline constexpr int kNumEventIds = 8;  // EVENT_ID0..7 per (src pipe, dst pipe) pair

// One synchronisation instruction, emitted before or after a step.
struct SyncInstr {
  enum class Kind : uint8_t { SetFlag, WaitFlag, Barrier, BarrierAll };
  Kind kind = Kind::SetFlag;
  PipeId src = PipeId::S;  // SetFlag/WaitFlag: producer pipe; Barrier: the pipe
  PipeId dst = PipeId::S;  // SetFlag/WaitFlag: consumer pipe
  int event = 0;           // EVENT_ID
  bool operator==(const SyncInstr&) const = default;
};

// One tile op in schedule order.
struct LeafStep {
  int op = -1;             // TileOp id in the TileRoot
  PipeId pipe = PipeId::V;
  std::vector<SyncInstr> before, after;
};

// The planned on-chip buffer of one LocalTile.
struct BufferSlot {
  int tile = -1;
  MemKind mem = MemKind::UB;
  int64_t addr = 0, size = 0;  // size: tile bytes rounded up to the memory's alignment
  int first = 0, last = 0;     // step positions of the first and last touch (live range)
};

// Where each dynamic quantity lives in PtoKernelArgs::args. Values are dim
// expressions over dims and loop variables, evaluated per task instance; the
// kernel text only names argument indices, so isomorphic leaves share a kernel.
struct LeafArgs {
  std::vector<int> gm_tensors;        // GM slot -> CompiledProgram tensor index
  std::vector<DimExpr> values;        // argument i's expression
  // Indexed by step position (-1 when the step has no GM access):
  std::vector<int> step_gm_slot, step_offset_arg, step_extent_arg;
  // Per GM slot: first argument of the tensor's shape (rank arguments).
  std::vector<int> slot_shape_arg;
  // Per GM slot: the reshaped view it is addressed in (GmRef::view; empty: the
  // tensor's own shape). A tensor read under two views takes two slots.
  std::vector<std::vector<DimExpr>> slot_view;
  // Per buffer (same order as LeafPlan::buffers): first argument of its valid shape.
  std::vector<int> buffer_valid_arg;
};

struct LeafPlan {
  int root = -1;                      // index into the TileRoot vector
  int subgraph = -1;                  // Subgraph::id
  int leaf = -1;                      // leaf index (Task::leaf): its position among all plans
  int leaf_class = -1;                // LeafFunction (class) index in the CompiledProgram
  CoreType core = CoreType::AIV;
  std::vector<LeafStep> steps;
  bool interleaved = true;            // false: the sequential fallback order was needed to fit
  std::vector<BufferSlot> buffers;    // sorted by tile id
  std::array<int64_t, kNumMemKinds> peak{};  // highest address in use per MemKind (bytes)
  LeafArgs args;
  std::array<int64_t, kNumPipes> pipe_cycles{};
  std::vector<int64_t> step_start, step_end;  // list-schedule estimate per step (cycles)
  int64_t est_cycles = 0;
  std::string canonical;              // canonical text hashed for dedup (no offsets, no names); empty on
                                      // leaves that share the text of an earlier leaf of their class
  uint64_t hash = 0;
  int kernel = -1;

  const BufferSlot* buffer(int tile) const;   // nullptr if the tile has no buffer here
  int buffer_index(int tile) const;           // -1 if none
};

// The structural class of a leaf (LeafShaper, leaf_plan.cpp): everything schedule,
// buffer_plan, insert_sync, leaf_cost and the kernel text read from a
// subgraph, with its tiles and GM tensors renamed by first use. Two leaves
// with equal keys get the same plan up to that renaming (step i runs the op
// at the same position in Subgraph::ops; buffer b holds the tile with the same
// local index), so the pipeline plans one leaf per class and copies the plan
// to the others (a GEMM's 1152 leaves are a handful of classes).
// The key of one leaf is computed into reused buffers (no allocation per leaf
// once they have grown). The key of a family member's copy of a leaf is not
// computed (leaf_classes.cpp): of what differs between members it reads only
// GM extents and tile valid extents, which TileFamily::alike compares
// (tile_families.cpp); a new per-member input to the key must be added there.
struct LeafShaper {
  std::vector<int64_t> key;   // of the last shape() call; compared for equality (the hash only buckets)
  std::vector<int> tiles;     // of the last shape() call: local index -> tile id, in first-use order
  std::vector<int> tile_local, tensor_local;  // scratch maps, grown to the largest id seen
  // Fills `key` and `tiles` for `sg`; returns the key's hash.
  uint64_t shape(const TileRoot& root, const Subgraph& sg, const std::vector<GmTensor>& tensors);

 private:
  std::vector<int> by_id_;
};

// Index helpers over a TileRoot (ids are checked to equal their positions).
const TileOp& tile_op(const TileRoot& r, int id);
const LocalTile& local_tile(const TileRoot& r, int id);
// Tiles an op reads and the tile it writes, with the implicit ones made
// explicit (an accumulating Mmad reads its L0C destination).
std::vector<int> op_reads(const TileOp& op);
int op_write(const TileOp& op);
PipeId op_pipe(const TileOp& op);

}  // namespace ptoc
