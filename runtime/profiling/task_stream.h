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
// The artifacts that need the whole round at once (the Machine View of merged_swimlane.json:
// draw_swim_lane.py reads everything in memory, > 6 GB for an 839 MB swimlane; tilefwk_prof_pmu.csv
// and the PMU trace, ordered by execStart over all cores) are built from the first
// `keep_cap` records of the last round (the task_records limit), with a warning when it cut.
// For runs within that limit every file is byte-identical to the one built from all records.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

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
  ~TaskStream();
  TaskStream(const TaskStream&) = delete;
  TaskStream& operator=(const TaskStream&) = delete;

  // One finished task, in execEnd order (sim::TaskRecordSink with its round).
  void add(int round, const sim::TaskRecord& r, const runtime::DeviceTask& dt);
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

  std::string folder_;
  int last_round_;
  bool l1_and_topo_;
  uint64_t keep_cap_;
  uint64_t dropped_ = 0, streamed_ = 0;
  sim::RoundTrace kept_;
  std::unique_ptr<ChunkedFile> topo_;
  std::map<int32_t, PendingDeviceTask> pending_;  // by seqNo
  int32_t next_seq_ = 0;                          // the next device task dyn_topo.txt takes
  std::map<int32_t, L1Core> l1_;                  // by core
  std::vector<uint32_t> succ_;                    // scratch
};

}  // namespace ptoc::profiling
