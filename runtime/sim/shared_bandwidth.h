// HBM bandwidth shared by every core at once: processor sharing with a
// per-core cap. n active transfers each move min(cap, total/n) bytes per ps.
// Kept as one virtual clock V (bytes served to each active transfer so far):
// a transfer of b bytes joining at V0 finishes when V reaches V0 + b, so the
// next finish is the smallest such key (a binary heap), O(log n) per change.
#pragma once
#include <cstdint>
#include <vector>

namespace ptoc::sim {

class SharedBandwidth {
 public:
  SharedBandwidth(double total_bytes_per_ps, double cap_bytes_per_ps) : total_(total_bytes_per_ps), cap_(cap_bytes_per_ps) {}
  void add(int64_t now, uint32_t id, double bytes);
  // ps of the next finish, or -1 when idle.
  int64_t next_finish() const;
  // Remove and return the transfers finished by `now` (call at next_finish()).
  void pop_finished(int64_t now, std::vector<uint32_t>& out);
  int active() const { return static_cast<int>(heap_.size()); }
  double rate() const;  // per transfer, bytes/ps

 private:
  struct Flow { double key; uint64_t order; uint32_t id; };
  void advance(int64_t now);
  static bool later(const Flow& a, const Flow& b) { return a.key != b.key ? a.key > b.key : a.order > b.order; }
  double total_, cap_;
  double v_ = 0;
  int64_t t_ = 0;
  uint64_t order_ = 0;
  std::vector<Flow> heap_;
};

}  // namespace ptoc::sim
