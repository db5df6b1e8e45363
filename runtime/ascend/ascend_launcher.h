// `ptorun --backend ascend`: runs a bundle's device kernels on a real NPU
// through the ACL runtime. The host drives the task graph: the same control
// flow walk and stitching as the machine model (runtime/control_flow.h), each
// device task's tasks launched in dependency order over a few streams, with
// events for cross-stream dependencies and for host-side timing of every task.
// Timings come back as a sim::Trace whose lanes are streams, marked as
// host-measured, so the same artifact writers apply.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "runtime/core/tensor_data.h"
#include "runtime/control_flow.h"
#include "runtime/sim/trace.h"

namespace ptoc::ascend {

struct AscendOptions {
  int device = 0;
  int streams = 4;
  int rounds = 1;
};

class AscendLauncher {
 public:
  // Loads ACL (throws AclUnavailable when the library, a device, or the bundle's device binaries
  // are missing), sets the device, loads every kernel's binary and allocates GM for the spec tensors.
  AscendLauncher(const CompiledProgram& program, const std::vector<uint8_t>& device_bin, const DimExpr::Env& dims,
                 const runtime::ControlFlowOptions& cf_options, const AscendOptions& options);
  ~AscendLauncher();
  AscendLauncher(const AscendLauncher&) = delete;
  AscendLauncher& operator=(const AscendLauncher&) = delete;

  void load(int tensor, const TensorData& t);   // host -> device, in the tensor's GM layout
  TensorData read(int tensor);                  // device -> host
  // Runs the operator `options.rounds` times; returns the host-measured timeline.
  sim::Trace run();
  uint64_t tasks_launched() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ptoc::ascend
