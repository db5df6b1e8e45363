// `ptorun BUNDLE --input ... --output ... [--dim] [--seed] [--check]`: the
// command-line face of runtime::Session. Reads the .npy inputs, runs the
// bundle on the chosen backend, writes the profiling artifacts the switches
// ask for, writes the outputs, and with --check compares them with the
// reference evaluator (the tolerance rule is documented in compiler/eval/run_check.cpp).
#include <fmt/format.h>

#include "cli/run_progress.h"
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "runtime/core/atomic_file.h"
#include "runtime/program/bind_dims.h"
#include "runtime/program/program_json.h"
#include "runtime/program/knobs.h"
#include "compiler/eval/reference_eval.h"
#include "compiler/eval/run_check.h"
#include "runtime/control_flow.h"
#include "runtime/dep_check.h"
#include "runtime/error_status.h"
#include "cli/ptorun_commands.h"
#include "runtime/gm_arena.h"
#include "runtime/profiling/artifacts.h"
#include "runtime/profiling/run_folder.h"
#include "runtime/profiling/task_stream.h"
#include "runtime/core/resource_limits.h"
#include "runtime/session.h"

namespace ptoc::runtime {

namespace {



// Peak resident memory of this process: VmHWM (the high-water mark of its own address space;
// getrusage's ru_maxrss would also count a parent's memory at fork time, kept across exec).
double peak_rss_mib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return double(std::strtoull(line.c_str() + 6, nullptr, 10)) / 1024.0;
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

// The profiling switches: debug mode 1+ (swimlane), DUMP_DEVICE_PERF, PMU group, PMU trace.
profiling::ArtifactRequest artifact_request(const RunArgs& a, const Session& s, const Options& opts) {
  profiling::ArtifactRequest rq;
  rq.swimlane = opts.runtime_debug_mode >= 1;
  const char* dump = std::getenv("DUMP_DEVICE_PERF");
  rq.device_perf = a.dump_device_perf || (dump && std::string(dump) == "true");
  rq.pmu_group = a.pmu_event_type;
  if (rq.pmu_group < 0)
    if (const char* e = std::getenv("PYPTO_PROF_PMU_EVENT_TYPE"); e && *e)
      rq.pmu_group = int(parse_integer(e, "PYPTO_PROF_PMU_EVENT_TYPE"));
  if (rq.pmu_group >= 0 && rq.pmu_group != 1 && rq.pmu_group != 2 && (rq.pmu_group < 4 || rq.pmu_group > 8))
    throw UsageError("PMU event type " + std::to_string(rq.pmu_group) + " does not exist: use 1, 2, 4, 5, 6, 7 or 8");
  rq.pmu_trace = s.program().options.enable_pmu_trace;
  return rq;
}

bool cfo_drops_edges() { return ControlFlowOptions::from(Options{}).drop_compiler_edges; }

int run_impl(const RunArgs& a) {
  Session s(a.bundle);
  const CompiledProgram& p = s.program();
  s.apply_runtime_sets(a.sets);
  if (a.runtime_debug_mode >= 0) {
    if (auto why = knob_refusal(*find_knob("debug", "runtime_debug_mode"), a.runtime_debug_mode); !why.empty())
      throw UsageError("--runtime-debug-mode " + std::to_string(a.runtime_debug_mode) + ": " + std::string(why));
    s.options().runtime_debug_mode = a.runtime_debug_mode;
  }
  const Options& opts = s.options();

  for (auto& [name, file] : parse_assignments(a.inputs, "--input")) {
    int ti = s.input_index(name);
    s.set_input(name, read_npy_as(file, p.tensors[size_t(ti)].dtype, name));
  }
  auto outputs = parse_assignments(a.outputs, "--output");
  for (auto& [name, file] : outputs) s.output_index(name);
  for (auto& [name, v] : parse_assignments(a.dims, "--dim")) s.set_dim(name, parse_integer(v, "--dim " + name));

  profiling::ArtifactRequest rq = artifact_request(a, s, opts);
  std::unique_ptr<DependencyChecker> deps;
  RunConfig cfg;
  cfg.backend = a.backend;
  cfg.platform = a.platform;
  cfg.numerics = !a.timing_only;
  cfg.rounds = a.rounds;
  cfg.jobs = a.jobs;
  cfg.twin = a.twin;
  if (a.twin == "cce")
    std::cerr << "ptorun: note: --twin=cce loads and runs the host shared library stored in the bundle: use it only "
                 "on bundles you trust (specs/README.md, Limits); the default leaf-program numerics run any bundle safely\n";
  cfg.seed = a.seed;
  // Profiled runs stream their task records into the run folder as the simulator produces them
  // (profiling/task_stream.h), so the folder exists from the start; it keeps its .partial name
  // until the last file is written, and is removed if the run itself fails.
  std::unique_ptr<profiling::TaskStream> stream;
  struct PartialFolder {
    std::string path;
    ~PartialFolder() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove_all(path, ec);
    }
  } partial;
  if (rq.any() || opts.runtime_debug_mode == 3) {
    rq.folder = partial.path = profiling::create_run_folder(profiling::resolve_output_base(a.output_dir));
    if (rq.any() && a.backend != "ascend") {
      const std::string platform_name = a.platform.empty() ? p.target : a.platform;
      const Platform* platform = find_platform(platform_name);
      const uint64_t cap = uint64_t(limits::get(limits::Id::task_records));
      if (platform && rq.pmu_group > 0)
        stream = std::make_unique<profiling::TaskStream>(rq.folder, a.rounds - 1, rq.swimlane, cap, p, *platform,
                                                         rq.pmu_group);
      else
        stream = std::make_unique<profiling::TaskStream>(rq.folder, a.rounds - 1, rq.swimlane, cap);
      if (!rq.swimlane && !rq.pmu_trace) stream->keep_none();
      cfg.on_task_record = [&](int round, const sim::TaskRecord& t, const DeviceTask& dt) { stream->add(round, t, dt); };
      cfg.on_device_task_built = [&](int round, const DeviceTask& dt) { stream->built(round, dt); };
      if (stream->writes_pmu())
        cfg.on_task_start = [&](int round, const DeviceTask& dt, uint32_t i) { stream->started(round, dt, i); };
    }
  }
  cfg.keep_task_records = rq.any();  // the NPU's trace (the simulator streams to `stream`)
  ProgressLine progress(std::cerr);
  if (!a.quiet) cfg.on_progress = [&](int round, uint64_t done, int64_t ps) { progress.update(round, done, ps); };
  if (cfo_drops_edges())
    std::cerr << "ptorun: warning: PTORUN_TEST_DROP_EDGES=1: the compiler's task-graph edges are ignored (a test "
                 "switch: numbers may be wrong)\n";
  if (opts.runtime_debug_mode == 3) {
    deps = std::make_unique<DependencyChecker>(p);
    cfg.on_device_task = [&](const DeviceTask& dt) { deps->check(dt); };
    cfg.on_device_task_run = [&](const DeviceTask& dt, const std::vector<std::vector<GmAccess>>& observed,
                                 const std::vector<uint64_t>& base) {
      deps->set_tensor_bases(base);
      deps->check(dt, &observed);
    };
  }
  const RunResult& r = s.run(cfg);
  const auto& last = r.trace.rounds.back().summary;
  std::cout << fmt::format("ran {} on {} ({}): {} tasks in {} device tasks ({} root-function instances){}{}; "
                           "operator end-to-end {:.2f} us; host {:.3f} s\n",
                           p.name, r.platform->name, r.backend == "sim" ? "simulated" : "NPU, host-measured", r.tasks,
                           r.device_tasks, r.root_instances,
                           a.rounds > 1 ? fmt::format(" over {} rounds", a.rounds) : "",
                           cfg.numerics ? "" : ", timing only", sim::Trace::us(last.operator_e2e_ps), r.host_seconds);
  // The simulator's own throughput (issue 5): tasks and machine-model events (Trace::events, all
  // rounds) per CPU second of the run. One line, stable wording: benchmarks parse it.
  if (r.backend == "sim") {
    const double cpu = std::max(r.host_cpu_seconds, 1e-9);
    std::cout << fmt::format("simulator: {} tasks, {} model events in {:.3f} host CPU s: {:.3f} M tasks/CPU s, "
                             "{:.3f} M events/CPU s; peak RSS {:.1f} MiB\n",
                             r.tasks, r.trace.events, r.host_cpu_seconds, double(r.tasks) / cpu / 1e6,
                             double(r.trace.events) / cpu / 1e6, peak_rss_mib());
  }

  int status = kExitOk;
  if (rq.any() || deps) {
    partial.path.clear();  // from here a failure leaves the folder marked incomplete (run_folder.h)
    if (rq.any() && stream && r.backend == "sim")
      profiling::write_artifacts(rq, r.trace, *stream, p, *r.platform, std::cout);
    else if (rq.any())
      profiling::write_artifacts(rq, r.trace, p, *r.platform, std::cout);
    stream.reset();
    if (rq.swimlane) {
      const std::string graph = program_json_text(p);
      if (!graph.empty()) write_file_atomic(rq.folder + "/program.json", graph);
    }
    if (deps) {
      std::filesystem::create_directories(rq.folder + "/dep_verify_dump");
      write_file_atomic(rq.folder + "/dep_verify_dump/mem_rawtensor_access.csv", deps->access_csv());
      write_file_atomic(rq.folder + "/dep_verify_dump/violations.csv", deps->violations_csv());
      if (deps->violations().empty()) {
        std::cout << fmt::format("dependency check: ok ({} tasks, {} overlapping pairs with a write, all ordered)\n",
                                 deps->tasks_checked(), deps->pairs_compared());
      } else {
        std::cerr << fmt::format("ptorun: error: dependency check: {} pairs of unordered tasks touch the same GM bytes "
                                 "with a write:\n{}",
                                 deps->violations().size(), deps->describe());
        status = kExitError;
      }
    }
    rq.folder = profiling::finish_run_folder(rq.folder);  // complete: drop the .partial mark
    std::cout << "artifacts: " << rq.folder << "\n";
  }

  if (!cfg.numerics) {
    if (!outputs.empty() || a.check)
      std::cerr << "ptorun: warning: --timing-only computes no numbers: --output and --check are ignored\n";
    return status;
  }
  for (auto& [name, file] : outputs) {
    try {
      write_npy(file, s.output(name));
    } catch (const NpyError& e) {
      // An output that cannot be written (ENOSPC, EACCES, a directory): 1, with the path and the reason.
      std::cerr << "ptorun: error: --output " << name << ": " << e.what() << "\n";
      return kExitError;
    }
  }
  if (!a.check) return status;
  bool ok = true;
  for (const auto& line : check_run(s)) {
    std::cout << line.text << "\n";
    ok = ok && line.ok;
  }
  if (!ok) {
    std::cerr << "ptorun: error: --check failed: outputs differ from the reference evaluator past the tolerance\n";
    return kExitError;
  }
  return status;
}

}  // namespace

int run(const RunArgs& a) {
  try {
    return run_impl(a);
  } catch (const EvalError& e) {
    std::cerr << "ptorun: error: --check: reference evaluator: " << e.what() << "\n";
    return kExitError;
  } catch (const BundleError& e) {
    std::cerr << "ptorun: error: " << e.what() << "\n";
    return kExitError;
  } catch (const UsageError& e) {
    std::cerr << "ptorun: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const EnvError& e) {
    std::cerr << "ptorun: error: " << e.what() << "\n";
    return kExitEnv;
  } catch (const BindError& e) {
    std::cerr << "ptorun: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const NpyError& e) {
    std::cerr << "ptorun: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::runtime_error& e) {
    // Control flow, GM arena, the simulated machine or the NPU launcher stopped: name the bundle.
    std::cerr << "ptorun: error: " << a.bundle << ": " << e.what() << "\n";
    return exit_code_of(std::current_exception());
  }
}

}  // namespace ptoc::runtime
