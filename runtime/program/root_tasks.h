// A root function's tasks, read from whichever form holds them: explicit Tasks (the compiler's
// in-memory programs, hand-built test programs) or the compact instance records of a loaded bundle
// (RootFunction::compact, task_instances.h), which ptorun never expands into per-task copies: a
// record is resolved when its task is used, so ptorun's memory follows the classes and templates,
// not the task count. The cheap accessors read one stored field; task_at() resolves a whole task.
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "runtime/program/task_instances.h"

namespace ptoc {

size_t task_count(const RootFunction& rf);
int task_leaf(const RootFunction& rf, size_t i);
// The class index (CompiledProgram::class_index of the task).
int task_class(const RootFunction& rf, size_t i);
const std::vector<int>& task_succ(const RootFunction& rf, size_t i);
int task_op_magic(const RootFunction& rf, size_t i);
// GM tensor per kernel slot, and the number of int64 arguments.
const std::vector<int>& task_gm(const RootFunction& rf, size_t i);
size_t task_arg_count(const RootFunction& rf, size_t i);
// Every task's Task::pred_count, in task order.
std::vector<int> task_pred_counts(const RootFunction& rf);
// f(tensor, write) for each region of task i, reads then writes (a compact task's regions are its template's
// but for their offsets and extents).
template <class F>
void for_each_region_tensor(const RootFunction& rf, size_t i, F&& f) {
  const std::vector<Region>*rd, *wr;
  if (!rf.compact) {
    rd = &rf.tasks[i].reads, wr = &rf.tasks[i].writes;
  } else {
    const TaskInstanceRecord& r = rf.compact->instances[i];
    const auto& body = [&]() -> std::pair<const std::vector<Region>*, const std::vector<Region>*> {
      if (r.tmpl >= 0) return {&rf.compact->templates[size_t(r.tmpl)].reads, &rf.compact->templates[size_t(r.tmpl)].writes};
      return {&rf.compact->explicit_tasks[size_t(r.explicit_task)].reads,
              &rf.compact->explicit_tasks[size_t(r.explicit_task)].writes};
    }();
    rd = body.first, wr = body.second;
  }
  for (const Region& g : *rd) f(g.tensor, false);
  for (const Region& g : *wr) f(g.tensor, true);
}
// Task i, resolved (for a compact root: expand_task, the same task expand_root() gives, with its
// pred_count: a scan of the records before it; loops over every task pass with_pred_count = false and
// read task_pred_counts(), which leaves a compact task's pred_count 0).
Task task_at(const RootFunction& rf, size_t i, bool with_pred_count = true);
// Every task resolved, with its pred_count (memory per task: for tests and tools, not for ptorun).
std::vector<Task> resolve_all_tasks(const RootFunction& rf);

}  // namespace ptoc
