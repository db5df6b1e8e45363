#include "cli/run_progress.h"

#include <fmt/format.h>

namespace ptoc::runtime {

ProgressLine::ProgressLine(std::ostream& out, double first_after_s, double every_s)
    : out_(out), t0_(std::chrono::steady_clock::now()), first_after_s_(first_after_s), every_s_(every_s),
      next_s_(first_after_s) {}

void ProgressLine::update(int round, uint64_t tasks_done, int64_t simulated_ps) {
  if (round != round_) {
    earlier_rounds_ += last_round_tasks_;
    round_ = round;
  }
  last_round_tasks_ = tasks_done;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  if (s < next_s_) return;
  next_s_ = s + every_s_;
  const uint64_t total = earlier_rounds_ + tasks_done;
  out_ << fmt::format("ptorun: progress: {} tasks done (round {}), simulated {:.1f} us, {:.0f} tasks/s, {:.0f} s\n",
                      total, round, double(simulated_ps) / 1e6, double(total) / s, s)
       << std::flush;
  ++lines_;
}

}  // namespace ptoc::runtime
