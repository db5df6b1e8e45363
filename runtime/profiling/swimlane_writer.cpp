#include "swimlane_writer.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace ptoc::profiling {

using nlohmann::ordered_json;

namespace {

const Task* task_of(const sim::TaskRecord& t, const CompiledProgram& p) {
  if (t.root < 0 || size_t(t.root) >= p.roots.size()) return nullptr;
  const auto& tasks = p.roots[size_t(t.root)].tasks;
  uint32_t op = t.task_id & 0xffffu;
  return op < tasks.size() ? &tasks[op] : nullptr;
}

std::string region_text(const Region& r, const CompiledProgram& p) {
  std::string s = r.tensor >= 0 && size_t(r.tensor) < p.tensors.size() ? p.tensors[size_t(r.tensor)].name : "?";
  s += "[";
  for (size_t i = 0; i < r.offset.size(); ++i) {
    if (i) s += ", ";
    s += r.offset[i].str() + " +" + (i < r.extent.size() ? r.extent[i].str() : "?");
  }
  return s + "]";
}

}  // namespace

std::string task_display_name(const sim::TaskRecord& t, const CompiledProgram& p) {
  const Task* task = task_of(t, p);
  std::string color = task && !task->label.empty() ? task->label : std::to_string(t.leaf);
  return fmt::format("{}-{}-{}-{}-{}({})", t.seq, t.task_id >> 16, t.task_id & 0xffffu, t.root, t.leaf, color);
}

ordered_json l1_prof_data(const sim::Trace& trace, const sim::RoundTrace& round) {
  std::map<int, std::vector<const sim::TaskRecord*>> per_core;
  for (const auto& t : round.tasks) per_core[t.core].push_back(&t);
  ordered_json out = ordered_json::array();
  for (auto& [core, tasks] : per_core) {
    std::stable_sort(tasks.begin(), tasks.end(), [](auto* a, auto* b) { return a->start_ps < b->start_ps; });
    ordered_json list = ordered_json::array();
    for (size_t i = 0; i < tasks.size() && i < kMaxDfxTasksPerCore; ++i) {
      const auto* t = tasks[i];
      list.push_back({{"seqNo", t->seq}, {"leafIndex", t->leaf}, {"taskId", t->task_id & 0x3ffffffu},
                      {"execStart", trace.ticks(t->start_ps)}, {"execEnd", trace.ticks(t->end_ps)}});
    }
    out.push_back({{"blockIdx", core}, {"coreType", tasks.front()->core_type == CoreType::AIC ? "AIC" : "AIV"},
                   {"tasks", std::move(list)}});
  }
  return out;
}

std::string dyn_topo(const sim::Trace&, const sim::RoundTrace& round, const CompiledProgram& p) {
  std::string out = "seqNo,taskId,rootIndex,rootHash,opmagic,leafIndex,leafHash,coreType,psgId,wrapId,staticSuccCount,successors\n";
  std::vector<const sim::TaskRecord*> order;
  for (const auto& t : round.tasks) order.push_back(&t);
  // Device-task order, then task order inside it, as DumpTopo appends them.
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) {
    return a->seq != b->seq ? a->seq < b->seq : a->task_index < b->task_index;
  });
  for (const auto* t : order) {
    // Intra-root successors (same funcId) come first, then stitched ones.
    std::vector<uint32_t> intra, stitched;
    for (uint32_t k = 0; k < t->succ_count; ++k) {
      uint32_t id = round.succ_ids[t->succ_begin + k];
      ((id >> 16) == (t->task_id >> 16) ? intra : stitched).push_back(id);
    }
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}", t->seq, t->task_id, t->root, t->root_hash, t->op_magic,
                       t->leaf, t->leaf_hash, int(t->core_type), t->leaf, -1, intra.size());
    for (auto id : intra) out += fmt::format(",{}", id);
    for (auto id : stitched) out += fmt::format(",{}", id);
    out += "\n";
  }
  (void)p;
  return out;
}

std::vector<ordered_json> machine_view_events(const sim::Trace& trace, const sim::RoundTrace& round,
                                              const CompiledProgram& p) {
  std::vector<ordered_json> ev;
  const double freq = double(trace.freq);
  auto us = [&](int64_t ps) { return double(trace.ticks(ps)) / freq; };
  auto tid_of = [](int core) { return 1000 + 2 * (core + 1); };
  ev.push_back({{"ph", "M"}, {"cat", "__metadata"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", "Machine View"}}}});
  std::map<int, CoreType> cores;
  for (const auto& t : round.tasks) cores[t.core] = t.core_type;
  for (auto [core, type] : cores)
    ev.push_back({{"ph", "M"}, {"cat", "__metadata"}, {"name", "thread_name"}, {"pid", 1}, {"tid", tid_of(core)},
                  {"args", {{"name", fmt::format("{}_{}", type == CoreType::AIC ? "AIC" : "AIV", core + 1)}}}});

  // execution-hint: statistics over tasks of the same leaf
  struct Stat { int64_t sum = 0, max = 0, min = INT64_MAX, n = 0; };
  std::map<uint64_t, Stat> stats;
  for (const auto& t : round.tasks) {
    auto& s = stats[t.leaf_hash];
    int64_t d = t.end_ps - t.start_ps;
    s.sum += d, s.max = std::max(s.max, d), s.min = std::min(s.min, d), ++s.n;
  }
  std::map<std::pair<int, uint32_t>, const sim::TaskRecord*> by_key;
  for (const auto& t : round.tasks) by_key[{t.seq, t.task_id}] = &t;

  int64_t next_id = 0;
  for (const auto& t : round.tasks) {
    const Task* task = task_of(t, p);
    const LeafFunction* leaf = t.leaf >= 0 && size_t(t.leaf) < p.leaves.size() ? &p.leaves[size_t(t.leaf)] : nullptr;
    std::string hint = fmt::format("Task:[{}-{}-{}], rootHash:{}, callOpMagic:{}, leafHash:{}, TaskId:{}", t.seq,
                                   t.task_id >> 16, t.task_id & 0xffffu, t.root_hash, t.op_magic, t.leaf_hash, t.task_id);
    std::string ins, outs;
    if (task) {
      for (const auto& r : task->reads) ins += (ins.empty() ? "" : "; ") + region_text(r, p);
      for (const auto& r : task->writes) outs += (outs.empty() ? "" : "; ") + region_text(r, p);
    }
    const auto& s = stats[t.leaf_hash];
    ordered_json args = {
        {"event-hint", hint},
        {"ioperand-hint", ins},
        {"ooperand-hint", outs},
        {"execution-hint", fmt::format("avg:{:.3f}us, max:{:.3f}us, min:{:.3f}us, count:{}", sim::Trace::us(s.sum) / double(s.n),
                                       sim::Trace::us(s.max), sim::Trace::us(s.min), s.n)},
        {"color", task && !task->label.empty() ? task->label : fmt::format("leaf{}", t.leaf)},
        {"taskId", t.task_id},
        {"seqNo", t.seq},
        {"wrapId", -1}};
    if (leaf && !leaf->merge_info.empty()) args["hashOrder-hint"] = leaf->merge_info;
    ev.push_back({{"name", task_display_name(t, p)}, {"cat", "event"}, {"ph", "X"}, {"id", next_id++}, {"pid", 1},
                  {"tid", tid_of(t.core)}, {"ts", us(t.start_ps)}, {"dur", sim::Trace::us(t.end_ps - t.start_ps)},
                  {"args", std::move(args)}});
  }

  // Dependency flows: from each task's last-finishing predecessor ("machine-view-last-dep").
  std::map<std::pair<int, uint32_t>, const sim::TaskRecord*> last_pred;
  for (const auto& t : round.tasks)
    for (uint32_t k = 0; k < t.succ_count; ++k) {
      std::pair<int, uint32_t> key{t.seq, round.succ_ids[t.succ_begin + k]};
      auto& lp = last_pred[key];
      if (!lp || t.end_ps > lp->end_ps) lp = &t;
    }
  int64_t flow_id = 0;
  for (const auto& [key, pred] : last_pred) {
    auto it = by_key.find(key);
    if (it == by_key.end()) continue;
    const auto* succ = it->second;
    ev.push_back({{"ph", "s"}, {"cat", "machine-view-last-dep"}, {"name", "machine-view-last-dep"}, {"id", flow_id},
                  {"pid", 1}, {"tid", tid_of(pred->core)}, {"ts", us(pred->end_ps) - 0.0001}});
    ev.push_back({{"ph", "f"}, {"bp", "e"}, {"cat", "machine-view-last-dep"}, {"name", "machine-view-last-dep"},
                  {"id", flow_id}, {"pid", 1}, {"tid", tid_of(succ->core)}, {"ts", us(succ->start_ps)}});
    ++flow_id;
  }

  // ReadyCount counters: tasks ready but not started, per core type and in total.
  std::map<int64_t, std::array<int64_t, 2>> delta;  // ps -> {aic, aiv}
  for (const auto& t : round.tasks) {
    int k = t.core_type == CoreType::AIC ? 0 : 1;
    delta[t.ready_ps][size_t(k)] += 1;
    delta[t.start_ps][size_t(k)] -= 1;
  }
  std::array<int64_t, 2> cur{0, 0};
  for (const auto& [ps, d] : delta) {
    cur[0] += d[0], cur[1] += d[1];
    double ts = us(ps);
    ev.push_back({{"ph", "C"}, {"name", "ReadyCount_AIC"}, {"pid", 1}, {"tid", 1}, {"ts", ts}, {"args", {{"size", cur[0]}}}});
    ev.push_back({{"ph", "C"}, {"name", "ReadyCount_AIV"}, {"pid", 1}, {"tid", 1}, {"ts", ts}, {"args", {{"size", cur[1]}}}});
    ev.push_back({{"ph", "C"}, {"name", "ReadyCount_Total"}, {"pid", 1}, {"tid", 1}, {"ts", ts},
                  {"args", {{"size", cur[0] + cur[1]}}}});
  }

  // Dependence Solving (MHz): successor edges resolved per microsecond, over 5 us windows.
  if (!round.tasks.empty()) {
    const int64_t window = 5'000'000;  // ps
    std::map<int64_t, int64_t> edges;
    for (const auto& t : round.tasks) edges[t.end_ps / window] += t.succ_count;
    for (const auto& [w, n] : edges)
      ev.push_back({{"ph", "C"}, {"name", "Dependence Solving (MHz)"}, {"pid", 1}, {"tid", 1}, {"ts", us(w * window)},
                    {"args", {{"size", double(n) / 5.0}}}});
  }
  return ev;
}

}  // namespace ptoc::profiling
