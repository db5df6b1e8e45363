// The PMU trace (core pipeline view): with a bundle compiled with
// codegen.enable_pmu_trace on an Ascend 950 target, a per-pipe timeline
// (MTE2, MTE1, Cube, FixPipe, Vector, MTE3) of at most 6 cores as Chrome-trace
// JSON under PROF_*/mindstudio_profiler_output/msprof_*.json, with the
// mark_stamp spikes at each leaf's head and tail carrying its PMU id.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/program/compiled_program.h"
#include "runtime/sim/trace.h"

namespace ptoc::profiling {

inline constexpr int kPmuTraceMaxCores = 6;

// Empty string when the target cannot produce it; otherwise "" and `doc` filled.
std::string pmu_trace_unavailable_reason(const sim::Trace& trace, const CompiledProgram& program);
nlohmann::ordered_json pmu_trace(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& program);

}  // namespace ptoc::profiling
