#include "perf_analyze.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <stdexcept>

#include "run_folder.h"

namespace ptoc::profiling {

namespace fs = std::filesystem;
using nlohmann::json;

static bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<StageName> parse_stage_name(const std::string& name) {
  StageName out;
  std::string s = name;
  if (!s.empty() && s.back() == ')') {
    auto open = s.rfind('(');
    if (open == std::string::npos) return std::nullopt;
    std::string num = s.substr(open + 1, s.size() - open - 2);
    if (!all_digits(num)) return std::nullopt;
    out.idx = std::stoi(num);
    s = s.substr(0, open);
  }
  // The lazy base of the regex leaves the last "_<digits>" to the round group.
  auto us = s.rfind('_');
  if (us != std::string::npos && us > 0 && all_digits(s.substr(us + 1))) {
    out.round = std::stoi(s.substr(us + 1));
    s = s.substr(0, us);
  }
  if (s.empty()) return std::nullopt;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return std::nullopt;
  out.base = s;
  return out;
}

namespace {

struct Event {
  StageName name;
  int64_t end = 0;
  int64_t duration = 0;  // end - previous end within the lane's round (0 for the first)
};

struct Lane {
  int block = 0;
  std::string type;
  double freq = 50;
  std::vector<Event> events;  // one round, sorted by end

  const Event* first(const std::string& base, int idx = -2) const {
    for (const auto& e : events)
      if (e.name.base == base && (idx == -2 || e.name.idx == idx)) return &e;
    return nullptr;
  }
  double us(int64_t ticks) const { return double(ticks) / freq; }
};

enum Col { kBuild, kAlloc, kInit, kHandshake, kRcv, kPost, kE2E, kTotal };

StageRow ctrl_row(const Lane& l) {
  StageRow r;
  r.unit = "AICPU-CTRL-" + std::to_string(l.block);
  int64_t build = 0;
  bool any = false;
  for (const auto& e : l.events)
    if (e.name.base == "DEV_TASK_BUILD") build += e.duration, any = true;
  if (any) r.cells[kBuild] = l.us(build);
  if (auto* ex = l.first("EXIT")) r.cells[kPost] = l.us(ex->duration);
  auto* b = l.first("BEGIN");
  auto* ex = l.first("EXIT");
  if (b && ex) r.cells[kTotal] = l.us(ex->end - b->end);
  return r;
}

StageRow sched_row(const Lane& l) {
  StageRow r;
  r.unit = "AICPU-SCHED-" + std::to_string(l.block);
  if (auto* e = l.first("ALLOC_THREAD_ID")) r.cells[kAlloc] = l.us(e->duration);
  if (auto* e = l.first("INIT")) r.cells[kInit] = l.us(e->duration);
  if (auto* e = l.first("CORE_HAND_SHAKE")) r.cells[kHandshake] = l.us(e->duration);
  if (auto* e = l.first("DEV_TASK_RCV", 0)) r.cells[kRcv] = l.us(e->duration);
  int64_t post = 0;
  bool any = false;
  for (auto [base, idx] : {std::pair<const char*, int>{"DEV_TASK_SYNC_CORE_STOP", 0}, {"DEV_TASK_RSP", 0},
                           {"WAIT_ALL_DEV_TASK_FINISH", -2}, {"WAIT_CORE_EXIT", -2}, {"EXIT", -2}})
    if (auto* e = l.first(base, idx)) post += e->duration, any = true;
  if (any) r.cells[kPost] = l.us(post);
  auto* b = l.first("BEGIN");
  auto* wce = l.first("WAIT_CORE_EXIT");
  auto* ex = l.first("EXIT");
  if (b && (wce || ex)) {
    int64_t last = std::max(wce ? wce->end : INT64_MIN, ex ? ex->end : INT64_MIN);
    r.cells[kTotal] = l.us(last - b->end);
  } else if (!l.events.empty()) {
    r.cells[kTotal] = l.us(l.events.back().end - l.events.front().end);
  }
  return r;
}

std::optional<StageRow> aicore_row(const std::vector<const Lane*>& cores) {
  if (cores.empty()) return std::nullopt;
  StageRow r;
  r.unit = "AICore";
  double freq = cores.front()->freq;
  std::optional<int64_t> min_first, max_last, min_rcv_first, max_all_exec;
  for (const Lane* l : cores) {
    if (l->events.empty()) continue;
    int64_t f = l->events.front().end, z = l->events.back().end;
    min_first = min_first ? std::min(*min_first, f) : f;
    max_last = max_last ? std::max(*max_last, z) : z;
    if (auto* e = l->first("DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK"))
      min_rcv_first = min_rcv_first ? std::min(*min_rcv_first, e->end) : e->end;
    for (const auto& e : l->events)
      if (e.name.base == "DEV_TASK_ALL_LEAF_TASK_EXEC") max_all_exec = max_all_exec ? std::max(*max_all_exec, e.end) : e.end;
  }
  if (min_rcv_first && min_first) r.cells[kInit] = double(*min_rcv_first - *min_first) / freq;
  if (max_all_exec && max_last) r.cells[kPost] = double(*max_last - *max_all_exec) / freq;
  if (max_all_exec && min_rcv_first) r.cells[kE2E] = double(*max_all_exec - *min_rcv_first) / freq;
  if (min_first && max_last) r.cells[kTotal] = double(*max_last - *min_first) / freq;
  return r;
}

}  // namespace

std::vector<RoundTable> analyze_perf_json(const json& lanes, const std::string& file) {
  if (!lanes.is_array())
    throw std::runtime_error(file + ": expected a JSON array of lanes (machine_trace_perf_data_<N>.json)");
  struct RawLane {
    int block;
    std::string type;
    double freq;
    std::vector<std::pair<StageName, int64_t>> events;
  };
  std::vector<RawLane> raw;
  std::map<int, bool> rounds;
  for (size_t i = 0; i < lanes.size(); ++i) {
    const auto& l = lanes[i];
    if (!l.is_object() || !l.contains("coreType") || !l.contains("tasks") || !l["tasks"].is_array())
      throw std::runtime_error(fmt::format("{}: lane {} has no coreType/tasks", file, i));
    RawLane rl{l.value("blockIdx", int(i)), l["coreType"].get<std::string>(), l.value("freq", 50.0), {}};
    if (rl.freq <= 0) throw std::runtime_error(fmt::format("{}: lane {} has freq {} (must be > 0)", file, i, rl.freq));
    for (const auto& t : l["tasks"]) {
      if (!t.contains("name") || !t.contains("end") || !t["end"].is_number())
        throw std::runtime_error(fmt::format("{}: lane {} ({}) has an event without name/end", file, i, rl.type));
      auto n = parse_stage_name(t["name"].get<std::string>());
      if (!n || n->round < 0) continue;
      rounds[n->round] = true;
      rl.events.emplace_back(*n, t["end"].get<int64_t>());
    }
    raw.push_back(std::move(rl));
  }
  std::vector<RoundTable> out;
  for (auto [round, _] : rounds) {
    RoundTable table;
    table.round = round;
    std::vector<Lane> per;
    for (const auto& rl : raw) {
      Lane l{rl.block, rl.type, rl.freq, {}};
      for (const auto& [n, end] : rl.events)
        if (n.round == round) l.events.push_back({n, end, 0});
      std::stable_sort(l.events.begin(), l.events.end(), [](const Event& a, const Event& b) { return a.end < b.end; });
      for (size_t k = 1; k < l.events.size(); ++k) l.events[k].duration = l.events[k].end - l.events[k - 1].end;
      per.push_back(std::move(l));
    }
    std::vector<const Lane*> cores;
    for (const auto& l : per) {
      if (l.events.empty()) continue;
      if (l.type == "AICPU-CTRL") table.rows.push_back(ctrl_row(l));
      else if (l.type == "AICPU-SCHED") table.rows.push_back(sched_row(l));
      else if (l.type.rfind("SCHED", 0) == 0 && (l.type.find("-AIC") != std::string::npos || l.type.find("-AIV") != std::string::npos))
        cores.push_back(&l);
    }
    if (auto r = aicore_row(cores)) table.rows.push_back(*r);
    out.push_back(std::move(table));
  }
  return out;
}

std::string render_round_tables(const std::vector<RoundTable>& tables) {
  static const char* headers[] = {"Compute Units", "DEV_TASK_BUILD(us)", "ALLOC_THREAD_ID(us)", "INIT(us)",
                                  "CORE_HAND_SHAKE(us)", "DEV_TASK_RCV(us)", "Post-process(us)",
                                  "End-to-End time(us)", "Total run time(us)"};
  std::string out;
  for (const auto& t : tables) {
    std::vector<std::vector<std::string>> cells;
    cells.emplace_back(std::begin(headers), std::end(headers));
    for (const auto& r : t.rows) {
      std::vector<std::string> row{r.unit};
      for (const auto& c : r.cells) row.push_back(c ? fmt::format("{:.2f}", *c) : "-");
      cells.push_back(std::move(row));
    }
    std::vector<size_t> w(9, 0);
    for (const auto& row : cells)
      for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
    std::string sep = "+";
    for (auto x : w) sep += std::string(x + 2, '-') + "+";
    std::string banner = fmt::format(" round{} ", t.round + 1);
    size_t total = sep.size();
    size_t left = total > banner.size() ? (total - banner.size()) / 2 : 0;
    out += std::string(left, '=') + banner + std::string(total > banner.size() + left ? total - banner.size() - left : 0, '=') + "\n";
    out += sep + "\n";
    for (size_t k = 0; k < cells.size(); ++k) {
      std::string line = "|";
      for (size_t i = 0; i < cells[k].size(); ++i)
        line += " " + (i == 0 ? fmt::format("{:<{}}", cells[k][i], w[i]) : fmt::format("{:>{}}", cells[k][i], w[i])) + " |";
      out += line + "\n";
      if (k == 0 || k + 1 == cells.size()) out += sep + "\n";
    }
  }
  return out;
}

std::string find_newest_perf_file(const std::string& dir, std::vector<std::string>* skipped) {
  std::error_code ec;
  fs::path best;
  fs::file_time_type best_time{};
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    // An interrupted run (output_*.partial, run_folder.h) is not read, only named.
    if (it->is_directory() && is_partial_run(it->path().filename().string())) {
      if (skipped) skipped->push_back(it->path().string());
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file()) continue;
    std::string n = it->path().filename().string();
    if (n.rfind("machine_trace_perf_data_", 0) != 0 || it->path().extension() != ".json") continue;
    auto t = it->last_write_time();
    // Newest by time, then by path so ties are deterministic.
    if (best.empty() || t > best_time || (t == best_time && it->path() > best)) best = it->path(), best_time = t;
  }
  if (ec) throw std::runtime_error(dir + ": cannot read folder: " + ec.message());
  if (best.empty())
    throw std::runtime_error(dir + ": no machine_trace_perf_data_*.json below this folder (run ptorun with --dump-device-perf)");
  return best.string();
}

}  // namespace ptoc::profiling
