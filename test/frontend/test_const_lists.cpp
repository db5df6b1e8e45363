// Constant lists and float constants (elaborate_const_binding.cpp) and cube_tile entries written as dim
// expressions (elaborate_cube_tile.cpp): PyPTO's per-gear Python variables (`unroll_list = [1, 2, 4, 8]`,
// `eps = 1e-6`, `tile_shapes = [4, 4096]`, set_cube_tile_shapes([unroll_level, unroll_level], ...)), each
// checked against the same program with the values written out, and the located errors.
#include <vector>

#include "spec_helpers.h"

using fe_test::exp_tiles;
using fe_test::expect_error;
using fe_test::ok;

namespace {

// A gear loop over T; the body writes y [T, H] (vector bodies) or, with `mm`, z [T, 32] (matmul bodies).
std::string spec(const std::string& top, const std::string& loop_header, const std::string& body, bool mm = false) {
  return "ptoc: 1\nname: t\ndims:\n  T: dynamic\n  H: 64\n"
         "inputs:\n  x: {dtype: fp32, shape: [T, H]}\n  w: {dtype: fp16, shape: [H, 32]}\n"
         "outputs:\n  " + std::string(mm ? "z: {dtype: fp32, shape: [T, 32]}" : "y: {dtype: fp32, shape: [T, H]}") +
         "\nbody:\n" + top + "  - loop: {var: i, count: T, " + loop_header + "}\n    body:\n" + body;
}

const std::string kBody = "      - \"y[i:, :] = exp(x[i:i + k, :])\"\n";

std::vector<double> scalars(const ptoc::Program& p, ptoc::OpKind kind) {
  std::vector<double> v;
  for (const auto& op : p.ops)
    if (op.kind == kind && op.scalar) v.push_back(*op.scalar);
  return v;
}

std::vector<std::array<int64_t, 2>> cube_m(const ptoc::Program& p) {
  std::vector<std::array<int64_t, 2>> v;
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Matmul && op.cube_tile) v.push_back(op.cube_tile->m);
  return v;
}

}  // namespace

TEST_CASE("a constant list is an unroll list and a vec_tile, whole and by entry", "[frontend][const]") {
  auto p = ok(spec("  - \"gears = [1, 2, 8]\"\n  - \"shapes = [4, 32]\"\n", "unroll: gears, factor: k",
                   "      - vec_tile: shapes\n"
                   "      - \"y[i:, :] = exp(x[i:i + k, :])\"\n"
                   "      - vec_tile: [\"min(k, shapes[0])\", \"shapes[-1] * 2\"]\n"
                   "      - \"y[i:, :] = exp(x[i:i + k, :] + 1)\"\n"));
  // The same program written out.
  auto q = ok(spec("", "unroll: [8, 2], factor: k",
                   "      - vec_tile: [4, 32]\n"
                   "      - \"y[i:, :] = exp(x[i:i + k, :])\"\n"
                   "      - vec_tile: [\"min(k, 4)\", 64]\n"
                   "      - \"y[i:, :] = exp(x[i:i + k, :] + 1)\"\n"));
  CHECK(exp_tiles(p) == std::vector<std::vector<int64_t>>{{4, 32}, {4, 64}, {4, 32}, {2, 64}, {4, 32}, {1, 64}});
  CHECK(exp_tiles(p) == exp_tiles(q));
  CHECK(p.ops.size() == q.ops.size());
}

TEST_CASE("a float constant is a scalar operand; a rebinding may change its form", "[frontend][const]") {
  auto p = ok(spec("  - \"eps = 1e-6\"\n  - \"inv = 1.0 / H\"\n  - \"n = 3\"\n  - \"n = n * 0.5\"\n",
                   "unroll: [2], factor: k",
                   "      - vec_tile: [k, 64]\n"
                   "      - \"y[i:, :] = exp(x[i:i + k, :] * inv + eps) * n\"\n"));
  CHECK(scalars(p, ptoc::OpKind::Mul) == std::vector<double>{1.0 / 64, 1.5, 1.0 / 64, 1.5});
  CHECK(scalars(p, ptoc::OpKind::Add) == std::vector<double>{1e-6, 1e-6});
}

TEST_CASE("cube_tile entries may be the gear: m rounds up to whole fractals", "[frontend][const][cube]") {
  const std::string mm = "      - vec_tile: [k, 64]\n"
                         "      - \"z[i:, :] = matmul(cast(x[i:i + k, :], fp16), w)\"\n";
  auto p = ok(spec("  - \"kt = [32, 64]\"\n", "unroll: [64, 32], factor: k",
                   "      - cube_tile: {m: [k, k], k: [\"kt[0]\", \"kt[1]\"], n: [32, 32]}\n" + mm, true));
  // Gears 64, 32 and the tail gear 1 (m 1 -> one 16-row fractal).
  CHECK(cube_m(p) == std::vector<std::array<int64_t, 2>>{{64, 64}, {32, 32}, {16, 16}});
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Matmul) CHECK(op.cube_tile->k == std::array<int64_t, 3>{32, 64, 64});
  // The per-gear `if` it replaces gives the same tiles.
  auto q = ok(spec("", "unroll: [64, 32], factor: k",
                   "      - if: \"k >= 64\"\n"
                   "        then: [{cube_tile: {m: [64, 64], k: [32, 64], n: [32, 32]}}]\n"
                   "        else:\n"
                   "          - if: \"k >= 32\"\n"
                   "            then: [{cube_tile: {m: [32, 32], k: [32, 64], n: [32, 32]}}]\n"
                   "            else: [{cube_tile: {m: [16, 16], k: [32, 64], n: [32, 32]}}]\n" + mm, true));
  CHECK(cube_m(p) == cube_m(q));
}

TEST_CASE("constant lists, float constants and symbolic cube tiles: located errors", "[frontend][const][errors]") {
  const std::string top = "  - \"l = [4, 32]\"\n  - \"eps = 1e-6\"\n";
  const std::string hdr = "unroll: [2], factor: k";
  expect_error(spec(top, hdr, "      - vec_tile: [\"l[2]\", 64]\n" + kBody), "l[@2]",
               "index 2 is out of range for the constant list 'l' of 2 entries", "indices run from 0 to 1");
  expect_error(spec(top, hdr, "      - vec_tile: [\"l[0:1]\", 64]\n" + kBody), "l[0:1]",
               "slices the constant list 'l'; an entry takes one index");
  expect_error(spec(top, hdr, "      - vec_tile: [l, 64]\n" + kBody), "l, 64",
               "'l' is a constant list; a dim expression takes one of its entries", "write l[0] ... l[1]");
  expect_error(spec(top, hdr, "      - vec_tile: [eps, 64]\n" + kBody), "eps, 64",
               "'eps' is a float constant; a dim expression takes integers");
  expect_error(spec(top, hdr, "      - vec_tile: [k, 64]\n      - \"y[i:, :] = exp(x[i:i + k, :]) * l\"\n"),
               "l\"\n", "'l' is a constant list; a scalar operand takes one of its entries");
  expect_error(spec(top, hdr, "      - vec_tile: eps\n" + kBody), "eps\n", "vec_tile: 'eps' is not a constant list");
  expect_error(spec(top, "unroll: eps, factor: k", "      - vec_tile: [k, 64]\n" + kBody), "unroll: eps",
               "unroll: 'eps' is a single constant");
  expect_error(spec("  - \"g = [4, 0]\"\n", "unroll: g, factor: k", "      - vec_tile: [k, 64]\n" + kBody),
               "unroll: g", "the constant list 'g' holds 0");
  expect_error(spec("  - \"g = [4, 1.5]\"\n", hdr, "      - vec_tile: [k, 64]\n" + kBody), "1.5]",
               "the entry '1.5' of the constant list 'g' is not an integer constant");
  expect_error(spec("  - \"g = []\"\n", hdr, "      - vec_tile: [k, 64]\n" + kBody), "[]",
               "an empty list is not a constant");
  expect_error(spec("  - \"e = 1.0 / (H - 64)\"\n", hdr, "      - vec_tile: [k, 64]\n" + kBody), "/ (H",
               "division by zero in the constant 'e'");
  // A symbolic cube entry is checked per gear as a written one is, at the entry.
  const std::string mm = "      - vec_tile: [k, 64]\n"
                         "      - \"z[i:, :] = matmul(cast(x[i:i + k, :], fp16), w)\"\n";
  expect_error(spec("", hdr, "      - cube_tile: {m: [16, 16], k: [\"k * 8\", 64], n: [32, 32]}\n" + mm, true), "k * 8",
               "cube_tile k: the L0 tile 8 must be a multiple of 16 (one cube fractal) (this gear's cube_tile)",
               "use 16");
  expect_error(spec("", hdr, "      - cube_tile: {m: [16, 16], k: [32, 64], n: [i, 32]}\n" + mm, true), "i, 32",
               "'i' is a dynamic loop variable; this must be static");
}
