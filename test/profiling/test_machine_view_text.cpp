// machine_view_text.h: each piece of text is what nlohmann's dump() writes for the same ordered_json
// (the swimlane writer relies on it to skip a JSON tree per event).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "runtime/profiling/machine_view_text.h"

using namespace ptoc::profiling;
using nlohmann::ordered_json;

namespace {
std::string tree_text(bool finish, int64_t id, int64_t tid, double ts) {
  if (finish)
    return ordered_json({{"bp", "e"}, {"cat", "machine-view-last-dep"}, {"id", id}, {"name", "machine-view-last-dep"},
                         {"ph", "f"}, {"pid", 1}, {"tid", int(tid)}, {"ts", ts}})
        .dump();
  return ordered_json({{"cat", "machine-view-last-dep"}, {"id", id}, {"name", "machine-view-last-dep"}, {"ph", "s"},
                       {"pid", 1}, {"tid", int(tid)}, {"ts", ts}})
      .dump();
}
std::string text(bool finish, int64_t id, int64_t tid, double ts) {
  std::string out;
  append_flow_event(out, finish, id, tid, ts);
  return out;
}
}  // namespace

TEST_CASE("flow event text equals the dump of its JSON tree", "[profiling][swimlane]") {
  const double values[] = {20000000204.6799, 20000000197.08 - 0.0001, 0.0, -0.0, 1.0, 3.0, -1.5, 0.1 + 0.2, 1e20,
                           1e-7, 123456789012345678.0, 5e-324, std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()};
  for (double v : values)
    for (bool finish : {false, true}) {
      INFO("ts " << v << " finish " << finish);
      CHECK(text(finish, 0, 1002, v) == tree_text(finish, 0, 1002, v));
      CHECK(text(finish, 987654321012, 1000, v) == tree_text(finish, 987654321012, 1000, v));
      CHECK(text(finish, -1, 1003, v) == tree_text(finish, -1, 1003, v));
    }
  CHECK(text(false, 7, 1002, 2.5) ==
        R"({"cat":"machine-view-last-dep","id":7,"name":"machine-view-last-dep","ph":"s","pid":1,"tid":1002,"ts":2.5})");
  CHECK(text(true, 7, 1004, 1e20) ==
        R"({"bp":"e","cat":"machine-view-last-dep","id":7,"name":"machine-view-last-dep","ph":"f","pid":1,"tid":1004,"ts":1e+20})");
  // Random finite doubles (every exponent), and times as the writer makes them (ticks / freq).
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    REQUIRE(text(i % 2, i, 1000 + i % 97, v) == tree_text(i % 2, i, 1000 + i % 97, v));
    const double t = double(1'000'000'000'000 + int64_t(rng() % 100'000'000)) / 50.0 - (i % 3 ? 0.0001 : 0.0);
    REQUIRE(text(i % 2, i, 1002, t) == tree_text(i % 2, i, 1002, t));
  }
}

TEST_CASE("strings, integers and counters are written as dump() writes them", "[profiling][swimlane]") {
  const std::string strings[] = {"", "plain", "Task:[0-1-294], rootHash:5682613330038012416\nl1ReuseInfo hashOrder",
                                 "[{934: {'shape': [16, 2048], 'dtype': 7}}]", "quote \" and \\ back",
                                 "ctl \x01\x02\x1f\x7f \b\f\r\t", std::string("nul \0 inside", 13), "utf-8 \xc3\xa9\xe2\x82\xac",
                                 "fake"};
  for (const auto& s : strings) {
    std::string out;
    append_json_string(out, s);
    CHECK(out == ordered_json(s).dump());
  }
  std::string bad;  // invalid UTF-8: the same error as dump()
  CHECK_THROWS_AS(append_json_string(bad, "\xff\xfe"), nlohmann::json::type_error);
  for (int64_t v : {int64_t(0), int64_t(-1), int64_t(4294967295), std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    std::string out;
    append_json_int(out, v);
    CHECK(out == ordered_json(v).dump());
  }
  for (double ts : {20000000107.34, 0.5, 1e-9})
    for (int64_t n : {int64_t(0), int64_t(418), int64_t(-3)}) {
      std::string i, d;
      append_counter_event(i, "ReadyCount_AIV", ts, n);
      CHECK(i == ordered_json({{"name", "ReadyCount_AIV"}, {"pid", 1}, {"tid", 1}, {"ph", "C"}, {"ts", ts},
                               {"args", {{"size", n}}}}).dump());
      append_counter_event(d, "Dependence Solving (MHz)", ts, double(n) / 3.0);
      CHECK(d == ordered_json({{"name", "Dependence Solving (MHz)"}, {"pid", 1}, {"tid", 1}, {"ph", "C"}, {"ts", ts},
                               {"args", {{"size", double(n) / 3.0}}}}).dump());
    }
}
