// Entry points behind the `ptoc` command line (cli/ptoc_main.cpp parses the
// arguments and calls exactly one of these). Each returns the process exit
// status from the one table, runtime/core/exit_codes.h.
#pragma once
#include <string>
#include <vector>

#include "runtime/core/exit_codes.h"

namespace ptoc::driver {

inline constexpr int kOk = kExitOk, kSpecError = kExitError, kUsageError = kExitUsage, kEnvError = kExitEnv;

struct SpecArgs {
  std::string spec;                  // path to the spec YAML
  std::vector<std::string> sets;     // --set group.key=value overrides
  std::string target;                // --target (empty: the spec's or the default)
  bool no_loop_merge = false;        // --no-loop-merge
  bool no_families = false;          // --no-families (hidden, debug)
};

// `ptoc check SPEC`: front end only; prints a one-line summary.
int check(const SpecArgs& a);

// `ptoc eval SPEC --input NAME=FILE.npy ... --output NAME=FILE.npy ... --dim N=V`
struct EvalArgs {
  SpecArgs spec;
  std::vector<std::string> inputs, outputs, dims;  // NAME=VALUE strings as typed
  uint64_t seed = 0;                               // fills inputs that were not given
};
int eval(const EvalArgs& a);

// `ptoc SPEC -o BUNDLE [--emit ir|cce,graph,report --emit-dir DIR] ...`
struct CompileArgs {
  SpecArgs spec;
  std::string output;                // -o; empty with --emit ir only
  std::vector<std::string> emit;     // ir, cce, graph, report
  std::string emit_dir;              // --emit-dir (default: next to the bundle, or ".")
  int jobs = 0;                      // -j: parallel host compiles (0: all cores)
  bool time_passes = false;          // --time-passes
  std::string dump_after;            // --dump-after=STAGE|all: IR text into the --emit dir
  bool print_device_commands = false;
  std::string cann;                  // --cann DIR
  std::string depfile;               // -MF (with -MD)
  std::string host_twin = "none";    // --host-twin: none (leaf programs only) | cce (also build the twin with g++)
};
int compile(const CompileArgs& a);

}  // namespace ptoc::driver
