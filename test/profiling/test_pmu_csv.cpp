#include <catch2/catch.hpp>

#include "runtime/profiling/pmu_csv.h"
#include "runtime/profiling/pmu_events.h"

using namespace ptoc::profiling;

TEST_CASE("PMU groups carry PyPTO's counter names per arch") {
  CHECK(pmu_counter_names(2, "dav_2201").front() == "vec_busy_cycles");
  CHECK(pmu_counter_names(2, "dav_2201").size() == 8);
  CHECK(pmu_counter_names(2, "dav_3510").back() == "pmu_fix_instr_busy");
  CHECK(pmu_counter_names(5, "dav_2201")[1] == "l0a_read_req");  // PyPTO's header repeats it
  CHECK(pmu_counter_names(3, "dav_2201").empty());
  for (int g : {1, 2, 4, 5, 6, 7, 8}) {
    CHECK(valid_pmu_group(g));
    for (const char* arch : {"dav_2201", "dav_3510"})
      CHECK(pmu_counter_values(g, arch, PmuSource{}).size() == pmu_counter_names(g, arch).size());
  }
  CHECK_FALSE(valid_pmu_group(3));
}

TEST_CASE("group 2 reports pipe busy cycles from the model") {
  PmuSource s;
  s.pipe_busy = {100, 20, 300, 40, 500, 60, 7};  // MTE2 MTE1 M FIX V MTE3 S
  auto v = pmu_counter_values(2, "dav_2201", s);
  CHECK(v[0] == 500);  // vec
  CHECK(v[1] == 300);  // cube
  CHECK(v[2] == 7);    // scalar
  CHECK(v[3] == 20);   // mte1
  CHECK(v[4] == 100);  // mte2
  CHECK(v[5] == 60);   // mte3
}

TEST_CASE("CSV round trip and grid rendering") {
  CsvTable t{{"thread id", "task id", "total cycle"}, {{"0", "65536", "1200"}, {"1", "65537", "80"}}};
  std::string text = format_csv(t);
  CHECK(text == "thread id,task id,total cycle\n0,65536,1200\n1,65537,80\n");
  auto back = parse_csv(text, "t.csv");
  CHECK(back.header == t.header);
  CHECK(back.rows == t.rows);
  std::string grid = render_grid(back);
  CHECK(grid.find("+====") != std::string::npos);
  CHECK(grid.find("\n| 1 |") != std::string::npos);
  CHECK_THROWS_WITH(parse_csv("a,b\n1\n", "bad.csv"), Catch::Contains("bad.csv:2: 1 fields, the header has 2"));
}
