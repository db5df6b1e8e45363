#include "ascend_launcher.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <map>

#include "acl_api.h"
#include "device_binaries.h"
#include "kernels/pto_abi.h"
#include "runtime/gm_arena.h"
#include "runtime/program/root_tasks.h"
#include "runtime/core/platform.h"

namespace ptoc::ascend {

using runtime::ControlFlow;
using runtime::DeviceTask;

struct AscendLauncher::Impl {
  const AclApi& api;
  const CompiledProgram& p;
  DimExpr::Env dims;
  runtime::ControlFlowOptions cf_options;
  AscendOptions opt;
  runtime::GmLayout layout;
  std::vector<aclrtStream> streams;
  std::vector<aclrtBinHandle> bins;
  std::vector<aclrtFuncHandle> funcs;                // per kernel
  std::map<uint64_t, std::pair<uint64_t, void*>> gm;  // virtual base -> (bytes, device pointer)
  uint64_t launched = 0;

  Impl(const AclApi& a, const CompiledProgram& prog) : api(a), p(prog) {}

  void check(aclError e, const char* call) { check_acl(api, e, call); }

  void* device_malloc(size_t bytes) {
    void* ptr = nullptr;
    check(api.aclrtMalloc(&ptr, std::max<size_t>(bytes, 32), kMallocHugeFirst), "aclrtMalloc");
    return ptr;
  }

  void map_gm(uint64_t vaddr, uint64_t bytes) {
    if (gm.count(vaddr)) return;
    gm[vaddr] = {bytes, device_malloc(bytes)};
  }

  // Virtual GM address -> device pointer.
  uint64_t translate(uint64_t vaddr) const {
    auto it = gm.upper_bound(vaddr);
    if (it == gm.begin()) throw AclCallError(fmt::format("GM address {:#x} is not mapped on the device", vaddr));
    --it;
    if (vaddr >= it->first + it->second.first)
      throw AclCallError(fmt::format("GM address {:#x} is outside every device allocation", vaddr));
    return uint64_t(reinterpret_cast<uintptr_t>(it->second.second)) + (vaddr - it->first);
  }

  int stream_count() const { return int(streams.size()); }
};

AscendLauncher::AscendLauncher(const CompiledProgram& program, const std::vector<uint8_t>& device_bin,
                               const DimExpr::Env& dims, const runtime::ControlFlowOptions& cf_options,
                               const AscendOptions& options) {
  const AclApi& api = load_acl();
  if (device_bin.empty())
    throw AclUnavailable("the bundle has no device binaries: it was compiled without a CANN toolkit; recompile with "
                         "ASCEND_HOME_PATH set (or ptoc --cann DIR)");
  impl_ = std::make_unique<Impl>(api, program);
  auto& m = *impl_;
  m.dims = dims, m.cf_options = cf_options, m.opt = options;
  aclError e = api.aclInit(nullptr);
  if (e != kAclRepeatInitialize) m.check(e, "aclInit");
  uint32_t count = 0;
  m.check(api.aclrtGetDeviceCount(&count), "aclrtGetDeviceCount");
  if (count == 0 || uint32_t(options.device) >= count)
    throw AclUnavailable(fmt::format("no Ascend device {} (the runtime in {} reports {} device(s)); run with --backend sim",
                                     options.device, api.library, count));
  m.check(api.aclrtSetDevice(options.device), "aclrtSetDevice");
  for (int i = 0; i < std::max(1, options.streams); ++i) {
    aclrtStream s = nullptr;
    m.check(api.aclrtCreateStream(&s), "aclrtCreateStream");
    m.streams.push_back(s);
  }
  // One device object per kernel, found by name.
  auto objects = unpack_device_binaries(device_bin);
  std::map<std::string, const DeviceBinary*> by_name;
  for (const auto& o : objects) by_name[o.kernel] = &o;
  for (const auto& k : program.kernels) {
    auto it = by_name.find(k.name);
    if (it == by_name.end())
      throw AclUnavailable("the bundle's device binaries lack kernel " + k.name + "; recompile the bundle");
    aclrtBinHandle bin = nullptr;
    m.check(api.aclrtBinaryLoadFromData(it->second->bytes.data(), it->second->bytes.size(), nullptr, &bin),
            "aclrtBinaryLoadFromData");
    m.bins.push_back(bin);
    aclrtFuncHandle fn = nullptr;
    m.check(api.aclrtBinaryGetFunction(bin, k.name.c_str(), &fn), "aclrtBinaryGetFunction");
    m.funcs.push_back(fn);
  }
  m.layout = runtime::layout_gm(program, dims);
  // Spec tensors live in one block from kGmBase to the temp pool.
  if (m.layout.pool_base > runtime::kGmBase) m.map_gm(runtime::kGmBase, m.layout.pool_base - runtime::kGmBase);
}

AscendLauncher::~AscendLauncher() {
  if (!impl_) return;
  auto& m = *impl_;
  // Teardown errors are not reported: the run's result is already known.
  for (auto& [v, block] : m.gm) m.api.aclrtFree(block.second);
  for (auto b : m.bins) m.api.aclrtBinaryUnLoad(b);
  for (auto s : m.streams) m.api.aclrtDestroyStream(s);
  m.api.aclrtResetDevice(m.opt.device);
}

void AscendLauncher::load(int tensor, const TensorData& t) {
  auto& m = *impl_;
  const auto& g = m.layout.geometry.at(size_t(tensor));
  auto bytes = runtime::to_gm_layout(g, t);
  void* dst = reinterpret_cast<void*>(m.translate(m.layout.base.at(size_t(tensor))));
  m.check(m.api.aclrtMemcpy(dst, bytes.size(), bytes.data(), bytes.size(), kMemcpyHostToDevice), "aclrtMemcpy (host to device)");
}

TensorData AscendLauncher::read(int tensor) {
  auto& m = *impl_;
  const auto& g = m.layout.geometry.at(size_t(tensor));
  std::vector<uint8_t> bytes(g.bytes);
  const void* src = reinterpret_cast<const void*>(m.translate(m.layout.base.at(size_t(tensor))));
  m.check(m.api.aclrtMemcpy(bytes.data(), bytes.size(), src, bytes.size(), kMemcpyDeviceToHost), "aclrtMemcpy (device to host)");
  return runtime::from_gm_layout(g, bytes.data());
}

uint64_t AscendLauncher::tasks_launched() const { return impl_->launched; }

sim::Trace AscendLauncher::run() {
  auto& m = *impl_;
  const AclApi& api = m.api;
  const Platform* platform = find_platform(m.p.target);
  sim::Trace trace;
  trace.platform = (platform ? platform->name : m.p.target) + " (host-measured)";
  trace.arch = platform ? platform->arch : "dav_2201";
  trace.freq = platform ? platform->counter_freq_mhz : 50;
  trace.core_mhz = platform ? platform->core_mhz : 1850;
  trace.sched_threads = 0;

  struct Timing { int seq; uint32_t index; int stream; aclrtEvent start, end; };
  int64_t round_offset_ps = 0;
  for (int round = 0; round < m.opt.rounds; ++round) {
    ControlFlow cf(m.p, m.dims, m.cf_options);
    sim::RoundTrace rt;
    rt.round = round;
    for (int s = 0; s < m.stream_count(); ++s) {
      sim::CoreLane lane;
      lane.core = s;
      lane.type = CoreType::AIV;
      rt.cores.push_back(lane);
    }
    aclrtEvent t0 = nullptr;
    m.check(api.aclrtCreateEvent(&t0), "aclrtCreateEvent");
    m.check(api.aclrtRecordEvent(t0, m.streams[0]), "aclrtRecordEvent");
    int64_t round_end_ps = 0;
    DeviceTask dt;
    while (cf.next(dt)) {
      for (const auto& slab : cf.slabs()) m.map_gm(slab.addr, slab.bytes);
      // Argument blocks of every task: [PtoKernelArgs][gm pointers][int64 args], 64-byte aligned.
      std::vector<size_t> offset(dt.tasks.size());
      size_t total = 0;
      for (size_t i = 0; i < dt.tasks.size(); ++i) {
        offset[i] = total;
        total += (sizeof(PtoKernelArgs) + 8 * dt.tasks[i].gm.size() + 8 * dt.tasks[i].args.size() + 63) / 64 * 64;
      }
      std::vector<uint8_t> host(total);
      void* dev_args = m.device_malloc(total);
      uint64_t dev_base = uint64_t(reinterpret_cast<uintptr_t>(dev_args));
      for (size_t i = 0; i < dt.tasks.size(); ++i) {
        const auto& t = dt.tasks[i];
        uint8_t* blk = host.data() + offset[i];
        uint64_t gm_dev = dev_base + offset[i] + sizeof(PtoKernelArgs);
        uint64_t args_dev = gm_dev + 8 * t.gm.size();
        PtoKernelArgs a{};
        a.gm = reinterpret_cast<void* const*>(uintptr_t(gm_dev));
        a.args = reinterpret_cast<const int64_t*>(uintptr_t(args_dev));
        a.num_args = int64_t(t.args.size());
        std::memcpy(blk, &a, sizeof a);
        for (size_t k = 0; k < t.gm.size(); ++k) {
          uint64_t d = t.gm[k] ? m.translate(t.gm[k]) : 0;
          std::memcpy(blk + sizeof a + 8 * k, &d, 8);
        }
        std::memcpy(blk + sizeof a + 8 * t.gm.size(), t.args.data(), 8 * t.args.size());
      }
      m.check(api.aclrtMemcpy(dev_args, total, host.data(), total, kMemcpyHostToDevice), "aclrtMemcpy (task arguments)");

      // Kahn order; a task continues the stream of its first predecessor, others go round-robin.
      std::vector<uint32_t> preds(dt.tasks.size());
      std::vector<std::vector<uint32_t>> pred_list(dt.tasks.size());
      for (uint32_t i = 0; i < dt.tasks.size(); ++i)
        for (uint32_t s : dt.tasks[i].succ) ++preds[s], pred_list[s].push_back(i);
      std::vector<uint32_t> ready;
      for (uint32_t i = 0; i < dt.tasks.size(); ++i)
        if (preds[i] == 0) ready.push_back(i);
      std::vector<Timing> timing(dt.tasks.size());
      int rr = 0;
      for (size_t head = 0; head < ready.size(); ++head) {
        uint32_t i = ready[head];
        const auto& t = dt.tasks[i];
        int stream = pred_list[i].empty() ? (rr++ % m.stream_count()) : timing[pred_list[i].front()].stream;
        for (uint32_t pr : pred_list[i])
          if (timing[pr].stream != stream)
            m.check(api.aclrtStreamWaitEvent(m.streams[size_t(stream)], timing[pr].end), "aclrtStreamWaitEvent");
        Timing& tm = timing[i];
        tm.seq = dt.seq, tm.index = i, tm.stream = stream;
        m.check(api.aclrtCreateEvent(&tm.start), "aclrtCreateEvent");
        m.check(api.aclrtCreateEvent(&tm.end), "aclrtCreateEvent");
        m.check(api.aclrtRecordEvent(tm.start, m.streams[size_t(stream)]), "aclrtRecordEvent");
        const LeafFunction& leaf = m.p.leaves.at(size_t(t.cls));
        aclrtArgsHandle args = nullptr;
        m.check(api.aclrtKernelArgsInit(m.funcs.at(size_t(leaf.kernel)), &args), "aclrtKernelArgsInit");
        uint64_t block = dev_base + offset[i];
        aclrtParamHandle ph = nullptr;
        m.check(api.aclrtKernelArgsAppend(args, &block, sizeof block, &ph), "aclrtKernelArgsAppend");
        m.check(api.aclrtKernelArgsFinalize(args), "aclrtKernelArgsFinalize");
        m.check(api.aclrtLaunchKernelWithConfig(m.funcs[size_t(leaf.kernel)], 1, m.streams[size_t(stream)], nullptr, args,
                                                nullptr),
                "aclrtLaunchKernelWithConfig");
        m.check(api.aclrtRecordEvent(tm.end, m.streams[size_t(stream)]), "aclrtRecordEvent");
        ++m.launched;
        for (uint32_t s : t.succ)
          if (--preds[s] == 0) ready.push_back(s);
      }
      if (ready.size() != dt.tasks.size())
        throw AclCallError(fmt::format("device task {} has a dependency cycle; {} of {} tasks could not be launched",
                                       dt.seq, dt.tasks.size() - ready.size(), dt.tasks.size()));
      for (auto s : m.streams) m.check(api.aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
      // Host-measured spans relative to the round's first event.
      for (const auto& tm : timing) {
        float start_ms = 0, end_ms = 0;
        m.check(api.aclrtEventElapsedTime(&start_ms, t0, tm.start), "aclrtEventElapsedTime");
        m.check(api.aclrtEventElapsedTime(&end_ms, t0, tm.end), "aclrtEventElapsedTime");
        const auto& t = dt.tasks[tm.index];
        const auto& root = dt.roots[t.root_instance];
        sim::TaskRecord r;
        r.core = tm.stream, r.core_type = m.p.leaves.at(size_t(t.cls)).core, r.seq = dt.seq, r.task_index = tm.index;
        r.task_id = t.task_id, r.root = root.root, r.root_hash = m.p.roots[size_t(root.root)].hash;
        r.leaf = t.leaf, r.cls = t.cls, r.leaf_hash = m.p.leaves.at(size_t(t.cls)).hash;
        r.op_magic = task_op_magic(m.p.roots[size_t(root.root)], t.task);
        r.start_ps = round_offset_ps + int64_t(double(start_ms) * 1e9);
        r.end_ps = round_offset_ps + int64_t(double(end_ms) * 1e9);
        r.ready_ps = r.dispatch_ps = r.start_ps;
        r.total_cycles = int64_t(double(r.end_ps - r.start_ps) * trace.core_mhz / 1e6);
        r.succ_begin = uint32_t(rt.succ_ids.size());
        for (uint32_t s : t.succ) rt.succ_ids.push_back(dt.tasks[s].task_id);
        r.succ_count = uint32_t(t.succ.size());
        round_end_ps = std::max(round_end_ps, r.end_ps);
        rt.tasks.push_back(r);
        api.aclrtDestroyEvent(tm.start);
        api.aclrtDestroyEvent(tm.end);
      }
      m.api.aclrtFree(dev_args);
      cf.release(dt.seq);
      ++rt.summary.device_tasks;
    }
    api.aclrtDestroyEvent(t0);
    std::stable_sort(rt.tasks.begin(), rt.tasks.end(), [](auto& a, auto& b) { return a.end_ps < b.end_ps; });
    auto& s = rt.summary;
    s.launch_ps = round_offset_ps;
    s.tasks = rt.tasks.size();
    if (!rt.tasks.empty()) {
      int64_t first = INT64_MAX, busy = 0;
      std::map<int, bool> used;
      for (const auto& r : rt.tasks) first = std::min(first, r.start_ps), busy += r.end_ps - r.start_ps, used[r.core] = true;
      s.first_task_start_ps = first, s.last_task_end_ps = round_end_ps;
      s.aicore_e2e_ps = round_end_ps - first;
      s.cores_used = int(used.size());
      s.busy_core_ps = busy;
      s.aicore_utilization = s.aicore_e2e_ps > 0 ? double(busy) / (double(used.size()) * double(s.aicore_e2e_ps)) : 0;
      s.operator_e2e_ps = round_end_ps - round_offset_ps;
      s.end_ps = round_end_ps;
    }
    trace.rounds.push_back(std::move(rt));
    round_offset_ps = round_end_ps + 1'000'000;  // rounds laid end to end, 1 us apart
  }
  return trace;
}

}  // namespace ptoc::ascend
