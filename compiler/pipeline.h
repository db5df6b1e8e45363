// The ordered stages of ptoc: the table of contents of the compiler.
// run_pipeline() takes the front end's Program to a CompiledProgram with its kernel sources and
// program.json; write_bundle_stages() builds the host twin and device binaries and writes the
// bundle. compiler/pipeline.cpp lists every stage in the order it runs, with its file.
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/diag.h"
#include "compiler/ir.h"
#include "compiler/passes/leaf_plan.h"
#include "compiler/passes/tiling.h"
#include "runtime/core/exit_codes.h"
#include "runtime/core/platform.h"

namespace ptoc {

struct PassTiming {
  std::string name;
  double ms = 0;      // wall
  double cpu_ms = 0;  // process CPU time (what a loaded, shared machine still measures fairly)
};

// Process CPU time in ms (all threads).
double process_cpu_ms();

// Times named passes; a pass run several times (once per leaf) accumulates.
class PassTimer {
 public:
  template <typename F>
  decltype(auto) run(const std::string& name, F&& f) {
    struct Stop {
      PassTimer* self; const std::string& name; std::chrono::steady_clock::time_point t0; double c0;
      ~Stop() {
        self->add(name, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                  process_cpu_ms() - c0);
      }
    } stop{this, name, std::chrono::steady_clock::now(), process_cpu_ms()};
    return f();
  }
  void add(const std::string& name, double ms, double cpu_ms = 0);
  const std::vector<PassTiming>& timings() const { return timings_; }

 private:
  std::vector<PassTiming> timings_;
};

struct PipelineOptions {
  bool loop_merge = true;  // --no-loop-merge clears it
  bool families = true;    // --no-families clears it (tile_families.h)
  // Plan one leaf per structural class (LeafShaper key) and copy the plan to the
  // others; off: every leaf is planned on its own (tests compare the two).
  bool share_leaf_plans = true;
  // With shared plans, a class's other leaves get no copy of its steps, buffers and arguments: the
  // task graph reads them through the class (LeafClasses::own_ids). Off (or with a dump, which
  // prints every plan, or with --no-families, the explicit path): each copy is materialised (tests
  // compare the two).
  bool lazy_leaf_copies = true;
  // CompiledProgram::graph_json holds the whole program.json. Off: only its BLOCK_GRAPH functions
  // are made (what the bundle stores) and graph_from_blocks is set, so program_json_text() builds
  // the rest on demand (ptoc without --emit graph: the EXECUTE_GRAPH part is a line per task).
  bool program_json_text = true;
  // --dump-after=STAGE (a name of pipeline_stages(), or "all"): `dump` receives the IR text after it.
  std::string dump_after;
  std::function<void(const std::string& stage, const std::string& text)> dump;
};

// Every stage's name, in order (what --time-passes prints and --dump-after accepts).
const std::vector<std::string>& pipeline_stages();

struct PipelineResult {
  Program program;                 // after loop merging
  CompiledProgram compiled;        // kernels with their sources
  std::vector<TileRoot> roots;     // tile graphs, for the report and graph views
  std::vector<LeafPlan> plans;     // one per leaf, CompiledProgram::leaves order
  TilingStats tiling;
  int loop_merges = 0;
  int sequential_fallbacks = 0;    // leaves that only fit in their sequential order
  std::vector<PassTiming> timings;
};

// Front-end output -> compiled program. Errors (and warnings) go to `diags`;
// nullopt when any error was reported.
std::optional<PipelineResult> run_pipeline(Program prog, const Platform& plat, DiagEngine& diags,
                                           const PipelineOptions& opts);

// The backend half alone, from tile roots the caller built (tests; the
// full pipeline calls it after tiling). `r.program` and `r.roots` must be set.
bool run_backend(PipelineResult& r, const Platform& plat, DiagEngine& diags, PassTimer& timer,
                 const PipelineOptions& opts = {});

struct BundleStageOptions {
  std::string output;   // the bundle path
  int jobs = 0;         // parallel host/device compiles (0: all cores)
  std::string cann;     // CANN toolkit folder ("" = $ASCEND_HOME_PATH)
  bool host_twin = false;  // ptoc --host-twin=cce: also compile the kernels into the host twin (g++)
};
struct StageError {
  ExitCode code = kExitEnv;
  std::string message;  // "cannot build the host twin: ...", "device build failed: ..."
};
// host_twin_build (with host_twin only), device_build (when a CANN toolkit is found), bundle_write; their timings are
// appended to r.timings. Nothing is written when a stage fails.
std::optional<StageError> write_bundle_stages(PipelineResult& r, const Platform& plat, const BundleStageOptions& o);

}  // namespace ptoc
