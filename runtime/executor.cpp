#include "runtime/executor.h"

#include <cstring>
#include <sstream>

namespace ptoc::runtime {

Executor::Executor(const CompiledProgram& p, const GmLayout& layout, const HostTwin& twin, int jobs)
    : p_(p), layout_(layout), twin_(twin) {
  for (size_t i = 0; i < p.tensors.size(); ++i)
    if (p.tensors[i].role != GmTensor::Role::Temp) arena_.map(layout.base[i], std::max<uint64_t>(layout.geometry[i].bytes, 1));
  jobs_ = jobs > 0 ? jobs : int(std::max(1u, std::thread::hardware_concurrency()));
  if (jobs_ > 1)
    for (int i = 0; i < jobs_; ++i) workers_.emplace_back([this] { worker_loop(); });
}

Executor::~Executor() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_work_.notify_all();
  for (auto& w : workers_) w.join();
}

void Executor::load(int tensor, const TensorData& t) {
  const TensorGeometry& g = layout_.geometry.at(size_t(tensor));
  if (t.dtype != g.dtype || t.shape != g.shape)
    throw GmError("tensor '" + p_.tensors[size_t(tensor)].name + "': the array does not match its bound shape and dtype");
  std::vector<uint8_t> bytes = to_gm_layout(g, t);
  if (!bytes.empty()) std::memcpy(arena_.host(layout_.base[size_t(tensor)]), bytes.data(), bytes.size());
}

TensorData Executor::read(int tensor) const {
  return from_gm_layout(layout_.geometry.at(size_t(tensor)), arena_.host(layout_.base[size_t(tensor)]));
}

void Executor::map_slabs(const std::vector<WorkspaceSlab>& slabs) {
  for (; slabs_mapped_ < slabs.size(); ++slabs_mapped_) arena_.map(slabs[slabs_mapped_].addr, slabs[slabs_mapped_].bytes);
}

void Executor::execute_task(const TaskInstance& t) const {
  const LeafFunction& leaf = p_.leaves.at(size_t(t.leaf));
  if (leaf.kernel < 0)
    throw GmError("leaf " + std::to_string(t.leaf) + " has no kernel: the bundle is inconsistent, recompile it");
  void* gm[32];
  std::vector<void*> big;
  void** slots = gm;
  if (t.gm.size() > 32) {
    big.resize(t.gm.size());
    slots = big.data();
  }
  for (size_t i = 0; i < t.gm.size(); ++i) slots[i] = arena_.host(t.gm[i]);
  PtoKernelArgs a{slots, t.args.data(), int64_t(t.args.size()), nullptr};
  twin_.kernel(leaf.kernel)(&a);
}

void Executor::run(const DeviceTask& dt) {
  if (workers_.empty()) {
    // Task order inside a device task is topological: intra-root edges and stitched edges
    // both point forward.
    for (auto& t : dt.tasks) execute_task(t);
    return;
  }
  std::unique_lock<std::mutex> l(mu_);
  cur_ = &dt;
  preds_.resize(dt.tasks.size());
  ready_.clear();
  for (size_t i = 0; i < dt.tasks.size(); ++i) {
    preds_[i] = dt.tasks[i].pred_count;
    if (preds_[i] == 0) ready_.push_back(uint32_t(i));
  }
  // Lowest index first: ready_ is used as a stack, so keep it in descending order.
  std::reverse(ready_.begin(), ready_.end());
  remaining_ = dt.tasks.size();
  error_ = nullptr;
  cv_work_.notify_all();
  // On error, wait for the tasks already running before the device task may go away.
  cv_done_.wait(l, [&] { return remaining_ == 0 || (error_ && inflight_ == 0); });
  if (error_) {
    cur_ = nullptr;
    auto e = error_;
    std::rethrow_exception(e);
  }
  cur_ = nullptr;
}

void Executor::worker_loop() {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    cv_work_.wait(l, [&] { return stop_ || (cur_ && !ready_.empty() && !error_); });
    if (stop_) return;
    uint32_t i = ready_.back();
    ready_.pop_back();
    ++inflight_;
    const DeviceTask* dt = cur_;
    l.unlock();
    std::exception_ptr err;
    try {
      execute_task(dt->tasks[i]);
    } catch (...) {
      err = std::current_exception();
    }
    l.lock();
    --inflight_;
    if (err && !error_) error_ = err;
    if (error_) {
      if (inflight_ == 0) cv_done_.notify_all();
      continue;
    }
    size_t woke = 0;
    for (uint32_t s : dt->tasks[i].succ)
      if (--preds_[s] == 0) {
        ready_.push_back(s);
        ++woke;
      }
    if (--remaining_ == 0) cv_done_.notify_all();
    if (woke > 1) cv_work_.notify_all();
    else if (woke == 1) cv_work_.notify_one();
  }
}

uint64_t Executor::run_all(ControlFlow& cf) {
  DeviceTask dt;
  uint64_t n = 0;
  while (cf.next(dt)) {
    map_slabs(cf.slabs());
    run(dt);
    n += dt.tasks.size();
    cf.release(dt.seq);
  }
  return n;
}

}  // namespace ptoc::runtime
