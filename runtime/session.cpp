#include "session.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "runtime/core/resource_limits.h"
#include "runtime/program/bind_dims.h"
#include "runtime/program/knobs.h"
#include "runtime/ascend/acl_api.h"
#include "runtime/ascend/ascend_launcher.h"
#include "runtime/control_flow.h"
#include "runtime/executor.h"
#include "runtime/host_twin.h"
#include "runtime/leaf_exec.h"
#include "runtime/task_preflight.h"
#include "runtime/sim/machine.h"

namespace ptoc::runtime {

namespace {

std::vector<TensorDecl> spec_tensors(const CompiledProgram& p) {
  std::vector<TensorDecl> v;
  for (auto& t : p.tensors) {
    if (t.role == GmTensor::Role::Temp) continue;
    TensorDecl d;
    d.name = t.name;
    d.role = t.role == GmTensor::Role::Input ? TensorRole::Input
             : t.role == GmTensor::Role::Output ? TensorRole::Output
                                                : TensorRole::Workspace;
    d.dtype = t.dtype;
    d.shape = t.shape;
    d.format = t.format;
    d.l2_bypass = t.l2_bypass;
    d.values_lo = t.values_lo;
    d.values_hi = t.values_hi;
    v.push_back(std::move(d));
  }
  return v;
}


// Process CPU seconds (user + system, all threads): throughput is per CPU second, so other load on
// a shared machine does not count.
double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

}  // namespace

struct Session::Impl {
  std::map<std::string, TensorData> inputs;       // by name, in the tensors' dtypes
  std::map<std::string, int64_t> explicit_dims;
  DimExpr::Env env;                               // bound at run()
  RunResult result;
  bool ran = false;
  // Outputs after a run with numerics, by spec tensor index.
  std::map<int, TensorData> outputs;
};

Session::Session(const std::string& path) : bundle_(read_bundle(path)), options_(bundle_.program.options),
                                            impl_(std::make_unique<Impl>()) {}
Session::~Session() = default;

static std::string names_with_role(const CompiledProgram& p, GmTensor::Role r) {
  std::string s;
  for (auto& t : p.tensors)
    if (t.role == r) s += (s.empty() ? "" : ", ") + t.name;
  return s.empty() ? "(none)" : s;
}

static int find_role(const CompiledProgram& p, const std::string& name, GmTensor::Role role) {
  for (size_t i = 0; i < p.tensors.size(); ++i)
    if (p.tensors[i].name == name && p.tensors[i].role == role) return int(i);
  return -1;
}

int Session::input_index(const std::string& name) const {
  int i = find_role(program(), name, GmTensor::Role::Input);
  if (i < 0)
    throw UsageError("the operator has no input '" + name + "' (inputs: " +
                     names_with_role(program(), GmTensor::Role::Input) + ")");
  return i;
}

int Session::output_index(const std::string& name) const {
  int i = find_role(program(), name, GmTensor::Role::Output);
  if (i < 0)
    throw UsageError("the operator has no output '" + name + "' (outputs: " +
                     names_with_role(program(), GmTensor::Role::Output) + ")");
  return i;
}

static std::vector<std::string> names_of(const CompiledProgram& p, GmTensor::Role r) {
  std::vector<std::string> v;
  for (auto& t : p.tensors)
    if (t.role == r) v.push_back(t.name);
  return v;
}
std::vector<std::string> Session::input_names() const { return names_of(program(), GmTensor::Role::Input); }
std::vector<std::string> Session::output_names() const { return names_of(program(), GmTensor::Role::Output); }

void Session::set_input(const std::string& name, TensorData t) {
  int i = input_index(name);
  if (t.dtype != program().tensors[size_t(i)].dtype)
    throw UsageError(fmt::format("input {}: data is {} but the tensor is {}", name, dtype_name(t.dtype),
                                 dtype_name(program().tensors[size_t(i)].dtype)));
  impl_->inputs[name] = std::move(t);
}

void Session::set_dim(const std::string& name, int64_t value) {
  bool known = false;
  for (const auto& d : program().dims) known |= d.name == name;
  if (!known) {
    std::string all;
    for (const auto& d : program().dims) all += (all.empty() ? "" : ", ") + d.name;
    throw UsageError("the operator has no dim '" + name + "' (dims: " + all + ")");
  }
  impl_->explicit_dims[name] = value;
}

void Session::apply_runtime_sets(const std::vector<std::string>& sets) {
  // The same table, ranges and messages as ptoc's --set (compiler/frontend/options.cpp); only knobs the
  // table marks run_time apply without a recompile.
  for (const std::string& item : sets) {
    const std::optional<KnobAssignment> a = split_knob_assignment(item);
    if (!a) throw UsageError("--set '" + item + "': expected GROUP.KEY=VALUE");
    const Knob* k = find_knob(a->group, a->key);
    if (!k || !k->run_time || !a->entry.empty())
      throw UsageError("--set " + a->lhs() + ": ptorun can change " + run_time_knob_list() +
                       "; other options need a recompile with ptoc --set");
    const int64_t v = parse_integer(a->value, "--set " + k->name());
    if (v < k->lo || v > k->hi)
      throw UsageError("--set " + k->name() + ": " + std::to_string(v) + " is out of range; allowed: " + k->range());
    if (auto why = knob_refusal(*k, v); !why.empty())
      throw UsageError("--set " + k->name() + ": " + std::to_string(v) + " is not supported: " + std::string(why));
    k->set(options_, v);
  }
}

// `auto`: the NPU when the ACL runtime loads, reports a device, and the bundle carries device binaries.
static bool ascend_usable(const LoadedBundle& b) {
  if (b.device_binaries.empty()) return false;
  try {
    const auto& api = ascend::load_acl();
    uint32_t n = 0;
    return api.aclrtGetDeviceCount(&n) == ascend::kAclSuccess && n > 0;
  } catch (const ascend::AclUnavailable&) {
    return false;
  }
}

const RunResult& Session::run(const RunConfig& cfg) {
  const CompiledProgram& p = program();
  auto& m = *impl_;
  if (cfg.backend != "sim" && cfg.backend != "ascend" && cfg.backend != "auto")
    throw UsageError("backend '" + cfg.backend + "': use sim, ascend or auto");
  if (cfg.rounds < 1) throw UsageError("rounds must be >= 1");
  std::map<std::string, std::vector<int64_t>> shapes;
  for (auto& [n, t] : m.inputs) shapes[n] = t.shape;
  const std::vector<TensorDecl> decls = spec_tensors(p);
  m.env = bind_dims(p.dims, decls, shapes, m.explicit_dims);
  if (cfg.numerics) {
    // Before inputs are generated or GM is mapped: a run that cannot fit is refused, named.
    // (A timing-only run maps no GM.)
    std::vector<GmDemand> demand;
    for (size_t i = 0; i < decls.size(); ++i)
      if (p.tensors[i].inplace < 0)  // an in-place output is its input's memory
        demand.push_back({decls[i].name, decls[i].dtype, concrete_shape(decls[i], m.env)});
    check_gm_fits(demand, uint64_t(limits::get(limits::Id::gm_bytes)));
  }
  // Missing inputs are generated only when numbers are computed: a timing-only run of a large shape needs none.
  // The int32 inputs the control flow reads run-time values from are needed either way: a timing-only
  // run draws them exactly as a run with numbers does, so both see the same trip counts.
  const std::vector<int> host_read = host_value_tensors(p);
  for (auto& d : decls) {
    if (d.role != TensorRole::Input || m.inputs.count(d.name)) continue;
    const bool read_by_control = std::count(host_read.begin(), host_read.end(), input_index(d.name)) > 0;
    if (read_by_control && d.values_hi < d.values_lo)
      throw UsageError("input '" + d.name + "' holds run-time values the control flow reads: give it with --input " +
                       d.name + "=FILE.npy, or declare 'values: [lo, hi]' for it in the spec to have it generated");
    if (cfg.numerics || read_by_control) m.inputs[d.name] = random_input(d, concrete_shape(d, m.env), cfg.seed);
  }

  const std::string platform_name = cfg.platform.empty() ? p.target : cfg.platform;
  const Platform* platform = find_platform(platform_name);
  if (!platform)
    throw UsageError((cfg.platform.empty() ? "the bundle's target '" : "--platform '") + platform_name +
                     "' is not a known platform (known: " + platform_names() + ")");
  ControlFlowOptions cfo = ControlFlowOptions::from(options_);
  cfo.host_values.assign(p.tensors.size(), nullptr);
  for (int t : host_read) cfo.host_values[size_t(t)] = &m.inputs.at(p.tensors[size_t(t)].name);
  m.result = RunResult{};
  m.result.platform = platform;
  m.outputs.clear();
  auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_seconds();

  const bool on_npu = cfg.backend == "ascend" || (cfg.backend == "auto" && ascend_usable(bundle_));
  if (on_npu) {
    ascend::AscendOptions ao;
    ao.rounds = cfg.rounds;
    try {
      ascend::AscendLauncher launcher(p, bundle_.device_binaries, m.env, cfo, ao);
      for (auto& [name, t] : m.inputs) launcher.load(input_index(name), t);
      m.result.trace = launcher.run();
      for (size_t i = 0; i < p.tensors.size(); ++i)
        if (p.tensors[i].role == GmTensor::Role::Output) m.outputs[int(i)] = launcher.read(int(i));
      m.result.tasks = launcher.tasks_launched();
    } catch (const ascend::AclUnavailable& e) {
      throw EnvError(e.what());
    }
    m.result.backend = "ascend";
  } else {
    // The numerics: host-twin kernels over a GM arena, one device task at a time as the
    // simulated machine finishes it (a device task only starts after those it waits for, so
    // finishing order is a valid execution order). Only the first round computes: later
    // launches would recompute the same numbers.
    std::unique_ptr<KernelRunner> twin;
    std::unique_ptr<Executor> ex;
    auto first = std::make_unique<ControlFlow>(p, m.env, [&] {
      ControlFlowOptions o = cfo;
      o.resolve_args = cfg.numerics;  // round 0's walk feeds the executor
      o.lazy_accesses = !cfg.numerics;  // and its accesses; the simulator's are rebuilt per running task
      return o;
    }());
    const GmLayout layout = first->layout();  // every walk lays GM out the same way
    if (cfg.numerics) {
      // Every task's GM windows and local tiles, for these dims, before the first kernel call.
      if (std::string bad = preflight_tasks(p, m.env, cfo); !bad.empty()) throw BundleError(bundle_.path + ": " + bad);
      if (cfg.twin == "cce") {
        if (bundle_.host_twin_so.empty())
          throw BundleError(bundle_.path + ": the bundle holds no compiled host twin, which --twin=cce runs: "
                            "recompile it with ptoc --host-twin=cce, or run without --twin=cce (its leaf programs)");
        try {
          twin = std::make_unique<HostTwin>(bundle_.host_twin_so, p.kernels);
        } catch (const HostTwinError& e) {
          throw EnvError(bundle_.path + ": " + e.what());
        }
      } else {
        try {
          twin = std::make_unique<LeafExecutor>(p.kernels);
        } catch (const leaf::LeafProgramError& e) {
          throw BundleError(bundle_.path + ": " + e.what());
        }
      }
      ex = std::make_unique<Executor>(p, layout, *twin, cfg.jobs);
      for (auto& [name, t] : m.inputs) ex->load(input_index(name), t);
    }
    const bool observe = ex && cfg.on_device_task_run && ex->record_accesses(true);
    // The simulator reads no kernel argument: the later rounds' walks (timing only) leave them out.
    ControlFlowOptions sim_cfo = cfo;
    sim_cfo.resolve_args = false;
    sim_cfo.lazy_accesses = true;
    sim::SimOptions so;
    so.rounds = cfg.rounds;
    so.device_sched_mode = options_.device_sched_mode;
    so.keep_task_records = cfg.keep_task_records;
    so.task_record_cap = uint64_t(limits::get(limits::Id::task_records));
    so.on_progress = cfg.on_progress;
    int sim_round = 0;  // the round the simulator runs: rounds run one after another
    if (cfg.on_task_record)
      so.task_sink = [&](const sim::TaskRecord& r, const DeviceTask& dt) { cfg.on_task_record(sim_round, r, dt); };
    if (cfg.on_task_start)
      so.on_task_start = [&](const DeviceTask& dt, uint32_t i) { cfg.on_task_start(sim_round, dt, i); };
    // One control-flow walk per launch. A round's device tasks may still finish after the next
    // round started building, so the walks of the current and previous rounds stay alive.
    std::map<int, std::unique_ptr<ControlFlow>> walks;
    walks[0] = std::move(first);
    auto fold_stats = [&](const ControlFlow& w) {
      m.result.tasks += w.stats().tasks;
      m.result.device_tasks += w.stats().device_tasks;
      m.result.root_instances += w.stats().root_instances;
    };
    sim::DeviceTaskSource source = [&](int round, DeviceTask& out) {
      sim_round = round;
      auto it = walks.find(round);
      if (it == walks.end()) {
        while (!walks.empty() && walks.begin()->first < round - 1) {
          fold_stats(*walks.begin()->second);
          walks.erase(walks.begin());
        }
        it = walks.emplace(round, std::make_unique<ControlFlow>(p, m.env, sim_cfo)).first;
      }
      bool more = it->second->next(out);
      if (more && round == 0 && !observe && cfg.on_device_task) cfg.on_device_task(out);
      if (more && cfg.on_device_task_built) cfg.on_device_task_built(round, out);
      return more;
    };
    so.task_accesses = [&](int round, const DeviceTask& dt, uint32_t t, std::vector<GmAccess>& out) {
      auto it = walks.find(round);
      return it != walks.end() && it->second->task_accesses(dt, t, out);
    };
    so.on_device_task_done = [&](int round, const DeviceTask& dt) {
      auto it = walks.find(round);
      if (it == walks.end()) return;
      if (ex && round == 0) {
        ex->map_slabs(it->second->slabs());
        ex->run(dt);
        if (observe) cfg.on_device_task_run(dt, ex->observed(), layout.base);
      }
      it->second->release(dt.seq);
    };
    m.result.trace = sim::simulate(*platform, p, so, source);
    for (auto& [r, w] : walks) fold_stats(*w);
    if (ex)
      for (size_t i = 0; i < p.tensors.size(); ++i)
        if (p.tensors[i].role == GmTensor::Role::Output) m.outputs[int(i)] = ex->read(int(i));
    m.result.backend = "sim";
  }
  m.result.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.result.host_cpu_seconds = process_cpu_seconds() - cpu0;
  m.ran = true;
  return m.result;
}

const RunResult& Session::result() const {
  if (!impl_->ran) throw UsageError("the bundle has not run yet");
  return impl_->result;
}

TensorData Session::output(const std::string& name) const {
  int i = output_index(name);
  auto it = impl_->outputs.find(i);
  if (it == impl_->outputs.end())
    throw UsageError("output '" + name + "' has no data: run the bundle with numerics first (not --timing-only)");
  return it->second;
}

const std::map<std::string, TensorData>& Session::inputs() const { return impl_->inputs; }
const DimExpr::Env& Session::dims() const { return impl_->env; }
const std::map<int, TensorData>& Session::outputs() const { return impl_->outputs; }

}  // namespace ptoc::runtime
