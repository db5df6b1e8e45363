// `ptorun analyze`: PyPTO's per-round stage table computed from a
// machine_trace_perf_data_<N>.json file (AICPU-CTRL, AICPU-SCHED and
// SCHED<k>-AIC/AIV lanes of `BASE_<round>[(i)]` events with `end` ticks),
// with the formulas of PyPTO's PerfTraceAnalyzer (reference/pypto-profiling.md §2).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptoc::profiling {

struct StageName {
  std::string base;
  int round = -1;  // -1: no round suffix
  int idx = -1;    // -1: no "(i)" suffix
};
// Parses names like "DEV_TASK_BUILD_0(1)" the way ^([A-Z0-9_]+?)(?:_(\d+))?(?:\((\d+)\))?$ does.
std::optional<StageName> parse_stage_name(const std::string& name);

struct StageRow {
  std::string unit;                        // "AICPU-CTRL-0", "AICPU-SCHED-1", "AICore"
  std::optional<double> cells[8];          // the eight value columns, in microseconds
};
struct RoundTable {
  int round = 0;                           // 0-based; printed as round+1
  std::vector<StageRow> rows;
};

// Throws std::runtime_error with a message naming the file and what is wrong.
std::vector<RoundTable> analyze_perf_json(const nlohmann::json& lanes, const std::string& file_for_errors);
std::string render_round_tables(const std::vector<RoundTable>& tables);
// A run folder (or a folder of them): the newest machine_trace_perf_data_*.json below it.
std::string find_newest_perf_file(const std::string& dir, std::vector<std::string>* skipped_partial_runs = nullptr);

}  // namespace ptoc::profiling
