#include "pmu_writer.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace ptoc::profiling {

PmuSource pmu_source(const sim::TaskRecord& t, const CompiledProgram& p, bool first_run_on_core) {
  PmuSource s;
  s.cube = t.core_type == CoreType::AIC;
  s.total_cycles = t.total_cycles;
  s.pipe_busy = t.pipe_busy;
  const LeafFunction* leaf = t.cls >= 0 && size_t(t.cls) < p.leaves.size() ? &p.leaves[size_t(t.cls)] : nullptr;
  // One cube fractal per M-pipe cycle; one 256-byte vector repeat per V-pipe cycle (the cost model's units).
  s.cube_fractals = t.pipe_busy[size_t(PipeId::M)];
  s.vec_repeats = t.pipe_busy[size_t(PipeId::V)];
  s.vec_elem_bytes = 2;
  // Instructions: each tile op issues its instruction plus a sync pair; the head adds a fixed prologue.
  int ops = leaf ? leaf->num_ops : 1;
  s.instructions = 32 + int64_t(ops) * 3;
  s.icache_misses = first_run_on_core ? (s.instructions * 8 + 63) / 64 : 0;  // 8-byte instructions, 64-byte lines
  if (s.cube) {
    s.l1_write = int64_t(t.bytes_read);               // GM -> L1
    s.l1_read = int64_t(t.bytes_read);                // L1 -> L0A/L0B at least once
    s.l0a_write = s.l0b_write = int64_t(t.bytes_read) / 2;
    s.l0a_read = s.l0b_read = s.cube_fractals * 512;  // one 16x16 fp16 fractal per operand per cycle
    s.l0c_write = s.cube_fractals * 1024 / 16;        // fp32 16x16 partial sums, accumulated over k
    s.l0c_read = int64_t(t.bytes_written) * 2;
  } else {
    s.ub_write = int64_t(t.bytes_read) + s.vec_repeats * 256;
    s.ub_read = int64_t(t.bytes_written) + s.vec_repeats * 256 * 2;
  }
  s.gm_read = int64_t(t.bytes_read);
  s.gm_write = int64_t(t.bytes_written);
  s.l2_read_hit = t.l2_read_hits;
  s.l2_read_miss = t.l2_read_misses;
  s.l2_write_hit = t.l2_write_hits;
  s.l2_write_miss = t.l2_write_misses;
  return s;
}

std::vector<std::string> pmu_header(int group, const std::string& arch) {
  std::vector<std::string> header = kPmuFixedColumns;
  auto names = pmu_counter_names(group, arch);
  header.insert(header.end(), names.begin(), names.end());
  return header;
}

std::vector<std::string> pmu_row(const sim::TaskRecord& r, const CompiledProgram& p, int group, const std::string& arch,
                                 int sched, bool first_run_on_core) {
  auto values = pmu_counter_values(group, arch, pmu_source(r, p, first_run_on_core));
  // As AiCoreProf reports them: the record head's task id is 0; the entry's task id ("sub task id") is
  // the leaf task's id masked as from the control topology (funcId << 16 | opIdx, 26 bits).
  std::vector<std::string> row = {std::to_string(1 + sched), "0", "0", std::to_string(r.core), std::to_string(r.seq),
                                  std::to_string(r.task_id & 0x3ffffffu), std::to_string(r.total_cycles)};
  for (auto v : values) row.push_back(std::to_string(v));
  return row;
}

namespace {
// The header, then each row in file order.
void pmu_rows(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& p, int group,
              const std::function<void(std::vector<std::string>&&)>& emit) {
  emit(pmu_header(group, trace.arch));
  std::vector<const sim::TaskRecord*> order;
  for (const auto& r : round.tasks) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->start_ps < b->start_ps; });
  std::map<int, int> core_sched;
  for (const auto& lane : round.cores) core_sched[lane.core] = lane.sched;
  std::set<std::pair<int, int>> seen;  // (core, leaf): the first run of a kernel on a core misses the icache
  for (const auto* r : order) emit(pmu_row(*r, p, group, trace.arch, core_sched[r->core], seen.insert({r->core, r->leaf}).second));
}
}  // namespace

CsvTable pmu_table(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& p, int group) {
  CsvTable t;
  bool header = true;
  pmu_rows(trace, round, p, group, [&](std::vector<std::string>&& row) {
    if (header) t.header = std::move(row);
    else t.rows.push_back(std::move(row));
    header = false;
  });
  return t;
}

std::string pmu_csv_text(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& p, int group) {
  std::string out;
  pmu_rows(trace, round, p, group, [&](std::vector<std::string>&& row) { out += format_csv_line(row); });
  return out;
}

}  // namespace ptoc::profiling
