#include "dep_check.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <fmt/format.h>

namespace ptoc::runtime {

namespace {
constexpr uint64_t kMaxAccessRows = 1'000'000;  // keeps the dump of huge runs bounded
uint64_t span_end(const GmAccess& a) { return a.addr + (a.rows - 1) * a.row_stride + a.row_bytes; }
}  // namespace

uint64_t first_overlap(const GmAccess& a, const GmAccess& b) {
  if (a.rows == 0 || b.rows == 0 || a.row_bytes == 0 || b.row_bytes == 0) return UINT64_MAX;
  if (span_end(a) <= b.addr || span_end(b) <= a.addr) return UINT64_MAX;
  // Walk the rows of the window with fewer rows; find the rows of the other that can meet it.
  const GmAccess& s = a.rows <= b.rows ? a : b;
  const GmAccess& l = a.rows <= b.rows ? b : a;
  uint64_t best = UINT64_MAX;
  for (uint64_t r = 0; r < s.rows; ++r) {
    uint64_t lo = s.addr + r * s.row_stride, hi = lo + s.row_bytes;  // [lo, hi)
    // rows k of l with l.addr + k*stride < hi and l.addr + k*stride + row_bytes > lo
    uint64_t k_first = 0;
    if (l.rows > 1 && l.row_stride > 0) {
      if (lo > l.addr + l.row_bytes) k_first = (lo - l.addr - l.row_bytes) / l.row_stride;
      for (uint64_t k = k_first; k < l.rows; ++k) {
        uint64_t llo = l.addr + k * l.row_stride, lhi = llo + l.row_bytes;
        if (llo >= hi) break;
        if (lhi > lo) {
          best = std::min(best, std::max(lo, llo));
          break;
        }
      }
    } else {
      for (uint64_t k = 0; k < l.rows; ++k) {
        uint64_t llo = l.addr + k * l.row_stride, lhi = llo + l.row_bytes;
        if (llo < hi && lhi > lo) best = std::min(best, std::max(lo, llo));
      }
    }
  }
  return best;
}

std::string DependencyChecker::tensor_name(int t) const {
  return t >= 0 && size_t(t) < p_.tensors.size() ? p_.tensors[size_t(t)].name : "?";
}

void DependencyChecker::check(const DeviceTask& dt, const std::vector<std::vector<GmAccess>>* observed) {
  const size_t n = dt.tasks.size();
  tasks_ += n;
  auto accesses = [&](size_t i) -> const std::vector<GmAccess>& {
    return observed && i < observed->size() ? (*observed)[i] : dt.tasks[i].accesses;
  };
  for (size_t i = 0; i < n; ++i)
    for (const auto& a : accesses(i))
      if (access_rows_ < kMaxAccessRows) {
        ++access_rows_;
        access_csv_ += fmt::format("{},{},{},{:#x},{},{},{},{}\n", dt.seq, dt.tasks[i].task_id, tensor_name(a.tensor),
                                   a.addr, a.rows, a.row_bytes, a.row_stride, a.write ? "w" : "r");
      }
  // Reachability as bit sets, in a topological order (successors are later in Kahn order).
  std::vector<uint32_t> indeg(n, 0), order;
  for (const auto& t : dt.tasks)
    for (uint32_t s : t.succ) ++indeg[s];
  for (uint32_t i = 0; i < n; ++i)
    if (indeg[i] == 0) order.push_back(i);
  for (size_t h = 0; h < order.size(); ++h)
    for (uint32_t s : dt.tasks[order[h]].succ)
      if (--indeg[s] == 0) order.push_back(s);
  const size_t words = (n + 63) / 64;
  std::vector<uint64_t> reach(n * words, 0);  // reach[i]: tasks reachable from i
  for (size_t h = order.size(); h-- > 0;) {
    uint32_t i = order[h];
    uint64_t* ri = &reach[i * words];
    for (uint32_t s : dt.tasks[i].succ) {
      ri[s / 64] |= uint64_t(1) << (s % 64);
      const uint64_t* rs = &reach[size_t(s) * words];
      for (size_t w = 0; w < words; ++w) ri[w] |= rs[w];
    }
  }
  auto reaches = [&](uint32_t a, uint32_t b) { return (reach[a * words + b / 64] >> (b % 64)) & 1; };
  auto base_of = [&](int t) { return t >= 0 && size_t(t) < base_.size() ? base_[size_t(t)] : 0; };
  // Candidate pairs by sweeping accesses sorted by start address.
  struct Ref { uint64_t lo, hi; uint32_t task; uint32_t k; };
  std::vector<Ref> refs;
  // An empty read (0 rows or 0 bytes a row) is kept as the point where it would start: a kernel
  // loading nothing from a box an unordered task writes is a lost dependency or a lost extent.
  // Empty writes change nothing and are dropped.
  auto empty = [](const GmAccess& a) { return a.rows == 0 || a.row_bytes == 0; };
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < accesses(i).size(); ++k) {
      const auto& a = accesses(i)[k];
      if (!empty(a)) refs.push_back({a.addr, span_end(a), i, k});
      else if (!a.write && observed && a.tensor >= 0) refs.push_back({a.addr, a.addr, i, k});
    }
  // By start; at equal starts the longer span first, so a point inside a span is met after it.
  std::sort(refs.begin(), refs.end(),
            [](const Ref& x, const Ref& y) { return x.lo != y.lo ? x.lo < y.lo : x.hi > y.hi; });
  std::set<std::tuple<uint32_t, uint32_t, int>> seen;  // one violation per task pair and tensor
  for (size_t x = 0; x < refs.size(); ++x)
    for (size_t y = x + 1; y < refs.size() && refs[y].lo < refs[x].hi; ++y) {
      Ref A = refs[x], B = refs[y];
      if (A.task == B.task) continue;
      if (A.task > B.task) std::swap(A, B);  // A first in program order
      const GmAccess& a = accesses(A.task)[A.k];
      const GmAccess& b = accesses(B.task)[B.k];
      if (!a.write && !b.write) continue;
      if (a.atomic && b.atomic) continue;  // adds into GM commute
      ++pairs_;
      if (reaches(A.task, B.task) || reaches(B.task, A.task)) continue;
      uint64_t at;
      if (empty(a) || empty(b)) {
        if (a.tensor != b.tensor) continue;  // a point past its own tensor's end is not a hazard
        const GmAccess& e = empty(a) ? a : b;
        GmAccess point = e;
        point.rows = 1, point.row_bytes = 1, point.row_stride = 1;
        at = first_overlap(empty(a) ? b : a, point);
      } else {
        at = first_overlap(a, b);
      }
      if (at == UINT64_MAX) continue;
      if (!seen.insert({A.task, B.task, a.tensor}).second) continue;
      DepViolation v{dt.seq, dt.tasks[A.task].task_id, dt.tasks[B.task].task_id, a.tensor, at, a.write, b.write};
      v.a_lo = a.addr - base_of(a.tensor), v.a_hi = span_end(a) - base_of(a.tensor);
      v.b_lo = b.addr - base_of(b.tensor), v.b_hi = span_end(b) - base_of(b.tensor);
      violations_.push_back(v);
    }
}

std::string DependencyChecker::violations_csv() const {
  std::string s = "seqNo,taskA,taskB,tensor,addr,aWrites,bWrites,kind,aBytes,bBytes\n";
  for (const auto& v : violations_)
    s += fmt::format("{},{},{},{},{:#x},{},{},{},{}-{},{}-{}\n", v.seq, v.task_a, v.task_b, tensor_name(v.tensor),
                     v.addr, int(v.a_writes), int(v.b_writes), v.kind(), v.a_lo, v.a_hi, v.b_lo, v.b_hi);
  return s;
}

std::string DependencyChecker::describe(size_t max_lines) const {
  std::string s;
  for (size_t i = 0; i < violations_.size() && i < max_lines; ++i) {
    const auto& v = violations_[i];
    const std::string t = tensor_name(v.tensor);
    s += fmt::format("  device task {}: tasks {} and {} are unordered but both touch {} at {:#x} ({} / {}): {}, "
                     "task {} {} bytes [{}, {}) and task {} {} bytes [{}, {}) of {}\n",
                     v.seq, v.task_a, v.task_b, t, v.addr, v.a_writes ? "write" : "read", v.b_writes ? "write" : "read",
                     v.kind(), v.task_a, v.a_writes ? "writes" : "reads", v.a_lo, v.a_hi, v.task_b,
                     v.b_writes ? "writes" : "reads", v.b_lo, v.b_hi, t);
  }
  if (violations_.size() > max_lines) s += fmt::format("  ... and {} more\n", violations_.size() - max_lines);
  return s;
}

}  // namespace ptoc::runtime
