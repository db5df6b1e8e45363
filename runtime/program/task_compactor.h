// Builds a root's compact form (task_instances.h) from its tasks given one at a time, in task
// order. A task is given either whole (a Task) or as a moved copy of an earlier whole task: that
// task's values with some constant positions moved by per-task deltas (a tile family's copied
// member, compiler/passes/task_replica.h). A moved task is never built as a Task unless it becomes a
// template or has to be stored explicitly: its deltas against a template are the base's deltas
// (computed once per base and template) plus its moves, so compacting costs a few integers per
// value instead of a Task and its expressions per member.
//
// The task graph (compiler/passes/task_graph.cpp) builds a tile family's root with it, so an in-memory
// CompiledProgram's RootFunction::compact is set for those roots too (not only a loaded bundle's), and
// its `tasks` are empty: read tasks through root_tasks.h.
//
// compact_root() is this over a root's explicit tasks, so both ways of giving tasks produce the
// same records, byte for byte in the bundle (test_task_compactor compares them).
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/program/task_instances.h"

namespace ptoc {

// Calls f(value) for every value of a task, in position order: its arguments, then each read's and each
// write's offset and extent (the order of a template's value positions and of an instance's deltas).
template <class T, class F>
void each_task_value(T& t, F&& f) {
  for (auto& a : t.args) f(a);
  for (auto* regions : {&t.reads, &t.writes})
    for (auto& r : *regions) {
      for (auto& e : r.offset) f(e);
      for (auto& e : r.extent) f(e);
    }
}

class TaskCompactor {
 public:
  // A set of moving value positions of a base task: (position, slot), a moved task supplying one
  // delta per slot. Positions index the base's values (task_value_count order) and must be
  // constant there. Returns its id for add_moved().
  int add_pattern(std::vector<std::pair<int, int>> moves);

  // The next task, whole. `t` must outlive finish() (add_owned keeps a copy). Returns its handle.
  int add(const Task* t);
  int add_owned(Task t);
  // The next task: whole task `base` (a handle) with pattern `pattern`'s positions moved by
  // `slot_deltas`; `meta` gives the rest (leaf, hash_order, label, succ, op_magic, pred_count),
  // its gm/args/regions are ignored. Returns its handle (not usable as a base).
  int add_moved(int base, int pattern, std::vector<int64_t> slot_deltas, const Task& meta);

  // The compact root of every task added (the compactor is left empty).
  CompactRoot finish();

  // Task `handle` as a Task (a moved one: what TaskReplicas::derive builds); before finish().
  Task materialise(int handle) const;

 private:
  struct Entry {
    const Task* whole = nullptr;     // a whole task, else:
    int base = -1, pattern = -1;     // a moved one
    std::vector<int64_t> slot_deltas;
  };
  const Task& body(const Entry& e) const { return e.whole ? *e.whole : *entries_[size_t(e.base)].whole; }
  void add_meta(const Task& t);
  int class_of(size_t i) const { return cls_[i] >= 0 ? cls_[i] : cr_.instances[i].leaf; }  // class_index
  // The deltas of whole task `base` against template `ti` (computed once), null when one is not a constant.
  const std::vector<int64_t>* base_deltas(int ti, int base);
  // Per value position of pattern `pattern`'s base (`values` of them): its slot, or -1.
  const std::vector<int>& slot_at(int pattern, size_t values);

  std::deque<Task> owned_;
  std::vector<Entry> entries_;
  std::vector<std::vector<std::pair<int, int>>> patterns_;
  std::vector<std::vector<int>> slot_at_;
  CompactRoot cr_;
  std::vector<int> op_magic_, pred_count_, cls_;  // per task: Task::op_magic, pred_count, cls
  std::map<std::string, int> label_index_;
  // deltas of a whole base task against a template, by (template, base): computed once.
  std::unordered_map<uint64_t, std::pair<bool, std::vector<int64_t>>> base_deltas_;
};

}  // namespace ptoc
