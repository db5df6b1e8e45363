#include "artifacts.h"

#include <filesystem>
#include <fmt/format.h>

#include "runtime/core/atomic_file.h"
#include "chunked_file.h"
#include "perf_data_writer.h"
#include "pmu_trace_writer.h"
#include "pmu_writer.h"
#include "swimlane_writer.h"

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

void write_artifacts(const ArtifactRequest& rq, const sim::Trace& trace, const CompiledProgram& program,
                     const Platform& platform, std::ostream& log) {
  (void)platform;
  if (trace.rounds.empty()) return;
  // The per-launch files hold the last round, as PyPTO overwrites them after every launch.
  const sim::RoundTrace& last = trace.rounds.back();
  for (const sim::RoundTrace& r : trace.rounds)
    if (r.summary.task_records_dropped)
      log << "[WARN] round " << r.round << ": task num larger than the task_records limit of " << r.tasks.size()
          << ", the excess part (" << r.summary.task_records_dropped
          << " tasks) will not be recorded; raise it with --limit task_records=N\n";
  std::vector<ordered_json> aicpu_view;
  if (rq.device_perf) aicpu_view = write_perf_data(trace, rq.folder, log);
  if (rq.swimlane) {
    write_file_atomic(rq.folder + "/tilefwk_L1_prof_data.json", l1_prof_data_text(trace, last));
    write_file_atomic(rq.folder + "/dyn_topo.txt", dyn_topo(trace, last, program));
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
  if (rq.pmu_group > 0) {
    write_file_atomic(rq.folder + "/tilefwk_prof_pmu.csv", pmu_csv_text(trace, last, program, rq.pmu_group));
  }
  if (rq.pmu_trace) {
    std::string why = pmu_trace_unavailable_reason(trace, program);
    if (!why.empty()) {
      log << "[WARN] no PMU trace: " << why << "\n";
    } else {
      std::string stamp = std::filesystem::path(rq.folder).filename().string();
      if (stamp.rfind("output_", 0) == 0) stamp = stamp.substr(7);
      std::string dir = rq.folder + "/PROF_" + stamp + "/mindstudio_profiler_output";
      std::filesystem::create_directories(dir);
      write_file_atomic(dir + "/msprof_" + stamp + ".json", pmu_trace(trace, last, program).dump());
    }
  }
}

}  // namespace ptoc::profiling
