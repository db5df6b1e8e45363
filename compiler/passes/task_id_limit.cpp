// A root function's leaf tasks against the task id (task_id_limit.h). A task id keeps the task's
// index in its root function in 16 bits, as PyPTO's does (aikernel_data.h: TASKID_TASK_BITS 16,
// MakeTaskID(func, op) = func << 16 | op), so this is a limit of the target, not of ptoc. The
// error names the statement whose tasks are most numerous and the vec_tile that made them.
#include "compiler/passes/task_id_limit.h"

#include <map>

#include "runtime/program/compiled_program.h"

namespace ptoc {

bool check_task_id_limit(const Program& prog, const RootTemplate& rt, const TileRoot& tr, DiagEngine& diags) {
  size_t tasks = 0;
  for (const Subgraph& sg : tr.subgraphs) tasks += !sg.ops.empty();
  if (tasks <= kMaxTasksPerRoot || rt.ops.empty()) return true;
  // Tasks per statement, each counted at the statement of its first op.
  std::map<int, size_t> per_op;
  for (const Subgraph& sg : tr.subgraphs) {
    if (sg.ops.empty()) continue;
    const int src = tr.ops[size_t(sg.ops.front())].source_op;
    ++per_op[src >= 0 ? src : rt.ops.front()];
  }
  std::map<std::pair<int, int>, std::pair<size_t, int>> per_loc;  // (line, col) -> (tasks, an op)
  for (auto& [op, n] : per_op) {
    const SrcLoc l = prog.ops[size_t(op)].loc;
    auto& e = per_loc[{l.line, l.col}];
    e.first += n;
    e.second = op;
  }
  size_t most = 0;
  int at = rt.ops.front();
  for (auto& [loc, e] : per_loc)
    if (e.first > most) most = e.first, at = e.second;
  const Op& op = prog.ops[size_t(at)];
  std::string tile;
  if (op.vec_tile) {
    for (int64_t x : op.vec_tile->shape) tile += (tile.empty() ? "[" : ", ") + std::to_string(x);
    tile += "]";
  }
  diags.error(op.loc,
              "root function '" + rt.name + "' has " + std::to_string(tasks) + " leaf tasks, more than the " +
                  std::to_string(kMaxTasksPerRoot) + " a root function can hold (a task id numbers the tasks " +
                  "of its root function in 16 bits, as PyPTO's does); " + std::to_string(most) +
                  " of them come from this statement" + (tile.empty() ? "" : " with vec_tile " + tile),
              "use larger tiles (each task covers a tile), or put the statements in a loop over blocks "
              "(each iteration is a root instance of its own)");
  return false;
}

}  // namespace ptoc
