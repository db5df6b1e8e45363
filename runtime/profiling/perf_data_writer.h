// machine_trace_perf_data_<N>.json (raw AICPU/AICore stage stamps, chunked every
// 50 rounds, 200 rounds kept) and its Perfetto conversion
// machine_runtime_operator_trace_<N>.json (AICPU View, pid 0), as PyPTO's
// DumpAicpuPerfInfo and machine_perf_trace.py gen_perfetto produce them.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "runtime/sim/trace.h"

namespace ptoc::profiling {

inline constexpr int kMaxPerfRounds = 200;   // MAX_ROUND_NUM
inline constexpr int kPerfChunkRounds = 50;  // the dump thread writes every 50 rounds

// Lanes of rounds [first, last) in PyPTO's layout.
nlohmann::ordered_json perf_data_lanes(const sim::Trace& trace, int first_round, int last_round);
// gen_perfetto: X events of the AICPU View from perf-data lanes (sorted by end, start = previous end,
// BEGIN starts 1 tick before its end, at least one tick long), with process/thread metadata.
std::vector<nlohmann::ordered_json> perfetto_aicpu_events(const nlohmann::ordered_json& lanes);

// Writes every chunk file into `folder`; returns the AICPU View events of all chunks (to merge
// into merged_swimlane.json). Warnings for the round cap and device-task cap go to `log`.
std::vector<nlohmann::ordered_json> write_perf_data(const sim::Trace& trace, const std::string& folder, std::ostream& log);

}  // namespace ptoc::profiling
