// Root function tasks in either form; see root_tasks.h.
#include "runtime/program/root_tasks.h"

namespace ptoc {

size_t task_count(const RootFunction& rf) { return rf.compact ? rf.compact->instances.size() : rf.tasks.size(); }

int task_leaf(const RootFunction& rf, size_t i) {
  return rf.compact ? rf.compact->instances[i].leaf : rf.tasks[i].leaf;
}

int task_class(const RootFunction& rf, size_t i) {
  if (!rf.compact) return rf.tasks[i].cls >= 0 ? rf.tasks[i].cls : rf.tasks[i].leaf;
  return instance_class(*rf.compact, i);
}

const std::vector<int>& task_succ(const RootFunction& rf, size_t i) {
  return rf.compact ? rf.compact->instances[i].succ : rf.tasks[i].succ;
}

int task_op_magic(const RootFunction& rf, size_t i) {
  if (!rf.compact) return rf.tasks[i].op_magic;
  const CompactRoot& cr = *rf.compact;
  return cr.op_magics.empty() ? cr.op_magic_base + int(i) : cr.op_magics[i];
}

const std::vector<int>& task_gm(const RootFunction& rf, size_t i) {
  return rf.compact ? instance_gm(*rf.compact, i) : rf.tasks[i].gm;
}

size_t task_arg_count(const RootFunction& rf, size_t i) {
  return rf.compact ? instance_arg_count(*rf.compact, i) : rf.tasks[i].args.size();
}

std::vector<int> task_pred_counts(const RootFunction& rf) {
  std::vector<int> out;
  if (!rf.compact) {
    for (const Task& t : rf.tasks) out.push_back(t.pred_count);
    return out;
  }
  const CompactRoot& cr = *rf.compact;
  if (!cr.pred_counts.empty()) return cr.pred_counts;
  out.assign(cr.instances.size(), 0);
  for (const TaskInstanceRecord& r : cr.instances)
    for (int s : r.succ) ++out.at(size_t(s));
  return out;
}

Task task_at(const RootFunction& rf, size_t i, bool with_pred_count) {
  if (!rf.compact) return rf.tasks[i];
  Task t = expand_task(*rf.compact, i);
  const CompactRoot& cr = *rf.compact;
  if (!cr.pred_counts.empty()) {
    t.pred_count = cr.pred_counts[i];
  } else if (with_pred_count) {
    // The predecessors of i come before it (successors are greater than their task).
    for (size_t j = 0; j < i; ++j)
      for (int s : cr.instances[j].succ) t.pred_count += s == int(i);
  }
  return t;
}

std::vector<Task> resolve_all_tasks(const RootFunction& rf) {
  return rf.compact ? expand_root(*rf.compact) : rf.tasks;
}

}  // namespace ptoc
