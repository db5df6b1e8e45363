// The run-time form of a compiled operator: device tasks built by the
// Control AICPU walk of the loop nest (runtime/control_flow.*), consumed by
// the host-twin executor and by the machine model. Everything here is
// concrete: dims and loop variables bound, GM addresses assigned.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/program/compiled_program.h"

namespace ptoc::runtime {

// A strided 2-D window of GM: `rows` runs of `row_bytes` bytes, `row_stride`
// bytes apart, starting at virtual GM address `addr`. An N-d box of a
// row-major tensor is one or more of these.
struct GmAccess {
  uint64_t addr = 0;
  uint64_t rows = 1;
  uint64_t row_bytes = 0;
  uint64_t row_stride = 0;
  int tensor = -1;        // CompiledProgram::tensors index
  bool write = false;
  bool atomic = false;    // a write that adds into GM (split_k partial sums): such writes commute
  uint64_t bytes() const { return rows * row_bytes; }
};

struct RootInstance {
  int root = -1;                       // CompiledProgram::roots index
  DimExpr::Env env;                    // dims + loop variables (+ unroll factor variable)
  std::vector<uint64_t> temp_base;     // GM address of each of the root's temps (RootFunction::temps order)
  uint64_t workspace_bytes = 0;
};

struct TaskInstance {
  uint32_t root_instance = 0;          // index in DeviceTask::roots
  uint32_t task = 0;                   // index in RootFunction::tasks
  int leaf = -1;                       // Task::leaf (the artifacts' leafIndex)
  int cls = -1;                        // leaf class: index into CompiledProgram::leaves (-1: `leaf` is it)
  int class_index() const { return cls >= 0 ? cls : leaf; }
  uint32_t task_id = 0;                // PyPTO's (funcId << 16 | opIdx), funcId = root instance number in the round
  std::vector<uint64_t> gm;            // GM base address per kernel slot (Task::gm resolved)
  std::vector<int64_t> args;           // Task::args evaluated
  std::vector<GmAccess> accesses;      // reads and writes
  std::vector<uint32_t> succ;          // indices in DeviceTask::tasks: intra-root and stitched edges
  uint32_t pred_count = 0;
};

// Up to stitch_function_max_num root instances with all dependencies between them resolved.
struct DeviceTask {
  int seq = 0;                         // device task number within the round (seqNo)
  std::vector<RootInstance> roots;
  std::vector<TaskInstance> tasks;
  uint64_t workspace_bytes = 0;
  // Dependencies on tasks of earlier device tasks are enforced by device-task
  // order: a device task starts after every earlier one it depends on finished
  // (`waits_for`: seqs of those earlier device tasks).
  std::vector<int> waits_for;
};

}  // namespace ptoc::runtime
