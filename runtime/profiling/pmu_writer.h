// tilefwk_prof_pmu.csv: one row per task with the 7 fixed columns and the
// chosen event group's counters, derived from the machine model's record of
// the task (busy cycles per pipe, bytes per buffer, L2 hits and misses).
#pragma once
#include <string>

#include "runtime/program/compiled_program.h"
#include "pmu_csv.h"
#include "pmu_events.h"
#include "runtime/sim/trace.h"

namespace ptoc::profiling {

PmuSource pmu_source(const sim::TaskRecord& t, const CompiledProgram& program, bool first_run_on_core);
// The csv's header and one row (`sched`: the core's Schedule AICPU, 0-based), shared with the
// streamed file (task_stream.h).
std::vector<std::string> pmu_header(int group, const std::string& arch);
std::vector<std::string> pmu_row(const sim::TaskRecord& r, const CompiledProgram& p, int group, const std::string& arch,
                                 int sched, bool first_run_on_core);
CsvTable pmu_table(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& program, int group);
// format_csv(pmu_table(...)), each row formatted as it is built (no table of every row's cells).
std::string pmu_csv_text(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& program,
                         int group);

}  // namespace ptoc::profiling
