// PyPTO's composition ops (compiler/frontend/elaborate_catalog.cpp): the ops
// each one is written as, and the located diagnostics of their misuse.
// Numerics (evaluator and compiled, with tails) are checked against NumPy by
// the conformance specs catalog_compose and catalog_compose_dyn.
#include "spec_helpers.h"

using fe_test::find_pos;
using fe_test::expect_error;
using fe_test::run;
using fe_test::ok;
using fe_test::kinds;
using fe_test::spec;

namespace {

const std::string kTile = "  - {vec_tile: [16, 64]}\n";


}  // namespace

TEST_CASE("softmax is PyPTO's: cast to fp32, amax, sub, exp, sum, div, cast back", "[frontend][catalog]") {
  auto p = ok(spec(kTile + "  - \"y[0:16, :] = cast(softmax(h[0:16, :], -1), fp32)\"\n"));
  CHECK(kinds(p) == std::vector<std::string>{"view", "cast", "amax", "sub", "exp", "sum", "div", "cast", "cast"});
  auto q = ok(spec(kTile + "  - \"y[0:16, :] = softmax(x[0:16, :], 1)\"\n"));
  CHECK(kinds(q) == std::vector<std::string>{"view", "amax", "sub", "exp", "sum", "div"});
  // The reductions run along the given axis, with keepdim.
  for (const auto& op : q.ops)
    if (op.kind == ptoc::OpKind::Amax || op.kind == ptoc::OpKind::Sum) {
      CHECK(op.axes == std::vector<int>{1});
      CHECK(op.keepdim);
    }
}

TEST_CASE("rms_norm is PyPTO's: x / sqrt(sum(x * x * (1/n)) + eps) * gamma over the last axis", "[frontend][catalog]") {
  auto p = ok(spec(kTile + "  - \"y[0:16, :] = rms_norm(x[0:16, :], g, epsilon=1e-5)\"\n",
                   "tensors:\n  g: {dtype: fp32, shape: [H]}\n"));
  CHECK(kinds(p) == std::vector<std::string>{"view", "mul", "mul", "sum", "add", "sqrt", "div", "reshape", "mul"});
  bool saw_scale = false, saw_eps = false;
  for (const auto& op : p.ops) {
    if (op.kind == ptoc::OpKind::Mul && op.inputs.size() == 1) saw_scale = op.scalar == 1.0 / 64;
    if (op.kind == ptoc::OpKind::Add) saw_eps = op.scalar == 1e-5;
  }
  CHECK(saw_scale);
  CHECK(saw_eps);
  // No gamma, an fp16 input: cast in and out, default epsilon 1e-6.
  auto q = ok(spec(kTile + "  - \"y[0:16, :] = cast(rms_norm(h[0:16, :]), fp32)\"\n"));
  CHECK(kinds(q) == std::vector<std::string>{"view", "cast", "mul", "mul", "sum", "add", "sqrt", "div", "cast", "cast"});
  for (const auto& op : q.ops)
    if (op.kind == ptoc::OpKind::Add) CHECK(op.scalar == 1e-6);
}

TEST_CASE("expand_clone, unsqueeze, permute, zeros and ones are written as existing ops", "[frontend][catalog]") {
  auto p = ok(spec(kTile + "  - \"y[0:16, :] = expand_clone(unsqueeze(x[0:16, 0], 1), [16, H])\"\n"));
  // x[0:16, 0] is a view and a reshape (the index drops axis 1); unsqueeze is the second reshape.
  CHECK(kinds(p) == std::vector<std::string>{"view", "reshape", "reshape", "full", "where"});
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Where) {
      const auto& w = p.values[size_t(op.output)];
      REQUIRE(w.shape.size() == 2);
      CHECK(w.shape[0].str() == "16");
      CHECK(w.shape[1].str() == "64");
      CHECK(op.inputs[1] == op.inputs[2]);  // where(true, x, x): every bit of x
    }
  // A 3-cycle is two transposes; a swap is one; the identity is none.
  std::string y3 = "ptoc: 1\nname: t\ninputs:\n  a: {dtype: fp32, shape: [2, 3, 4]}\noutputs:\n"
                   "  y: {dtype: fp32, shape: [4, 2, 3]}\n  z: {dtype: fp32, shape: [3, 2, 4]}\n"
                   "  w: {dtype: fp32, shape: [2, 3, 4]}\nbody:\n  - {vec_tile: [4, 4, 4]}\n"
                   "  - \"y[:, :, :] = permute(a, [2, 0, 1])\"\n  - \"z[:, :, :] = permute(a, [1, 0, 2])\"\n"
                   "  - \"w[:, :, :] = permute(a, [0, 1, 2])\"\n";
  auto q = ok(y3);
  CHECK(kinds(q) == std::vector<std::string>{"transpose", "transpose", "transpose"});
  auto z = ok(spec(kTile + "  - \"y[0:16, :] = x[0:16, :] + zeros(16, H) * ones([16, 64])\"\n"));
  int fulls = 0;
  for (const auto& op : z.ops)
    if (op.kind == ptoc::OpKind::Full) {
      CHECK(op.dtype == ptoc::DType::fp32);  // PyPTO's default
      CHECK(op.fill == (fulls == 0 ? 0.0 : 1.0));
      ++fulls;
    }
  CHECK(fulls == 2);
  auto zi = ok(spec(kTile + "  - \"y[0:16, :] = cast(zeros(16, 64, dtype=int32) + 3, fp32)\"\n"));
  for (const auto& op : zi.ops)
    if (op.kind == ptoc::OpKind::Full) CHECK(op.dtype == ptoc::DType::int32);
}

TEST_CASE("misused composition ops get located, worded errors", "[frontend][catalog]") {
  const std::string tensors = "tensors:\n  g: {dtype: fp32, shape: [32]}\n  gi: {dtype: int32, shape: [H]}\n";
  expect_error(spec(kTile + "  - \"y[0:16, :] = softmax(n[0:16, :], -1)\"\n"), "softmax", 
               "'softmax' needs a floating-point operand, 'n[0:16, :]' is int32", "cast(n[0:16, :], fp32)");
  expect_error(spec(kTile + "  - \"y[0:16, :] = softmax(x[0:16, :], 2)\"\n"), "2)\"", "dim 2 is out of range");
  expect_error(spec(kTile + "  - \"y[0:16, :] = softmax(x[0:16, :])\"\n"), "softmax(x",
               "'softmax' is missing its argument 'dim'", "softmax(input, dim)");
  expect_error(spec(kTile + "  - \"y[0:16, :] = rms_norm(x[0:16, :], g)\"\n", tensors), "g)\"",
               "rms_norm gamma must have shape [64], 'g' has [32]");
  expect_error(spec(kTile + "  - \"y[0:16, :] = rms_norm(x[0:16, :], gi)\"\n", tensors), "gi)\"",
               "rms_norm gamma must be a float tensor", "cast(gi, fp32)");
  expect_error(spec(kTile + "  - \"y[0:16, :] = rms_norm(x[0:16, :], epsilon=-1)\"\n"), "-1)",
               "rms_norm epsilon must be a finite number >= 0, got '-1'");
  expect_error(spec(kTile + "  - \"y[0:16, :] = rms_norm(x[0:16, :], eps=1e-5)\"\n"), "eps=",
               "unknown argument 'eps' to 'rms_norm'", "epsilon");
  expect_error(spec(kTile + "  - \"y[0:16, :] = expand_clone(x[0:16, :], [16, 128])\"\n"), "128]",
               "expand_clone can only stretch size-1 axes: axis 1 of 'x[0:16, :]' has 64, the target 128");
  expect_error(spec(kTile + "  - \"y[0:16, :] = expand_clone(x[0:16, 0], [16, 64])\"\n"), "[16, 64])",
               "expand_clone shape has 2 entries but the input has rank 1", "unsqueeze");
  expect_error(spec(kTile + "  - \"y[0:16, :] = expand_clone(x[0:1, :], [16, 64], valid_shape=[17, 64])\"\n"), "17,",
               "expand_clone valid_shape exceeds the shape on axis 0");
  expect_error(spec(kTile + "  - \"y[0:16, :] = unsqueeze(x[0:16, :], 3)\"\n"), "3)",
               "dim 3 is out of range for a rank-3 value (-3..2)");
  expect_error(spec(kTile + "  - \"y[0:16, :] = permute(x[0:16, :], [1, 1])\"\n"), "1])", "permute lists axis 1 twice");
  expect_error(spec(kTile + "  - \"y[0:16, :] = permute(x[0:16, :], [1, 0, 2])\"\n"), "[1, 0, 2]",
               "permute perm has 3 entries but 'x[0:16, :]' has rank 2");
  expect_error(spec(kTile + "  - \"y[0:16, :] = permute(x[0:16, :], 1)\"\n"), "1)\"",
               "permute perm must be a list such as [1, 0], got '1'");
  expect_error(spec(kTile + "  - \"y[0:16, :] = zeros(16, 64, fp16)\"\n"), "fp16)",
               "a dtype given by position to 'zeros' would be a size (as in PyPTO)", "dtype=fp16");
  expect_error(spec(kTile + "  - \"y[0:16, :] = ones(16, 64, dtype=int8)\"\n"), "int8)",
               "'ones' makes fp32, fp16, bf16, int32 or int16 tensors (PyPTO's list), not int8", "full([...], 1, int8)");
  expect_error(spec(kTile + "  - \"y[0:16, :] = zeros(16, 0)\"\n"), "0)", "zeros sizes must be positive, got 0");
  expect_error(spec(kTile + "  - \"y[0:16, :] = zeros(dtype=fp32)\"\n"), "zeros(", "'zeros' needs a size");
  expect_error(spec(kTile + "  - \"y[0:16, :] = ones(16, 64, dtyp=fp32)\"\n"), "dtyp=",
               "unknown argument 'dtyp' to 'ones'", "did you mean 'dtype'?");
  // No vec_tile: the first vector op of the composition names itself.
  expect_error(spec("  - \"y[0:16, :] = softmax(x[0:16, :], -1)\"\n"), "softmax", "no vec_tile in force for 'amax'");
}

TEST_CASE("topk binds two results; index ops check PyPTO's rules", "[frontend][catalog]") {
  const std::string t24 = "  - {vec_tile: [16, 64]}\n";
  auto p = ok(spec(t24 + "  - \"v, i = topk(x[0:16, :], 3)\"\n  - \"y[0:16, 0:3] = v + cast(i, fp32)\"\n"));
  int values = 0, indices = 0;
  for (const auto& op : p.ops) {
    values += op.kind == ptoc::OpKind::SortValues;
    indices += op.kind == ptoc::OpKind::SortIndices;
  }
  CHECK((values == 1 && indices == 1));  // one native row sort each, whatever k
  bool named_i = false;
  for (const auto& v : p.values) named_i |= v.name == "i" && v.dtype == ptoc::DType::int32;
  CHECK(named_i);
  expect_error(spec(t24 + "  - \"t = topk(x[0:16, :], 3)\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"), "topk",
               "'topk' has two results (values, indices)", "v, i = topk");
  expect_error(spec(t24 + "  - \"t = topk(x[0:16, :], 3) + 1\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"), "topk",
               "'topk' has two results (values, indices)");
  expect_error(spec(t24 + "  - \"a, b = exp(x)\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"), "exp(x)",
               "'exp' has one result but two names are bound", "only topk");
  expect_error(spec(t24 + "  - \"a, b, c = topk(x, 2)\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"), "topk",
               "'topk' has two results but three names are bound", "bind two names");
  expect_error(spec(t24 + "  - \"a, b, c, d = topk(x, 2)\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"), "d = topk",
               "too many names: a call has at most three results");
  expect_error(spec(t24 + "  - \"a, 3 = topk(x, 2)\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"), "3 = topk",
               "expected a name after ',' in the targets");
  expect_error(spec(t24 + "  - \"a, b = topk(x, 65)\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"), "65)",
               "topk k must be in 1..64 (the sorted axis), got 65");
  // Off the last axis (PyPTO sorts the last only): a transpose in, the selection, a transpose out of each result.
  auto d0 = ok(spec(t24 + "  - \"a, b = topk(w[0:16, :], 2, 0)\"\n  - \"y[0:2, 0:32] = cast(a, fp32) + cast(b, fp32)\"\n"));
  int transposes = 0;
  for (const auto& op : d0.ops) transposes += op.kind == ptoc::OpKind::Transpose;
  CHECK(transposes == 3);
  // A split sorted axis (PyPTO's MERGE_SORT): per-tile candidates, a merge; k above the tile is refused.
  auto split = ok(spec("  - {vec_tile: [16, 32]}\n  - \"a, b = topk(x[0:16, :], 2)\"\n  - \"y[0:16, 0:2] = a + cast(b, fp32)\"\n"));
  int views = 0;
  for (const auto& op : split.ops) views += op.kind == ptoc::OpKind::View;
  CHECK(views >= 3);  // x[0:16, :], then one per tile of the sorted axis (64 in tiles of 32)
  ok(spec("  - {vec_tile: [8, 64]}\n  - \"a, b = topk(w[0:16, :], 2, 0)\"\n  - \"y[0:2, 0:32] = cast(a, fp32)\"\n"));
  expect_error(spec("  - {vec_tile: [8, 64]}\n  - \"a, b = topk(w[0:16, :], 10, 0)\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"),
               "10, 0)", "topk k 10 is above the vec_tile's entry 8 on the sorted axis 0",
               "set vec_tile's entry 0 to at least 10");
  expect_error(spec("  - {vec_tile: [16, 32]}\n  - \"a, b = topk(x, 40)\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"),
               "40)", "topk k 40 is above the vec_tile's entry 32 on the sorted axis 1", "k <= TileShape[-1]");
  expect_error(spec(t24 + "  - \"a, b = topk(x[0:16, 0:40] > 0, 2)\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"), "topk(",
               "'topk' does not take bool operands");
  expect_error(spec(t24 + "  - \"y[0:16, :] = cast(argsort(x, 0), fp32)\"\n"), "argsort",
               "argsort needs a static extent on its sorted axis 0, 'x' has shape [B, 64]", "valid=[R, S]");
  expect_error(spec(t24 + "  - \"y[0:16, :] = tril(x[0:16, :], B)\"\n"), "B)", "tril diagonal must be a constant integer, got 'B'");
  expect_error(spec(t24 + "  - \"y[0:16, :] = tril(x[0:16, 0])\"\n"), "tril",
               "'tril' needs a value of rank 2 or more, 'x[0:16, 0]' has rank 1");
  expect_error(spec(t24 + "  - \"y[0:16, :] = one_hot(x[0:16, :], 4)\"\n"), "one_hot",
               "'one_hot' takes integer operands (int32, int8, uint8, int16, uint16, uint32, uint64), 'x[0:16, :]' is fp32");
  expect_error(spec(t24 + "  - \"y[0:16, :] = one_hot(n[0:16, 0], 0)\"\n"), "0)\"",
               "one_hot num_classes must be in 1..65536, got 0");
  expect_error(spec("  - {vec_tile: [16]}\n  - \"y[0, :] = arange(4, 1)\"\n"), "arange",
               "(end - start) / step must be > 0");
  expect_error(spec("  - {vec_tile: [16]}\n  - \"y[0, :] = arange(0, 4, 0)\"\n"), "0)\"",
               "arange step must not be 0");
  expect_error(spec("  - {vec_tile: [16]}\n  - \"y[0, :] = arange(0, x)\"\n"), "x)",
               "arange takes numbers, got the tensor 'x'");
}

TEST_CASE("cumsum and cumprod are log-step scans over a static axis", "[frontend][catalog]") {
  auto p = ok(spec(kTile + "  - \"y[0:16, :] = cumsum(x[0:16, :], 1)\"\n"));
  int adds = 0, concats = 0;
  for (const auto& op : p.ops) {
    adds += op.kind == ptoc::OpKind::Add;
    concats += op.kind == ptoc::OpKind::Concat;
  }
  CHECK(adds == 6);  // 64 columns: shifts 1, 2, 4, 8, 16, 32
  CHECK(concats == 6);
  // The row extent of a block of a dynamic axis stays as it was through every step (fuzz seed
  // 9402238: min(v, min(v, 16)) per step doubled its text 9 times for 512 columns: an 865 MB bundle).
  auto q = ok(spec(kTile + "  - loop: {var: b, count: \"ceil_div(B, 16)\"}\n    body:\n"
                           "      - \"y[b * 16, 0] = cumsum(x[b * 16:(b + 1) * 16, :], 1)\"\n"));
  std::string rows;  // the loaded block's row extent
  int scanned = -1;
  for (const auto& op : q.ops) {
    if (op.kind == ptoc::OpKind::View && rows.empty()) rows = q.values[size_t(op.output)].valid[0].str();
    if (op.kind == ptoc::OpKind::Add) scanned = op.output;
  }
  REQUIRE(scanned >= 0);
  CHECK(rows == "min(B, b * 16 + 16) - b * 16");
  CHECK(q.values[size_t(scanned)].valid[0].str() == rows);
  expect_error(spec(kTile + "  - \"y[0:16, :] = cumsum(x, 0)\"\n"), "cumsum",
               "'cumsum' needs a static extent on axis 0, 'x' has B", "carry the running total");
  expect_error(spec(kTile + "  - \"y[0:16, :] = cast(cumprod(x[0:16, :] > 0, 1), fp32)\"\n"), "cumprod",
               "'cumprod' does not take bool operands");
  expect_error(spec(kTile + "  - \"y[0:16, :] = cumsum(x[0:16, :])\"\n"), "cumsum(",
               "'cumsum' is missing its argument 'dim'");
}
