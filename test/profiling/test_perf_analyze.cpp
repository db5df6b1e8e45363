// analyze: PyPTO's stage-table formulas on a hand-made perf file whose every
// cell was computed by hand (freq 50 ticks/us, so 50 ticks = 1 us).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "runtime/profiling/perf_analyze.h"

using namespace ptoc::profiling;
using nlohmann::json;

static json ev(const std::string& n, int64_t end) { return json{{"name", n}, {"end", end}}; }

static json sample_lanes() {
  json ctrl = {{"blockIdx", 0}, {"coreType", "AICPU-CTRL"}, {"freq", 50},
               // events are grouped by type, not in time order: analyze must sort by end
               {"tasks", {ev("BEGIN_0", 1000), ev("DEV_TASK_BUILD_0(1)", 1600), ev("INIT_0", 1100),
                          ev("DEV_TASK_BUILD_0(0)", 1350), ev("EXIT_0", 1700)}}};
  json sched = {{"blockIdx", 1}, {"coreType", "AICPU-SCHED"}, {"freq", 50},
                {"tasks", {ev("BEGIN_0", 1000), ev("ALLOC_THREAD_ID_0", 1050), ev("INIT_0", 1150),
                           ev("CORE_HAND_SHAKE_0", 1300), ev("DEV_TASK_RCV_0(0)", 1400),
                           ev("DEV_TASK_SYNC_CORE_STOP_0(0)", 2000), ev("DEV_TASK_RSP_0(0)", 2050),
                           ev("WAIT_ALL_DEV_TASK_FINISH_0", 2100), ev("WAIT_CORE_EXIT_0", 2200), ev("EXIT_0", 2250)}}};
  json aic = {{"blockIdx", 2}, {"coreType", "SCHED0-AIC"}, {"freq", 50},
              {"tasks", {ev("BEGIN_0", 1010), ev("INIT_0", 1300), ev("DEV_TASK_RCV_MODEL_0(0)", 1400),
                         ev("DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK_0(0)", 1450), ev("DEV_TASK_ALL_LEAF_TASK_EXEC_0(0)", 1950),
                         ev("WAIT_EXIT_NOTIFY_0", 2150)}}};
  json aiv = {{"blockIdx", 3}, {"coreType", "SCHED0-AIV"}, {"freq", 50},
              {"tasks", {ev("BEGIN_0", 1005), ev("INIT_0", 1300), ev("DEV_TASK_RCV_MODEL_0(0)", 1400),
                         ev("DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK_0(0)", 1500), ev("DEV_TASK_ALL_LEAF_TASK_EXEC_0(0)", 2000),
                         ev("WAIT_EXIT_NOTIFY_0", 2100)}}};
  return json::array({ctrl, sched, aic, aiv});
}

TEST_CASE("stage names parse like PyPTO's regex") {
  auto a = parse_stage_name("DEV_TASK_BUILD_0(1)");
  REQUIRE(a);
  CHECK(a->base == "DEV_TASK_BUILD");
  CHECK(a->round == 0);
  CHECK(a->idx == 1);
  auto b = parse_stage_name("WAIT_ALL_DEV_TASK_FINISH_12");
  REQUIRE(b);
  CHECK(b->base == "WAIT_ALL_DEV_TASK_FINISH");
  CHECK(b->round == 12);
  CHECK(b->idx == -1);
  auto c = parse_stage_name("DEV_TASK_SEND_FIRST_LEAF_TASK_3");
  REQUIRE(c);
  CHECK(c->base == "DEV_TASK_SEND_FIRST_LEAF_TASK");
  CHECK(c->round == 3);
  CHECK_FALSE(parse_stage_name("lower_case_0"));
  CHECK_FALSE(parse_stage_name("BAD(x)"));
}

TEST_CASE("CTRL, SCHED and AICore rows follow the reference formulas") {
  auto tables = analyze_perf_json(sample_lanes(), "sample.json");
  REQUIRE(tables.size() == 1);
  const auto& rows = tables[0].rows;
  REQUIRE(rows.size() == 3);

  const auto& ctrl = rows[0];
  CHECK(ctrl.unit == "AICPU-CTRL-0");
  // builds: (1350-1100) + (1600-1350) = 500 ticks = 10 us
  CHECK(*ctrl.cells[0] == Approx(10.0));
  CHECK(*ctrl.cells[5] == Approx(2.0));   // EXIT - last build = 100 ticks
  CHECK(*ctrl.cells[7] == Approx(14.0));  // 1700 - 1000
  CHECK_FALSE(ctrl.cells[1]);

  const auto& sched = rows[1];
  CHECK(sched.unit == "AICPU-SCHED-1");
  CHECK(*sched.cells[1] == Approx(1.0));  // ALLOC 50
  CHECK(*sched.cells[2] == Approx(2.0));  // INIT 100
  CHECK(*sched.cells[3] == Approx(3.0));  // HANDSHAKE 150
  CHECK(*sched.cells[4] == Approx(2.0));  // RCV(0) 100
  // post = SYNC_CORE_STOP 600 + RSP 50 + WAIT_ALL 50 + WAIT_CORE_EXIT 100 + EXIT 50 = 850 ticks
  CHECK(*sched.cells[5] == Approx(17.0));
  CHECK(*sched.cells[7] == Approx(25.0));  // max(2200, 2250) - 1000

  const auto& core = rows[2];
  CHECK(core.unit == "AICore");
  CHECK(*core.cells[2] == Approx(8.9));   // INIT: min first-leaf 1450 - min first 1005 = 445 ticks
  CHECK(*core.cells[5] == Approx(3.0));   // post: max last 2150 - max all-exec 2000
  CHECK(*core.cells[6] == Approx(11.0));  // E2E: 2000 - 1450
  CHECK(*core.cells[7] == Approx(22.9));  // total: 2150 - 1005
  CHECK(*core.cells[6] <= 1.01 * *core.cells[7]);
}

TEST_CASE("rounds are separated and rendered with banners and '-' for empty cells") {
  json lanes = sample_lanes();
  for (auto& lane : lanes) {
    json extra = json::array();
    for (auto& t : lane["tasks"]) {
      std::string n = t["name"];
      auto pos = n.find("_0");
      json copy = t;
      copy["name"] = n.replace(pos, 2, "_1");
      copy["end"] = t["end"].get<int64_t>() + 5000;
      extra.push_back(copy);
    }
    for (auto& e : extra) lane["tasks"].push_back(e);
  }
  auto tables = analyze_perf_json(lanes, "two.json");
  REQUIRE(tables.size() == 2);
  CHECK(*tables[1].rows[0].cells[0] == Approx(10.0));
  std::string text = render_round_tables(tables);
  CHECK(text.find(" round1 ") != std::string::npos);
  CHECK(text.find(" round2 ") != std::string::npos);
  CHECK(text.find("| Compute Units ") != std::string::npos);
  CHECK(text.find("End-to-End time(us)") != std::string::npos);
  CHECK(text.find("| AICPU-CTRL-0 ") != std::string::npos);
  CHECK(text.find("|     10.00 |") == std::string::npos);  // right-aligned within the column width
  CHECK(text.find(" - |") != std::string::npos);
}

TEST_CASE("malformed perf files are refused with the file and lane named") {
  CHECK_THROWS_WITH(analyze_perf_json(json::object(), "x.json"), Catch::Contains("x.json: expected a JSON array"));
  json bad = json::array({json{{"blockIdx", 0}}});
  CHECK_THROWS_WITH(analyze_perf_json(bad, "y.json"), Catch::Contains("y.json: lane 0 has no coreType/tasks"));
}
