#include "perf_data_writer.h"

#include <algorithm>
#include <fmt/format.h>

#include "runtime/core/atomic_file.h"

namespace ptoc::profiling {

using nlohmann::ordered_json;
using sim::CoreStage;
using sim::CpuStage;

namespace {

// Device-task stages of the AICPU carry "(i)"; DEV_TASK_SEND_FIRST_LEAF_TASK does not (PyPTO quirk).
std::string cpu_event_name(const sim::StageEvent& e, int round) {
  auto stage = CpuStage(e.stage);
  std::string n = fmt::format("{}_{}", sim::stage_name(stage), round);
  if (e.idx >= 0 && stage != CpuStage::DEV_TASK_SEND_FIRST_LEAF_TASK) n += fmt::format("({})", e.idx);
  return n;
}

std::string core_event_name(const sim::StageEvent& e, int round) {
  std::string n = fmt::format("{}_{}", sim::stage_name(CoreStage(e.stage)), round);
  if (e.idx >= 0) n += fmt::format("({})", e.idx);
  return n;
}

}  // namespace

ordered_json perf_data_lanes(const sim::Trace& trace, int first, int last) {
  // Lanes are per thread / core across rounds: one lane object holding the events of all rounds of the chunk.
  ordered_json lanes = ordered_json::array();
  if (trace.rounds.empty()) return lanes;
  const auto& shape = trace.rounds.front();
  for (size_t t = 0; t < shape.cpu.size(); ++t) {
    ordered_json tasks = ordered_json::array();
    for (int r = first; r < last && r < int(trace.rounds.size()); ++r)
      for (const auto& e : trace.rounds[size_t(r)].cpu[t].events)
        tasks.push_back({{"name", cpu_event_name(e, trace.rounds[size_t(r)].round)}, {"end", trace.ticks(e.ps)}});
    lanes.push_back({{"blockIdx", shape.cpu[t].thread},
                     {"coreType", shape.cpu[t].ctrl ? "AICPU-CTRL" : "AICPU-SCHED"},
                     {"freq", trace.freq},
                     {"tasks", std::move(tasks)}});
  }
  for (size_t c = 0; c < shape.cores.size(); ++c) {
    const auto& lane = shape.cores[c];
    ordered_json tasks = ordered_json::array();
    for (int r = first; r < last && r < int(trace.rounds.size()); ++r)
      for (const auto& e : trace.rounds[size_t(r)].cores[c].events)
        tasks.push_back({{"name", core_event_name(e, trace.rounds[size_t(r)].round)}, {"end", trace.ticks(e.ps)}});
    lanes.push_back({{"blockIdx", lane.core + 1},
                     {"coreType", fmt::format("SCHED{}-{}", lane.sched, lane.type == CoreType::AIC ? "AIC" : "AIV")},
                     {"freq", trace.freq},
                     {"tasks", std::move(tasks)}});
  }
  return lanes;
}

std::vector<ordered_json> perfetto_aicpu_events(const ordered_json& lanes) {
  // As machine_perf_trace.py gen_perfetto: thread names carry no "cat"; freq stays the lane's integer;
  // an end equal to the previous (sorted) end is bumped by one tick; a non-positive span lasts 1/freq.
  std::vector<ordered_json> out;
  out.push_back({{"args", {{"name", "AICPU View"}, {"type", "aicpu"}}}, {"cat", "__metadata"}, {"name", "process_name"},
                 {"ph", "M"}, {"pid", 0}});
  for (size_t tid = 0; tid < lanes.size(); ++tid) {
    const auto& lane = lanes[tid];
    std::string type = lane["coreType"];
    out.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", tid},
                   {"args", {{"name", fmt::format("{}-{}", type, lane["blockIdx"].get<int>())}}}});
    const int64_t freq = lane["freq"].get<int64_t>();
    std::vector<std::pair<int64_t, std::string>> ev;
    for (const auto& t : lane["tasks"]) ev.emplace_back(t["end"].get<int64_t>(), t["name"].get<std::string>());
    std::stable_sort(ev.begin(), ev.end(), [](auto& a, auto& b) { return a.first < b.first; });
    int64_t prev = 0;
    for (size_t i = 0; i < ev.size(); ++i) {
      int64_t end = ev[i].first;
      if (i > 0 && end == prev) end = prev + 1;
      const int64_t start = (ev[i].second.rfind("BEGIN", 0) == 0 || i == 0) ? end - 1 : prev;
      double dur = double(end - start) / double(freq);
      if (dur <= 0) dur = 1.0 / double(freq);
      out.push_back({{"name", ev[i].second}, {"cat", type}, {"ph", "X"}, {"ts", double(start) / double(freq)},
                     {"dur", dur}, {"pid", 0}, {"tid", tid}, {"freq", freq}});
      prev = end;
    }
  }
  return out;
}

std::vector<ordered_json> write_perf_data(const sim::Trace& trace, const std::string& folder, std::ostream& log) {
  int rounds = int(trace.rounds.size());
  if (rounds > kMaxPerfRounds) {
    log << "[WARN] Aicpu perf info more than maxTurnNum=" << kMaxPerfRounds << ", some info would be lost\n";
    rounds = kMaxPerfRounds;
  }
  for (int r = 0; r < rounds; ++r)
    if (trace.rounds[size_t(r)].summary.devtask_stages_dropped)
      log << "[WARN] round " << r << ": Dev task num larger than: " << trace.devtask_stage_cap
          << ", the excess part will not be recorded\n";
  std::vector<ordered_json> all;
  for (int first = 0; first < rounds; first += kPerfChunkRounds) {
    int last = std::min(rounds, first + kPerfChunkRounds);
    ordered_json lanes = perf_data_lanes(trace, first, last);
    write_file_atomic(fmt::format("{}/machine_trace_perf_data_{}.json", folder, first), lanes.dump());
    auto events = perfetto_aicpu_events(lanes);
    ordered_json doc = {{"traceEvents", events}};
    write_file_atomic(fmt::format("{}/machine_runtime_operator_trace_{}.json", folder, first), doc.dump());
    for (auto& e : events) all.push_back(std::move(e));
  }
  return all;
}

}  // namespace ptoc::profiling
