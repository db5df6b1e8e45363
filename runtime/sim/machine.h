// The discrete-event machine model of one Ascend die running a PyPTO-style
// operator: Control AICPU building device tasks, Schedule AICPUs dispatching
// ready tasks to AIC/AIV cores (two slots each), cores running leaf kernels
// on a pipe model, HBM bandwidth shared by all cores and an L2 cache.
//
// Deterministic: integer picosecond clock, ties broken by event creation
// order; nothing depends on host time, addresses or hashing order.
#pragma once
#include <cstdint>
#include <functional>

#include "runtime/program/compiled_program.h"
#include "runtime/device_task.h"
#include "runtime/core/platform.h"
#include "runtime/sim/trace.h"

namespace ptoc::sim {

// Produces the device tasks of round `round` one at a time (the Control
// AICPU's control-flow walk and stitch); returns false when the round has no
// more. Called lazily: when the simulated Control AICPU starts building the
// next device task, so memory grows with the device tasks in flight only.
// `out` is a recycled object (a previous device task, or empty): the source
// sets every field, reusing its storage (runtime::ControlFlow::next does).
// `out.seq` arrives preset to the device task's number in the round; the
// source may keep or replace it (it is the seqNo the trace reports).
using DeviceTaskSource = std::function<bool(int round, runtime::DeviceTask& out)>;

// Called when a task starts on its simulated core, in simulated start order
// (a topological order of the dependencies): the executor may run the
// task's numerics here. It cannot change the timeline.
using TaskStartHook = std::function<void(const runtime::DeviceTask&, uint32_t task_index)>;

// Called when a device task has finished (all its tasks done, before its
// storage is reused): e.g. runtime::ControlFlow::release(dt.seq).
using DeviceTaskDoneHook = std::function<void(int round, const runtime::DeviceTask&)>;

// Fills `out` with the GM accesses of task `task_index` of a device task built without them
// (runtime::ControlFlowOptions::lazy_accesses); false when the device task holds them already.
using TaskAccessesHook =
    std::function<bool(int round, const runtime::DeviceTask&, uint32_t task_index, std::vector<runtime::GmAccess>& out)>;

struct SimOptions {
  int rounds = 1;                  // launches of the operator; L2 contents carry over
  int device_sched_mode = -1;      // -1: the program's Options::device_sched_mode
  int max_inflight_devtasks = 2;   // device tasks built but not finished that Control may hold (ready-queue depth)
  bool keep_task_records = true;   // RoundTrace::tasks (ignored when task_sink is set)
  // Stored mode keeps at most this many records per round (memory stays bounded on long profiled
  // runs); the rest are counted in RoundSummary::task_records_dropped. 0: no cap.
  uint64_t task_record_cap = 0;
  // Called after each device task finished: tasks finished so far in this round, simulated time.
  std::function<void(int round, uint64_t tasks_done, int64_t now_ps)> on_progress;
  TaskRecordSink task_sink;        // streaming: records go here instead of RoundTrace::tasks
  TaskStartHook on_task_start;
  DeviceTaskDoneHook on_device_task_done;
  // Asked at each task's start; accesses it fills are freed at the task's end, so the accesses held
  // follow the tasks running (timing-only runs), not the tasks of the device tasks in flight.
  TaskAccessesHook task_accesses;
  uint32_t l2_line_bytes = 512;    // L2 line (PyPTO CostModel CacheMachine: 512 B lines)
  int devtask_stage_cap = 200;     // PERF_TRACE_COUNT_DEVTASK_MAX_NUM
};

// Runs the model. Stage lanes are always recorded (up to the cap); task
// records per SimOptions. Throws nothing on well-formed input; a device task
// whose graph never completes (a cycle) is reported as std::runtime_error.
Trace simulate(const Platform& platform, const CompiledProgram& program, const SimOptions& options,
               const DeviceTaskSource& source);

}  // namespace ptoc::sim
