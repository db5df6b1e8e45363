// The compact form of a root function's tasks, as the bundle stores them: each leaf class's
// tasks share a template (the first such task's GM slots, arguments and regions) and every task
// is an instance record that says only how it differs from its template.
//
// A task's values (its int64 arguments, then every read region's offsets and extents, then every
// write region's) are template value + a constant delta. Positions whose deltas are equal in every
// instance of a template form one group (a GEMM's row offsets, its column offsets, its extents that
// never move), so an instance stores one delta per group: a GEMM 6144^3 task is its class, its leaf,
// its successors and two deltas. A task whose structure differs from every template of its class
// (other GM slots, region count, tensors, ranks or statement locations) gets a template of its own;
// one whose value is not template + constant (a symbolic delta) is stored explicitly.
// expand_root() reproduces the explicit tasks exactly (same DimExpr text), which the tests assert
// over every library spec.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"

namespace ptoc {

struct TaskTemplate {
  int cls = -1;                      // leaf class (CompiledProgram::leaves)
  std::vector<int> gm;               // GM tensor per kernel slot
  std::vector<DimExpr> args;         // the first instance's values, as their text reads back
  std::vector<Region> reads, writes;
  std::vector<int> group_of;         // per value position: its delta group, or -1 (always the template's)
  int groups = 0;
};

struct TaskInstanceRecord {
  int tmpl = -1;                     // template index; -1: explicit (index `explicit_task` below)
  int leaf = -1;                     // Task::leaf
  int hash_order = 0;
  int label = 0;                     // index into CompactRoot::labels
  std::vector<int> succ;             // successor task indices (all greater than this task's)
  std::vector<int64_t> deltas;       // one per template group
  int explicit_task = -1;            // index into CompactRoot::explicit_tasks when tmpl < 0
};

struct CompactRoot {
  std::vector<TaskTemplate> templates;
  std::vector<std::string> labels;
  std::vector<TaskInstanceRecord> instances;   // in task order
  std::vector<Task> explicit_tasks;            // gm/args/reads/writes/cls of the irregular instances
  int op_magic_base = 0;                       // op_magic of task i is base + i ...
  std::vector<int> op_magics;                  // ... unless this lists them all
  std::vector<int> pred_counts;                // empty: each task's count of predecessors in `succ`
};

// The number of values of a task (args, then reads' and writes' offsets and extents).
size_t task_value_count(const Task& t);

// (A compact root, RootFunction::compact, gives back its records.)
CompactRoot compact_root(const CompiledProgram& p, const RootFunction& rf);
// The same without copying a compact root's records: *rf.compact, or compact_root() into `scratch`.
const CompactRoot& compact_of(const CompiledProgram& p, const RootFunction& rf, CompactRoot& scratch);
// The tasks of `cr`, exactly as compact_root() saw them. Throws std::runtime_error naming the
// instance when a record is inconsistent (validate_compact_root() says what first).
std::vector<Task> expand_root(const CompactRoot& cr);
// Task i of `cr` resolved from its record alone (its template or explicit task, its deltas): element i
// of expand_root() but for pred_count, which is left 0 (it needs the other records).
Task expand_task(const CompactRoot& cr, size_t i);
// What instance i stores or shares with its template, read without resolving it.
int instance_class(const CompactRoot& cr, size_t i);
const std::vector<int>& instance_gm(const CompactRoot& cr, size_t i);
size_t instance_arg_count(const CompactRoot& cr, size_t i);
// "" when every index of `cr` is in range and its counts agree, else what is wrong (first problem).
std::string validate_compact_root(const CompactRoot& cr, size_t num_classes, size_t num_tensors);

}  // namespace ptoc
