// `ptorun BUNDLE --input ... --output ... [--dim] [--seed] [--check]`: bind
// dims, fill missing inputs, walk the control flow, run every task's host-twin
// kernel, write the outputs, and with --check compare them with the reference
// evaluator run on the tensor graph rebuilt from the bundle's spec text.
//
// --check tolerance, per output element (floats):
//   |got - ref| <= rtol * |ref| + atol,   atol = rtol * mean(|ref|) over the output
// with rtol = 1e-4 (fp32), 1e-2 (fp16), 4e-2 (bf16): rounding of one ulp-ish per op in
// low precision, and accumulation-order differences in long sums, which scale with the
// output's magnitude rather than each element's. NaN must match NaN; Inf must match
// exactly. Integer and bool outputs must match exactly.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>

#include "compiler/eval/bind_dims.h"
#include "compiler/eval/reference_eval.h"
#include "compiler/frontend/frontend.h"
#include "runtime/bundle.h"
#include "runtime/control_flow.h"
#include "runtime/driver.h"
#include "runtime/executor.h"
#include "runtime/host_twin.h"
#include "runtime/platform.h"
#include "runtime/profiling/artifacts.h"
#include "runtime/profiling/run_folder.h"
#include "runtime/sim/machine.h"

namespace ptoc::runtime {

namespace {

enum Exit { kOk = 0, kBad = 1, kUsage = 2, kEnv = 3 };

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
    v.push_back(std::move(d));
  }
  return v;
}

std::string names_with_role(const CompiledProgram& p, GmTensor::Role r) {
  std::string s;
  for (auto& t : p.tensors)
    if (t.role == r) s += (s.empty() ? "" : ", ") + t.name;
  return s.empty() ? "(none)" : s;
}

int find_tensor(const CompiledProgram& p, const std::string& name, GmTensor::Role role) {
  for (size_t i = 0; i < p.tensors.size(); ++i)
    if (p.tensors[i].name == name && p.tensors[i].role == role) return int(i);
  return -1;
}

int64_t parse_int(const std::string& v, const std::string& what) {
  try {
    size_t used = 0;
    int64_t x = std::stoll(v, &used);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
  throw UsageError(what + ": '" + v + "' is not an integer");
}

// `--set runtime.KEY=VALUE`: the runtime knobs that need no recompile.
void apply_sets(const std::vector<std::string>& sets, Options& o) {
  for (auto& [k, v] : parse_assignments(sets, "--set")) {
    if (k == "runtime.stitch_function_max_num") {
      o.stitch_function_max_num = parse_int(v, "--set " + k);
      if (o.stitch_function_max_num < 1 || o.stitch_function_max_num > 1024)
        throw UsageError("--set " + k + "=" + v + ": the range is 1..1024");
    } else if (k == "runtime.device_sched_mode") {
      o.device_sched_mode = int(parse_int(v, "--set " + k));
      if (o.device_sched_mode < 0 || o.device_sched_mode > 3) throw UsageError("--set " + k + "=" + v + ": the range is 0..3");
    } else if (k == "runtime.max_workspace_kb") {
      o.max_workspace_kb = parse_int(v, "--set " + k);
      if (o.max_workspace_kb < 0) throw UsageError("--set " + k + "=" + v + ": must be >= 0");
    } else if (k == "debug.runtime_debug_mode") {
      o.runtime_debug_mode = int(parse_int(v, "--set " + k));
      if (o.runtime_debug_mode < 0 || o.runtime_debug_mode > 4) throw UsageError("--set " + k + "=" + v + ": the range is 0..4");
    } else {
      throw UsageError("--set " + k + ": ptorun can change runtime.stitch_function_max_num, runtime.device_sched_mode, "
                       "runtime.max_workspace_kb and debug.runtime_debug_mode; other options need a recompile with ptoc --set");
    }
  }
}

struct Tolerance {
  double rtol = 0;
  bool exact = false;
};
Tolerance tolerance_for(DType t) {
  switch (t) {
    case DType::fp32: return {1e-4, false};
    case DType::fp16: return {1e-2, false};
    case DType::bf16: return {4e-2, false};
    default: return {0, true};
  }
}

// Compares one output; prints a line; returns false past the tolerance.
bool compare(const std::string& name, const TensorData& got, const TensorData& ref) {
  Tolerance tol = tolerance_for(ref.dtype);
  if (got.shape != ref.shape) {
    std::cout << fmt::format("check {:<12} FAIL: shape differs from the reference\n", name);
    return false;
  }
  const int64_t n = ref.numel();
  double mean_abs = 0;
  for (int64_t i = 0; i < n; ++i) {
    double r = ref.get(i);
    if (std::isfinite(r)) mean_abs += std::fabs(r);
  }
  mean_abs = n ? mean_abs / double(n) : 0;
  const double atol = tol.rtol * mean_abs;
  double worst_abs = 0, worst_rel = 0;
  int64_t bad = 0, first_bad = -1;
  for (int64_t i = 0; i < n; ++i) {
    double g = got.get(i), r = ref.get(i);
    bool ok;
    double d = 0;
    if (std::isnan(r) || std::isnan(g)) ok = std::isnan(r) && std::isnan(g);
    else if (std::isinf(r) || std::isinf(g)) ok = g == r;
    else {
      d = std::fabs(g - r);
      ok = tol.exact ? g == r : d <= tol.rtol * std::fabs(r) + atol;
      worst_abs = std::max(worst_abs, d);
      if (r != 0) worst_rel = std::max(worst_rel, d / std::fabs(r));
      else if (d > 0) worst_rel = std::max(worst_rel, d / std::max(atol, 1e-30));
    }
    if (!ok && bad++ == 0) first_bad = i;
  }
  std::string rule = tol.exact ? "exact" : fmt::format("rtol {:g}, atol {:.3g}", tol.rtol, atol);
  if (bad == 0) {
    std::cout << fmt::format("check {:<12} ok    max abs err {:.3g}  max rel err {:.3g}  ({}, {})\n", name, worst_abs,
                             worst_rel, dtype_name(ref.dtype), rule);
    return true;
  }
  // Name the first bad element by its index tuple.
  std::string idx;
  int64_t rest = first_bad;
  for (size_t a = ref.shape.size(); a-- > 0;) {
    idx = std::to_string(rest % ref.shape[a]) + (idx.empty() ? "" : ", ") + idx;
    rest /= ref.shape[a];
  }
  std::cout << fmt::format("check {:<12} FAIL  {} of {} elements off; first at [{}]: got {:g}, expected {:g}; "
                           "max abs err {:.3g}  max rel err {:.3g}  ({}, {})\n",
                           name, bad, n, idx, got.get(first_bad), ref.get(first_bad), worst_abs, worst_rel,
                           dtype_name(ref.dtype), rule);
  return false;
}

int run_impl(const RunArgs& a) {
  if (a.backend == "ascend") {
    std::cerr << "ptorun: error: --backend ascend needs the CANN runtime, which this build of ptorun does not have; "
                 "use --backend sim\n";
    return kEnv;
  }
  LoadedBundle b = read_bundle(a.bundle);
  const CompiledProgram& p = b.program;
  Options opts = p.options;
  apply_sets(a.sets, opts);
  if (a.runtime_debug_mode >= 0) opts.runtime_debug_mode = a.runtime_debug_mode;

  // Inputs given on the command line, in their tensors' dtypes.
  std::map<std::string, TensorData> inputs;
  std::map<std::string, std::vector<int64_t>> shapes;
  for (auto& [name, file] : parse_assignments(a.inputs, "--input")) {
    int ti = find_tensor(p, name, GmTensor::Role::Input);
    if (ti < 0)
      throw UsageError("--input " + name + ": the operator has no input '" + name +
                       "' (inputs: " + names_with_role(p, GmTensor::Role::Input) + ")");
    TensorData t = read_npy_as(file, p.tensors[size_t(ti)].dtype, name);
    shapes[name] = t.shape;
    inputs[name] = std::move(t);
  }
  auto outputs = parse_assignments(a.outputs, "--output");
  for (auto& [name, file] : outputs)
    if (find_tensor(p, name, GmTensor::Role::Output) < 0)
      throw UsageError("--output " + name + ": the operator has no output '" + name +
                       "' (outputs: " + names_with_role(p, GmTensor::Role::Output) + ")");
  std::map<std::string, int64_t> explicit_dims;
  for (auto& [name, v] : parse_assignments(a.dims, "--dim")) explicit_dims[name] = parse_int(v, "--dim " + name);

  const std::vector<TensorDecl> decls = spec_tensors(p);
  DimExpr::Env env = bind_dims(p.dims, decls, shapes, explicit_dims);
  for (auto& d : decls)
    if (d.role == TensorRole::Input && !inputs.count(d.name))
      inputs[d.name] = random_tensor(d.dtype, concrete_shape(d, env), a.seed, d.name);

  ControlFlowOptions cfo = ControlFlowOptions::from(opts);
  const std::string platform_name = a.platform.empty() ? p.target : a.platform;
  const Platform* platform = find_platform(platform_name);
  if (!platform)
    throw UsageError((a.platform.empty() ? "the bundle's target '" : "--platform '") + platform_name +
                     "' is not a known platform (known: " + platform_names() + ")");

  // Artifacts: debug mode 1+ (swimlane), DUMP_DEVICE_PERF, PMU group, PMU trace.
  profiling::ArtifactRequest rq;
  rq.swimlane = opts.runtime_debug_mode >= 1;
  const char* dump = std::getenv("DUMP_DEVICE_PERF");
  rq.device_perf = a.dump_device_perf || (dump && std::string(dump) == "true");
  rq.pmu_group = a.pmu_event_type;
  if (rq.pmu_group < 0)
    if (const char* e = std::getenv("PYPTO_PROF_PMU_EVENT_TYPE"); e && *e) rq.pmu_group = int(parse_int(e, "PYPTO_PROF_PMU_EVENT_TYPE"));
  if (rq.pmu_group >= 0 && rq.pmu_group != 1 && rq.pmu_group != 2 && (rq.pmu_group < 4 || rq.pmu_group > 8))
    throw UsageError("PMU event type " + std::to_string(rq.pmu_group) + " does not exist: use 1, 2, 4, 5, 6, 7 or 8");
  rq.pmu_trace = p.options.enable_pmu_trace;

  // The numerics: host-twin kernels over a GM arena, one device task at a time as the
  // simulated machine finishes it (a device task only starts after those it waits for, so
  // finishing order is a valid execution order). Only the first round computes: later
  // launches would recompute the same numbers.
  const bool numerics = !a.timing_only;
  std::unique_ptr<HostTwin> twin;
  std::unique_ptr<Executor> ex;
  std::unique_ptr<ControlFlow> cf = std::make_unique<ControlFlow>(p, env, cfo);
  const GmLayout layout = cf->layout();  // every walk lays GM out the same way
  if (numerics) {
    try {
      twin = std::make_unique<HostTwin>(b.host_twin_so, p.kernels);
    } catch (const HostTwinError& e) {
      std::cerr << "ptorun: error: " << a.bundle << ": " << e.what() << "\n";
      return b.host_twin_so.empty() ? kBad : kEnv;
    }
    ex = std::make_unique<Executor>(p, layout, *twin, a.jobs);
    for (auto& [name, t] : inputs) ex->load(find_tensor(p, name, GmTensor::Role::Input), t);
  }

  auto t0 = std::chrono::steady_clock::now();
  sim::SimOptions so;
  so.rounds = a.rounds;
  so.device_sched_mode = opts.device_sched_mode;
  so.keep_task_records = rq.any();
  // One control-flow walk per launch. A round's device tasks may still finish after the next
  // round started building, so the walks of the current and previous rounds stay alive.
  std::map<int, std::unique_ptr<ControlFlow>> walks;
  walks[0] = std::move(cf);
  uint64_t tasks = 0, device_tasks = 0, root_instances = 0;
  auto fold_stats = [&](const ControlFlow& w) {
    tasks += w.stats().tasks;
    device_tasks += w.stats().device_tasks;
    root_instances += w.stats().root_instances;
  };
  sim::DeviceTaskSource source = [&](int round, DeviceTask& out) {
    auto it = walks.find(round);
    if (it == walks.end()) {
      while (!walks.empty() && walks.begin()->first < round - 1) {
        fold_stats(*walks.begin()->second);
        walks.erase(walks.begin());
      }
      it = walks.emplace(round, std::make_unique<ControlFlow>(p, env, cfo)).first;
    }
    return it->second->next(out);
  };
  so.on_device_task_done = [&](int round, const DeviceTask& dt) {
    auto it = walks.find(round);
    if (it == walks.end()) return;
    if (numerics && round == 0) {
      ex->map_slabs(it->second->slabs());
      ex->run(dt);
    }
    it->second->release(dt.seq);
  };
  sim::Trace trace;
  try {
    trace = sim::simulate(*platform, p, so, source);
  } catch (const ControlFlowError&) {
    throw;
  } catch (const GmError&) {
    throw;
  } catch (const std::runtime_error& e) {
    std::cerr << "ptorun: error: " << a.bundle << ": the simulated machine stopped: " << e.what() << "\n";
    return kBad;
  }
  for (auto& [r, w] : walks) fold_stats(*w);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& last = trace.rounds.back().summary;
  std::cout << fmt::format("ran {} on {} (simulated): {} tasks in {} device tasks ({} root-function instances){}{}; "
                           "operator end-to-end {:.2f} us; host {:.3f} s\n",
                           p.name, platform->name, tasks, device_tasks, root_instances,
                           a.rounds > 1 ? fmt::format(" over {} rounds", a.rounds) : "",
                           numerics ? "" : ", timing only", sim::Trace::us(last.operator_e2e_ps), secs);
  if (rq.any()) {
    rq.folder = profiling::create_run_folder(profiling::resolve_output_base(a.output_dir));
    profiling::write_artifacts(rq, trace, p, *platform, std::cout);
    std::cout << "artifacts: " << rq.folder << "\n";
  }

  if (!numerics) {
    if (!outputs.empty() || a.check)
      std::cerr << "ptorun: warning: --timing-only computes no numbers: --output and --check are ignored\n";
    return kOk;
  }
  for (auto& [name, file] : outputs) write_npy(file, ex->read(find_tensor(p, name, GmTensor::Role::Output)));

  if (!a.check) return kOk;
  if (p.spec_source.empty()) {
    std::cerr << "ptorun: error: " << a.bundle << ": the bundle holds no spec text, so --check cannot rebuild the "
                 "reference; recompile it with this ptoc\n";
    return kBad;
  }
  FrontendOptions fo;
  fo.sets = p.set_overrides;
  fo.target = p.target;
  std::ostringstream diag;
  auto prog = load_spec_text(p.spec_file.empty() ? p.name + ".yaml" : p.spec_file, p.spec_source, fo, diag);
  if (!prog) {
    std::cerr << "ptorun: error: --check: the spec stored in the bundle no longer parses with this ptorun:\n"
              << diag.str();
    return kBad;
  }
  auto ref = evaluate(*prog, inputs, env);
  bool ok = true;
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    if (p.tensors[i].role != GmTensor::Role::Output) continue;
    auto it = ref.find(p.tensors[i].name);
    if (it == ref.end()) {
      std::cout << "check " << p.tensors[i].name << " FAIL: the reference evaluator produced no such output\n";
      ok = false;
      continue;
    }
    ok = compare(p.tensors[i].name, ex->read(int(i)), it->second) && ok;
  }
  if (!ok) std::cerr << "ptorun: error: --check failed: outputs differ from the reference evaluator past the tolerance\n";
  return ok ? kOk : kBad;
}

}  // namespace

int run(const RunArgs& a) {
  try {
    return run_impl(a);
  } catch (const BundleError& e) {
    std::cerr << "ptorun: error: " << e.what() << "\n";
    return kBad;
  } catch (const UsageError& e) {
    std::cerr << "ptorun: error: " << e.what() << "\n";
    return kUsage;
  } catch (const BindError& e) {
    std::cerr << "ptorun: error: " << e.what() << "\n";
    return kUsage;
  } catch (const NpyError& e) {
    std::cerr << "ptorun: error: " << e.what() << "\n";
    return kUsage;
  } catch (const ControlFlowError& e) {
    std::cerr << "ptorun: error: " << a.bundle << ": " << e.what() << "\n";
    return kBad;
  } catch (const EvalError& e) {
    std::cerr << "ptorun: error: --check: reference evaluator: " << e.what() << "\n";
    return kBad;
  } catch (const GmError& e) {
    std::cerr << "ptorun: error: " << a.bundle << ": " << e.what() << "\n";
    return kBad;
  }
}

}  // namespace ptoc::runtime
