// The model on the runtime's real device-task stream: runtime::ControlFlow walking a hand-made
// CompiledProgram (test/runtime/programs.h), released through the done hook. Checks the two
// contracts fit: every task runs once, after its predecessors; seqNo and task ids carry through.
#include <catch2/catch.hpp>

#include <map>
#include <memory>

#include "runtime/control_flow.h"
#include "runtime/sim/machine.h"
#include "test/runtime/programs.h"

using namespace ptoc;
using namespace ptoc::sim;

TEST_CASE("ControlFlow device tasks run through the model", "[sim][integration]") {
  const CompiledProgram prog = test::flip_program();
  const Platform& pf = *find_platform("ascend910b1");
  auto run_once = [&](int64_t stitch, std::map<std::pair<int, uint32_t>, int64_t>* ends) {
    runtime::ControlFlowOptions co;
    co.stitch_function_max_num = stitch;
    std::unique_ptr<runtime::ControlFlow> cf;
    int cf_round = -1;
    DeviceTaskSource src = [&](int round, runtime::DeviceTask& dt) {
      if (round != cf_round) {
        cf = std::make_unique<runtime::ControlFlow>(prog, DimExpr::Env{{"N", 208}, {"C", 64}}, co);
        cf_round = round;
      }
      return cf->next(dt);
    };
    SimOptions o;
    o.rounds = 2;
    bool order_ok = true;
    std::map<std::pair<int, uint32_t>, int64_t> end_of, all;  // (seq, task index) -> end, this device task
    o.on_device_task_done = [&](int round, const runtime::DeviceTask& dt) {
      cf->release(dt.seq);
      if (end_of.size() != dt.tasks.size()) order_ok = false;
      for (auto& [k, v] : end_of) all[{round * 1000 + k.first, k.second}] = v;
      end_of.clear();
    };
    o.task_sink = [&](const TaskRecord& r, const runtime::DeviceTask& dt) {
      end_of[{r.seq, r.task_index}] = r.end_ps;
      for (uint32_t s : dt.tasks[r.task_index].succ)
        if (end_of.count({r.seq, s})) order_ok = false;  // a successor finished before this task
    };
    Trace t = simulate(pf, prog, o, src);
    CHECK(order_ok);
    if (ends) *ends = all;
    return t;
  };
  std::map<std::pair<int, uint32_t>, int64_t> e1, e2;
  Trace a = run_once(4, &e1);
  Trace b = run_once(4, &e2);
  CHECK(e1 == e2);
  REQUIRE(a.rounds.size() == 2);
  // N = 208: 13 blocks; loop A by gears 4,4,4,1 (4 roots x 2 tasks), loop B 13 roots x 1 task.
  CHECK(a.rounds[0].summary.tasks == 4 * 2 + 13);
  CHECK(a.rounds[0].summary.root_instances == 17);
  CHECK(a.rounds[0].summary.device_tasks == 5);  // stitch 4: ceil(17 / 4)
  CHECK(a.rounds[1].summary.tasks == a.rounds[0].summary.tasks);
  Trace one = run_once(64, nullptr);
  CHECK(one.rounds[0].summary.device_tasks < a.rounds[0].summary.device_tasks);
}
