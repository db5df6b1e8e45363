// PyPTO's `pypto.loop(cond)` (compiler/frontend/loop_count_condition.cpp, issue 13): a loop whose count is a
// condition runs once when it holds and not at all otherwise. `count: COND` and `range: [COND]` lower to
// `{cond: COND, then: [loop of count 1]}`: the same program as that spelling, folded when COND is static, a
// run-time branch otherwise; carry, static and unroll are refused at their keys, and a condition that does not
// parse is reported where it breaks. Numbers: test/conformance/specs/loop_count_condition.yaml against NumPy.
#include "spec_helpers.h"

using fe_test::expect_error;
using fe_test::graph;
using fe_test::ok;
using fe_test::outline;
using fe_test::spec;

namespace {

const std::string kTile = "  - {vec_tile: [16, 64]}\n  - \"y[0:16, :] = x[0:16, :] * 1\"\n";
const std::string kBody = "    body: [\"y[i * 16:(i + 1) * 16, :] = exp(x[i * 16:(i + 1) * 16, :])\"]\n";

// A loop over `head` (the loop header's count or range entry) on line 16 of the spec.
std::string cond_loop(const std::string& head, const std::string& extra = {}) {
  return spec(kTile + "  - loop: {var: i, " + head + ", name: LC" + extra + "}\n" + kBody);
}

// The explicit spelling: a `cond` whose then-branch is the loop of one iteration, on the same line.
std::string explicit_cond(const std::string& cond) {
  return spec(kTile + "  - cond: \"" + cond + "\"\n    then:\n      - loop: {var: i, count: 1, name: LC}\n    " + kBody);
}

}  // namespace

TEST_CASE("loop(cond) is a cond over a loop of one iteration", "[frontend][loopcond]") {
  for (const std::string cond : {"B > 4", "n[0, 0] > 0", "B % 2 == 1 and B > 2", "not B < 8"}) {
    INFO(cond);
    const std::string want = graph(explicit_cond(cond));
    CHECK(graph(cond_loop("count: \"" + cond + "\"")) == want);
    CHECK(graph(cond_loop("range: [\"" + cond + "\"]")) == want);
  }
  // A run-time branch: the loop is its then-branch (its own root function), nothing else runs it.
  CHECK(outline(ok(cond_loop("count: \"B > 4\"")).body) == "R IF_L16_then(LC(R))");
  CHECK(outline(ok(cond_loop("count: \"n[0, 0] > 0\"")).body) == "R IF_L16_then(LC(R))");
}

TEST_CASE("loop(cond) with a static condition is decided at compile time", "[frontend][loopcond]") {
  // true: the loop of one iteration, spliced in place; false: nothing.
  CHECK(outline(ok(cond_loop("count: \"H == 64\"")).body) == "R LC(R)");
  CHECK(outline(ok(cond_loop("count: \"H < 32 or true\"")).body) == "R LC(R)");
  CHECK(outline(ok(cond_loop("count: \"H > 64\"")).body) == "R");
  CHECK(outline(ok(cond_loop("range: [\"not H == 64\"]")).body) == "R");
  // An ordinary count is still a count.
  CHECK(outline(ok(cond_loop("count: \"ceil_div(B, 16)\"")).body) == "R LC(R)");
  // Inside the one iteration the loop variable is 0.
  CHECK(graph(cond_loop("count: \"H == 64\"")) == graph(cond_loop("count: 1")));
}

TEST_CASE("loop(cond) errors: carry, static and unroll at their keys; syntax where it breaks",
          "[frontend][loopcond]") {
  expect_error(cond_loop("count: \"B > 4\"", ", carry: {acc: \"full([16, 64], 0, fp32)\"}"), "carry:",
               "a loop whose count is a condition runs once or not at all: it cannot carry values",
               "write the branch itself, {cond: COND, then: [...]}");
  expect_error(cond_loop("count: \"B > 4\"", ", kind: static"), "static}",
               "a loop whose count is a condition cannot be static", "remove 'kind: static'");
  expect_error(cond_loop("range: [\"H == 64\"]", ", unroll: [2], factor: k"), "unroll:",
               "a loop whose count is a condition runs once or not at all: it has nothing to unroll");
  // The condition's own syntax: the column where it breaks.
  expect_error(cond_loop("count: \"B > \""), "\", name: LC",
               "expected an expression");
  expect_error(cond_loop("count: \"1 < B < 4\""), "< 4\"", "chained comparisons are not supported",
               "join comparisons with 'and'");
  expect_error(cond_loop("count: \"B > 4 and\""), "\", name: LC", "expected an expression");
  // A condition is the whole range, not one bound of it.
  expect_error(cond_loop("range: [0, \"B > 4\"]"), "\"B > 4\"]",
               "a condition cannot be a bound of a loop range with 2 entries", "'range: [COND]' or 'count: COND'");
}
