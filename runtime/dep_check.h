// runtime_debug_mode 3: the dependency check. For every device task, every
// pair of tasks that the task graph leaves unordered (neither reaches the
// other) must not touch overlapping GM bytes when at least one of them
// writes (RAW, WAR, WAW; two atomic adds commute). The bytes are the ones the
// host twin observed each kernel move when given (Executor::observed), so the
// check does not trust the compiler's regions any more than its edges; else
// the regions. Also keeps the dump PyPTO's runtime verifier reads
// (dep_verify_dump/: the GM accesses of every task, and the violations).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "runtime/device_task.h"

namespace ptoc::runtime {

struct DepViolation {
  int seq = 0;
  uint32_t task_a = 0, task_b = 0;  // TaskInstance::task_id; a comes first in program (task) order
  int tensor = -1;
  uint64_t addr = 0;                // first overlapping byte
  bool a_writes = false, b_writes = false;
  uint64_t a_lo = 0, a_hi = 0, b_lo = 0, b_hi = 0;  // the two accesses' byte spans, from the tensor's start
  const char* kind() const { return a_writes && b_writes ? "WAW" : a_writes ? "RAW" : "WAR"; }
};

class DependencyChecker {
 public:
  explicit DependencyChecker(const CompiledProgram& p) : p_(p) {}
  // GM base of each tensor (GmLayout::base), so byte spans are reported from the tensor's start.
  void set_tensor_bases(std::vector<uint64_t> base) { base_ = std::move(base); }
  // `observed`: per task of dt, the accesses its kernel really made (else TaskInstance::accesses).
  void check(const DeviceTask& dt, const std::vector<std::vector<GmAccess>>* observed = nullptr);
  const std::vector<DepViolation>& violations() const { return violations_; }
  uint64_t tasks_checked() const { return tasks_; }
  uint64_t pairs_compared() const { return pairs_; }
  // CSV texts of the dump: every access (capped at `max_rows`), and the violations.
  std::string access_csv() const { return access_csv_; }
  std::string violations_csv() const;
  // One line per violation (at most `max_lines`), for the terminal.
  std::string describe(size_t max_lines = 10) const;

 private:
  std::string tensor_name(int t) const;
  const CompiledProgram& p_;
  std::vector<uint64_t> base_;
  std::vector<DepViolation> violations_;
  std::string access_csv_ = "seqNo,taskId,tensor,addr,rows,rowBytes,rowStride,rw\n";
  uint64_t access_rows_ = 0;
  uint64_t tasks_ = 0, pairs_ = 0;
};

// First byte where two strided windows overlap, or UINT64_MAX when they do not.
uint64_t first_overlap(const GmAccess& a, const GmAccess& b);

}  // namespace ptoc::runtime
