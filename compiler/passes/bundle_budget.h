// The bundle's task records against what ptorun can load (compiler/passes/bundle_budget.cpp).
// ptorun decodes the 'roots' section (every root function's task templates, explicit tasks and
// instance records) into a JSON tree of about 30 bytes of memory per byte of text; a compile whose
// records pass the roots_bytes limit (runtime/core/resource_limits.h) is refused before anything is
// written, at the statement that holds the most of them.
#pragma once
#include <cstdint>
#include <string>

#include "compiler/diag.h"
#include "runtime/program/compiled_program.h"

namespace ptoc {

// Estimated bytes of the 'roots' section and where they are (the root and statement with most).
struct TaskRecordBytes {
  int64_t total = 0;                 // the whole section, about (expressions exactly, JSON framing close)
  int root = -1;                     // CompiledProgram::roots index with the most bytes
  int64_t root_bytes = 0;
  size_t root_tasks = 0, root_explicit = 0;  // its tasks; those stored whole (no template fits them)
  SrcLoc loc;                        // the statement whose tasks in that root hold the most bytes
  int64_t loc_bytes = 0;
  int64_t longest_expr = 0;          // characters of the longest argument or region expression there
};

TaskRecordBytes estimate_task_records(const CompiledProgram& p);
// A bound on estimate_task_records(p).total that needs no compaction (each task its own record).
int64_t task_records_bound(const CompiledProgram& p);

// A located error (and false) when the estimate is over the roots_bytes limit.
bool check_bundle_budget(const CompiledProgram& p, DiagEngine& diags);

}  // namespace ptoc
