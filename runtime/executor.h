// The host-twin executor: runs the tasks of device tasks over a GM arena that
// holds the spec tensors (inputs converted from row-major host arrays, NZ
// where the tensor says so), outputs, workspaces and the temp pool slabs.
// Tasks run on a thread pool in an order their dependencies allow; because a
// task only starts after every task it depends on, and tasks that no edge
// orders write disjoint bytes, the results equal a serial run bit for bit.
// The one exception by design, tasks adding into the same GM box (split_k
// partial sums, atomic stores), is chained in task order by the executor
// alone, so any -j gives the bits of -j1 (the device and the machine model
// keep them unordered).
#pragma once
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "runtime/core/tensor_data.h"
#include "runtime/control_flow.h"
#include "runtime/gm_arena.h"
#include "runtime/host_twin.h"
#include "runtime/kernel_runner.h"

namespace ptoc::runtime {

class Executor {
 public:
  // `jobs`: worker threads (0: all cores, 1: serial on the calling thread).
  Executor(const CompiledProgram& p, const GmLayout& layout, const KernelRunner& twin, int jobs = 0);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Copies a host array into spec tensor `tensor` (shape and dtype must match its geometry).
  void load(int tensor, const TensorData& t);
  // Reads spec tensor `tensor` back as a row-major host array.
  TensorData read(int tensor) const;
  // Backs temp-pool slabs the control flow added since the last call (call after ControlFlow::next).
  void map_slabs(const std::vector<WorkspaceSlab>& slabs);

  // One kernel call. Thread-safe: the simulator may call it from several threads for tasks
  // its schedule allows to run at once.
  void execute_task(const TaskInstance& t) const;
  // Every task of one device task, in a dependency-respecting order, on the pool.
  void run(const DeviceTask& dt);
  // Walks `cf` to the end: next, map slabs, run, release. Returns the number of tasks run.
  uint64_t run_all(ControlFlow& cf);

  // Records the GM windows every kernel call of run() really moves (the twin's trace hook),
  // attributed to their tensors. False when the twin has no hook (built by an older ptoc).
  bool record_accesses(bool on);
  // Per task of the device task last run: what it read and wrote (GmAccess::tensor -1 when
  // the address is in no tensor of its root instance).
  const std::vector<std::vector<GmAccess>>& observed() const { return observed_; }

  const GmArena& arena() const { return arena_; }
  int jobs() const { return jobs_; }

 private:
  void worker_loop();
  void execute(const TaskInstance& t, std::vector<GmAccess>* record) const;
  void chain_accumulations(const DeviceTask& dt);
  void attribute(const DeviceTask& dt);

  const CompiledProgram& p_;
  const GmLayout& layout_;
  const KernelRunner& twin_;  // the compiled twin or the leaf-program executor
  GmArena arena_;
  size_t slabs_mapped_ = 0;
  int jobs_ = 1;

  // Pool state for run(): the device task being run and its remaining predecessor counts.
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_work_, cv_done_;
  const DeviceTask* cur_ = nullptr;
  std::vector<uint32_t> preds_;
  std::vector<uint32_t> ready_;
  size_t remaining_ = 0, inflight_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  // Executor-only edges of chain_accumulations (task -> later task), beside TaskInstance::succ.
  std::vector<std::vector<uint32_t>> chain_succ_;
  bool recording_ = false;
  std::vector<std::vector<GmAccess>> observed_;
  std::vector<std::pair<uint64_t, int>> tensor_at_;  // (base, tensor) of spec tensors, by base
};

}  // namespace ptoc::runtime
