#include "runtime/executor.h"

#include "runtime/gm_access_guard.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <sstream>
#include <tuple>

namespace ptoc::runtime {

Executor::Executor(const CompiledProgram& p, const GmLayout& layout, const KernelRunner& twin, int jobs)
    : p_(p), layout_(layout), twin_(twin) {
  for (size_t i = 0; i < p.tensors.size(); ++i)
    if (p.tensors[i].role != GmTensor::Role::Temp) arena_.map(layout.base[i], std::max<uint64_t>(layout.geometry[i].bytes, 1));
  for (size_t i = 0; i < p.tensors.size(); ++i)
    if (p.tensors[i].role != GmTensor::Role::Temp) tensor_at_.emplace_back(layout.base[i], int(i));
  std::sort(tensor_at_.begin(), tensor_at_.end());
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

namespace {
struct Recording {
  GmGuardContext guard;
  const GmArena* arena;
  std::vector<GmAccess>* out;
};
void record_access(void* ctx, const void* addr, int64_t rows, int64_t row_bytes, int64_t row_stride, int kind) {
  auto* r = static_cast<Recording*>(ctx);
  check_gm_window(r->guard, addr, rows, row_bytes, row_stride, kind);
  GmAccess a;
  a.addr = r->arena->virtual_of(addr);
  a.rows = uint64_t(rows);
  a.row_bytes = uint64_t(row_bytes);
  a.row_stride = rows > 1 ? uint64_t(row_stride) : uint64_t(row_bytes);
  a.write = kind != 0;
  a.atomic = kind == 2;
  r->out->push_back(a);
}
}  // namespace

bool Executor::record_accesses(bool on) {
  recording_ = on && twin_.can_trace_gm();
  return recording_ || !on;
}

void Executor::execute_task(const TaskInstance& t) const { execute(t, nullptr); }

void Executor::execute(const TaskInstance& t, std::vector<GmAccess>* record) const {
  const LeafFunction& leaf = p_.leaves.at(size_t(t.class_index()));
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
  // Every GM window the call moves is checked against the arena first (gm_access_guard.h).
  const GmGuardContext guard{&arena_, &p_.kernels.at(size_t(leaf.kernel)).name, t.root_instance, t.task};
  Recording rec{guard, &arena_, record};
  if (record) twin_.set_gm_trace(&record_access, &rec);
  else twin_.set_gm_trace(&gm_guard_trace, const_cast<GmGuardContext*>(&guard));
  try {
    twin_.run(leaf.kernel, &a);
  } catch (...) {
    twin_.set_gm_trace(nullptr, nullptr);
    throw;
  }
  twin_.set_gm_trace(nullptr, nullptr);
}

// Tasks that add into a GM box (split_k partial sums: the task reads and writes the same box) are
// left unordered by the task graph; added in finishing order, the sum's bits would follow thread
// timing. Chain the tasks adding into one box in task order, the order of a serial run. The edges
// point forward, so they add no cycle; ordered pairs get a redundant edge, which costs nothing.
void Executor::chain_accumulations(const DeviceTask& dt) {
  const size_t n = dt.tasks.size();
  if (chain_succ_.size() < n) chain_succ_.resize(n);
  for (size_t i = 0; i < n; ++i) chain_succ_[i].clear();
  std::map<std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>, uint32_t> last;  // box -> last task adding into it
  for (uint32_t i = 0; i < n; ++i) {
    const auto& acc = dt.tasks[i].accesses;
    for (const GmAccess& w : acc) {
      if (!w.write) continue;
      bool adds = false;
      for (const GmAccess& r : acc)
        adds = adds || (!r.write && r.addr == w.addr && r.rows == w.rows && r.row_bytes == w.row_bytes &&
                        r.row_stride == w.row_stride);
      if (!adds) continue;
      auto [it, fresh] = last.try_emplace({w.addr, w.rows, w.row_bytes, w.row_stride}, i);
      if (!fresh && it->second != i) {
        chain_succ_[it->second].push_back(i);
        ++preds_[i];
        it->second = i;
      }
    }
  }
}

namespace {
bool declares_read(const TaskInstance& t, int tensor) {
  for (const GmAccess& d : t.accesses)
    if (!d.write && d.tensor == tensor) return true;
  return false;
}
}  // namespace

// Names the tensor of each observed access: a spec tensor by address, else a temp of the task's
// root instance (the temp whose base is the closest below).
void Executor::attribute(const DeviceTask& dt) {
  for (size_t i = 0; i < dt.tasks.size() && i < observed_.size(); ++i) {
    const TaskInstance& t = dt.tasks[i];
    for (GmAccess& a : observed_[i]) {
      a.tensor = -1;
      if (a.addr == 0) continue;
      auto it = std::upper_bound(tensor_at_.begin(), tensor_at_.end(), std::make_pair(a.addr, INT32_MAX));
      if (it != tensor_at_.begin()) {
        --it;
        if (a.addr - it->first < std::max<uint64_t>(layout_.geometry[size_t(it->second)].bytes, 1)) {
          a.tensor = it->second;
          // An empty read (a tile whose valid extent is 0, past a dynamic tail) has an address but moves
          // nothing; it lies wherever the offset arithmetic put it, possibly in the next tensor of the
          // arena. It stands for a lost extent only in a tensor this task is compiled to read.
          if ((a.rows == 0 || a.row_bytes == 0) && !a.write && !declares_read(t, a.tensor)) a.tensor = -1;
          continue;
        }
      }
      if (t.root_instance >= dt.roots.size()) continue;
      const RootInstance& ri = dt.roots[t.root_instance];
      const RootFunction& rf = p_.roots.at(size_t(ri.root));
      uint64_t best = 0;
      for (size_t k = 0; k < ri.temp_base.size() && k < rf.temps.size(); ++k)
        if (ri.temp_base[k] <= a.addr && ri.temp_base[k] >= best) {
          best = ri.temp_base[k];
          a.tensor = rf.temps[k];
        }
    }
  }
}

void Executor::run(const DeviceTask& dt) {
  if (recording_) {
    if (observed_.size() < dt.tasks.size()) observed_.resize(dt.tasks.size());
    observed_.resize(dt.tasks.size());
    for (auto& o : observed_) o.clear();
  }
  if (workers_.empty()) {
    // Task order inside a device task is topological: intra-root edges and stitched edges
    // both point forward.
    for (size_t i = 0; i < dt.tasks.size(); ++i) execute(dt.tasks[i], recording_ ? &observed_[i] : nullptr);
    if (recording_) attribute(dt);
    return;
  }
  std::unique_lock<std::mutex> l(mu_);
  cur_ = &dt;
  preds_.resize(dt.tasks.size());
  ready_.clear();
  for (size_t i = 0; i < dt.tasks.size(); ++i) preds_[i] = dt.tasks[i].pred_count;
  chain_accumulations(dt);
  for (size_t i = 0; i < dt.tasks.size(); ++i)
    if (preds_[i] == 0) ready_.push_back(uint32_t(i));
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
  if (recording_) attribute(dt);
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
      execute(dt->tasks[i], recording_ ? &observed_[i] : nullptr);
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
    const std::vector<uint32_t>* lists[2] = {&dt->tasks[i].succ, &chain_succ_[i]};
    for (const auto* succ : lists)
      for (uint32_t s : *succ)
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
