// One bundle being run: what `ptorun` and the embedding C API (ptorun.h) share.
// Load a bundle, bind inputs and dims, run it on the simulated machine (or an
// NPU through ACL), read outputs, compare them with the reference evaluator.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/core/tensor_data.h"
#include "runtime/program/bundle.h"
#include "runtime/device_task.h"
#include "runtime/core/platform.h"
#include "runtime/sim/trace.h"

namespace ptoc::runtime {

// A mistake in how the bundle is driven (unknown tensor, bad value): exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The environment lacks something (NPU runtime, host twin loader): exit status 3.
struct EnvError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunConfig {
  std::string backend = "sim";  // sim | ascend | auto
  std::string platform;         // what-if platform for the simulator ("" = the bundle's target)
  bool numerics = true;         // false: timing only
  int rounds = 1;
  int jobs = 0;                 // host threads for numerics (0: all cores)
  std::string twin = "leaf";    // numerics by: "leaf" (the leaf programs) | "cce" (the compiled host twin)
  uint64_t seed = 0;            // fills inputs that were not set
  bool keep_task_records = false;  // needed by the profiling writers (at most the task_records limit per round)
  // Streaming instead (simulator): every task record with its round, in execEnd order, as it is
  // produced; none is kept in RunResult::trace (profiling/task_stream.h writes them out).
  std::function<void(int round, const sim::TaskRecord&, const DeviceTask&)> on_task_record;
  // With it (simulator): every device task of every round as the Control AICPU builds it, in build
  // (seqNo) order, before any of its records; so a stream knows a device task with no tasks.
  std::function<void(int round, const DeviceTask&)> on_device_task_built;
  // With it: every task as it starts on its simulated core, in start order (sim::TaskStartHook).
  std::function<void(int round, const DeviceTask&, uint32_t task_index)> on_task_start;
  // Progress of a long run, after each device task: round, tasks finished in it, simulated time.
  // The runtime only reports; `ptorun` prints a line from it (cli/run_progress.h).
  std::function<void(int round, uint64_t tasks_done, int64_t simulated_ps)> on_progress;
  // Sees every device task of the first round as the Control AICPU builds it (runtime_debug_mode 3).
  std::function<void(const DeviceTask&)> on_device_task;
  // Sees every device task of the first round after the host twin ran it, with the GM windows
  // each task's kernel really moved (runtime_debug_mode 3 with numerics). Setting it makes the
  // executor record them; a twin without the recorder (an older bundle) calls on_device_task instead.
  std::function<void(const DeviceTask&, const std::vector<std::vector<GmAccess>>& observed,
                     const std::vector<uint64_t>& tensor_base)>
      on_device_task_run;
};

struct RunResult {
  sim::Trace trace;
  const Platform* platform = nullptr;
  std::string backend;          // "sim" or "ascend" (what actually ran)
  uint64_t tasks = 0, device_tasks = 0, root_instances = 0;
  double host_seconds = 0;       // wall time of run()
  double host_cpu_seconds = 0;   // process CPU time of run() (all threads): the throughput line divides by it
};

class Session {
 public:
  explicit Session(const std::string& bundle_path);  // throws BundleError
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const LoadedBundle& bundle() const { return bundle_; }
  const CompiledProgram& program() const { return bundle_.program; }
  Options& options() { return options_; }

  // Spec tensor index of an input/output by name; throws UsageError listing the valid names.
  int input_index(const std::string& name) const;
  int output_index(const std::string& name) const;
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;

  void set_input(const std::string& name, TensorData t);   // in the tensor's dtype
  void set_dim(const std::string& name, int64_t value);
  // `--set runtime.KEY=VALUE` knobs that need no recompile (stitch, scheduling, workspace, debug mode).
  void apply_runtime_sets(const std::vector<std::string>& sets);

  const RunResult& run(const RunConfig& cfg);
  const RunResult& result() const;
  TensorData output(const std::string& name) const;        // after a run with numerics
  // What the run used and produced, for `--check` (cli/, through compiler/eval/run_check.h):
  // inputs by name (given or generated), the dim binding, and outputs by spec tensor index.
  const std::map<std::string, TensorData>& inputs() const;
  const DimExpr::Env& dims() const;
  const std::map<int, TensorData>& outputs() const;

  struct Impl;

 private:
  LoadedBundle bundle_;
  Options options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ptoc::runtime
