// The runtime_debug_mode=1 artifacts of one round: tilefwk_L1_prof_data.json
// (per-core task spans), dyn_topo.txt (the task graph), and the Machine View
// (pid 1) of merged_swimlane.json as draw_swim_lane.py draws it: one lane per
// core (tid 1000 + 2 * core_idx), task names and hints, dependency flows and
// ReadyCount counters.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "runtime/sim/trace.h"

namespace ptoc::profiling {

inline constexpr size_t kMaxDfxTasksPerCore = 10000;  // MAX_DFX_TASK_NUM_PER_CORE

nlohmann::ordered_json l1_prof_data(const sim::Trace& trace, const sim::RoundTrace& round);
std::string dyn_topo(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& program);
std::vector<nlohmann::ordered_json> machine_view_events(const sim::Trace& trace, const sim::RoundTrace& round,
                                                        const CompiledProgram& program);
// "<seqNo>-<funcId>-<opIdx>-<rootIndex>-<psgId>(<label>)"
std::string task_display_name(const sim::TaskRecord& t, const CompiledProgram& program);

}  // namespace ptoc::profiling
