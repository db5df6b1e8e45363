// The runtime_debug_mode=1 artifacts of one round: tilefwk_L1_prof_data.json
// (per-core task spans), dyn_topo.txt (the task graph), and the Machine View
// (pid 1) of merged_swimlane.json exactly as draw_swim_lane.py (--label_type=1)
// builds it from the first two files and program.json: one lane per core (tid
// 1000 + 2 * core_idx) plus "Fake Core_0", task names and hints, one flow per
// dependency edge, ReadyCount / Dependence Solving counters.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "runtime/sim/trace.h"

namespace ptoc::profiling {

inline constexpr size_t kMaxDfxTasksPerCore = 10000;  // MAX_DFX_TASK_NUM_PER_CORE

inline constexpr const char* kDynTopoHeader =
    "seqNo,taskId,rootIndex,rootHash,opmagic,leafIndex,leafHash,coreType,psgId,wrapId,staticSuccCount,successors\n";

// The pieces the streamed files (task_stream.h) share with the whole-round writers below.
nlohmann::ordered_json l1_task_entry(const sim::Trace& trace, int32_t seq, int32_t leaf, uint32_t task_id,
                                     int64_t start_ps, int64_t end_ps);
nlohmann::ordered_json l1_core_entry(int core, CoreType type, nlohmann::ordered_json&& tasks);
// One row of dyn_topo.txt ("\n" included); `succ_ids`: the task's successors' task ids, in graph order.
std::string dyn_topo_row(const sim::TaskRecord& t, const uint32_t* succ_ids, size_t n);

nlohmann::ordered_json l1_prof_data(const sim::Trace& trace, const sim::RoundTrace& round);
// l1_prof_data(...).dump(), serialised one core at a time (the whole tree never exists).
std::string l1_prof_data_text(const sim::Trace& trace, const sim::RoundTrace& round);
std::string dyn_topo(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& program);
std::vector<nlohmann::ordered_json> machine_view_events(const sim::Trace& trace, const sim::RoundTrace& round,
                                                        const CompiledProgram& program);
// The same events in the same order, each handed to `emit` as soon as it is built (so a writer can
// serialise it at once instead of holding every event's JSON tree: a few KB per task).
void machine_view_events(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& program,
                         const std::function<void(nlohmann::ordered_json&&)>& emit);
// The same events as their dump() text, written without a JSON tree per event (machine_view_text.h):
// what merged_swimlane.json is written from.
void machine_view_event_text(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& program,
                             const std::function<void(const std::string&)>& emit_text);

}  // namespace ptoc::profiling
