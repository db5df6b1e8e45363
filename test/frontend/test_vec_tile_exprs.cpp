// vec_tile entries written as dim expressions (elaborate_vec_tile.cpp): PyPTO's
// set_vec_tile_shapes(t_tile, ...) with the unroll gear as an entry. The tiles each gear gets, that they are
// those of the same spec written with constant tiles chosen by `if`, and the located errors.
#include <set>
#include <vector>

#include "spec_helpers.h"

using fe_test::exp_tiles;
using fe_test::expect_error;
using fe_test::ok;
using fe_test::run;

namespace {

std::string gears(const std::string& tile_stmts) {
  return "ptoc: 1\nname: t\ndims:\n  T: dynamic\n  H: 64\n"
         "inputs:\n  x: {dtype: fp32, shape: [T, H]}\noutputs:\n  y: {dtype: fp32, shape: [T, H]}\n"
         "body:\n"
         "  - loop: {var: i, count: T, unroll: [8, 2], factor: k}\n"
         "    body:\n" +
         tile_stmts +
         "      - \"y[i:, :] = exp(x[i:i + k, :])\"\n";
}

}  // namespace

TEST_CASE("a vec_tile entry may be an unroll factor or an expression of it", "[frontend][vec_tile]") {
  auto p = ok(gears("      - vec_tile: [k, 64]\n"));
  CHECK(exp_tiles(p) == std::vector<std::vector<int64_t>>{{8, 64}, {2, 64}, {1, 64}});
  // PyPTO's min(t_tile, 4), and arithmetic with static dims.
  auto q = ok(gears("      - vec_tile: [\"min(k, 4)\", \"H // 2\"]\n"));
  CHECK(exp_tiles(q) == std::vector<std::vector<int64_t>>{{4, 32}, {2, 32}, {1, 32}});
}

TEST_CASE("a symbolic vec_tile gives the tiles of the same spec with constant tiles", "[frontend][vec_tile]") {
  auto sym = ok(gears("      - vec_tile: [k, 64]\n"));
  auto chain = ok(gears("      - if: \"k >= 8\"\n        then: [{vec_tile: [8, 64]}]\n"
                        "        else:\n          - if: \"k >= 2\"\n            then: [{vec_tile: [2, 64]}]\n"
                        "            else: [{vec_tile: [1, 64]}]\n"));
  CHECK(exp_tiles(sym) == exp_tiles(chain));
  REQUIRE(sym.ops.size() == chain.ops.size());
  for (size_t i = 0; i < sym.ops.size(); ++i) {
    INFO("op " << i);
    CHECK(sym.ops[i].vec_tile.has_value() == chain.ops[i].vec_tile.has_value());
    if (sym.ops[i].vec_tile && chain.ops[i].vec_tile) CHECK(sym.ops[i].vec_tile->shape == chain.ops[i].vec_tile->shape);
  }
}

TEST_CASE("a static-loop variable may size a vec_tile entry", "[frontend][vec_tile]") {
  auto p = ok("ptoc: 1\nname: t\ndims: {H: 64}\ninputs:\n  x: {dtype: fp32, shape: [4, H]}\n"
              "outputs:\n  y: {dtype: fp32, shape: [4, H]}\nbody:\n"
              "  - loop: {var: j, count: 2, kind: static}\n    body:\n"
              "      - vec_tile: [1, \"32 * (j + 1)\"]\n"
              "      - \"y[j * 2:, :] = exp(x[j * 2:j * 2 + 2, :])\"\n");
  CHECK(exp_tiles(p) == std::vector<std::vector<int64_t>>{{1, 32}, {1, 64}});
}

TEST_CASE("vec_tile entries that are not positive constants are located errors", "[frontend][vec_tile]") {
  expect_error(gears("      - vec_tile: [T, 64]\n"), "T, 64]",
               "'T' is a dynamic dim; a vec_tile entry must be a compile-time constant", "tile a block of that axis");
  expect_error(gears("      - vec_tile: [\"min(i, 4)\", 64]\n"), "i, 4)",
               "'i' is a dynamic loop variable; a vec_tile entry must be a compile-time constant", "unroll factor");
  expect_error(gears("      - vec_tile: [\"k - 2\", 64]\n"), "k - 2\"", "vec_tile entry 'k - 2' is 0; tile entries must be positive",
               "unroll factors");
  expect_error(gears("      - vec_tile: [\"k +\", 64]\n"), "\"k +@\"", "expected");
  expect_error(gears("      - vec_tile: [z, 64]\n"), "z, 64]", "'z'");
  // Integer entries keep their own message.
  expect_error(gears("      - vec_tile: [0, 64]\n"), "0, 64]", "vec_tile entries must be positive integers, got '0'");
}

TEST_CASE("a broken symbolic vec_tile is reported once, not again by the ops it would tile", "[frontend][vec_tile]") {
  auto r = run(gears("      - vec_tile: [\"k - 8\", 64]\n"));
  INFO(r.rendered);
  CHECK_FALSE(r.prog.has_value());
  CHECK_THAT(r.rendered, Catch::Contains("is 0; tile entries must be positive"));
  CHECK_THAT(r.rendered, !Catch::Contains("no vec_tile in force"));
}
