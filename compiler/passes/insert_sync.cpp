// Pass: set_flag / wait_flag / pipe_barrier between the steps of a leaf.
//
// The AI Core's pipes (MTE2, MTE1, M, FIX, V, MTE3) run their own instruction
// queues; the only ordering between them is the one flags impose. Walking the
// steps in order, each buffer access is checked against earlier accesses of
// overlapping address ranges (RAW, WAR, WAW). A hazard with a step on another
// pipe Q needs set_flag(Q, P) after that step and wait_flag(Q, P) before this
// one; a hazard on the same pipe needs pipe_barrier on V (vector instructions
// overlap inside the pipe; the MTE/FIX/M queues complete in order).
//
// Vector clocks avoid redundant syncs: after waiting for Q's step j, P is
// ordered after everything step j was ordered after. Event ids 0..7 come from
// the lowest id whose previous set/wait pair on the same pipe pair has ended
// before the new set; when all eight are in flight, the set moves down next to
// its wait (correct, less overlap), so allocation can never fail or deadlock.
#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "compiler/passes/backend.h"

namespace ptoc {

namespace {

struct Space {
  MemKind mem;
  int tensor;  // GM: the tensor (whole-tensor granularity, offsets are symbolic); on-chip: -1
  auto operator<=>(const Space&) const = default;
};

struct Access {
  int64_t lo, hi;
  PipeId pipe;
  bool write;
  auto operator<=>(const Access&) const = default;
};

using Clock = std::array<int, kNumPipes>;  // per pipe: highest step known to be complete (-1: none)

// The latest step per (range, pipe, kind) of one space, ordered by range start, and the longest range:
// the ranges that can overlap [lo, hi) start in (lo - longest, hi), so a step scans only those (a leaf of
// thousands of steps over thousands of buffers scanned its whole history at every step: fuzz seed 9600099).
struct History {
  std::map<Access, int> latest;
  int64_t longest = 0;
};

}  // namespace

void insert_sync(const TileRoot& root, LeafPlan& plan) {
  const int n = int(plan.steps.size());
  for (auto& s : plan.steps) {
    s.before.clear();
    s.after.clear();
  }
  std::map<Space, History> history;  // latest step per (range, pipe, kind)
  std::array<Clock, kNumPipes> known;
  for (auto& c : known) c.fill(-1);
  std::vector<Clock> snap(n);                       // clock of a step's pipe when it issued
  std::array<int, kNumPipes> last_barrier;           // step position of the latest barrier per pipe
  last_barrier.fill(-1);
  // Per (src, dst) pipe pair and event id: stream position of the latest wait
  // (0 = never; a set's position 2j+1 is always >= 1, a wait's is 2i).
  std::map<std::pair<PipeId, PipeId>, std::array<int, kNumEventIds>> last_wait;
  std::vector<std::vector<int>> steps_on(kNumPipes);  // step positions per pipe, ascending

  for (int i = 0; i < n; ++i) {
    LeafStep& st = plan.steps[i];
    const TileOp& op = tile_op(root, st.op);
    const PipeId P = st.pipe;
    std::vector<std::pair<Space, Access>> acc;
    auto add_tile = [&](int t, bool write) {
      if (const BufferSlot* b = plan.buffer(t)) acc.push_back({{b->mem, -1}, {b->addr, b->addr + b->size, P, write}});
    };
    for (int t : op_reads(op)) add_tile(t, false);
    if (op.dst >= 0) add_tile(op.dst, true);
    const int64_t kAll = std::numeric_limits<int64_t>::max();
    if (op.kind == TileOpKind::CopyIn) acc.push_back({{MemKind::GM, op.gm.tensor}, {0, kAll, P, false}});
    if (op.kind == TileOpKind::CopyOut || op.kind == TileOpKind::FixOut)
      acc.push_back({{MemKind::GM, op.gm.tensor}, {0, kAll, P, true}});

    std::array<int, kNumPipes> need;
    need.fill(-1);
    for (const auto& [sp, a] : acc) {
      const History& hist = history[sp];
      // lo - longest cannot overflow: ranges are non-negative, longest <= int64 max
      const Access from{a.lo - hist.longest + 1, std::numeric_limits<int64_t>::min(), PipeId(0), false};
      for (auto it = hist.latest.lower_bound(from); it != hist.latest.end() && it->first.lo < a.hi; ++it) {
        const Access& h = it->first;
        if (!(h.write || a.write)) continue;           // read after read
        if (h.hi <= a.lo) continue;                    // disjoint ranges
        need[int(h.pipe)] = std::max(need[int(h.pipe)], it->second);
      }
    }

    Clock& mine = known[int(P)];
    // Latest producer first: waiting for it often covers the older ones too
    // (a V step that waited for MTE2 implies that MTE2 step is done).
    std::array<int, kNumPipes> by_step;
    for (int q = 0; q < kNumPipes; ++q) by_step[q] = q;
    std::stable_sort(by_step.begin(), by_step.end(), [&](int x, int y) { return need[x] > need[y]; });
    for (int q : by_step) {
      int j = need[q];
      if (j < 0) continue;
      if (q == int(P)) {
        if (P == PipeId::V && last_barrier[q] <= j) {  // a barrier before a step <= j orders nothing here
          st.before.push_back({SyncInstr::Kind::Barrier, P, P, 0});
          last_barrier[q] = i;
        }
        continue;
      }
      if (mine[q] >= j) continue;  // already ordered after step j
      const PipeId Q = PipeId(q);
      auto& waits = last_wait.try_emplace({Q, P}).first->second;
      const int set_pos = 2 * j + 1, wait_pos = 2 * i;
      int ev = -1;
      for (int e = 0; e < kNumEventIds && ev < 0; ++e)
        if (waits[e] < set_pos) ev = e;
      int waited = j;
      if (ev >= 0) {
        plan.steps[j].after.push_back({SyncInstr::Kind::SetFlag, Q, P, ev});
      } else {
        // All eight ids in flight: set right before the wait (covers every Q step issued so far).
        ev = 0;
        for (int e = 1; e < kNumEventIds; ++e)
          if (waits[e] < waits[ev]) ev = e;
        st.before.push_back({SyncInstr::Kind::SetFlag, Q, P, ev});
        const auto& on_q = steps_on[q];
        waited = on_q.empty() ? j : on_q.back();
      }
      st.before.push_back({SyncInstr::Kind::WaitFlag, Q, P, ev});
      waits[ev] = wait_pos;
      for (int k = 0; k < kNumPipes; ++k) mine[k] = std::max(mine[k], snap[waited][k]);
      mine[q] = std::max(mine[q], waited);
    }
    mine[int(P)] = i;
    snap[i] = mine;
    steps_on[int(P)].push_back(i);
    for (const auto& [sp, a] : acc) {
      History& hist = history[sp];
      hist.latest[a] = i;
      hist.longest = std::max(hist.longest, a.hi - a.lo);
    }
  }
  // Drain every pipe before the kernel returns: the task is finished only
  // when its last GM write has landed.
  if (n > 0) plan.steps.back().after.push_back({SyncInstr::Kind::BarrierAll, PipeId::S, PipeId::S, 0});
}

}  // namespace ptoc
