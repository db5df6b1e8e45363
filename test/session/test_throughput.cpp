// The figures behind ptorun's "simulator:" throughput line: tasks of every round, the machine
// model's event count (Trace::events, all rounds) and the run's process CPU time.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>

#include "../runtime/programs.h"
#include "runtime/program/bundle.h"
#include "runtime/session.h"

using namespace ptoc;
using namespace ptoc::runtime;

TEST_CASE("a timing-only run reports tasks, model events and CPU seconds over all rounds") {
  // flip_program at N = 208: loop A covers 13 blocks with gears 4, 4, 4, 1 (4 roots x 2 tasks),
  // loop B has 13 roots of 1 task: 21 tasks per round.
  const auto path = (std::filesystem::temp_directory_path() / "ptoc_test_throughput.bundle").string();
  write_bundle(path, test::flip_program(), {});
  Session s(path);
  s.set_dim("N", 208);
  RunConfig cfg;
  cfg.backend = "sim";
  cfg.numerics = false;
  const RunResult one = s.run(cfg);
  CHECK(one.backend == "sim");
  CHECK(one.tasks == 21);
  CHECK(one.trace.events >= 2 * one.tasks);  // at least a start and an end per task
  CHECK(std::isfinite(one.host_cpu_seconds));
  CHECK(one.host_cpu_seconds >= 0);

  cfg.rounds = 3;
  const RunResult three = s.run(cfg);
  CHECK(three.tasks == 3 * 21);
  // Every round replays the same device tasks, so the count covers all three (rounds may overlap
  // at their edges, so not exactly 3x).
  CHECK(three.trace.events > 2 * one.trace.events);
  std::filesystem::remove(path);
}
