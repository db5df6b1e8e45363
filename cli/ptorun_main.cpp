// ptorun: runs a bundle on the simulated Ascend machine (default) or an NPU,
// and reads the profiling artifacts. Argument parsing only; the commands are in cli/ptorun_commands.h.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/ptorun_commands.h"
#include "runtime/core/exit_codes.h"
#include "runtime/core/interrupt.h"
#include "runtime/core/resource_limits.h"
#include "runtime/program/knobs.h"

int main(int argc, char** argv) {
  using namespace ptoc::runtime;
  CLI::App app{"ptorun: run a ptoc bundle on a simulated Ascend machine or a real NPU", "ptorun"};
  app.set_version_flag("--version", std::string("ptorun ") + PTOC_VERSION + " (bundle format " +
                                        std::to_string(PTOC_BUNDLE_FORMAT_VERSION) + ")");
  app.footer(
      "Examples:\n"
      "  ptorun op.bundle --input x=x.npy --output y=y.npy --check\n"
      "  ptorun op.bundle --runtime-debug-mode 1 --dump-device-perf   swimlane + stage data\n"
      "  ptorun analyze output/                                        stage table of the newest run\n"
      "  ptorun info op.bundle\n"
      "After its 'ran ...' line a simulated run prints one throughput line: 'simulator: T tasks, E model events in S\n"
      "host CPU s: X M tasks/CPU s, Y M events/CPU s; peak RSS Z MiB' (E: the machine model's events, all rounds).\n"
      "Exit status: 0 ok, 1 bad bundle, input or failed check, 2 usage error, 3 environment error, 4 internal error,\n"
      "130 interrupted (SIGINT), 143 terminated (SIGTERM): a run folder being written keeps its .partial name.");

  RunArgs r;
  app.add_option("bundle", r.bundle, "bundle written by ptoc");
  app.add_option("--input", r.inputs, "input tensor (missing inputs are filled from --seed)")->type_name("NAME=FILE.npy")->allow_extra_args(false);
  app.add_option("--output", r.outputs, "write an output tensor")->type_name("NAME=FILE.npy")->allow_extra_args(false);
  app.add_option("--dim", r.dims, "bind a dynamic dim")->type_name("NAME=VALUE")->allow_extra_args(false);
  app.add_option("--seed", r.seed, "seed for generated inputs (default 0)");
  app.add_flag("--check", r.check, "compare with the reference evaluator; fail past the dtype's tolerance");
  app.add_option("--backend", r.backend, "auto (default), sim, ascend")->check(CLI::IsMember({"auto", "sim", "ascend"}));
  app.add_option("--platform", r.platform, "simulate another platform than the bundle's target");
  app.add_flag("--timing-only", r.timing_only, "simulate timing only, skip the numerics");
  app.add_option("--rounds", r.rounds, "launch the operator N times")->check(CLI::Range(1, 100000));
  app.add_option("--runtime-debug-mode", r.runtime_debug_mode, "0 off, 1 swimlane, 2 core model, 3 dependency check, 4 GM bounds check")
      ->check(CLI::Range(0, 4));
  app.add_flag("--dump-device-perf", r.dump_device_perf, "write AICPU/AICore stage data (as DUMP_DEVICE_PERF=true)");
  app.add_option("--output-dir", r.output_dir, "base folder for output_<timestamp>/ (or TILE_FWK_OUTPUT_DIR)");
  app.add_option("--pmu-event-type", r.pmu_event_type, "PMU event group 1,2,4,5,6,7,8 (or PYPTO_PROF_PMU_EVENT_TYPE)");
  app.add_option("-j,--jobs", r.jobs, "host threads for numerics (default: all cores)");
  app.add_option("--twin", r.twin,
                 "numerics by: leaf (default: the bundle's leaf programs on precompiled kernels) or cce (the "
                 "compiled host twin of a bundle built with ptoc --host-twin=cce)")
      ->check(CLI::IsMember({"leaf", "cce"}));
  app.add_flag("-q,--quiet", r.quiet, "no progress line on stderr for long runs");
  app.add_option("--set", r.sets, "override a run-time knob (" + ptoc::run_time_knob_list() + ")")
      ->type_name("GROUP.KEY=VALUE")->allow_extra_args(false);
  bool list_knobs = false;
  app.add_flag("--list-knobs", list_knobs, "print every knob: type, values, default, whether --set may change it");

  std::vector<std::string> limit_items;
  app.add_option("--limit", limit_items, "raise or lower a resource limit (see specs/README.md, Limits), e.g. --limit gm_bytes=64G")
      ->type_name("NAME=VALUE")->allow_extra_args(false);

  std::string info_bundle, analyze_path, pmu_path;
  auto* info_cmd = app.add_subcommand("info", "print a readable summary of a bundle");
  info_cmd->add_option("bundle", info_bundle)->required();
  bool info_instances = false;
  info_cmd->add_flag("--instances,--verbose", info_instances, "also list every task instance (class, leaf, successors)");
  auto* analyze_cmd = app.add_subcommand("analyze", "per-round stage table from machine_trace_perf_data_*.json");
  analyze_cmd->add_option("path", analyze_path, "perf JSON file, or a folder (newest perf file in it)")->required();
  auto* pmu_cmd = app.add_subcommand("pmu-csv", "print tilefwk_prof_pmu.csv as a table");
  pmu_cmd->add_option("path", pmu_path, "CSV file or a run folder")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    app.exit(e);
    return ptoc::kExitUsage;
  }
  if (std::string err = ptoc::limits::apply_all(limit_items); !err.empty()) {
    std::cerr << "ptorun: error: " << err << "\n";
    return ptoc::kExitUsage;
  }
  ptoc::interrupt::install("ptorun");
  try {
    if (list_knobs) {
      std::cout << ptoc::knob_table_markdown();
      return ptoc::kExitOk;
    }
    if (*info_cmd) return info(info_bundle, info_instances);
    if (*analyze_cmd) return analyze(analyze_path);
    if (*pmu_cmd) return pmu_csv(pmu_path);
    if (r.bundle.empty()) {
      std::cerr << "ptorun: error: no bundle given\n" << app.help();
      return ptoc::kExitUsage;
    }
    return run(r);
  } catch (const std::exception& e) {
    std::cerr << "ptorun: internal error: " << e.what() << "\n";
    return ptoc::kExitInternal;
  }
}
