// Entry points behind the `ptorun` command line (cli/ptorun_main.cpp).
// Each returns the process exit status from the one table, runtime/core/exit_codes.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ptoc::runtime {

struct RunArgs {
  std::string bundle;
  std::vector<std::string> inputs, outputs, dims;  // NAME=VALUE as typed
  uint64_t seed = 0;
  bool check = false;                 // also run the reference evaluator and compare
  std::string backend = "auto";       // auto | sim | ascend
  std::string platform;               // what-if override of the bundle's target
  bool timing_only = false;           // skip numerics
  int rounds = 1;                     // --rounds N
  int runtime_debug_mode = -1;        // -1: the bundle's option
  bool dump_device_perf = false;      // or DUMP_DEVICE_PERF=true
  std::string output_dir;             // base folder (or TILE_FWK_OUTPUT_DIR); default "output"
  int pmu_event_type = -1;            // or PYPTO_PROF_PMU_EVENT_TYPE; -1: off
  int jobs = 0;                       // host threads for numerics (0: all cores)
  std::string twin = "leaf";          // --twin: leaf (the bundle's leaf programs) | cce (its compiled twin)
  std::vector<std::string> sets;      // --set runtime.KEY=VALUE (stitch, sched mode, workspace)
  bool quiet = false;                 // --quiet: no progress line on stderr
};
int run(const RunArgs& a);

int info(const std::string& bundle, bool instances = false);  // `ptorun info BUNDLE [--instances]`
int analyze(const std::string& path);                 // `ptorun analyze FILE.json|DIR`
int pmu_csv(const std::string& path);                 // `ptorun pmu-csv FILE.csv|DIR`

}  // namespace ptoc::runtime
