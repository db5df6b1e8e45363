// The random6 ops in the front end: uniform / normal are op kinds of their own over the flat element index
// (an iota per axis), with key and counter[1] in the op's attributes, and PyPTO's argument and tile rules
// as located diagnostics. Numerics (bit for bit against a NumPy Philox, tiling-invariance) are checked by
// test/conformance/random6_philox.py and the conformance spec catalog6_random.
#include "spec_helpers.h"

#include "compiler/op_table.h"
#include "compiler/ops_random.h"

using fe_test::expect_error;
using fe_test::ok;
using fe_test::spec;

namespace {

std::string body(const std::string& stmt, const std::string& tile = "[16, 64]") {
  return "  - {vec_tile: " + tile + "}\n  - \"" + stmt + "\"\n";
}

const ptoc::Op* find_kind(const ptoc::Program& p, ptoc::OpKind k) {
  for (const auto& op : p.ops)
    if (op.kind == k) return &op;
  return nullptr;
}

}  // namespace

TEST_CASE("uniform and normal are op kinds of their own over the flat index", "[frontend][random6]") {
  auto p = ok(spec(body("y[0:16, :] = uniform([16, 64], [1099511629010], [5, 7], [1], fp32)")));
  const ptoc::Op* u = find_kind(p, ptoc::OpKind::Uniform);
  REQUIRE(u);
  const ptoc::PhiloxArgs a = ptoc::philox_args(u->axes);
  CHECK(a.key == (uint64_t(1) << 40) + 1234);
  CHECK(a.counter == 7);  // counter[0] is ignored, as PyPTO does
  REQUIRE(u->inputs.size() == 1);
  const ptoc::Value& idx = p.values[size_t(u->inputs[0])];
  CHECK(idx.dtype == ptoc::DType::int32);
  CHECK(p.values[size_t(u->output)].dtype == ptoc::DType::fp32);
  auto q = ok(spec(body("y[0:16, :] = cast(normal([16, 64], [3], [0, 1], [3], bf16), fp32)")));
  const ptoc::Op* n = find_kind(q, ptoc::OpKind::Normal);
  REQUIRE(n);
  CHECK(q.values[size_t(n->output)].dtype == ptoc::DType::bf16);
  CHECK(ptoc::find_pypto_op("uniform")->ptoc == "uniform");
  CHECK(ptoc::find_pypto_op("normal")->ptoc == "normal");
}

TEST_CASE("uniform / normal: PyPTO's argument rules, located", "[frontend][random6]") {
  expect_error(spec(body("y[0:16, :] = uniform([16, 64], [1, 2], [0, 1], [1], fp32)")), "[1, 2]",
               "the key of 'uniform' takes 1 entry (PyPTO's rule), got 2");
  expect_error(spec(body("y[0:16, :] = uniform([16, 64], 1234, [0, 1], [1], fp32)")), "1234",
               "the key of 'uniform' must be a list such as [1], got '1234'");
  expect_error(spec(body("y[0:16, :] = uniform([16, 64], [1], [7], [1], fp32)")), "[7]",
               "the counter of 'uniform' takes 2 entries (PyPTO's rule), got 1");
  expect_error(spec(body("y[0:16, :] = normal([16, 64], [1], [0, 1], [2], fp32)")), "[@2]",
               "alg of 'normal' must be 1 (Philox) or 3 (auto_select, which selects Philox), got 2");
  expect_error(spec(body("y[0:16, :] = cast(uniform([16, 64], [1], [0, 1], [1], int32), fp32)")), "int32),",
               "'uniform' gives fp32, fp16 or bf16 (PyPTO's DT_FP32, DT_FP16, DT_BF16), not int32");
  expect_error(spec(body("y[0:16, :] = uniform([16, 64], [1], [0, 1], [1], fp64)")), "fp64", "unknown dtype 'fp64'");
  expect_error(spec(body("y[0:16, :] = uniform([1, 1, 1, 16, 64], [1], [0, 1], [1], fp32)")), "[1, 1, 1, 16, 64]",
               "the shape of 'uniform' takes 1 to 4 entries (PyPTO's rule), got 5");
  expect_error(spec(body("y[0:16, :] = uniform([16, 0], [1], [0, 1], [1], fp32)")), "0]",
               "the shape of 'uniform' must have positive entries, got 0");
  expect_error(spec(body("y[0:16, :] = uniform([16, 64], [1], [0, B], [1], fp32)")), "[0, @B]",
               "the counter of 'uniform' must be a constant integer");
}

TEST_CASE("uniform / normal: PyPTO's tile rules, located at the call", "[frontend][random6]") {
  expect_error(spec(body("y[0:16, :] = uniform([16, 64], [1], [0, 1], [1], fp32)", "[16, 6]")), "uniform",
               "'uniform' needs a vec_tile whose last entry is a multiple of 4 (PyPTO's rule), the one in force has 6",
               "set the vec_tile's last entry to 8");
  expect_error(spec(body("y[0:16, :] = normal([16, 64], [1], [0, 1], [1], fp32)", "[8, 64]")), "normal",
               "'normal' needs the vec_tile to be the whole shape [16, 64] (PyPTO's rule: one tile), the one in force "
               "has 8 on axis 0",
               "write {vec_tile: [16, 64]} before this statement");
  ok(spec(body("y[0:16, :] = uniform([16, 64], [1], [0, 1], [1], fp32)", "[5, 12]")));  // tails are fine
}
