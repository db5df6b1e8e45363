// The catalog2 ops (compiler/frontend/elaborate_online_softmax.cpp, elaborate_pad.cpp,
// elaborate_gather.cpp): what each is written as, and the located diagnostics of their misuse.
// Numerics (evaluator and compiled, with tails, every dtype) are checked against NumPy by the
// conformance specs catalog2_flash_online, catalog2_index_ops and catalog2_index_dtypes.
#include "spec_helpers.h"

using fe_test::expect_error;
using fe_test::kinds;
using fe_test::ok;
using fe_test::run;

namespace {

std::string spec2(const std::string& body, const std::string& outputs = "  y: {dtype: fp32, shape: [B, Q]}\n") {
  return "ptoc: 1\nname: t\ndims:\n  B: dynamic\n  Q: 16\n  D: 32\n"
         "inputs:\n"
         "  s: {dtype: fp32, shape: [32, Q]}\n"
         "  s16: {dtype: fp16, shape: [32, Q]}\n"
         "  s3: {dtype: fp32, shape: [2, 32, Q]}\n"
         "  s4: {dtype: fp32, shape: [2, 2, 8, Q]}\n"
         "  pm: {dtype: fp32, shape: [1, Q]}\n"
         "  po: {dtype: fp32, shape: [D, Q]}\n"
         "  x: {dtype: fp32, shape: [B, Q]}\n"
         "  x8: {dtype: int8, shape: [B, Q]}\n"
         "  ix: {dtype: int32, shape: [B, 4]}\n"
         "  fx: {dtype: fp32, shape: [B, 4]}\n"
         "  rows: {dtype: int32, shape: [3]}\n"
         "  rows2: {dtype: int32, shape: [3, 1]}\n"
         "  src: {dtype: fp32, shape: [3, Q]}\n"
         "  src16: {dtype: fp16, shape: [3, Q]}\n"
         "  xs: {dtype: fp32, shape: [8, Q]}\n"
         "  xs8: {dtype: int8, shape: [8, Q]}\n"
         "  ix8: {dtype: int32, shape: [8, 4]}\n"
         "  fx8: {dtype: fp32, shape: [8, 4]}\n"
         "outputs:\n" + outputs +
         "body:\n  - {vec_tile: [32, 16]}\n" +
         body;
}

size_t p_rank(const ptoc::Program& p, int value) { return p.values[size_t(value)].shape.size(); }

const std::string kStore = "  - \"y[0:8, :] = x[0:8, :]\"\n";
const std::string kYs = "  ys: {dtype: bf16, shape: [32, Q]}\n  yo: {dtype: fp32, shape: [D, Q]}\n";
const std::string kYo = "  yo: {dtype: fp32, shape: [D, Q]}\n";

}  // namespace

TEST_CASE("online_softmax is PyPTO's: scale, column amax, exp, column sum, bf16 exponentials", "[frontend][catalog2]") {
  auto p = ok(spec2("  - \"e, m, l = online_softmax(s, 0.5)\"\n  - \"ys[:, :] = e\"\n  - \"yo[0:1, :] = m + l\"\n", kYs));
  CHECK(kinds(p) == std::vector<std::string>{"mul", "amax", "sub", "exp", "sum", "cast", "add"});
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Amax || op.kind == ptoc::OpKind::Sum) {
      CHECK(op.axes == std::vector<int>{0});  // column statistics: scores are [k_len, q_len]
      CHECK(op.keepdim);
    }
  bool bf16_e = false, named = false;
  for (const auto& v : p.values) {
    bf16_e |= v.name == "e" && v.dtype == ptoc::DType::bf16;
    named |= v.name == "l" && v.shape.size() == 2 && v.shape[0].str() == "1";
  }
  CHECK(bf16_e);
  CHECK(named);
  // scale 1.0 writes no multiply.
  auto q = ok(spec2("  - \"e, m, l = online_softmax(s, 1.0)\"\n  - \"ys[:, :] = e\"\n", "  ys: {dtype: bf16, shape: [32, Q]}\n"));
  CHECK(kinds(q).front() == "amax");

  expect_error(spec2("  - \"e = online_softmax(s, 1.0)\"\n" + kStore), "online_softmax",
               "'online_softmax' has three results (exp_scores, column_max, column_sum)", "e, m, l = online_softmax");
  expect_error(spec2("  - \"e, m = online_softmax(s, 1.0)\"\n" + kStore), "online_softmax",
               "'online_softmax' has three results but two names are bound", "bind three names");
  expect_error(spec2("  - \"e, m, l = online_softmax(s16, 1.0)\"\n" + kStore), "s16,",
               "'online_softmax' takes fp32 tensors (PyPTO's rule); scores 's16' is fp16", "cast(s16, fp32)");
  expect_error(spec2("  - \"e, m, l = online_softmax(s3, 1.0)\"\n" + kStore), "s3,",
               "'online_softmax' takes rank-2 tensors; scores 's3' has shape [2, 32, 16]");
  expect_error(spec2("  - \"e, m, l = online_softmax(s, pm)\"\n" + kStore), "pm)",
               "online_softmax scale is a number, got the tensor 'pm'");
  expect_error(spec2("  - \"e, m, l = online_softmax(s)\"\n" + kStore), "online_softmax(s)",
               "'online_softmax' is missing its argument 'scale'");
}

TEST_CASE("online_softmax_update merges two states with PyPTO's formula", "[frontend][catalog2]") {
  auto p = ok(spec2("  - \"m, l, o = online_softmax_update(pm, pm, po, pm, pm, po)\"\n"
                    "  - \"yo[:, :] = o / l + m\"\n", kYo));
  CHECK(kinds(p) == std::vector<std::string>{"maximum", "sub", "exp", "sub", "exp", "mul", "mul", "add", "mul",
                                             "mul", "add", "div", "add"});
  expect_error(spec2("  - \"m, l, o = online_softmax_update(pm, pm, po, pm, pm, pm)\"\n" + kStore), "pm)",
               "online_softmax_update current_output must have shape [32, 16] (previous_output's), 'pm' has [1, 16]");
  expect_error(spec2("  - \"m, l, o = online_softmax_update(pm, po, po, pm, pm, po)\"\n" + kStore), "po, po, pm",
               "online_softmax_update previous_sum must have shape [1, 16] ([1, q_len]), 'po' has [32, 16]",
               "the statistics are [1, q_len] and the outputs [head_dim, q_len]");
  expect_error(spec2("  - \"m, l = online_softmax_update(pm, pm, po, pm, pm, po)\"\n" + kStore),
               "online_softmax_update(", "'online_softmax_update' has three results but two names are bound");
  expect_error(spec2("  - \"m = online_softmax_update(pm, pm, po, pm, pm, po)\"\n" + kStore), "online_softmax_update(",
               "'online_softmax_update' has three results (updated_max, updated_sum, updated_output)");
  expect_error(spec2("  - \"m, l, o = online_softmax_update(pm, pm, po, pm, pm)\"\n" + kStore),
               "online_softmax_update(", "'online_softmax_update' is missing its argument 'current_output'");
  expect_error(spec2("  - \"m, l, o = exp(pm)\"\n" + kStore), "exp(pm)",
               "'exp' has one result but three names are bound", "online_softmax");
}

TEST_CASE("pad is concat with full on the right and bottom; PyPTO's rules are located errors", "[frontend][catalog2]") {
  auto p = ok(spec2("  - {vec_tile: [8, 32]}\n  - \"t = pad(xs, [0, 3, 0, 2], value=-1)\"\n"
                    "  - \"y[0:8, :] = t[0:8, 0:16]\"\n"));
  CHECK(kinds(p) == std::vector<std::string>{"full", "concat", "full", "concat", "view"});
  for (const auto& v : p.values)
    if (v.name == "t") {
      CHECK(v.shape[0].str() == "10");
      CHECK(v.shape[1].str() == "19");
    }
  const std::string t8 = "  - {vec_tile: [8, 32]}\n";
  expect_error(spec2(t8 + "  - \"t = pad(xs, [1, 3])\"\n" + kStore), "1, 3]",
               "pad only pads right (PyPTO's rule); pad_left must be 0, got 1", "pad=[0, right]");
  expect_error(spec2(t8 + "  - \"t = pad(xs, [0, 3, 2, 0])\"\n" + kStore), "2, 0]",
               "pad only pads bottom (PyPTO's rule); pad_top must be 0, got 2");
  expect_error(spec2(t8 + "  - \"t = pad(xs, [0, 1, 0])\"\n" + kStore), "[0, 1, 0]",
               "pad takes 2 or 4 sizes (pad_left, pad_right[, pad_top, pad_bottom]), got 3");
  expect_error(spec2(t8 + "  - \"t = pad(xs, [0, -1])\"\n" + kStore), "-1]",
               "pad sizes must be >= 0, got -1 (PyPTO's rule)");
  expect_error(spec2(t8 + "  - \"t = pad(xs, 3)\"\n" + kStore), "3)",
               "pad's sizes are a list such as [0, 2, 0, 1], got '3'");
  expect_error(spec2(t8 + "  - \"t = pad(xs, [0, 1], mode=reflect)\"\n" + kStore), "reflect",
               "'pad' mode reflect is not supported (PyPTO supports constant only)", "mode=constant");
  expect_error(spec2(t8 + "  - \"t = pad(xs8, [0, 1], value=0.5)\"\n" + kStore), "0.5",
               "'pad' of an integer tensor (int8) takes an integer value, got '0.5' (PyPTO's rule)");
  expect_error(spec2(t8 + "  - \"t = pad(xs8, [0, 1], value=-inf)\"\n" + kStore), "-inf",
               "'pad' of an integer tensor (int8) takes an integer value");
  // A tail block (B dynamic) padded at the bottom would leave unset rows inside the result.
  expect_error(spec2(t8 + "  - loop: {var: b, count: \"ceil_div(B, 8)\"}\n    body:\n"
                          "      - \"t = pad(x[b * 8:(b + 1) * 8, :], [0, 0, 0, 2])\"\n      - \"y[b * 8:, :] = t[0:8, :]\"\n"),
               "2])", "pad on axis 0 of 'x[b * 8:(b + 1) * 8, :]', whose valid extent", "fillpad(x, value=...) first");
}

TEST_CASE("fillpad counts the valid extent and selects the value past it; the result is whole", "[frontend][catalog2]") {
  auto p = ok(spec2("  - {vec_tile: [8, 16]}\n  - loop: {var: b, count: \"ceil_div(B, 8)\"}\n    body:\n"
                    "      - \"f = fillpad(x[b * 8:(b + 1) * 8, :], value=-inf)\"\n"
                    "      - \"y[b * 8:, :] = x[b * 8:(b + 1) * 8, :] + amax(f, 0, keepdim=true)\"\n"));
  bool whole = false;
  for (const auto& v : p.values)
    if (v.name == "f") whole = v.valid[0].str() == "8" && v.valid[1].str() == "16";
  CHECK(whole);
  int wheres = 0;
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Where) {
      ++wheres;
      REQUIRE(op.valid.size() == 2);  // the given valid the evaluator honours
      CHECK(op.valid[0].str() == "8");
    }
  CHECK(wheres == 1);
  // Already whole: a copy (a view), no mask.
  auto q = ok(spec2("  - \"ys[:, :] = cast(fillpad(s), bf16)\"\n", "  ys: {dtype: bf16, shape: [32, Q]}\n"));
  CHECK(kinds(q) == std::vector<std::string>{"view", "cast"});
  expect_error(spec2("  - \"t = fillpad(s, mode=replicate)\"\n" + kStore), "replicate",
               "'fillpad' mode replicate is not supported (PyPTO supports constant only)");
  expect_error(spec2("  - \"t = fillpad(s, value=pm)\"\n" + kStore), "pm)",
               "'fillpad' value is a number, got the tensor 'pm'");
}

TEST_CASE("gather is a one-hot mask one rank up and a sum; PyPTO's rules are located errors", "[frontend][catalog2]") {
  auto p = ok(spec2("  - {vec_tile: [8, 4]}\n  - \"g = gather(xs, 1, ix8)\"\n"
                    "  - \"y[0:8, 0:4] = g\"\n"));
  CHECK(kinds(p) == std::vector<std::string>{"reshape", "transpose", "reshape", "full", "add",
                                             "concat", "add", "concat", "add", "concat", "add", "concat", "eq", "full",
                                             "where", "sum"});
  for (const auto& op : p.ops) {
    if (op.kind == ptoc::OpKind::Where) {
      REQUIRE(op.vec_tile);  // the rank-3 mask's own tile: the user's entries and the gathered axis whole
      CHECK(op.vec_tile->shape == std::vector<int64_t>{8, 4, 16});
    }
    if (op.kind == ptoc::OpKind::Sum) CHECK_FALSE(op.keepdim);
  }
  // Along dim 0: a transpose in and out.
  auto q = ok(spec2("  - {vec_tile: [8, 16]}\n  - \"g = gather(s, 0, cast(s[0:8, :], int32))\"\n  - \"y[0:8, :] = g\"\n"));
  int transposes = 0;
  for (const auto& op : q.ops) transposes += op.kind == ptoc::OpKind::Transpose;
  CHECK(transposes == 4);  // x and index in, the [.., 1, J] -> [.., J, 1] turn, the result out
  const std::string t8 = "  - {vec_tile: [8, 4]}\n";
  expect_error(spec2(t8 + "  - \"g = gather(xs, 1, fx8)\"\n" + kStore), "fx8)",
               "'gather' index must be int32, 'fx8' is fp32", "cast(fx8, int32)");
  expect_error(spec2(t8 + "  - \"g = gather(xs, 1, rows)\"\n" + kStore), "rows)",
               "gather's index must have the input's rank 2, 'rows' has shape [3]", "index.dim == input.dim");
  expect_error(spec2(t8 + "  - \"g = gather(xs, 2, ix8)\"\n" + kStore), "2, ix8", "dim");
  expect_error(spec2(t8 + "  - \"g = gather(xs[0:4, :], 1, ix8)\"\n" + kStore), "ix8)",
               "gather's index has 8 on axis 0, the input 4; it must not exceed the input's extent",
               "index.shape[i] <= input.shape[i]");
  // Rank 3: the two axes other than dim merged (a reshape each way), the mask rank 3.
  auto r3 = ok(spec2("  - {vec_tile: [2, 32, 16]}\n  - \"g = gather(s3, 1, cast(s3, int32))\"\n"
                     "  - \"y[0:2, :] = g[0, 0:2, :]\"\n"));
  for (const auto& op : r3.ops)
    if (op.kind == ptoc::OpKind::Where) CHECK(p_rank(r3, op.output) == 3);
  expect_error(spec2("  - {vec_tile: [2, 2, 8, 16]}\n  - \"g = gather(s4, 1, cast(s4, int32))\"\n" + kStore), "gather(s4",
               "gather of a rank-4 value is not supported; ranks 1 to 3 are", "reshape to rank 3 or less first");
  expect_error(spec2(t8 + "  - \"g = gather(x, 0, ix)\"\n" + kStore), "0, ix",
               "gather needs axis 0 of 'x' static and whole", "the gathered axis of the input is not split");
}

TEST_CASE("index_add and index_put_ scatter through a one-hot mask; their rules are located errors", "[frontend][catalog2]") {
  auto p = ok(spec2("  - {vec_tile: [8, 16]}\n  - \"t = index_add(xs, 0, rows, src, alpha=2)\"\n"
                    "  - \"y[0:8, :] = t\"\n"));
  std::vector<std::string> k = kinds(p);
  CHECK(std::count(k.begin(), k.end(), "eq") == 1);
  CHECK(std::count(k.begin(), k.end(), "where") == 1);
  CHECK(std::count(k.begin(), k.end(), "sum") == 1);
  CHECK(k.back() == "add");  // input + the collected sum: duplicates accumulate in the sum
  bool alpha = false;
  for (const auto& op : p.ops) alpha |= op.kind == ptoc::OpKind::Mul && op.scalar == 2.0;
  CHECK(alpha);
  // index_put_: the last t of each row (an amax over the positions) is the one selected.
  auto q = ok(spec2("  - {vec_tile: [8, 16]}\n  - \"t = index_put_(xs, [rows], src)\"\n  - \"y[0:8, :] = t\"\n"));
  std::vector<std::string> kq = kinds(q);
  CHECK(std::count(kq.begin(), kq.end(), "amax") == 1);
  CHECK(kq.back() == "where");
  // index_add_ (PyPTO's in-place spelling) is the same call, its result bound by name.
  CHECK(kinds(ok(spec2("  - {vec_tile: [8, 16]}\n  - \"t = index_add_(xs, 0, rows, src)\"\n  - \"y[0:8, :] = t\"\n"))) ==
        kinds(ok(spec2("  - {vec_tile: [8, 16]}\n  - \"t = index_add(xs, 0, rows, src)\"\n  - \"y[0:8, :] = t\"\n"))));
  auto acc = ok(spec2("  - {vec_tile: [8, 16]}\n  - \"t = index_put_(xs, [rows], src, accumulate=true)\"\n"
                      "  - \"y[0:8, :] = t\"\n"));
  CHECK(kinds(acc).back() == "add");
  const std::string t8 = "  - {vec_tile: [8, 16]}\n";
  expect_error(spec2(t8 + "  - \"t = index_add(xs, 0, rows2, src)\"\n" + kStore), "rows2, src)",
               "'index_add' index must be a vector (rank 1), 'rows2' has shape [3, 1]");
  expect_error(spec2(t8 + "  - \"t = index_add(xs, 0, rows, src16)\"\n" + kStore), "src16)",
               "'index_add' source must have the input's dtype fp32, 'src16' is fp16", "cast(src16, fp32)");
  expect_error(spec2(t8 + "  - \"t = index_add(xs, 1, rows, src)\"\n" + kStore), "src)",
               "'index_add' source has 16 on axis 1 but the index has 3 entries");
  expect_error(spec2(t8 + "  - \"t = index_add(xs[:, 0:8], 0, rows, src)\"\n" + kStore), "src)",
               "'index_add' source has 16 on axis 1, the input 8; they must be equal off dim (PyPTO's rule)");
  expect_error(spec2(t8 + "  - \"t = index_add(x, 0, rows, src)\"\n" + kStore), "index_add",
               "'index_add' needs axis 0 of 'x' static and whole", "the indexed axis of the input is not split");
  expect_error(spec2(t8 + "  - \"t = index_add(xs8, 0, rows, cast(src, int8), alpha=0.5)\"\n" + kStore),
               "0.5", "index_add of an integer tensor takes an integer alpha, got '0.5'");
  // Several index tensors (catalog3: test_inplace_scatter_update.cpp): PyPTO's shape rule for the values.
  expect_error(spec2(t8 + "  - \"t = index_put_(xs, [rows, rows], src)\"\n" + kStore), "src)",
               "'index_put_' values must be [3] (one row per index entry");
  expect_error(spec2(t8 + "  - \"t = index_put_(xs, [fx], src)\"\n" + kStore), "fx]",
               "'index_put_' index must be int32, 'fx' is fp32");
  expect_error(spec2(t8 + "  - \"t = index_put_(xs, [rows], src, accumulate=2)\"\n" + kStore), "2)",
               "'index_put_' argument accumulate must be true or false, got '2'");
}

TEST_CASE("scatter writes through a one-hot mask; the last write wins; its rules are located errors", "[frontend][catalog2]") {
  auto p = ok(spec2("  - {vec_tile: [8, 16]}\n  - \"t = scatter(xs, 1, ix8, fx8)\"\n  - \"y[0:8, :] = t\"\n"));
  std::vector<std::string> k = kinds(p);
  CHECK(std::count(k.begin(), k.end(), "amax") == 1);  // the last j aiming at an element
  CHECK(k.back() == "where");                           // elements nothing aims at keep the input's
  auto add = ok(spec2("  - {vec_tile: [8, 16]}\n  - \"t = scatter_(xs, 1, ix8, 0.5, reduce=add)\"\n  - \"y[0:8, :] = t\"\n"));
  CHECK(kinds(add).back() == "add");
  auto mul = ok(spec2("  - {vec_tile: [8, 16]}\n  - \"t = scatter(xs, 1, ix8, 2, reduce=multiply)\"\n  - \"y[0:8, :] = t\"\n"));
  std::vector<std::string> km = kinds(mul);
  CHECK(std::count(km.begin(), km.end(), "prod") == 1);
  const std::string t8 = "  - {vec_tile: [8, 16]}\n";
  expect_error(spec2(t8 + "  - \"t = scatter(xs, 1, ix8, fx8, reduce=max)\"\n" + kStore), "max)",
               "'scatter' reduce must be add or multiply, got 'max'", "reduce=add");
  expect_error(spec2(t8 + "  - \"t = scatter(xs, 1, ix8, cast(fx8, fp16))\"\n" + kStore), "cast(fx8, fp16)",
               "'scatter' src must have the input's dtype fp32, 'cast(fx8, fp16)' is fp16");
  expect_error(spec2(t8 + "  - \"t = scatter(xs, 1, ix8, fx8[0:4, :])\"\n" + kStore), "fx8[0:4",
               "'scatter' src must cover the index: shape [8, 4] or larger, 'fx8[0:4, :]' has [4, 4]");
  expect_error(spec2(t8 + "  - \"t = scatter(xs, 1, ix8[0:4, :], fx8)\"\n" + kStore), "ix8[0:4",
               "'scatter' index has 4 on axis 0, the input 8; ptoc needs them equal off dim");
  expect_error(spec2(t8 + "  - \"t = scatter(xs, 1, ix8, inf)\"\n" + kStore), "inf)",
               "'scatter' src number must be finite", "no INF/NAN");
  expect_error(spec2(t8 + "  - \"t = scatter(xs8, 1, ix8, 0.5)\"\n" + kStore), "0.5)",
               "'scatter' src number must be finite and an integer, got '0.5'");
  // Rank 3 is supported since catalog3 (test/conformance/specs/catalog3_scatter_rank3.yaml), rank 4 since lang4
  // (two axes off dim merged: test/conformance/specs/lang4_scatter_rank4.yaml).
  auto r4 = ok(spec2("  - {vec_tile: [2, 2, 8, 16]}\n  - \"t = scatter(s4, 1, cast(s4, int32), 1.0)\"\n"
                     "  - \"y4[0:, 0:, 0:, 0:] = t\"\n",
                     "  y4: {dtype: fp32, shape: [2, 2, 8, Q]}\n"));
  CHECK_FALSE(r4.ops.empty());
}
