// The Control AICPU's work, as a lazy generator: walk CompiledProgram::control
// for the bound dims (unroll gears chosen greedily: the largest factor that fits
// the remaining trip count, factor 1 always), instantiate root functions
// (args, regions and temps evaluated; GM addresses assigned), and stitch them
// into DeviceTasks of up to stitch_function_max_num roots, cut earlier when
// max_workspace_kb would be exceeded.
//
// Dependencies: inside a root instance, the compiler's successor lists. Between
// root instances of one device task, GM overlap of their accesses (RAW, WAR,
// WAW) found with interval maps keyed by address (n log n). Between device
// tasks, the same overlap at device-task granularity, reported in
// DeviceTask::waits_for, which names only device tasks not released yet (one
// that has finished needs no waiting for). Temps are private to their root instance and never
// create dependencies; input tensors nobody writes are not tracked.
//
// Memory: the generator holds the walk stack, the device task being built,
// workspace blocks and dependency state of device tasks not yet released.
// Call release(seq) when a device task has finished: its workspace is recycled
// and its dependency state dropped, so memory follows the tasks in flight.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/core/tensor_data.h"
#include "runtime/program/compiled_program.h"
#include "runtime/device_task.h"
#include "runtime/gm_arena.h"
#include "runtime/workspace_pool.h"

namespace ptoc::runtime {

struct ControlFlowError : std::runtime_error {
  using std::runtime_error::runtime_error;  // says which root, task, tensor, loop
};

struct ControlFlowOptions {
  int64_t stitch_function_max_num = 128;  // roots per device task (>= 1)
  int64_t max_workspace_kb = 0;           // 0: no cap
  bool check_bounds = false;              // runtime_debug_mode 4: every region inside its tensor
  bool check_divisible = false;           // runtime_debug_mode 4: divisible_by of each dim at loop entry
  // Test only (PTORUN_TEST_DROP_EDGES=1): ignore the compiler's task-graph edges inside root
  // functions, so a test proves runtime_debug_mode 3 finds the hazards those edges should order.
  bool drop_compiler_edges = false;
  // TaskInstance::args evaluated: only kernels read them (numerics, preflight, the NPU launcher); a
  // timing-only simulation leaves them empty, so a task in flight holds its GM slots, accesses and edges.
  bool resolve_args = true;
  // Tasks are built without TaskInstance::accesses (a timing-only walk): dependencies are still found from
  // them at build time, and task_accesses() rebuilds a task's accesses when the simulator runs it, so the
  // accesses in memory follow the tasks running, not the device task's (a GEMM is one device task).
  bool lazy_accesses = false;
  // Host-ready tensors: per spec tensor, the data of an int32 input the control flow reads run-time
  // values from (LoopNode::loads); null for the others. Not owned; must outlive the walk.
  std::vector<const TensorData*> host_values;
  static ControlFlowOptions from(const Options& o);
};

// Where every spec tensor lives: fixed bases from kGmBase, in CompiledProgram::tensors order;
// the temp workspace pool starts after them.
struct GmLayout {
  std::vector<uint64_t> base;              // per tensor; 0 for temps (per instance)
  std::vector<TensorGeometry> geometry;    // per tensor; temps: empty (shape depends on the instance)
  uint64_t pool_base = 0;
};
GmLayout layout_gm(const CompiledProgram& p, const DimExpr::Env& dims);


struct ControlFlowStats {
  uint64_t device_tasks = 0, root_instances = 0, tasks = 0, edges_cross_root = 0;
  uint64_t max_tasks_per_device_task = 0;
  uint64_t peak_workspace_bytes = 0;    // pool bytes held at once
};

// The spec tensors a program's control flow reads run-time values from (ascending, unique).
std::vector<int> host_value_tensors(const CompiledProgram& p);

class ControlFlow {
 public:
  // `dims` binds every dim (see bind_dims). Throws ControlFlowError on a malformed program.
  ControlFlow(const CompiledProgram& p, DimExpr::Env dims, ControlFlowOptions opts);
  ~ControlFlow();
  ControlFlow(const ControlFlow&) = delete;
  ControlFlow& operator=(const ControlFlow&) = delete;

  // Builds the next device task into `out` (reusing its storage); false when the walk is over.
  bool next(DeviceTask& out);
  // Device task `seq` has finished: recycle its workspace, forget its dependency state.
  void release(int seq);
  // With lazy_accesses: fills `out` with task `t` of device task `dt` (built by this walk, not released)'s
  // accesses, the same as an eager walk stores; returns false (and leaves `out`) when this walk keeps them.
  bool task_accesses(const DeviceTask& dt, uint32_t t, std::vector<GmAccess>& out);

  const GmLayout& layout() const;
  const std::vector<WorkspaceSlab>& slabs() const;  // grows; never moves or shrinks
  const ControlFlowStats& stats() const;
  const CompiledProgram& program() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ptoc::runtime
