// The progress line of a long `ptorun` (issue 12): nothing for the first two seconds, then one
// line on stderr every two seconds: tasks done, simulated time, host rate. Fed by the runtime's
// progress callback (RunConfig::on_progress); `--quiet` leaves it out.
#pragma once
#include <chrono>
#include <cstdint>
#include <ostream>

namespace ptoc::runtime {

class ProgressLine {
 public:
  explicit ProgressLine(std::ostream& out, double first_after_s = 2.0, double every_s = 2.0);
  // After each device task: `tasks_done` finished in `round` so far, the simulated time.
  void update(int round, uint64_t tasks_done, int64_t simulated_ps);
  int lines() const { return lines_; }

 private:
  std::ostream& out_;
  std::chrono::steady_clock::time_point t0_;
  double first_after_s_, every_s_, next_s_;
  uint64_t earlier_rounds_ = 0, last_round_tasks_ = 0;
  int round_ = 0, lines_ = 0;
};

}  // namespace ptoc::runtime
