// The machine model. One Machine object runs all rounds; per round:
//
//   Control AICPU   BEGIN -> INIT -> build device task i (base + roots + tasks cost, bounded by the
//                   in-flight limit) -> submit -> ... -> EXIT
//   Schedule k      BEGIN -> ALLOC_THREAD_ID -> INIT -> CORE_HAND_SHAKE -> per device task (in order):
//                   RCV, dispatch / resolve loop (each action a serial cost on the thread), SCHED_EXEC,
//                   SYNC_CORE_STOP, RSP -> WAIT_ALL_DEV_TASK_FINISH -> WAIT_CORE_EXIT -> EXIT
//   Core            two slots (running + pending); per task: head, then the leaf's work with its GM
//                   traffic timed by the L2 and the shared HBM; FIN notice to its scheduler.
//
// Device tasks run one after another (PyPTO syncs cores at each device task's end), which is what
// makes a small stitch pay gaps and synchronisation; the Control AICPU builds ahead, up to
// max_inflight_devtasks, which is what makes a large stitch delay the first dispatch.
#include "runtime/sim/machine.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>
#include <string>

#include "runtime/program/knobs.h"
#include "runtime/program/root_tasks.h"
#include "runtime/sim/dma_issue.h"
#include "runtime/sim/event_queue.h"
#include "runtime/sim/l2_cache.h"
#include "runtime/sim/shared_bandwidth.h"

namespace ptoc::sim {
namespace {

using runtime::DeviceTask;
using runtime::TaskInstance;
using runtime::GmAccess;

constexpr int64_t kCounterBase = 1'000'000'000'000;  // fixed device counter value at the first launch
constexpr uint32_t kNone = ~0u;

// Round a non-negative duration to whole ps (llround without the libm call).
inline int64_t rnd(double x) { return static_cast<int64_t>(x + 0.5); }

enum EvKind : uint32_t {
  kCtrlBuildStart,  // a = -
  kCtrlBuildDone,
  kSchedRecv,       // a = thread
  kSchedStep,       // a = thread
  kSchedDone,       // a = thread
  kTaskStart,       // a = core
  kFlowJoin,        // a = core
  kHbm,             // a = generation
  kTaskEnd,         // a = core
  kMemPhase,        // a = core: the next slice of a task's GM traffic looks up L2
};

// A task's GM traffic is looked up in L2 and timed in slices: slice i covers the i-th part of every row of
// its reads (for a matmul leaf, the i-th K-step of its A and B blocks; writes go with the last slice), one
// slice after the other. Cores of one round that share a block then touch each part of it close together,
// as the K loops of their leaves do on hardware, so reuse within a round hits and reuse across rounds
// needs the whole round's traffic to fit (the matmul guide's single-round L2 hit ratio). Traffic under
// 2 x kSliceBytes is one slice (the whole-task lookup of session 1).
constexpr uint64_t kSliceBytes = 64 * 1024;
constexpr int kMaxSlices = 8;

struct CoreState {
  CoreType type = CoreType::AIV;
  int sched = 0;
  uint32_t running = kNone, pending = kNone;
  bool lazy_accesses = false;  // the running task's accesses came from SimOptions::task_accesses
  bool started = false;          // running task has begun (kTaskStart happened)
  TaskRecord rec;                // record of the running task
  int64_t mem_start = 0;         // ps the memory phase began (after head)
  int64_t est_ps = 0, mem_nom_ps = 0, mem_est_ps = 0;
  int slice = 0, nslices = 1;    // memory slice in progress, slices of the running task
  int64_t lat_paid_ps = 0;       // latency already charged to the running task's memory phase
  uint64_t slice_hbm = 0;        // HBM bytes of the slice in progress
  int64_t floor_ps = 0;          // the leaf's busiest non-memory pipe (MTE1, M, V, S)
  int64_t first_in_dt = -1, last_end_in_dt = -1;  // per current device task
  int64_t rcv_model_ps = 0;      // DEV_TASK_RCV_MODEL of the current device task
};

struct SchedState {
  std::vector<int> aic, aiv;     // owned cores
  bool busy = false, stepping = false, received = false;
  std::deque<uint32_t> notices;  // finished tasks (core << 32 would be redundant: task index only)
  std::deque<uint32_t> queue[2]; // per-thread ready queues (modes 2, 3), [AIV, AIC]
  // pending action
  int action = 0;                // 1 resolve, 2 dispatch
  uint32_t act_task = kNone;
  int act_core = -1;
  int64_t rsp_ps = 0;            // RSP of the previous device task
  int64_t last_dispatch_ps = -1;
  bool sent_first = false;
};

class Machine {
 public:
  Machine(const Platform& p, const CompiledProgram& prog, const SimOptions& o, const DeviceTaskSource& src)
      : p_(p), prog_(prog), o_(o), src_(src),
        l2_(static_cast<uint64_t>(p.l2_reuse > 0 ? p.l2_reuse : p.l2), o.l2_line_bytes),
        hbm_(p.hbm_total_gbps / 1000.0, p.gm_read_bpc * p.core_mhz / 1e6) {
    mode_ = o.device_sched_mode >= 0 ? o.device_sched_mode : prog.options.device_sched_mode;
    const SchedPolicy policy = sched_policy(mode_);
    lifo_ = policy.l2_affinity;  // newest ready task first: its producer's data is still in L2
    fair_ = policy.fair;
    nsched_ = p.sched_threads();
    ncores_ = p.aic + p.aiv;
    cores_.resize(ncores_);
    sched_.resize(nsched_);
    for (int i = 0; i < p.aic; ++i) {
      int k = int(int64_t(i) * nsched_ / p.aic);
      cores_[i].type = CoreType::AIC;
      cores_[i].sched = k;
      sched_[k].aic.push_back(i);
    }
    for (int i = 0; i < p.aiv; ++i) {
      int k = int(int64_t(i) * nsched_ / p.aiv);
      cores_[p.aic + i].type = CoreType::AIV;
      cores_[p.aic + i].sched = k;
      sched_[k].aiv.push_back(p.aic + i);
    }
    ring_.resize(std::max(1, o.max_inflight_devtasks));
    l2_rate_ = p.l2_read_bpc * p.core_mhz / 1e6;
    cap_rate_ = p.gm_read_bpc * p.core_mhz / 1e6;
    trace_.platform = p.name;
    trace_.arch = p.arch;
    trace_.freq = p.counter_freq_mhz;
    trace_.counter_base = kCounterBase;
    trace_.core_mhz = p.core_mhz;
    trace_.aic = p.aic;
    trace_.aiv = p.aiv;
    trace_.sched_threads = nsched_;
    trace_.device_sched_mode = mode_;
    trace_.l2_line_bytes = o.l2_line_bytes;
    trace_.devtask_stage_cap = o.devtask_stage_cap;
    bypass_.resize(prog.tensors.size());
    for (size_t i = 0; i < prog.tensors.size(); ++i) bypass_[i] = prog.tensors[i].l2_bypass;
  }

  Trace run() {
    int64_t t = 0;
    for (int r = 0; r < std::max(1, o_.rounds); ++r) {
      t = run_round(r, t);
      t += cpu_ps(p_.launch_gap_cycles);
    }
    trace_.events = ev_.pushed();
    return std::move(trace_);
  }

 private:
  // ---- clocks
  int64_t cpu_ps(int64_t cycles) const { return rnd(double(cycles) * 1e6 / p_.aicpu_mhz); }
  int64_t core_ps(double cycles) const { return rnd(cycles * 1e6 / p_.core_mhz); }
  double ps_to_core_cycles(int64_t ps) const { return double(ps) * p_.core_mhz / 1e6; }

  // ---- stage stamps
  void cpu_stamp(int lane, CpuStage s, int idx, int64_t ps) {
    if (idx >= o_.devtask_stage_cap) {
      rt_->summary.devtask_stages_dropped = true;
      return;
    }
    rt_->cpu[lane].events.push_back({static_cast<uint8_t>(s), idx, ps});
  }
  void core_stamp(int core, CoreStage s, int idx, int64_t ps) {
    if (idx >= 0 && exec_seq_ >= o_.devtask_stage_cap) {  // idx is the seqNo; the cap counts device tasks
      rt_->summary.devtask_stages_dropped = true;
      return;
    }
    rt_->cores[core].events.push_back({static_cast<uint8_t>(s), idx, ps});
  }

  // ---- round
  int64_t run_round(int round, int64_t t0) {
    round_ = round;
    trace_.rounds.emplace_back();
    rt_ = &trace_.rounds.back();
    rt_->round = round;
    rt_->cpu.resize(1 + nsched_);
    rt_->cpu[0].ctrl = true;
    for (int k = 0; k <= nsched_; ++k) rt_->cpu[k].thread = k;
    rt_->cores.resize(ncores_);
    for (int c = 0; c < ncores_; ++c) {
      rt_->cores[c].core = c;
      rt_->cores[c].type = cores_[c].type;
      rt_->cores[c].sched = cores_[c].sched;
    }
    rt_->summary.launch_ps = t0;
    built_ = 0;
    finished_ = 0;
    ctrl_done_ = false;
    ctrl_waiting_ = false;
    exec_seq_ = 0;
    submit_ps_.clear();
    first_start_ = INT64_MAX;
    last_end_ = 0;
    busy_ps_ = 0;
    busy_ticks_ = 0;
    used_.assign(ncores_, 0);
    round_exit_ = t0;

    // Control AICPU: BEGIN, thread start + init, then builds.
    cpu_stamp(0, CpuStage::BEGIN, -1, t0);
    const int64_t ctrl_init = t0 + cpu_ps(p_.thread_start_cycles + p_.init_cycles);
    cpu_stamp(0, CpuStage::INIT, -1, ctrl_init);
    ev_.push(ctrl_init, kCtrlBuildStart, 0);

    // Schedule AICPUs and cores: start, init, handshake.
    for (int k = 0; k < nsched_; ++k) {
      SchedState& s = sched_[k];
      s.busy = s.stepping = s.received = false;
      s.notices.clear();
      s.queue[0].clear();
      s.queue[1].clear();
      const int lane = 1 + k;
      cpu_stamp(lane, CpuStage::BEGIN, -1, t0);
      const int64_t alloc = t0 + cpu_ps(p_.thread_start_cycles);
      cpu_stamp(lane, CpuStage::ALLOC_THREAD_ID, -1, alloc);
      const int64_t init = alloc + cpu_ps(p_.init_cycles);
      cpu_stamp(lane, CpuStage::INIT, -1, init);
      const int64_t hs = init + cpu_ps(p_.handshake_cycles);
      cpu_stamp(lane, CpuStage::CORE_HAND_SHAKE, -1, hs);
      s.rsp_ps = hs;
      for (int c : s.aic) core_stamp(c, CoreStage::BEGIN, -1, t0), core_stamp(c, CoreStage::INIT, -1, hs);
      for (int c : s.aiv) core_stamp(c, CoreStage::BEGIN, -1, t0), core_stamp(c, CoreStage::INIT, -1, hs);
    }
    shared_q_[0].clear();
    shared_q_[1].clear();
    for (auto& c : cores_) {
      const CoreType ty = c.type;
      const int k = c.sched;
      c = CoreState{};
      c.type = ty;
      c.sched = k;
    }

    while (!ev_.empty()) {
      const Event e = ev_.pop();
      now_ = e.t;
      switch (e.kind) {
        case kCtrlBuildStart: ctrl_build_start(); break;
        case kCtrlBuildDone: ctrl_build_done(); break;
        case kSchedRecv: sched_recv(int(e.a)); break;
        case kSchedStep: sched_[e.a].stepping = false; sched_step(int(e.a)); break;
        case kSchedDone: sched_done(int(e.a)); break;
        case kTaskStart: task_start(int(e.a)); break;
        case kFlowJoin: flow_join(int(e.a)); break;
        case kHbm: if (e.a == hbm_gen_) hbm_event(); break;  // superseded events are skipped
        case kTaskEnd: task_end(int(e.a)); break;
        case kMemPhase: mem_slice(int(e.a)); break;
      }
    }
    if (!ctrl_done_ || finished_ != built_)
      throw std::runtime_error("machine model: device task " + std::to_string(finished_) +
                               " never completed (a dependency cycle or a task whose predecessors never run)");
    finish_round();
    return round_exit_;
  }

  // ---- Control AICPU
  void ctrl_build_start() {
    if (built_ - finished_ >= int(ring_.size())) {  // ready queue full: wait for a device task to finish
      ctrl_waiting_ = true;
      return;
    }
    DeviceTask& dt = ring_[built_ % ring_.size()];
    dt.seq = built_;
    if (!src_(round_, dt)) {
      ctrl_done_ = true;
      const int64_t exit = now_ + cpu_ps(p_.exit_cycles);
      cpu_stamp(0, CpuStage::EXIT, -1, exit);
      round_exit_ = std::max(round_exit_, exit);
      // Schedulers waiting for another device task can now finish.
      for (int k = 0; k < nsched_; ++k)
        if (sched_[k].received == false && finished_ == built_) sched_finish(k);
      return;
    }
    const int64_t cost = p_.build_base_cycles + p_.build_per_root_cycles * int64_t(dt.roots.size()) +
                         p_.build_per_task_cycles * int64_t(dt.tasks.size()) + p_.submit_cycles;
    ev_.push(now_ + cpu_ps(cost), kCtrlBuildDone, 0);
  }

  void ctrl_build_done() {
    const int i = built_++;
    cpu_stamp(0, CpuStage::DEV_TASK_BUILD, i, now_);
    submit_ps_.push_back(now_);
    rt_->summary.device_tasks++;
    rt_->summary.root_instances += ring_[i % ring_.size()].roots.size();
    if (i == exec_seq_) start_devtask_recv();
    ctrl_build_start();
  }

  // ---- device task execution (one at a time, in order)
  DeviceTask& cur() { return ring_[exec_seq_ % ring_.size()]; }

  void start_devtask_recv() {
    // Every scheduler receives the device task once it is submitted and its previous one responded.
    for (int k = 0; k < nsched_; ++k) {
      const int64_t t = std::max(submit_ps_[exec_seq_], sched_[k].rsp_ps) + cpu_ps(p_.devtask_rcv_cycles);
      ev_.push(t, kSchedRecv, uint32_t(k));
    }
    DeviceTask& dt = cur();
    const size_t n = dt.tasks.size();
    preds_.resize(n);
    ready_ps_.resize(n);
    dispatch_ps_.resize(n);
    for (size_t i = 0; i < n; ++i) preds_[i] = dt.tasks[i].pred_count;
    done_in_dt_ = 0;
    recv_count_ = 0;
    initial_pushed_ = false;
    for (auto& c : cores_) c.first_in_dt = c.last_end_in_dt = -1;
  }

  // A device task is done when every task finished and every scheduler received it.
  bool maybe_done() {
    if (recv_count_ < nsched_ || done_in_dt_ < cur().tasks.size()) return false;
    devtask_done();
    return true;
  }

  void sched_recv(int k) {
    SchedState& s = sched_[k];
    s.received = true;
    ++recv_count_;
    s.last_dispatch_ps = -1;
    s.sent_first = false;
    cpu_stamp(1 + k, CpuStage::DEV_TASK_RCV, exec_seq_, now_);
    DeviceTask& dt = cur();
    const int64_t refresh = now_ + core_ps(double(p_.devtask_refresh_cycles));
    for (int c : s.aic) cores_[c].rcv_model_ps = refresh, core_stamp(c, CoreStage::DEV_TASK_RCV_MODEL, dt.seq, refresh);
    for (int c : s.aiv) cores_[c].rcv_model_ps = refresh, core_stamp(c, CoreStage::DEV_TASK_RCV_MODEL, dt.seq, refresh);
    if (!initial_pushed_) {
      initial_pushed_ = true;
      for (uint32_t i = 0; i < dt.tasks.size(); ++i)
        if (preds_[i] == 0) {
          ready_ps_[i] = now_;
          push_ready(i, k);
        }
    }
    if (maybe_done()) return;
    wake(k);
  }

  int type_slot(uint32_t task) const {
    const int cls = cur_const().tasks[task].class_index();
    return (cls >= 0 && prog_.leaves[size_t(cls)].core == CoreType::AIC) ? 1 : 0;
  }
  const DeviceTask& cur_const() const { return ring_[exec_seq_ % ring_.size()]; }

  // A newly ready task: the shared queue (modes 0, 1) or the next thread's queue round-robin (2, 3).
  void push_ready(uint32_t task, int from) {
    const int ty = type_slot(task);
    (void)from;
    if (!fair_) {
      shared_q_[ty].push_back(task);
      for (int k = 0; k < nsched_; ++k) wake_for(k, ty);
      return;
    }
    const int k = rr_[ty]++ % nsched_;
    sched_[k].queue[ty].push_back(task);
    for (int j = 0; j < nsched_; ++j) wake_for((k + j) % nsched_, ty);
  }

  bool pop_ready(int k, int ty, uint32_t& task) {
    auto take = [&](std::deque<uint32_t>& q) {
      if (q.empty()) return false;
      if (lifo_) task = q.back(), q.pop_back();
      else task = q.front(), q.pop_front();
      return true;
    };
    if (!fair_) return take(shared_q_[ty]);
    if (take(sched_[k].queue[ty])) return true;
    // Steal only from a thread whose own cores are all full: fairness first, idle cores second.
    for (int j = 1; j < nsched_; ++j) {
      const int o = (k + j) % nsched_;
      if (free_slot(o, ty) < 0 && take(sched_[o].queue[ty])) return true;
    }
    return false;
  }

  // A free slot of this thread's cores of a type: a fully idle core first, else a free pending slot.
  int free_slot(int k, int ty) const {
    const auto& list = ty == 1 ? sched_[k].aic : sched_[k].aiv;
    for (int c : list)
      if (cores_[c].running == kNone) return c;
    for (int c : list)
      if (cores_[c].pending == kNone) return c;
    return -1;
  }

  // Wake a thread for a new ready task only if it could place it.
  void wake_for(int k, int ty) {
    const SchedState& s = sched_[k];
    if (s.busy || s.stepping || !s.received) return;
    if (free_slot(k, ty) < 0) return;
    wake(k);
  }

  void wake(int k) {
    SchedState& s = sched_[k];
    if (s.busy || s.stepping || !s.received) return;
    s.stepping = true;
    ev_.push(now_, kSchedStep, uint32_t(k));
  }

  void sched_step(int k) {
    SchedState& s = sched_[k];
    if (s.busy || !s.received) return;
    DeviceTask& dt = cur();
    if (!s.notices.empty()) {  // poll completions first, as AiCoreManager does
      const uint32_t t = s.notices.front();
      s.notices.pop_front();
      s.busy = true;
      s.action = 1;
      s.act_task = t;
      const int64_t cost = p_.sched_completion_cycles + p_.sched_resolve_cycles +
                           p_.sched_resolve_per_succ_cycles * int64_t(dt.tasks[t].succ.size());
      ev_.push(now_ + cpu_ps(cost), kSchedDone, uint32_t(k));
      return;
    }
    for (int ty = 1; ty >= 0; --ty) {
      const int c = free_slot(k, ty);
      if (c < 0) continue;
      uint32_t t;
      if (!pop_ready(k, ty, t)) continue;
      // Reserve the slot now so no other dispatch targets it.
      if (cores_[c].running == kNone) cores_[c].running = t, cores_[c].started = false;
      else cores_[c].pending = t;
      s.busy = true;
      s.action = 2;
      s.act_task = t;
      s.act_core = c;
      ev_.push(now_ + cpu_ps(p_.sched_dispatch_cycles), kSchedDone, uint32_t(k));
      return;
    }
  }

  void sched_done(int k) {
    SchedState& s = sched_[k];
    s.busy = false;
    if (s.action == 1) {
      resolve(k, s.act_task);
      if (maybe_done()) {
        s.action = 0;
        return;
      }
    } else if (s.action == 2) {
      const uint32_t t = s.act_task;
      const int c = s.act_core;
      dispatch_ps_[t] = now_;
      s.last_dispatch_ps = now_;
      if (!s.sent_first) {
        s.sent_first = true;
        cpu_stamp(1 + k, CpuStage::DEV_TASK_SEND_FIRST_LEAF_TASK, exec_seq_, now_);
      }
      CoreState& cs = cores_[c];
      if (cs.running == t && !cs.started) {
        cs.started = true;
        ev_.push(std::max(now_, cs.rcv_model_ps), kTaskStart, uint32_t(c));
      }
    }
    s.action = 0;
    sched_step(k);
  }

  void resolve(int k, uint32_t t) {
    DeviceTask& dt = cur();
    ++done_in_dt_;
    const auto& succ = dt.tasks[t].succ;
    if (lifo_) {  // L2 affinity: the first successor must come out of the LIFO queue first
      for (size_t i = succ.size(); i-- > 0;) release(succ[i], k);
    } else {
      for (uint32_t s : succ) release(s, k);
    }
  }
  void release(uint32_t s, int k) {
    if (s >= preds_.size()) throw std::runtime_error("machine model: successor index out of range");
    if (preds_[s] == 0) throw std::runtime_error("machine model: task released more times than its pred_count");
    if (--preds_[s] == 0) {
      ready_ps_[s] = now_;
      push_ready(s, k);
    }
  }

  void devtask_done() {
    const int i = exec_seq_;
    const int seq = cur().seq;
    const int64_t done = now_;
    if (o_.on_device_task_done) o_.on_device_task_done(round_, cur());
    if (o_.on_progress) o_.on_progress(round_, rt_->summary.tasks, done);
    // Only cores that ran a leaf task of this device task stamp its AICore stages (PyPTO records them in
    // the leaf-task loop of the AICore entry); an idle core's lane has RCV_MODEL only.
    for (int c = 0; c < ncores_; ++c) {
      CoreState& cs = cores_[c];
      if (cs.first_in_dt < 0) continue;
      core_stamp(c, CoreStage::DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK, seq, cs.first_in_dt);
      core_stamp(c, CoreStage::DEV_TASK_ALL_LEAF_TASK_EXEC, seq, cs.last_end_in_dt);
    }
    for (int k = 0; k < nsched_; ++k) {
      SchedState& s = sched_[k];
      const int lane = 1 + k;
      const int64_t exec = s.last_dispatch_ps >= 0 ? s.last_dispatch_ps : done;
      if (!s.sent_first) cpu_stamp(lane, CpuStage::DEV_TASK_SEND_FIRST_LEAF_TASK, i, exec);
      cpu_stamp(lane, CpuStage::DEV_TASK_SCHED_EXEC, i, exec);
      const int64_t stop = std::max(done, exec) + cpu_ps(p_.devtask_sync_stop_cycles);
      cpu_stamp(lane, CpuStage::DEV_TASK_SYNC_CORE_STOP, i, stop);
      s.rsp_ps = stop + cpu_ps(p_.devtask_rsp_cycles);
      cpu_stamp(lane, CpuStage::DEV_TASK_RSP, i, s.rsp_ps);
      s.received = false;
    }
    ++finished_;
    ++exec_seq_;
    if (ctrl_waiting_) {
      ctrl_waiting_ = false;
      ev_.push(done, kCtrlBuildStart, 0);
    }
    if (exec_seq_ < built_) {
      start_devtask_recv();
    } else if (ctrl_done_) {
      for (int k = 0; k < nsched_; ++k) sched_finish(k);
    }
  }

  void sched_finish(int k) {
    SchedState& s = sched_[k];
    const int lane = 1 + k;
    const int64_t all = std::max(s.rsp_ps, now_);
    cpu_stamp(lane, CpuStage::WAIT_ALL_DEV_TASK_FINISH, -1, all);
    const int64_t core_exit = all + cpu_ps(p_.devtask_sync_stop_cycles);
    cpu_stamp(lane, CpuStage::WAIT_CORE_EXIT, -1, core_exit);
    for (int c : s.aic) core_stamp(c, CoreStage::WAIT_EXIT_NOTIFY, -1, core_exit);
    for (int c : s.aiv) core_stamp(c, CoreStage::WAIT_EXIT_NOTIFY, -1, core_exit);
    last_core_exit_ = std::max(last_core_exit_, core_exit);
    const int64_t exit = core_exit + cpu_ps(p_.exit_cycles);
    cpu_stamp(lane, CpuStage::EXIT, -1, exit);
    round_exit_ = std::max(round_exit_, exit);
  }

  // ---- cores
  void task_start(int c) {
    CoreState& cs = cores_[c];
    const uint32_t t = cs.running;
    DeviceTask& dt = cur();
    cs.lazy_accesses = o_.task_accesses && o_.task_accesses(round_, dt, t, dt.tasks[t].accesses);
    const TaskInstance& ti = dt.tasks[t];
    if (o_.on_task_start) o_.on_task_start(dt, t);
    TaskRecord& r = cs.rec;
    r = TaskRecord{};
    r.core = c;
    r.core_type = cs.type;
    r.seq = dt.seq;
    r.task_index = t;
    r.task_id = ti.task_id;
    if (ti.root_instance < dt.roots.size()) {
      r.root = dt.roots[ti.root_instance].root;
      if (r.root >= 0 && size_t(r.root) < prog_.roots.size()) {
        const RootFunction& rf = prog_.roots[r.root];
        r.root_hash = rf.hash;
        if (ti.task < task_count(rf)) r.op_magic = task_op_magic(rf, ti.task);
      }
    }
    r.root_instance = int32_t(ti.root_instance);
    r.leaf = ti.leaf;
    r.cls = ti.class_index();
    r.ready_ps = ready_ps_[t];
    r.dispatch_ps = dispatch_ps_[t];
    r.start_ps = now_;
    if (cs.first_in_dt < 0) cs.first_in_dt = now_;

    // Leaf cost (compiler estimate).
    int64_t est_cycles = 0, floor_cycles = 0, mte2_cycles = 0;
    if (r.cls >= 0 && size_t(r.cls) < prog_.leaves.size()) {
      const LeafFunction& lf = prog_.leaves[size_t(r.cls)];
      r.leaf_hash = lf.hash;
      r.pipe_busy = lf.pipe_cycles;
      est_cycles = lf.est_cycles;
      if (est_cycles <= 0) est_cycles = *std::max_element(lf.pipe_cycles.begin(), lf.pipe_cycles.end());
      mte2_cycles = lf.pipe_cycles[static_cast<int>(PipeId::MTE2)];
      for (PipeId pp : {PipeId::MTE1, PipeId::M, PipeId::V, PipeId::S})
        floor_cycles = std::max(floor_cycles, lf.pipe_cycles[static_cast<int>(pp)]);
    }
    uint64_t total = 0;
    int copies_in = 0;
    for (const auto& a : ti.accesses) {
      total += a.bytes();
      copies_in += a.write ? 0 : 1;
    }
    const int64_t head = core_ps(double(p_.task_head_cycles));
    r.head_cycles = p_.task_head_cycles;
    cs.est_ps = core_ps(double(est_cycles));
    cs.floor_ps = core_ps(double(std::min(floor_cycles, est_cycles)));
    cs.mem_nom_ps = total ? rnd(double(total) / cap_rate_) + core_ps(double(p_.gm_latency_cycles)) : 0;
    // The estimate's MTE2 charges every copy in its start-up; copies issued back to back hide all but the
    // first (the asc-devkit board figures: 12.58 MB per core in 32 KiB copies at 31.7 B/cycle, no room for
    // 200 cycles per copy; test_dma_bursts), and the timed phase charges that first one as its latency. So
    // the overlap is read against the memory phase the estimate saw: the timed one plus the hidden
    // start-ups, at most its MTE2.
    // Each copy still pays its instruction's issue cost on the queue (dma_issue.h: the asc-devkit
    // single-burst figure), so only the rest of its start-up is hidden.
    const int64_t startup = cs.type == CoreType::AIC ? p_.l1_dma_startup_cycles : p_.dma_startup_cycles;
    const int64_t hidden = int64_t(std::max(0, copies_in - 1)) * std::max<int64_t>(0, startup - dma_issue_cycles(p_));
    cs.mem_est_ps = std::max(cs.mem_nom_ps, std::min(core_ps(double(mte2_cycles)), cs.mem_nom_ps + core_ps(double(hidden))));
    cs.mem_start = now_ + head;
    cs.slice = 0;
    cs.nslices = total >= 2 * kSliceBytes ? int(std::min<uint64_t>(kMaxSlices, total / kSliceBytes)) : 1;
    cs.lat_paid_ps = 0;
    if (total == 0) {
      ev_.push(cs.mem_start + work_ps(cs, 0), kTaskEnd, uint32_t(c));
    } else {
      ev_.push(cs.mem_start, kMemPhase, uint32_t(c));
    }
  }

  // Slice cs.slice of the running task's GM traffic: L2 lookups now, then its L2 hits at l2_read_bpc,
  // then its HBM bytes (read misses and all writes: write-through) through the shared HBM.
  void mem_slice(int c) {
    CoreState& cs = cores_[c];
    TaskRecord& r = cs.rec;
    const TaskInstance& ti = cur().tasks[cs.running];
    const int n = cs.nslices, i = cs.slice;
    const bool last = i + 1 == n;
    L2Result rd, wr;
    for (const auto& a : ti.accesses) {
      if (a.write && !last) continue;
      const bool bypass = a.tensor >= 0 && size_t(a.tensor) < bypass_.size() && bypass_[a.tensor];
      L2Result& res = a.write ? wr : rd;
      const bool alloc = a.write || !bypass;
      if (n == 1 || a.write) {
        if (a.rows <= 1 || a.row_stride == a.row_bytes) {
          l2_.access(a.addr, a.rows * a.row_bytes, alloc, res);
        } else {
          l2_.access_rows(a.addr, a.rows, a.row_bytes, a.row_stride, alloc, res);
        }
        continue;
      }
      // Wide rows (A of a matmul: K along the row) are cut across their columns, narrow rows (B in 256-column
      // blocks: K down the rows) into runs of rows; either way slice i is the i-th part of the K loop.
      const uint64_t stride = a.rows <= 1 ? a.row_bytes : a.row_stride;
      if (a.row_bytes / uint64_t(n) >= o_.l2_line_bytes) {
        const uint64_t lo = a.row_bytes * uint64_t(i) / uint64_t(n), hi = a.row_bytes * uint64_t(i + 1) / uint64_t(n);
        l2_.access_rows(a.addr + lo, a.rows, hi - lo, stride, alloc, res);
      } else {
        const uint64_t k0 = a.rows * uint64_t(i) / uint64_t(n), k1 = a.rows * uint64_t(i + 1) / uint64_t(n);
        if (stride == a.row_bytes) {
          if (k1 > k0) l2_.access(a.addr + k0 * stride, (k1 - k0) * a.row_bytes, alloc, res);
        } else {
          if (k1 > k0) l2_.access_rows(a.addr + k0 * stride, k1 - k0, a.row_bytes, stride, alloc, res);
        }
      }
    }
    r.bytes_read += rd.hit_bytes + rd.miss_bytes;
    r.bytes_written += wr.hit_bytes + wr.miss_bytes;
    r.bytes_l2 += rd.hit_bytes;
    const uint64_t hbm = rd.miss_bytes + wr.hit_bytes + wr.miss_bytes;  // writes go on to HBM (write-through)
    r.bytes_hbm += hbm;
    r.l2_read_hits += rd.hit_lines;
    r.l2_read_misses += rd.miss_lines;
    r.l2_write_hits += wr.hit_lines;
    r.l2_write_misses += wr.miss_lines;
    // Latency once per task: a miss latency if any slice goes to HBM, else the hit latency.
    const uint64_t any = rd.hit_bytes + rd.miss_bytes + wr.hit_bytes + wr.miss_bytes;
    const int64_t need = hbm ? core_ps(double(p_.gm_latency_cycles)) : (any ? core_ps(double(p_.l2_hit_latency_cycles)) : 0);
    const int64_t lat = std::max<int64_t>(0, need - cs.lat_paid_ps);
    cs.lat_paid_ps += lat;
    const int64_t l2 = rnd(double(rd.hit_bytes) / l2_rate_);
    if (hbm > 0) {
      cs.slice_hbm = hbm;
      ev_.push(now_ + l2 + lat, kFlowJoin, uint32_t(c));
    } else {
      slice_done(c, now_ + l2 + lat);
    }
  }

  // The slice in progress ends at t: the next slice starts, or the leaf's work ends.
  void slice_done(int c, int64_t t) {
    CoreState& cs = cores_[c];
    if (++cs.slice < cs.nslices) {
      ev_.push(t, kMemPhase, uint32_t(c));
    } else {
      ev_.push(cs.mem_start + work_ps(cs, t - cs.mem_start), kTaskEnd, uint32_t(c));
    }
  }

  // Duration of the leaf's work after the head, given its memory phase took m ps. x: the compute on the
  // critical path besides the loads (at least the busiest compute pipe). The compiler's estimate says how
  // much of its memory phase (mem_est: all misses, uncontended, with the start-ups it charges) its
  // schedule hides under x: the overlap o = mem_est + x - est, a fraction phi of min(mem_est, x) (chains
  // and a double-buffered K loop both give it). The same fraction is hidden at any m: work(m) = m + x -
  // phi * min(m, x), so work(mem_est) is exactly the estimate (work(mem_nom) is the estimate less the
  // start-ups back-to-back copies hide), a fully overlapped leaf costs max(m, x) and a serial one m + x.
  int64_t work_ps(const CoreState& cs, int64_t m) const {
    const double mem = double(cs.mem_est_ps), est = double(cs.est_ps);
    const double x = double(std::max<int64_t>(cs.floor_ps, cs.est_ps - cs.mem_est_ps));
    const double lim = std::min(mem, x);
    const double phi = lim > 0 ? std::clamp((mem + x - est) / lim, 0.0, 1.0) : 0.0;
    const double mm = double(m);
    return std::max<int64_t>(m, rnd(mm + x - phi * std::min(mm, x)));
  }

  void flow_join(int c) {
    hbm_.add(now_, uint32_t(c), double(cores_[c].slice_hbm));
    resched_hbm();
  }
  // One live HBM event: a new one only when the next finish moved earlier than the pending one
  // (a later one is found again when the pending event fires and finds nothing finished).
  void resched_hbm() {
    const int64_t t = hbm_.next_finish();
    if (t < 0) return;
    const int64_t when = std::max(t, now_);
    if (hbm_at_ >= now_ && hbm_at_ <= when) return;
    hbm_at_ = when;
    ev_.push(when, kHbm, ++hbm_gen_);
  }
  void hbm_event() {
    hbm_at_ = -1;
    finished_flows_.clear();
    hbm_.pop_finished(now_, finished_flows_);
    for (uint32_t c : finished_flows_) slice_done(int(c), now_);
    resched_hbm();
  }

  void task_end(int c) {
    CoreState& cs = cores_[c];
    TaskRecord& r = cs.rec;
    const DeviceTask& dt = cur();
    r.end_ps = now_;
    r.total_cycles = rnd(ps_to_core_cycles(r.end_ps - r.start_ps));
    // Memory pipes as timed: reads on MTE2, writes on MTE3 (AIV) or FIX (AIC).
    const int64_t mem_ps = now_ - cs.mem_start;
    const uint64_t tot = r.bytes_read + r.bytes_written;
    if (tot > 0) {
      // The memory phase as timed, split between reads and writes by bytes.
      const double busy_mem = ps_to_core_cycles(mem_ps);
      r.pipe_busy[static_cast<int>(PipeId::MTE2)] = rnd(busy_mem * double(r.bytes_read) / double(tot));
      auto& wpipe = r.pipe_busy[static_cast<int>(cs.type == CoreType::AIC ? PipeId::FIX : PipeId::MTE3)];
      wpipe = std::max<int64_t>(wpipe, rnd(busy_mem * double(r.bytes_written) / double(tot)));
    }
    // Round statistics.
    first_start_ = std::min(first_start_, r.start_ps);
    last_end_ = std::max(last_end_, r.end_ps);
    busy_ps_ += r.end_ps - r.start_ps;
    busy_ticks_ += trace_.ticks(r.end_ps) - trace_.ticks(r.start_ps);
    used_[c] = 1;
    RoundSummary& sm = rt_->summary;
    sm.tasks++;
    sm.bytes_hbm += r.bytes_hbm;
    sm.bytes_l2 += r.bytes_l2;
    sm.l2_read_hits += r.l2_read_hits;
    sm.l2_read_misses += r.l2_read_misses;
    cs.last_end_in_dt = now_;
    if (o_.task_sink) {
      o_.task_sink(r, dt);
    } else if (o_.keep_task_records && o_.task_record_cap && rt_->tasks.size() >= o_.task_record_cap) {
      rt_->summary.task_records_dropped++;
    } else if (o_.keep_task_records) {
      r.succ_begin = uint32_t(rt_->succ_ids.size());
      for (uint32_t s : dt.tasks[r.task_index].succ) rt_->succ_ids.push_back(dt.tasks[s].task_id);
      r.succ_count = uint32_t(rt_->succ_ids.size()) - r.succ_begin;
      rt_->tasks.push_back(r);
    }
    // FIN to the scheduler; the pending slot starts at once (no scheduler round trip).
    const uint32_t t = cs.running;
    if (cs.lazy_accesses) std::vector<GmAccess>().swap(cur().tasks[t].accesses);
    sched_[cs.sched].notices.push_back(t);
    cs.running = cs.pending;
    cs.pending = kNone;
    cs.started = false;
    if (cs.running != kNone) {
      // A pending task whose dispatch is still in flight starts when its dispatch completes.
      if (!sched_dispatching(cs.sched, cs.running)) {
        cs.started = true;
        task_start(c);
      }
    }
    wake(cs.sched);
  }
  bool sched_dispatching(int k, uint32_t t) const {
    const SchedState& s = sched_[k];
    return s.busy && s.action == 2 && s.act_task == t;
  }

  void finish_round() {
    RoundSummary& sm = rt_->summary;
    sm.end_ps = round_exit_;
    if (sm.tasks > 0) {
      sm.first_task_start_ps = first_start_;
      sm.last_task_end_ps = last_end_;
      // On the counter grid, as the files hold execStart/execEnd (draw_swim_lane's summary reads those):
      // E2E and the busy spans in whole ticks, expressed in ps.
      const int64_t ticks = trace_.ticks(last_end_) - trace_.ticks(first_start_);
      sm.aicore_e2e_ps = ticks * 1000000 / trace_.freq;
      sm.busy_core_ps = busy_ticks_ * 1000000 / trace_.freq;
      for (char u : used_) sm.cores_used += u;
      if (ticks > 0) sm.aicore_utilization = double(busy_ticks_) / (double(sm.cores_used) * double(ticks));
    }
    sm.operator_e2e_ps = std::max(last_core_exit_, sm.launch_ps) - sm.launch_ps;
    last_core_exit_ = 0;
  }

  const Platform& p_;
  const CompiledProgram& prog_;
  const SimOptions& o_;
  const DeviceTaskSource& src_;
  L2Cache l2_;
  SharedBandwidth hbm_;
  EventQueue ev_;
  Trace trace_;
  RoundTrace* rt_ = nullptr;
  int mode_ = 0, nsched_ = 0, ncores_ = 0, round_ = 0;
  bool lifo_ = false, fair_ = false;
  double l2_rate_ = 1, cap_rate_ = 1;
  std::vector<char> bypass_;
  std::vector<CoreState> cores_;
  std::vector<SchedState> sched_;
  std::vector<DeviceTask> ring_;
  std::deque<uint32_t> shared_q_[2];
  uint32_t rr_[2] = {0, 0};
  std::vector<int64_t> submit_ps_;
  int built_ = 0, finished_ = 0, exec_seq_ = 0;
  bool ctrl_done_ = false, ctrl_waiting_ = false, initial_pushed_ = false;
  size_t done_in_dt_ = 0;
  int recv_count_ = 0;
  std::vector<uint32_t> preds_;
  std::vector<int64_t> ready_ps_, dispatch_ps_;
  std::vector<uint32_t> finished_flows_;
  uint32_t hbm_gen_ = 0;
  int64_t hbm_at_ = -1;  // time of the live HBM event, -1 none
  int64_t now_ = 0, first_start_ = 0, last_end_ = 0, busy_ps_ = 0, busy_ticks_ = 0, round_exit_ = 0, last_core_exit_ = 0;
  std::vector<char> used_;
};

}  // namespace

Trace simulate(const Platform& platform, const CompiledProgram& program, const SimOptions& options,
               const DeviceTaskSource& source) {
  Machine m(platform, program, options, source);
  return m.run();
}

}  // namespace ptoc::sim
