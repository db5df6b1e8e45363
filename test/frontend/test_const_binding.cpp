// Compile-time constants bound by a statement (elaborate_const_binding.cpp): PyPTO's per-gear Python
// variables (`tile_t = unroll_length`, `tile_shape_2 = 4` in a branch, `split_k = True`) read by vec_tile
// entries, slices, `if`s and scalar operands; the same program as the spec with the values written out; the
// scoping (an `if` branch holds after it, a loop body is local); and the located errors.
#include <vector>

#include "spec_helpers.h"

using fe_test::exp_tiles;
using fe_test::expect_error;
using fe_test::ok;
using fe_test::run;

namespace {

std::string gears(const std::string& stmts) {
  return "ptoc: 1\nname: t\ndims:\n  T: dynamic\n  H: 64\n"
         "inputs:\n  x: {dtype: fp32, shape: [T, H]}\noutputs:\n  y: {dtype: fp32, shape: [T, H]}\n"
         "body:\n"
         "  - loop: {var: i, count: T, unroll: [8, 2], factor: k}\n"
         "    body:\n" +
         stmts;
}

}  // namespace

TEST_CASE("constants chosen per gear in if branches set each gear's tiles", "[frontend][const]") {
  // hc_pre's form: the branch binds the tile constants, later statements read them.
  auto p = ok(gears("      - \"tile_t = k\"\n"
                    "      - if: \"tile_t <= 2\"\n"
                    "        then: [\"rows = 1\", \"wide = True\"]\n"
                    "        else: [\"rows = min(tile_t, 4)\", \"wide = False\"]\n"
                    "      - vec_tile: [\"rows * 2\", \"H // (2 - wide)\"]\n"
                    "      - \"y[i:, :] = exp(x[i:i + tile_t, :])\"\n"));
  CHECK(exp_tiles(p) == std::vector<std::vector<int64_t>>{{8, 32}, {2, 64}, {2, 64}});
  // The same spec with the values written out.
  auto q = ok(gears("      - if: \"k <= 2\"\n"
                    "        then: [{vec_tile: [2, 64]}]\n"
                    "        else: [{vec_tile: [8, 32]}]\n"
                    "      - \"y[i:, :] = exp(x[i:i + k, :])\"\n"));
  CHECK(exp_tiles(p) == exp_tiles(q));
  REQUIRE(p.ops.size() == q.ops.size());
  for (size_t i = 0; i < p.ops.size(); ++i) {
    INFO("op " << i);
    CHECK(p.ops[i].kind == q.ops[i].kind);
    CHECK(p.ops[i].shape.size() == q.ops[i].shape.size());
  }
}

TEST_CASE("a constant is a scalar operand and a condition", "[frontend][const]") {
  auto p = ok(gears("      - vec_tile: [k, 64]\n"
                    "      - \"split_k = True\"\n"
                    "      - \"scale = k * 2\"\n"
                    "      - if: \"not split_k\"\n"
                    "        then: [\"y[i:, :] = x[i:i + k, :]\"]\n"
                    "        else: [\"y[i:, :] = exp(x[i:i + k, :] * scale)\"]\n"));
  std::vector<double> factors;
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Mul && op.scalar) factors.push_back(*op.scalar);
  CHECK(factors == std::vector<double>{16, 4, 2});  // gears 8, 2, 1
  CHECK(exp_tiles(p).size() == 3);                   // the else branch in every gear
}

TEST_CASE("a constant bound in a loop body is local to it; a rebinding replaces it", "[frontend][const]") {
  auto p = ok("ptoc: 1\nname: t\ndims: {H: 64}\ninputs:\n  x: {dtype: fp32, shape: [4, H]}\n"
              "outputs:\n  y: {dtype: fp32, shape: [4, H]}\nbody:\n"
              "  - \"n = 32\"\n"
              "  - loop: {var: j, count: 2, kind: static}\n    body:\n"
              "      - \"n = 32 * (j + 1)\"\n"
              "      - vec_tile: [1, n]\n"
              "      - \"y[j * 2:, :] = exp(x[j * 2:j * 2 + 2, :])\"\n"
              "  - vec_tile: [1, n]\n"
              "  - \"y[0:1, :] = exp(x[0:1, :])\"\n");
  CHECK(exp_tiles(p) == std::vector<std::vector<int64_t>>{{1, 32}, {1, 64}, {1, 32}});
}

TEST_CASE("constant bindings that clash or are not integers are located errors", "[frontend][const]") {
  const std::string tile = "      - vec_tile: [k, 64]\n";
  expect_error(gears(tile + "      - \"z = x[i:i + k, :]\"\n      - \"z = 4\"\n      - \"y[i:, :] = z\"\n"), "z = 4",
               "cannot bind compile-time constant 'z': it names a tensor value", "choose another name");
  expect_error(gears(tile + "      - \"k = 2\"\n      - \"y[i:, :] = x[i:i + 1, :]\"\n"), "k = 2",
               "cannot bind compile-time constant 'k': it names an unroll factor");
  expect_error(gears(tile + "      - \"H = 2\"\n      - \"y[i:, :] = x[i:i + k, :]\"\n"), "H = 2",
               "cannot bind compile-time constant 'H': it names a dim");
  expect_error(gears(tile + "      - \"n = k / 2\"\n      - \"y[i:, :] = x[i:i + k, :]\"\n"), "k / 2",
               "'k / 2' divides integers with '/'; a compile-time constant is an integer", "use '//'");
  // A tensor value may not take a constant's name.
  expect_error(gears(tile + "      - \"n = 2\"\n      - \"n = x[i:i + k, :]\"\n      - \"y[i:, :] = n\"\n"),
               "n = x", "cannot bind value 'n': it names a compile-time constant");
  // A dynamic dim or loop variable is not a constant: it binds a run-time scalar (test_runtime_scalars.cpp), which is
  // no scalar operand either.
  expect_error(gears(tile + "      - \"n = T\"\n      - \"y[i:, :] = x[i:i + k, :] * n\"\n"), "n\"\n",
               "'n' is a run-time scalar and cannot be a scalar operand");
  expect_error(gears(tile + "      - \"n = i + 1\"\n      - \"y[i:, :] = x[i:i + k, :] + n\"\n"), "n\"\n",
               "'n' is a run-time scalar and cannot be a scalar operand");
}
