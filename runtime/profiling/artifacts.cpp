#include "artifacts.h"

#include <filesystem>
#include <fmt/format.h>

#include "runtime/core/atomic_file.h"
#include "chunked_file.h"
#include "perf_data_writer.h"
#include "pmu_trace_writer.h"
#include "pmu_writer.h"
#include "run_folder.h"
#include "swimlane_writer.h"
#include "task_stream.h"

namespace ptoc::profiling {

using nlohmann::ordered_json;

std::string aicore_summary(const sim::Trace& trace) {
  if (trace.rounds.empty()) return {};
  const auto& s = trace.rounds.back().summary;
  return fmt::format(
      "-------- AICORE Prof Summary --------\n"
      "AICore End-to-End Time: {:.2f}\n"
      "AICore Utilization: {:.2f}%\n"
      "Operator End-to-End Time: {:.2f}\n"
      "-------------------------------------\n",
      sim::Trace::us(s.aicore_e2e_ps), s.aicore_utilization * 100.0, sim::Trace::us(s.operator_e2e_ps));
}

namespace {

// Every file but those `stream` wrote already; `last` holds the task records they are built from.
void write_round_files(const ArtifactRequest& rq, const sim::Trace& trace, const sim::RoundTrace& last,
                       const CompiledProgram& program, std::ostream& log, bool topo_and_l1, bool pmu_csv) {
  std::vector<ordered_json> aicpu_view;
  if (rq.device_perf) aicpu_view = write_perf_data(trace, rq.folder, log);
  if (rq.swimlane) {
    if (topo_and_l1) {
      write_file_atomic(rq.folder + "/tilefwk_L1_prof_data.json", l1_prof_data_text(trace, last));
      write_file_atomic(rq.folder + "/dyn_topo.txt", dyn_topo(trace, last, program));
    }
    // merged_swimlane.json: the AICPU View (when collected) followed by the Machine View, one clock.
    // Each event is serialised and written as it is built, the bytes of {"traceEvents": [...]}.dump():
    // neither the document's JSON tree (a few KB per task) nor its text exists whole.
    ChunkedFile doc(rq.folder + "/merged_swimlane.json");
    doc.append("{\"traceEvents\":[");
    bool first = true;
    const std::function<void(const std::string&)> add_text = [&](const std::string& text) {
      if (!first) doc.append(",");
      first = false;
      doc.append(text);
    };
    auto add = [&](ordered_json&& e) { add_text(e.dump()); };
    for (auto& e : aicpu_view) add(std::move(e));
    aicpu_view.clear();
    machine_view_event_text(trace, last, program, add_text);
    doc.append("]}");
    doc.commit();
    log << aicore_summary(trace);
  }
  if (rq.pmu_group > 0 && pmu_csv) {
    write_file_atomic(rq.folder + "/tilefwk_prof_pmu.csv", pmu_csv_text(trace, last, program, rq.pmu_group));
  }
  if (rq.pmu_trace) {
    std::string why = pmu_trace_unavailable_reason(trace, program);
    if (!why.empty()) {
      log << "[WARN] no PMU trace: " << why << "\n";
    } else {
      std::string stamp = std::filesystem::path(rq.folder).filename().string();
      if (stamp.rfind("output_", 0) == 0) stamp = stamp.substr(7);
      if (const size_t dot = stamp.rfind(kPartialSuffix); dot != std::string::npos && dot + 8 == stamp.size())
        stamp.resize(dot);
      std::string dir = rq.folder + "/PROF_" + stamp + "/mindstudio_profiler_output";
      std::filesystem::create_directories(dir);
      write_file_atomic(dir + "/msprof_" + stamp + ".json", pmu_trace(trace, last, program).dump());
    }
  }
}

}  // namespace

void write_artifacts(const ArtifactRequest& rq, const sim::Trace& trace, const CompiledProgram& program,
                     const Platform& platform, std::ostream& log) {
  (void)platform;
  if (trace.rounds.empty()) return;
  // The per-launch files hold the last round, as PyPTO overwrites them after every launch.
  for (const sim::RoundTrace& r : trace.rounds)
    if (r.summary.task_records_dropped)
      log << "[WARN] round " << r.round << ": task num larger than the task_records limit of " << r.tasks.size()
          << ", the excess part (" << r.summary.task_records_dropped
          << " tasks) will not be recorded; raise it with --limit task_records=N\n";
  write_round_files(rq, trace, trace.rounds.back(), program, log, true, true);
}

void write_artifacts(const ArtifactRequest& rq, const sim::Trace& trace, TaskStream& stream,
                     const CompiledProgram& program, const Platform& platform, std::ostream& log) {
  (void)platform;
  if (trace.rounds.empty()) return;
  stream.finish(trace);
  const sim::RoundTrace& last = trace.rounds.back();
  if (stream.dropped()) {
    std::vector<std::string> cut, all;
    if (rq.swimlane) cut.push_back("merged_swimlane.json"), all = {"dyn_topo.txt", "tilefwk_L1_prof_data.json"};
    if (rq.pmu_group > 0) (stream.writes_pmu() ? all : cut).push_back("tilefwk_prof_pmu.csv");
    if (rq.pmu_trace) cut.push_back("the PMU trace");
    auto list = [](const std::vector<std::string>& v) {
      std::string out;
      for (size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : i + 1 == v.size() ? " and " : ", ") + v[i];
      return out;
    };
    log << "[WARN] round " << last.round << ": task num larger than the task_records limit of " << stream.kept_cap()
        << ", the excess part (" << stream.dropped() << " tasks) will not be recorded in " << list(cut)
        << (all.empty() ? "" : " (" + list(all) + (all.size() > 1 ? " hold" : " holds") + " every task)")
        << "; raise it with --limit task_records=N\n";
  }
  // The lanes of the last round with the kept records (moved, not copied: the stream is done).
  sim::RoundTrace view;
  view.round = last.round;
  view.cpu = last.cpu;
  view.cores = last.cores;
  view.summary = last.summary;
  view.tasks.swap(stream.kept().tasks);
  view.succ_ids.swap(stream.kept().succ_ids);
  write_round_files(rq, trace, view, program, log, false, !stream.writes_pmu());
}

}  // namespace ptoc::profiling
