#include "runtime/sim/trace.h"

namespace ptoc::sim {

std::string_view stage_name(CpuStage s) {
  static constexpr std::string_view names[kNumCpuStages] = {
      "BEGIN", "ALLOC_THREAD_ID", "INIT", "CORE_HAND_SHAKE", "DEV_TASK_BUILD", "DEV_TASK_RCV",
      "DEV_TASK_SEND_FIRST_LEAF_TASK", "DEV_TASK_SCHED_EXEC", "DEV_TASK_SYNC_CORE_STOP", "DEV_TASK_RSP",
      "WAIT_ALL_DEV_TASK_FINISH", "WAIT_CORE_EXIT", "EXIT"};
  return names[static_cast<int>(s)];
}

std::string_view stage_name(CoreStage s) {
  static constexpr std::string_view names[kNumCoreStages] = {
      "BEGIN", "INIT", "DEV_TASK_RCV_MODEL", "DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK", "DEV_TASK_ALL_LEAF_TASK_EXEC",
      "WAIT_EXIT_NOTIFY"};
  return names[static_cast<int>(s)];
}

}  // namespace ptoc::sim
