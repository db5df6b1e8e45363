// What the machine model records: everything the profiling writers need to
// produce PyPTO's artifacts (machine_trace_perf_data, tilefwk_L1_prof_data,
// dyn_topo, merged_swimlane, PMU csv, terminal summary).
//
// Times: the model runs on an integer clock in picoseconds (`ps`), starting at
// 0 at the first round's launch. The device system counter that PyPTO stamps
// is `Trace::ticks(ps)` = counter_base + ps * freq / 1e6 (freq = ticks per us:
// 50 on dav_2201, 1000 on dav_3510). AICPU and AICore lanes share that clock.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/program/compiled_program.h"

namespace ptoc::runtime {
struct DeviceTask;
}

namespace ptoc::sim {

// AICPU stages (PyPTO aicpu_perf.h PERF_TRACES), recorded on AICPU-CTRL and AICPU-SCHED lanes.
enum class CpuStage : uint8_t {
  BEGIN,
  ALLOC_THREAD_ID,                // SCHED only
  INIT,
  CORE_HAND_SHAKE,                // SCHED only
  DEV_TASK_BUILD,                 // CTRL, idx = i-th build of the round
  DEV_TASK_RCV,                   // SCHED, idx = i-th device task received
  DEV_TASK_SEND_FIRST_LEAF_TASK,  // SCHED, idx = device task; PyPTO writes it without "(i)"
  DEV_TASK_SCHED_EXEC,            // SCHED, idx: this thread sent its last task of device task i
  DEV_TASK_SYNC_CORE_STOP,        // SCHED, idx: device task i's tail finished, cores told to stop
  DEV_TASK_RSP,                   // SCHED, idx: completion response sent to Control
  WAIT_ALL_DEV_TASK_FINISH,       // SCHED: the thread learns no device task remains (>= its last RSP,
                                  // so the lane stays in time order; PyPTO stamps the last finish cycle)
  WAIT_CORE_EXIT,                 // SCHED: after its cores were told to exit
  EXIT,
};
inline constexpr int kNumCpuStages = 13;

// AI Core stages (PyPTO aicpu_common.h AicorePerfTraceName).
enum class CoreStage : uint8_t {
  BEGIN,
  INIT,                                // after the handshake
  DEV_TASK_RCV_MODEL,                  // idx = seqNo (DeviceTask::seq): device-task data refreshed
  DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK,   // idx = seqNo: first leaf task of the device task received
  DEV_TASK_ALL_LEAF_TASK_EXEC,         // idx = seqNo: its last task on this core finished
  WAIT_EXIT_NOTIFY,                    // core exit
};
inline constexpr int kNumCoreStages = 6;

std::string_view stage_name(CpuStage s);   // "DEV_TASK_BUILD" ...
std::string_view stage_name(CoreStage s);  // "DEV_TASK_RCV_MODEL" ...

// One stamp: the stage *finished* at `ps`. idx -1 means no "(i)" suffix.
struct StageEvent {
  uint8_t stage = 0;   // CpuStage or CoreStage, by lane kind
  int32_t idx = -1;
  int64_t ps = 0;
};

// AICPU-CTRL (thread 0), AICPU-SCHED (threads 1..n).
struct CpuLane {
  bool ctrl = false;
  int thread = 0;                 // 0 = Control, 1..n = Schedule thread k-1 ("blockIdx" in PyPTO's file)
  std::vector<StageEvent> events; // in time order
};

// One AIC or AIV core. `core` numbers AIC first (0..aic-1) then AIV (aic..aic+aiv-1), as PyPTO's
// blockIdx in tilefwk_L1_prof_data.json; the perf-data lane is "SCHED<sched>-AIC" / "-AIV", blockIdx core+1.
struct CoreLane {
  int core = 0;
  CoreType type = CoreType::AIV;
  int sched = 0;                  // owning Schedule AICPU (0-based)
  std::vector<StageEvent> events; // in time order
};

// One executed leaf task (a row of tilefwk_L1_prof_data, dyn_topo and the PMU csv).
struct TaskRecord {
  int32_t core = 0;               // as CoreLane::core
  CoreType core_type = CoreType::AIV;
  int32_t seq = 0;                // DeviceTask::seq (seqNo)
  uint32_t task_index = 0;        // index in DeviceTask::tasks
  uint32_t task_id = 0;           // TaskInstance::task_id (funcId << 16 | opIdx)
  int32_t root = -1;              // CompiledProgram::roots index ("rootIndex")
  uint64_t root_hash = 0;
  int32_t root_instance = 0;      // index in DeviceTask::roots
  int32_t leaf = -1;              // "leafIndex"
  int32_t cls = -1;               // leaf class (CompiledProgram::leaves)
  uint64_t leaf_hash = 0;
  int32_t op_magic = 0;           // Task::op_magic
  int64_t ready_ps = 0;           // all predecessors done (or device task received)
  int64_t dispatch_ps = 0;        // written to the core's register by its scheduler
  int64_t start_ps = 0;           // execStart (head begins)
  int64_t end_ps = 0;             // execEnd
  int64_t total_cycles = 0;       // (end - start) in core cycles: PMU "total cycle"
  std::array<int64_t, kNumPipes> pipe_busy{};  // busy core cycles per pipe (PipeId order), memory pipes as timed
  int64_t head_cycles = 0;        // per-task head overhead included in total_cycles
  uint64_t bytes_read = 0, bytes_written = 0;  // GM bytes
  uint64_t bytes_hbm = 0;         // read misses + writes that went to HBM
  uint64_t bytes_l2 = 0;          // read bytes served by L2 hits
  uint32_t l2_read_hits = 0, l2_read_misses = 0;    // in L2 lines (Trace::l2_line_bytes)
  uint32_t l2_write_hits = 0, l2_write_misses = 0;  // write allocations into L2 (lines already present / new)
  // Successors as task ids (TaskInstance::task_id of DeviceTask::tasks[succ]): a range of
  // RoundTrace::succ_ids in stored mode; in streaming mode read them from the DeviceTask passed along.
  uint32_t succ_begin = 0, succ_count = 0;
};

// Per-round summary (the terminal block and the bench).
struct RoundSummary {
  int64_t launch_ps = 0;          // round start (Control BEGIN)
  int64_t first_task_start_ps = 0, last_task_end_ps = 0;
  int64_t aicore_e2e_ps = 0;      // max execEnd - min execStart (draw_swim_lane print_aicore_summary)
  double aicore_utilization = 0;  // sum(exec spans) / (cores that ran a task x e2e)
  int64_t operator_e2e_ps = 0;    // Control BEGIN -> last core WAIT_EXIT_NOTIFY ("Operator End-to-End Time")
  int64_t end_ps = 0;             // last lane's EXIT
  uint64_t tasks = 0, device_tasks = 0, root_instances = 0;
  int cores_used = 0;
  uint64_t bytes_hbm = 0, bytes_l2 = 0, l2_read_hits = 0, l2_read_misses = 0;
  int64_t busy_core_ps = 0;       // sum of exec spans
  // Stage stamps of device tasks past Trace::devtask_stage_cap were not recorded (PyPTO's
  // "Dev task num larger than: N, the excess part will not be recorded").
  bool devtask_stages_dropped = false;
  // Task records past SimOptions::task_record_cap (the task_records limit) were not kept: the
  // artifacts hold the first task_record_cap tasks of the round in execEnd order.
  uint64_t task_records_dropped = 0;
};

struct RoundTrace {
  int round = 0;
  std::vector<CpuLane> cpu;       // [0] = Control, [1..n] = Schedule threads
  std::vector<CoreLane> cores;    // all AIC then all AIV
  std::vector<TaskRecord> tasks;  // stored mode only, in execEnd order
  std::vector<uint32_t> succ_ids; // stored mode only
  RoundSummary summary;
};

struct Trace {
  std::string platform;           // Platform::name
  std::string arch;               // dav_2201 | dav_3510
  int64_t freq = 50;              // counter ticks per us
  int64_t counter_base = 0;       // counter value at ps = 0 (a fixed value: runs are reproducible)
  double core_mhz = 0;
  int aic = 0, aiv = 0, sched_threads = 0;
  int device_sched_mode = 0;
  uint32_t l2_line_bytes = 512;
  int devtask_stage_cap = 200;    // per round, per lane (PERF_TRACE_COUNT_DEVTASK_MAX_NUM)
  std::vector<RoundTrace> rounds;
  uint64_t events = 0;            // events the model processed (all rounds): the benchmark's "task events"

  int64_t ticks(int64_t ps) const { return counter_base + ps / 1000000 * freq + (ps % 1000000) * freq / 1000000; }
  static double us(int64_t ps) { return double(ps) * 1e-6; }
};

// Streaming consumer of task records: called at each task's end, in execEnd order, with the
// device task it belongs to (valid for the call). Used instead of RoundTrace::tasks when set.
using TaskRecordSink = std::function<void(const TaskRecord&, const runtime::DeviceTask&)>;

}  // namespace ptoc::sim
