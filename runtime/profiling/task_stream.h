// The task records of a profiled run, consumed as the simulator produces them (issue 12: memory
// stays proportional to the tasks in flight, however many tasks the run executes).
//
// The files PyPTO's readers take whole are written as the records arrive, into the run's
// .partial folder, from bounded buffers, and finished by finish():
// - dyn_topo.txt: every task of the last round. Rows are in (seqNo, task index) order, as
//   DumpTopo appends them: a device task's rows are held until it completed and every earlier
//   device task was written (the device tasks in flight), then written in task order.
// - tilefwk_L1_prof_data.json: per core the first kMaxDfxTasksPerCore tasks by execStart, as
//   PyPTO's DFX buffer holds them: a bounded heap per core.
// - tilefwk_prof_pmu.csv (with a PMU group): every task by execStart (ties in execEnd order).
//   Tasks start in time order (started(), the simulator's start hook) and end in time order
//   (add()): a row is written once every task that started before it has ended, except those
//   sharing the latest start written so far (a task still running may tie with them and must
//   follow them). What is held is the tasks that ended while an older one still runs.
// The artifacts that need the whole round at once (the Machine View of merged_swimlane.json:
// draw_swim_lane.py reads everything in memory, > 6 GB for an 839 MB swimlane; the PMU trace)
// are built from the first `keep_cap` records of the last round (the task_records limit), with
// a warning when it cut.
// For runs within that limit every file is byte-identical to the one built from all records.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/platform.h"
#include "runtime/program/compiled_program.h"
#include "runtime/sim/trace.h"

namespace ptoc::runtime {
struct DeviceTask;
}

namespace ptoc::profiling {

class ChunkedFile;

class TaskStream {
 public:
  // `folder`: the run folder (created); `last_round`: the round whose records the per-launch
  // files hold (rounds before it are only counted); `l1_and_topo`: write dyn_topo.txt and
  // tilefwk_L1_prof_data.json (runtime_debug_mode >= 1); `keep_cap`: records kept for the rest.
  TaskStream(std::string folder, int last_round, bool l1_and_topo, uint64_t keep_cap);
  // With tilefwk_prof_pmu.csv of `pmu_group` (> 0) for `program` on `platform` (both outlive the stream).
  TaskStream(std::string folder, int last_round, bool l1_and_topo, uint64_t keep_cap, const CompiledProgram& program,
             const Platform& platform, int pmu_group);
  ~TaskStream();
  TaskStream(const TaskStream&) = delete;
  TaskStream& operator=(const TaskStream&) = delete;

  // A device task is built, in build order, before its first record (runtime::RunConfig::
  // on_device_task_built). Optional: with it, dyn_topo.txt rows wait only for the device tasks really
  // in flight; a device task with no tasks, or a seqNo never built, no longer holds every later row
  // until finish() (same bytes either way).
  void built(int round, const runtime::DeviceTask& dt);
  // dyn_topo.txt rows held, waiting for an earlier device task (tests: memory stays flat).
  size_t held_topo_rows() const { return held_rows_; }
  // A task starts, in start order (sim::TaskStartHook with its round). Needed for the PMU csv only.
  void started(int round, const runtime::DeviceTask& dt, uint32_t task_index);
  // One finished task, in execEnd order (sim::TaskRecordSink with its round).
  void add(int round, const sim::TaskRecord& r, const runtime::DeviceTask& dt);
  bool writes_pmu() const { return pmu_group_ > 0; }
  // No artifact needs kept records (neither the Machine View nor the PMU trace): keep none.
  void keep_none() { keep_none_ = true; }
  // Writes what is held and renames the streamed files into place. `trace` gives the counter clock.
  void finish(const sim::Trace& trace);

  // The kept records of the last round (RoundTrace::tasks and succ_ids filled, the rest empty).
  sim::RoundTrace& kept() { return kept_; }
  uint64_t dropped() const { return dropped_; }
  uint64_t kept_cap() const { return keep_cap_; }
  uint64_t streamed() const { return streamed_; }

 private:
  struct L1Row {  // what tilefwk_L1_prof_data.json shows of a task
    int64_t start_ps = 0, end_ps = 0;
    uint64_t arrival = 0;  // execEnd order: the tie-break of equal starts (a stable sort's order)
    int32_t seq = 0, leaf = 0;
    uint32_t task_id = 0;
    bool operator<(const L1Row& o) const { return start_ps != o.start_ps ? start_ps < o.start_ps : arrival < o.arrival; }
  };
  struct L1Core {
    CoreType type = CoreType::AIV;
    std::vector<L1Row> heap;  // max-heap on (start, arrival): the kMaxDfxTasksPerCore smallest so far
  };
  struct PendingDeviceTask {
    size_t expected = 0;
    std::vector<std::pair<uint32_t, std::string>> rows;  // (task index, dyn_topo row)
  };
  void flush_topo(bool all);
  void flush_pmu(bool all);
  int sched_of(int core) const;

  std::string folder_;
  int last_round_;
  bool l1_and_topo_;
  uint64_t keep_cap_;
  uint64_t dropped_ = 0, streamed_ = 0;
  bool keep_none_ = false;
  sim::RoundTrace kept_;
  std::unique_ptr<ChunkedFile> topo_;
  std::map<int32_t, PendingDeviceTask> pending_;  // by seqNo
  int32_t next_seq_ = 0;                          // the next device task dyn_topo.txt takes
  // With built(): the device tasks built and not yet written, in build order (seqNo, tasks). Cleared
  // and unused (by_build_ false) if seqNos ever come out of order: then seqNo order is what waits.
  std::deque<std::pair<int32_t, size_t>> build_order_;
  bool by_build_ = true, any_built_ = false;
  int32_t last_built_ = 0;
  size_t held_rows_ = 0;
  std::map<int32_t, L1Core> l1_;                  // by core
  std::vector<uint32_t> succ_;                    // scratch
  // The PMU csv.
  const CompiledProgram* program_ = nullptr;
  const Platform* platform_ = nullptr;
  int pmu_group_ = 0;
  std::unique_ptr<ChunkedFile> pmu_;
  std::deque<uint64_t> started_;                                       // (seq, task index) in start order
  std::unordered_map<uint64_t, std::pair<uint64_t, sim::TaskRecord>> ended_;  // ended, not yet in start order: (arrival, record)
  std::vector<std::pair<uint64_t, sim::TaskRecord>> ready_;           // every earlier start has ended
  std::set<std::pair<int, int>> seen_;                                // (core, leaf) run before: icache warm
};

}  // namespace ptoc::profiling
