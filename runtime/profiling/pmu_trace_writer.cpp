#include "pmu_trace_writer.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace ptoc::profiling {

using nlohmann::ordered_json;

std::string pmu_trace_unavailable_reason(const sim::Trace& trace, const CompiledProgram& program) {
  if (!program.options.enable_pmu_trace)
    return "the bundle was compiled without codegen.enable_pmu_trace (recompile with --set codegen.enable_pmu_trace=true)";
  if (trace.arch != "dav_3510")
    return fmt::format("the PMU trace exists only on Ascend 950 (dav_3510); this run's platform {} is {}", trace.platform,
                       trace.arch);
  return {};
}

ordered_json pmu_trace(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& p) {
  // The first six cores (in core order) that ran a task.
  std::map<int, std::vector<const sim::TaskRecord*>> per_core;
  for (const auto& t : round.tasks) per_core[t.core].push_back(&t);
  while (per_core.size() > size_t(kPmuTraceMaxCores)) per_core.erase(std::prev(per_core.end()));

  const double freq = double(trace.freq);
  auto us = [&](int64_t ps) { return double(trace.ticks(ps)) / freq; };
  const double ps_per_cycle = 1e6 / trace.core_mhz;
  struct PipeLane { PipeId pipe; const char* name; int tid; };
  static const PipeLane lanes[] = {{PipeId::MTE2, "MTE2", 0}, {PipeId::MTE1, "MTE1", 1}, {PipeId::M, "Cube", 2},
                                   {PipeId::FIX, "FixPipe", 3}, {PipeId::V, "Vector", 4}, {PipeId::MTE3, "MTE3", 5},
                                   {PipeId::S, "Scalar", 6}};
  ordered_json ev = ordered_json::array();
  for (auto& [core, tasks] : per_core) {
    std::string kind = tasks.front()->core_type == CoreType::AIC ? "AIC" : "AIV";
    ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", core}, {"args", {{"name", fmt::format("{}_{}", kind, core + 1)}}}});
    for (const auto& l : lanes)
      ev.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", core}, {"tid", l.tid}, {"args", {{"name", l.name}}}});
    std::stable_sort(tasks.begin(), tasks.end(), [](auto* a, auto* b) { return a->start_ps < b->start_ps; });
    for (const auto* t : tasks) {
      const LeafFunction* leaf = t->cls >= 0 && size_t(t->cls) < p.leaves.size() ? &p.leaves[size_t(t->cls)] : nullptr;
      int id = pmu_id(leaf ? leaf->hash : t->leaf_hash, true);
      int64_t body_start = t->start_ps + int64_t(double(t->head_cycles) * ps_per_cycle);
      int64_t span = std::max<int64_t>(1, t->end_ps - body_start);
      // Loads lead, stores trail, compute sits between: where a pipe's busy time falls inside the body.
      for (const auto& l : lanes) {
        int64_t busy = std::min<int64_t>(span, int64_t(double(t->pipe_busy[size_t(l.pipe)]) * ps_per_cycle));
        if (busy <= 0) continue;
        int64_t start = body_start;
        if (l.pipe == PipeId::MTE3 || l.pipe == PipeId::FIX) start = t->end_ps - busy;
        else if (l.pipe == PipeId::V || l.pipe == PipeId::M) start = body_start + (span - busy) / 2;
        ev.push_back({{"name", fmt::format("{}_{}", l.name, t->leaf)}, {"ph", "X"}, {"pid", core}, {"tid", l.tid},
                      {"ts", us(start)}, {"dur", sim::Trace::us(busy)},
                      {"args", {{"pmu_id", id}, {"taskId", t->task_id}, {"seqNo", t->seq}}}});
      }
      // mark_stamp pairs: head on MTE2, tail on MTE3.
      for (auto [ps, tid] : {std::pair<int64_t, int>{body_start, 0}, {t->end_ps, 5}})
        ev.push_back({{"name", fmt::format("mark_stamp {}", id)}, {"ph", "i"}, {"s", "t"}, {"pid", core}, {"tid", tid},
                      {"ts", us(ps)}, {"args", {{"pmu_id", id}, {"leafHash", leaf ? leaf->hash : t->leaf_hash}}}});
    }
  }
  return {{"traceEvents", std::move(ev)}};
}

}  // namespace ptoc::profiling
