// catalog3: in-place outputs (elaborate_inplace.cpp), string literals as mode arguments (lexer, parser),
// and the statement `cache = scatter_update(cache, -2, index, src)` (elaborate_scatter_update.cpp): what
// each elaborates to and the located diagnostics of their misuse. Numerics against NumPy:
// test/conformance/specs/catalog3_*.yaml.
#include "spec_helpers.h"

using fe_test::expect_error;
using fe_test::kinds;
using fe_test::ok;
using fe_test::run;

namespace {

// A paged cache [NB, 4, 1, 8] updated in place by output kc, slots an int32 input.
std::string cache_spec(const std::string& body, const std::string& out_extra = ", inplace: kin") {
  return "ptoc: 1\nname: t\ndims:\n  NB: dynamic\n  T: 4\n"
         "inputs:\n"
         "  kin: {dtype: fp16, shape: [NB, 4, 1, 8]}\n"
         "  k32: {dtype: fp32, shape: [NB, 4, 1, 8]}\n"
         "  rows: {dtype: fp16, shape: [T, 8]}\n"
         "  slots: {dtype: int32, shape: [T], values: [0, 7]}\n"
         "  fslots: {dtype: fp32, shape: [T]}\n"
         "  flat: {dtype: fp16, shape: [NB * 4, 8]}\n"
         "outputs:\n"
         "  kc: {dtype: fp16, shape: [NB, 4, 1, 8]" + out_extra + "}\n"
         "body:\n" + body;
}

const std::string kUpdate =
    "  - \"idx = reshape(slots, [T, 1])\"\n"
    "  - {vec_tile: [4, 1, 1, 8]}\n"
    "  - \"src = reshape(rows, [T, 1, 1, 8])\"\n";

int count_kind(const ptoc::Program& p, ptoc::OpKind k) {
  int n = 0;
  for (const auto& op : p.ops) n += op.kind == k;
  return n;
}

}  // namespace

TEST_CASE("inplace: the input and the output are one GM tensor", "[catalog3][inplace]") {
  // Reads of kin and writes to kin or kc all go to kc's tensor; kin's tensor is never referenced.
  auto p = ok(cache_spec("  - {vec_tile: [4, 4, 1, 8]}\n"
                         "  - \"kc[0:, 0:, 0:, 0:] = kin[1:2, :, :, :] * 2\"\n"
                         "  - \"kin[1:, 0:, 0:, 0:] = kin[0:1, :, :, :] + 1\"\n"));
  const int kin = p.find_tensor("kin"), kc = p.find_tensor("kc");
  REQUIRE(kin >= 0);
  REQUIRE(kc >= 0);
  CHECK(p.tensors[size_t(kc)].inplace == "kin");
  CHECK(p.tensors[size_t(kin)].inplace.empty());
  int refs_kc = 0, assembles_kc = 0;
  for (const auto& op : p.ops) {
    CHECK(op.tensor != kin);
    refs_kc += op.kind == ptoc::OpKind::TensorRef && op.tensor == kc;
    assembles_kc += op.kind == ptoc::OpKind::Assemble && op.tensor == kc;
  }
  CHECK(refs_kc >= 1);
  CHECK(assembles_kc == 2);
  CHECK_THAT(ptoc::print_ir(p), Catch::Contains("output kc : fp16[NB, 4, 1, 8] inplace=kin"));
}

TEST_CASE("inplace: an in-place output need not be written", "[catalog3][inplace]") {
  // PyPTO: a cache no statement changes is the input as it was; no "never written" error.
  auto r = run(cache_spec("  - {vec_tile: [4, 8]}\n  - \"r = rows * 1\"\n"));
  INFO(r.rendered);
  CHECK(r.errors == 0);
}

TEST_CASE("inplace: located errors", "[catalog3][inplace]") {
  const std::string body = "  - {vec_tile: [4, 4, 1, 8]}\n  - \"kc[0:, 0:, 0:, 0:] = kin[0:1, :, :, :]\"\n";
  expect_error(cache_spec(body, ", inplace: kinn"), "kinn", "output 'kc': inplace: 'kinn' is not an input",
               "did you mean 'kin'?");
  expect_error(cache_spec(body, ", inplace: k32"), "k32}",
               "output 'kc' (fp16) cannot update input 'k32' (fp32) in place: their dtypes differ",
               "declare 'kc' with dtype: fp32");
  expect_error(cache_spec(body, ", inplace: flat"), "flat}",
               "output 'kc' [NB, 4, 1, 8] cannot update input 'flat' [NB * 4, 8] in place: their shapes differ",
               "declare 'kc' with shape [NB * 4, 8]");
  expect_error(cache_spec(body, ", inplace: [kin]"), "[kin]",
               "tensor 'kc': inplace: names the input this output updates in place, got a list");
  // On an input.
  std::string s = cache_spec(body);
  std::string on_input = s;
  on_input.replace(on_input.find("  rows: {dtype: fp16, shape: [T, 8]}"), 36,
                   "  rows: {dtype: fp16, shape: [T, 8], inplace: kin}");
  expect_error(on_input, "kin}\n  slots", "tensor 'rows': inplace: is for outputs only");
  // Two outputs of one input.
  std::string two = s;
  two.replace(two.find("body:"), 5, "  kd: {dtype: fp16, shape: [NB, 4, 1, 8], inplace: kin}\nbody:");
  expect_error(two, "kin}\nbody", "input 'kin' is already updated in place by output 'kc'");
  // An output names another output.
  std::string oo = s;
  oo.replace(oo.find("body:"), 5, "  kd: {dtype: fp16, shape: [NB, 4, 1, 8], inplace: kc}\nbody:");
  expect_error(oo, "kc}\nbody", "output 'kd': inplace: 'kc' is an output, not an input");
  // The control flow cannot read run-time values from a tensor the kernels write.
  std::string rv = "ptoc: 1\nname: t\ndims:\n  N: 8\ninputs:\n  sl: {dtype: int32, shape: [N], values: [0, 3]}\n"
                   "outputs:\n  so: {dtype: int32, shape: [N], inplace: sl}\n  y: {dtype: fp32, shape: [4, 8]}\n"
                   "body:\n  - {vec_tile: [1, 8]}\n  - \"y[sl[0], 0:] = full([1, 8], 1.0, fp32)\"\n";
  expect_error(rv, "sl[0]", "'sl' is updated in place by output 'so'; the control flow cannot read run-time values",
               "pass the values in an input of their own");
}

TEST_CASE("string literals: PyPTO's mode strings, and the bare name", "[catalog3][strings]") {
  const std::string head = "ptoc: 1\nname: t\ndims:\n  B: 8\ninputs:\n  x: {dtype: fp32, shape: [B, 16]}\n"
                           "outputs:\n  y: {dtype: fp32, shape: [B, 16]}\nbody:\n  - {vec_tile: [8, 16]}\n";
  // Both quote characters, and the bare name, elaborate to the same ops.
  auto a = ok(head + "  - 'f = fillpad(x, \"constant\", 0.0)'\n  - \"y[0:, 0:] = f\"\n");
  auto b = ok(head + "  - \"f = fillpad(x, 'constant', 0.0)\"\n  - \"y[0:, 0:] = f\"\n");
  auto c = ok(head + "  - \"f = fillpad(x, constant, 0.0)\"\n  - \"y[0:, 0:] = f\"\n");
  auto d = ok(head + "  - \"f = fillpad(x, mode='constant', value=0.0)\"\n  - \"y[0:, 0:] = f\"\n");
  CHECK(kinds(a) == kinds(c));
  CHECK(kinds(b) == kinds(c));
  CHECK(kinds(d) == kinds(c));
  auto p = ok(head + "  - \"t = pad(x, [0, 2], 'constant', 1.5)\"\n  - \"y[0:, 0:] = t[:, 0:16]\"\n");
  CHECK(!kinds(p).empty());
  // Unknown modes, located at the string.
  expect_error(head + "  - \"f = fillpad(x, 'reflect', 0.0)\"\n  - \"y[0:, 0:] = f\"\n", "'reflect'",
               "'fillpad' mode reflect is not supported (PyPTO supports constant only)", "mode=\"constant\"");
  expect_error(head + "  - \"f = fillpad(x, 'edge')\"\n  - \"y[0:, 0:] = f\"\n", "'edge'",
               "'fillpad' mode must be \"constant\", got 'edge'");
  expect_error(head + "  - \"t = pad(x, [0, 2], mode='circular')\"\n  - \"y[0:, 0:] = t[:, 0:16]\"\n", "'circular'",
               "'pad' mode circular is not supported");
  // A string is no value and no dim.
  expect_error(head + "  - \"y[0:, 0:] = x + 'x'\"\n", "'x'\"", "the string 'x' is not a tensor or a number",
               "a tensor is named without quotes");
  expect_error(head + "  - \"y[0:, 0:] = x[0:'4', :]\"\n", "'4'", "the string '4' is not a dim expression");
  // An unclosed string, located at its quote.
  expect_error(head + "  - \"f = fillpad(x, 'constant)\"\n  - \"y[0:, 0:] = x\"\n", "'constant)",
               "string literal not closed", "close it with '");
}

TEST_CASE("scatter_update: a statement writing one row per slot", "[catalog3][scatter_update]") {
  auto p = ok(cache_spec(kUpdate + "  - \"kc = scatter_update(kin, -2, idx, src)\"\n"));
  // One assemble per slot (T = 4), each at a run-time slot: offsets slot // 4 and slot % 4.
  CHECK(count_kind(p, ptoc::OpKind::Assemble) == 4);
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Assemble) {
      CHECK(op.tensor == p.find_tensor("kc"));
      CHECK_THAT(op.offsets[0].str(), Catch::Contains("slots__"));
      CHECK_THAT(op.offsets[1].str(), Catch::Contains("% 4"));
    }
  // `kc = scatter_update(kc, ...)` and the 2-D form on a workspace.
  ok(cache_spec(kUpdate + "  - \"kc = scatter_update(kc, -2, idx, src)\"\n"));
  auto q = ok("ptoc: 1\nname: t\ndims:\n  T: 4\ninputs:\n  rows: {dtype: fp32, shape: [T, 8]}\n"
              "  slots: {dtype: int32, shape: [2, 2], values: [0, 15]}\n"
              "outputs:\n  c: {dtype: fp32, shape: [16, 8]}\nbody:\n  - {vec_tile: [4, 8]}\n"
              "  - \"c = scatter_update(c, -2, slots, rows)\"\n");
  CHECK(count_kind(q, ptoc::OpKind::Assemble) == 4);
}

TEST_CASE("scatter_update: located errors", "[catalog3][scatter_update]") {
  expect_error(cache_spec(kUpdate + "  - \"kc = scatter_update(rows, -2, idx, src)\"\n"), "rows, -2",
               "scatter_update updates its input in place: the input must be 'kc' (the statement's target), got 'rows'");
  expect_error(cache_spec(kUpdate + "  - \"kin2 = scatter_update(kin, -2, idx, src)\"\n"), "kin2",
               "scatter_update updates a GM tensor in place; 'kin2' is not a GM tensor");
  expect_error(cache_spec(kUpdate + "  - \"k32 = scatter_update(k32, -2, idx, src)\"\n  - \"kc[0:, 0:, 0:, 0:] = kin\"\n"),
               "k32 =", "'k32' is a read-only input", "declare an output with 'inplace: k32'");
  expect_error(cache_spec(kUpdate + "  - \"kc = scatter_update(kin, 0, idx, src)\"\n"), "0, idx",
               "scatter_update's dim must be -2 (the slot axis), got 0");
  expect_error(cache_spec(kUpdate + "  - \"kc = scatter_update(kin, -2, reshape(fslots, [T, 1]), src)\"\n"),
               "reshape(fslots", "scatter_update's index must be an int32 [b, s] tensor, got fp32 [4, 1]");
  expect_error(cache_spec(kUpdate + "  - \"kc = scatter_update(kin, -2, idx, rows)\"\n"), "rows)",
               "scatter_update's src must be [4, 1, 1, 8] (index [4, 1], input [NB, 4, 1, 8]), got [4, 8]");
  expect_error(cache_spec(kUpdate + "  - \"kc = scatter_update(kin, -2, idx, cast(src, fp32))\"\n"), "cast(src",
               "scatter_update's src is fp32 but 'kc' is fp16");
  expect_error(cache_spec("  - \"idx = reshape(slots, [T, 1])\"\n  - {vec_tile: [4, 1, 1, 4]}\n"
                          "  - \"src = reshape(rows, [T, 1, 1, 8])\"\n  - \"kc = scatter_update(kin, -2, idx, src)\"\n"),
               "scatter_update(kin", "scatter_update needs a vec_tile of rank 4 whose last entry holds the whole row (8)",
               "set_vec_tile_shapes(t_tile, 1, 1, head_dim)");
  // A computed index is not read by the control flow.
  expect_error(cache_spec(kUpdate + "  - {vec_tile: [4, 1]}\n  - \"ci = idx + 1\"\n  - {vec_tile: [4, 1, 1, 8]}\n"
                          "  - \"kc = scatter_update(kin, -2, ci, src)\"\n"),
               "ci, src", "scatter_update's index 'ci' is computed on the device, so the slots are compared there "
               "and the cache needs static dims; 'kc' has shape [NB, 4, 1, 8]");  // lang4: a static cache takes it
  // Inside an expression.
  expect_error(cache_spec(kUpdate + "  - \"kc[0:, 0:, 0:, 0:] = scatter_update(kin, -2, idx, src)\"\n"),
               "scatter_update(kin", "scatter_update updates a GM tensor in place and is a statement of its own");
}

TEST_CASE("scatter_update into a value: a workspace named after the result", "[catalog3][scatter_update][value]") {
  const std::string head = "ptoc: 1\nname: t\ndims:\n  T: 4\ninputs:\n  base: {dtype: fp32, shape: [16, 8]}\n"
                           "  rows: {dtype: fp32, shape: [T, 8]}\n  slots: {dtype: int32, shape: [2, 2], values: [0, 15]}\n"
                           "  n8: {dtype: int8, shape: [16, 8]}\n  r8: {dtype: int8, shape: [T, 8]}\n"
                           "outputs:\n  y: {dtype: fp32, shape: [16, 8]}\n  yv: {dtype: fp32, shape: [16, 8]}\n"
                           "body:\n  - {vec_tile: [4, 8]}\n  - \"v = base * 2\"\n";
  auto p = ok(head + "  - \"u = scatter_update(v, -2, slots, rows)\"\n  - \"y[0:, 0:] = u + 1\"\n"
                     "  - \"yv[0:, 0:] = v\"\n");
  const int ws = p.find_tensor("u_scatter");
  REQUIRE(ws >= 0);
  CHECK(p.tensors[size_t(ws)].role == ptoc::TensorRole::Workspace);
  CHECK(p.tensors[size_t(ws)].dtype == ptoc::DType::fp32);
  REQUIRE(p.tensors[size_t(ws)].shape.size() == 2);
  CHECK(p.tensors[size_t(ws)].shape[0].str() == "16");
  // The copy of v (a whole assemble at [0, 0]), then one row per slot, then the read of the workspace.
  std::vector<size_t> into;
  size_t read = 0;
  for (size_t k = 0; k < p.ops.size(); ++k) {
    const auto& op = p.ops[k];
    if (op.kind == ptoc::OpKind::Assemble && op.tensor == ws) into.push_back(k);
    if (op.kind == ptoc::OpKind::TensorRef && op.tensor == ws) read = k;
  }
  REQUIRE(into.size() == 5);
  const auto& copy = p.ops[into[0]];
  CHECK(copy.offsets[0].str() == "0");
  CHECK(p.values[size_t(copy.inputs[0])].shape.size() == 2);
  CHECK(p.ops[size_t(p.values[size_t(copy.inputs[0])].def_op)].kind == ptoc::OpKind::Mul);  // v itself
  for (size_t k = 1; k < into.size(); ++k) CHECK_THAT(p.ops[into[k]].offsets[0].str(), Catch::Contains("slots__"));
  CHECK(read > into.back());
  // v is unchanged: yv reads v's value, not the workspace.
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Assemble && op.tensor == p.find_tensor("yv"))
      CHECK(p.ops[size_t(p.values[size_t(op.inputs[0])].def_op)].kind == ptoc::OpKind::Mul);
  // Chained: each result has a workspace of its own.
  auto q = ok(head + "  - \"u = scatter_update(v, -2, slots, rows)\"\n  - \"u = scatter_update(u, -2, slots, rows * 2)\"\n"
                     "  - \"y[0:, 0:] = u\"\n  - \"yv[0:, 0:] = v\"\n");
  CHECK(q.find_tensor("u_scatter") >= 0);
  CHECK(q.find_tensor("u_scatter_2") >= 0);
  // Located errors, at v.
  expect_error(head + "  - \"u = scatter_update(view(base, [16, 8], [0, 0], valid=[12, 8]), -2, slots, rows)\"\n"
                      "  - \"y[0:, 0:] = v\"\n  - \"yv[0:, 0:] = v\"\n",
               "view(base, [16, 8], [0, 0], valid", "scatter_update's input 'view(base, [16, 8], [0, 0], valid=[12, 8])' is "
               "a window: its valid shape [12, 8] is not its shape [16, 8]", "fillpad(");
  expect_error(head + "  - \"u = scatter_update(n8 * 1, -2, slots, r8)\"\n  - \"y[0:, 0:] = v\"\n  - \"yv[0:, 0:] = v\"\n",
               "n8 * 1", "scatter_update's input 'n8 * 1' is int8; PyPTO's scatter_update takes fp32, fp16, bf16 or int32",
               "cast(n8 * 1, fp16)");
  expect_error(head + "  - \"u = scatter_update(reshape(v, [2, 8, 8]), -2, slots, rows)\"\n  - \"y[0:, 0:] = v\"\n"
                      "  - \"yv[0:, 0:] = v\"\n",
               "reshape(v, [2, 8, 8]), -2", "scatter_update's input 'reshape(v, [2, 8, 8])' has rank 3 [2, 8, 8]",
               "reshape(reshape(v, [2, 8, 8]), [16, 8])");
  expect_error(head + "  - \"u = scatter_update(v, -2, slots, cast(rows, fp16))\"\n  - \"y[0:, 0:] = v\"\n"
                      "  - \"yv[0:, 0:] = v\"\n",
               "cast(rows", "scatter_update's src is fp16 but 'v' is fp32", "insert cast(cast(rows, fp16), fp32)");
  const std::string tail = "  - \"y[0:, 0:] = v\"\n  - \"yv[0:, 0:] = v\"\n";
  expect_error(head + "  - \"u = scatter_update(v, -2, cast(slots, fp32), rows)\"\n" + tail, "cast(slots, fp32)",
               "scatter_update's index must be an int32 [b, s] tensor, got fp32 [2, 2]",
               "declare the slots int32, or insert cast(cast(slots, fp32), int32)");
  expect_error(head + "  - \"u = scatter_update(v, -2, slots, rows[0:2, 0:])\"\n" + tail, "rows[0:2",
               "scatter_update's src must be [4, 8] (index [2, 2], input [16, 8]), got [2, 8]",
               "src holds one row of d = 8 per slot of the index (4 rows), as [b * s, d]");
  expect_error(head + "  - \"u = scatter_update(v, 1, slots, rows)\"\n" + tail, "1, slots",
               "scatter_update's dim must be -2 (the slot axis), got 1", "keep the default -2");
  expect_error(head + "  - \"u = scatter_update(reshape(v, [4, 2, 2, 8]), -2, slots, rows)\"\n" + tail,
               "reshape(v, [4, 2, 2, 8]), -2", "scatter_update's rank-4 input 'reshape(v, [4, 2, 2, 8])' must be "
               "[blockNum, blockSize, 1, d], got [4, 2, 2, 8]", "reshape(reshape(v, [4, 2, 2, 8]), [4, 4, 1, 8])");
  // Inside an expression, into an output, from a GM tensor's name: the hint shows the value form.
  expect_error(head + "  - \"y[0:, 0:] = scatter_update(v, -2, slots, rows) + 1\"\n  - \"yv[0:, 0:] = v\"\n",
               "scatter_update(v, -2, slots, rows) +", "scatter_update updates a GM tensor in place and is a statement "
               "of its own", "or 'y = scatter_update(v, -2, index, src)' (a new value y from a computed value v)");
  expect_error(head + "  - \"y = scatter_update(v, -2, slots, rows)\"\n  - \"yv[0:, 0:] = v\"\n", "v, -2",
               "the input must be 'y' (the statement's target), got 'v'",
               "to scatter into the value 'v', bind a new name ('u = scatter_update(v, -2, index, src)') and store "
               "it ('y[...] = u')");
  expect_error(head + "  - \"u = scatter_update(base, -2, slots, rows)\"\n" + tail, "u = scatter",
               "scatter_update updates a GM tensor in place; 'u' is not a GM tensor",
               "'u = scatter_update(v, -2, index, src)' (v = clone(IN) for a copy of a GM tensor IN)");
  // The workspace's name is not a value's either; a later value of that name is told whose workspace it is.
  auto n = ok(head + "  - \"u_scatter = v + 1\"\n  - \"u = scatter_update(v, -2, slots, rows)\"\n"
                     "  - \"y[0:, 0:] = u + u_scatter\"\n  - \"yv[0:, 0:] = v\"\n");
  CHECK(n.find_tensor("u_scatter") < 0);
  CHECK(n.find_tensor("u_scatter_2") >= 0);
  expect_error(head + "  - \"u = scatter_update(v, -2, slots, rows)\"\n  - \"u_scatter = u + 1\"\n"
                      "  - \"y[0:, 0:] = u_scatter\"\n  - \"yv[0:, 0:] = v\"\n",
               "u_scatter = u", "cannot bind value 'u_scatter': it names the GM workspace ptoc declared for "
               "'u = scatter_update(...)'", "choose another name");
  // clone(IN): a copy of a GM tensor scattered into, IN unchanged.
  auto c = ok(head + "  - \"c = clone(base)\"\n  - \"u = scatter_update(c, -2, slots, rows)\"\n"
                     "  - \"y[0:, 0:] = u\"\n  - \"yv[0:, 0:] = base\"\n");
  REQUIRE(c.find_tensor("u_scatter") >= 0);
  for (const auto& op : c.ops)
    if (op.kind == ptoc::OpKind::Assemble) CHECK(op.tensor != c.find_tensor("base"));
}

TEST_CASE("index_put_ with several index tensors: the merged row of the one-index form", "[catalog3][index_put]") {
  const std::string head = "ptoc: 1\nname: t\ndims:\n  Q: 16\ninputs:\n  x3: {dtype: fp32, shape: [4, 8, Q]}\n"
                           "  i0: {dtype: int32, shape: [3]}\n  i1: {dtype: int32, shape: [3]}\n"
                           "  i5: {dtype: int32, shape: [5]}\n  f0: {dtype: fp32, shape: [3]}\n"
                           "  v: {dtype: fp32, shape: [3, Q]}\n  v1: {dtype: fp32, shape: [3]}\n"
                           "outputs:\n  y: {dtype: fp32, shape: [4, 8, Q]}\nbody:\n  - {vec_tile: [4, 8, 16]}\n";
  const std::string store = "  - \"y[0:, 0:, 0:] = t\"\n";
  auto p = ok(head + "  - \"t = index_put_(x3, [i0, i1], v)\"\n" + store);
  // The merged row i0 * 8 + i1 (-1 outside), then the one-index form over [32, Q], reshaped back.
  const auto k = kinds(p);
  CHECK(std::count(k.begin(), k.end(), "reshape") >= 2);
  CHECK(std::count(k.begin(), k.end(), "logical_or") >= 1);
  ok(head + "  - \"t = index_put_(x3, [i0, i1], v, accumulate=true)\"\n" + store);
  ok(head + "  - \"t = index_put_(x3, [i0, i1, i1], v1)\"\n" + store);
  expect_error(head + "  - \"t = index_put_(x3, [i0, i1], v1)\"\n" + store, "v1)",
               "'index_put_' values must be [3, 16] (one row per index entry, the input's axes after the 2 indexed "
               "ones), 'v1' has shape [3]", "input rank + 1 = index tensors + values rank");
  expect_error(head + "  - \"t = index_put_(x3, [i0, i5], v)\"\n" + store, "i5]",
               "'index_put_' index tensors must have one extent: 'i5' has 5, the first 3");
  expect_error(head + "  - \"t = index_put_(x3, [i0, f0], v)\"\n" + store, "f0]",
               "'index_put_' index must be int32, 'f0' is fp32");
  expect_error(head + "  - \"t = index_put_(x3, [i0, i1, i1, i1], v)\"\n" + store, "[i0, i1, i1, i1]",
               "index_put_ takes at most one index tensor per axis of the input (rank 3), got 4");
  expect_error(head + "  - \"t = index_put_(x3, [], v)\"\n" + store, "[]", "index_put_ takes at least one index tensor");
}

TEST_CASE("clone, isnan, log10, lrelu, hypot: compositions and their errors", "[catalog3][compose]") {
  const std::string head = "ptoc: 1\nname: t\ndims:\n  B: 8\ninputs:\n  x: {dtype: fp32, shape: [B, 16]}\n"
                           "  h: {dtype: fp16, shape: [B, 16]}\n  n: {dtype: int32, shape: [B, 16]}\n"
                           "outputs:\n  y: {dtype: fp32, shape: [B, 16]}\n  m: {dtype: bool, shape: [B, 16]}\n"
                           "body:\n  - {vec_tile: [8, 16]}\n";
  const std::string mstore = "  - \"m[0:, 0:] = isnan(x)\"\n";
  // clone is the value itself: nothing is computed.
  auto p = ok(head + "  - \"y[0:, 0:] = clone(x)\"\n" + mstore);
  CHECK(kinds(p) == std::vector<std::string>{"ne"});
  CHECK(kinds(ok(head + "  - \"y[0:, 0:] = log10(x)\"\n" + mstore)) == std::vector<std::string>{"log", "mul", "ne"});
  CHECK(kinds(ok(head + "  - \"y[0:, 0:] = lrelu(x, 0.2)\"\n" + mstore)) ==
        std::vector<std::string>{"gt", "mul", "where", "ne"});
  CHECK(kinds(ok(head + "  - \"y[0:, 0:] = hypot(x, x)\"\n" + mstore)) ==
        std::vector<std::string>{"mul", "mul", "add", "sqrt", "ne"});
  ok(head + "  - \"y[0:, 0:] = x\"\n  - \"m[0:, 0:] = isnan(n)\"\n");
  expect_error(head + "  - \"y[0:, 0:] = log10(n)\"\n" + mstore, "log10", "floating-point");
  expect_error(head + "  - \"y[0:, 0:] = lrelu(x, negative_slope=x)\"\n" + mstore, "=@x)",
               "lrelu's negative_slope is a number, got the tensor 'x'");
  expect_error(head + "  - \"y[0:, 0:] = hypot(x, h)\"\n" + mstore, "h)",
               "hypot's inputs must have one dtype, 'x' is fp32, 'h' is fp16");
}

TEST_CASE("scatter of rank 3 along every axis", "[catalog3][scatter]") {
  const std::string head = "ptoc: 1\nname: t\ndims:\n  N: 8\ninputs:\n  x: {dtype: fp32, shape: [2, 6, N]}\n"
                           "  i2: {dtype: int32, shape: [2, 6, 4]}\n  s2: {dtype: fp32, shape: [2, 6, 4]}\n"
                           "  i1: {dtype: int32, shape: [2, 3, N]}\n"
                           "outputs:\n  y: {dtype: fp32, shape: [2, 6, N]}\nbody:\n  - {vec_tile: [2, 6, 8]}\n";
  ok(head + "  - \"y[0:, 0:, 0:] = scatter(x, 2, i2, s2)\"\n");
  ok(head + "  - \"y[0:, 0:, 0:] = scatter(x, 1, i1, 1.5, reduce='add')\"\n");
  expect_error(head + "  - \"y[0:, 0:, 0:] = scatter(x, 1, i1, 1.5, reduce='max')\"\n", "'max'",
               "'scatter' reduce must be add or multiply, got ''max''");
}
