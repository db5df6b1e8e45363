// Writes a run's profiling artifacts, with PyPTO's file names and formats
// (reference/pypto-profiling.md), into one output_<timestamp>/ folder.
// Every file is written to a temporary name and renamed into place.
#pragma once
#include <ostream>
#include <string>

#include "runtime/program/compiled_program.h"
#include "runtime/core/platform.h"
#include "runtime/sim/trace.h"

namespace ptoc::profiling {

struct ArtifactRequest {
  bool swimlane = false;        // runtime_debug_mode >= 1: tilefwk_L1_prof_data.json, dyn_topo.txt,
                                // program.json, merged_swimlane.json, terminal summary
  bool device_perf = false;     // DUMP_DEVICE_PERF: machine_trace_perf_data_<N>.json, machine_runtime_operator_trace_<N>.json
  int pmu_group = -1;           // PYPTO_PROF_PMU_EVENT_TYPE: tilefwk_prof_pmu.csv (-1: off)
  bool pmu_trace = false;       // codegen.enable_pmu_trace in the bundle: PROF_*/mindstudio_profiler_output/msprof_*.json
  std::string folder;           // the run folder (already created)
  bool any() const { return swimlane || device_perf || pmu_group > 0 || pmu_trace; }
};

// `trace` must hold task records (SimOptions::keep_task_records). Progress and
// warnings (round caps, dropped device-task stages) go to `log`; the terminal
// summary block too when `request.swimlane`.
void write_artifacts(const ArtifactRequest& request, const sim::Trace& trace, const CompiledProgram& program,
                     const Platform& platform, std::ostream& log);

class TaskStream;
// The same with the task records streamed during the run (task_stream.h): `trace` holds none;
// finishes the stream's files, then writes the others from its kept records.
void write_artifacts(const ArtifactRequest& request, const sim::Trace& trace, TaskStream& stream,
                     const CompiledProgram& program, const Platform& platform, std::ostream& log);

// The terminal block of draw_swim_lane.py (AICore End-to-End Time, AICore Utilization) plus our
// "Operator End-to-End Time", for the last round of `trace`.
std::string aicore_summary(const sim::Trace& trace);

}  // namespace ptoc::profiling
