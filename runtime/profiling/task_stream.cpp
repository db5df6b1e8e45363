#include "task_stream.h"

#include <algorithm>

#include <stdexcept>

#include "chunked_file.h"
#include "pmu_csv.h"
#include "pmu_writer.h"
#include "runtime/device_task.h"
#include "swimlane_writer.h"

namespace ptoc::profiling {

TaskStream::TaskStream(std::string folder, int last_round, bool l1_and_topo, uint64_t keep_cap)
    : folder_(std::move(folder)), last_round_(last_round), l1_and_topo_(l1_and_topo), keep_cap_(keep_cap) {
  kept_.round = last_round;
  if (l1_and_topo_) {
    topo_ = std::make_unique<ChunkedFile>(folder_ + "/dyn_topo.txt");
    topo_->append(kDynTopoHeader);
  }
}

TaskStream::TaskStream(std::string folder, int last_round, bool l1_and_topo, uint64_t keep_cap,
                       const CompiledProgram& program, const Platform& platform, int pmu_group)
    : TaskStream(std::move(folder), last_round, l1_and_topo, keep_cap) {
  if (pmu_group <= 0) return;
  program_ = &program;
  platform_ = &platform;
  pmu_group_ = pmu_group;
  pmu_ = std::make_unique<ChunkedFile>(folder_ + "/tilefwk_prof_pmu.csv");
  pmu_->append(format_csv_line(pmu_header(pmu_group_, platform.arch)));
}

TaskStream::~TaskStream() = default;

namespace {
uint64_t task_key(int32_t seq, uint32_t task_index) { return (uint64_t(uint32_t(seq)) << 32) | task_index; }
}  // namespace

void TaskStream::built(int round, const runtime::DeviceTask& dt) {
  if (round != last_round_ || !l1_and_topo_ || !by_build_) return;
  if (any_built_ && dt.seq <= last_built_) {  // not in seqNo order: fall back to waiting on seqNos
    by_build_ = false;
    build_order_.clear();
    return;
  }
  any_built_ = true;
  last_built_ = dt.seq;
  build_order_.emplace_back(dt.seq, dt.tasks.size());
  flush_topo(false);
}

void TaskStream::started(int round, const runtime::DeviceTask& dt, uint32_t task_index) {
  if (round == last_round_ && pmu_) started_.push_back(task_key(dt.seq, task_index));
}

// The Schedule AICPU of a core, as the machine model deals cores out (checked against the
// trace's lanes at finish()).
int TaskStream::sched_of(int core) const {
  const int n = platform_->sched_threads(), aic = platform_->aic, aiv = platform_->aiv;
  return core < aic ? int(int64_t(core) * n / aic) : int(int64_t(core - aic) * n / aiv);
}

void TaskStream::flush_pmu(bool all) {
  if (ready_.empty()) return;
  auto by_start = [](const auto& a, const auto& b) {
    return a.second.start_ps != b.second.start_ps ? a.second.start_ps < b.second.start_ps : a.first < b.first;
  };
  std::sort(ready_.begin(), ready_.end(), by_start);
  // The latest start held may tie with a task still running, which ended later: it waits.
  const int64_t hold = all ? INT64_MAX : ready_.back().second.start_ps;
  size_t n = 0;
  for (; n < ready_.size() && ready_[n].second.start_ps < hold; ++n) {
    const sim::TaskRecord& r = ready_[n].second;
    pmu_->append(format_csv_line(pmu_row(r, *program_, pmu_group_, platform_->arch, sched_of(r.core),
                                         seen_.insert({r.core, r.leaf}).second)));
  }
  ready_.erase(ready_.begin(), ready_.begin() + std::ptrdiff_t(n));
}

void TaskStream::add(int round, const sim::TaskRecord& r, const runtime::DeviceTask& dt) {
  if (round != last_round_) return;  // the per-launch files hold the last launch, as PyPTO overwrites them
  ++streamed_;
  succ_.clear();
  if (r.task_index < dt.tasks.size())
    for (uint32_t s : dt.tasks[r.task_index].succ) succ_.push_back(dt.tasks[s].task_id);

  if (keep_none_) {
  } else if (!keep_cap_ || kept_.tasks.size() < keep_cap_) {
    sim::TaskRecord k = r;
    k.succ_begin = uint32_t(kept_.succ_ids.size());
    k.succ_count = uint32_t(succ_.size());
    kept_.succ_ids.insert(kept_.succ_ids.end(), succ_.begin(), succ_.end());
    kept_.tasks.push_back(k);
  } else {
    ++dropped_;
  }
  if (pmu_) {
    ended_.emplace(task_key(r.seq, r.task_index), std::make_pair(streamed_, r));
    bool moved = false;
    while (!started_.empty()) {
      auto it = ended_.find(started_.front());
      if (it == ended_.end()) break;
      ready_.push_back(std::move(it->second));
      ended_.erase(it);
      started_.pop_front();
      moved = true;
    }
    if (moved) flush_pmu(false);
  }
  if (!l1_and_topo_) return;

  PendingDeviceTask& p = pending_[r.seq];
  p.expected = dt.tasks.size();
  p.rows.emplace_back(r.task_index, dyn_topo_row(r, succ_.data(), succ_.size()));
  ++held_rows_;
  flush_topo(false);

  L1Core& c = l1_[r.core];
  c.type = r.core_type;
  const L1Row row{r.start_ps, r.end_ps, streamed_, r.seq, r.leaf, r.task_id};
  if (c.heap.size() < kMaxDfxTasksPerCore) {
    c.heap.push_back(row);
    std::push_heap(c.heap.begin(), c.heap.end());
  } else if (row < c.heap.front()) {
    std::pop_heap(c.heap.begin(), c.heap.end());
    c.heap.back() = row;
    std::push_heap(c.heap.begin(), c.heap.end());
  }
}

// Device tasks complete out of order (independent ones overlap): each is written once it and
// every earlier one are complete; `all` writes the rest in seqNo order (the end of the round).
// With built(), "every earlier one" is every device task built before it (seqNos in build order,
// so the same order), which skips a device task with no tasks and a seqNo never built.
void TaskStream::flush_topo(bool all) {
  auto write = [&](std::map<int32_t, PendingDeviceTask>::iterator it) {
    auto& rows = it->second.rows;
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [index, text] : rows) topo_->append(text);
    held_rows_ -= rows.size();
    next_seq_ = it->first + 1;
    pending_.erase(it);
  };
  if (!all && by_build_ && any_built_) {
    while (!build_order_.empty()) {
      const auto [seq, expected] = build_order_.front();
      auto it = pending_.find(seq);
      const size_t have = it == pending_.end() ? 0 : it->second.rows.size();
      if (have < expected) return;
      if (it != pending_.end()) write(it);
      build_order_.pop_front();
    }
    return;
  }
  while (!pending_.empty()) {
    auto it = pending_.begin();
    if (!all && (it->first != next_seq_ || it->second.rows.size() < it->second.expected)) return;
    write(it);
  }
  if (all) build_order_.clear();
}

void TaskStream::finish(const sim::Trace& trace) {
  if (pmu_) {
    if (!trace.rounds.empty())
      for (const sim::CoreLane& lane : trace.rounds.back().cores)
        if (lane.sched != sched_of(lane.core))
          throw std::logic_error("tilefwk_prof_pmu.csv: core " + std::to_string(lane.core) + " belongs to Schedule AICPU " +
                                 std::to_string(lane.sched) + ", not " + std::to_string(sched_of(lane.core)));
    // Tasks the start hook did not report (none when it is wired): they follow, as ended.
    for (auto& [key, rec] : ended_) ready_.push_back(std::move(rec));
    ended_.clear();
    flush_pmu(true);
    pmu_->commit();
    pmu_.reset();
  }
  if (!l1_and_topo_) return;
  flush_topo(true);
  topo_->commit();
  ChunkedFile l1(folder_ + "/tilefwk_L1_prof_data.json");
  l1.append("[");
  bool first = true;
  for (auto& [core, c] : l1_) {
    std::sort_heap(c.heap.begin(), c.heap.end());
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const L1Row& t : c.heap) list.push_back(l1_task_entry(trace, t.seq, t.leaf, t.task_id, t.start_ps, t.end_ps));
    if (!first) l1.append(",");
    first = false;
    l1.append(l1_core_entry(core, c.type, std::move(list)).dump());
    std::vector<L1Row>().swap(c.heap);
  }
  l1.append("]");
  l1.commit();
}

}  // namespace ptoc::profiling
