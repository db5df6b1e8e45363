// structops5 (elaborate_structural_ops.cpp): interleave, deinterleave, gathermask, index_add_ub, index_add__ub and
// transposed_batchmatmul: what each elaborates to, and the located diagnostics of PyPTO's dtype, shape and
// tile rules. Numerics against NumPy: test/conformance/specs/catalog5_struct_*.yaml.
#include "spec_helpers.h"

using fe_test::expect_error;
using fe_test::kinds;
using fe_test::ok;
using fe_test::op_tiles;

namespace {

// The outputs named in `outs` (every output must be written): u, v [8, 16] fp32, w [8, 8] fp32, c [16, 2, 64] fp16.
std::string spec(const std::string& body, const std::string& outs = "uvwcg") {
  std::string o;
  for (char n : outs) {
    if (n == 'u') o += "  u: {dtype: fp32, shape: [8, 16]}\n";
    if (n == 'v') o += "  v: {dtype: fp32, shape: [8, 16]}\n";
    if (n == 'w') o += "  w: {dtype: fp32, shape: [8, 8]}\n";
    if (n == 'c') o += "  c: {dtype: fp16, shape: [16, 2, 64]}\n";
    if (n == 'g') o += "  g: {dtype: fp16, shape: [4, 8]}\n";
  }
  return "ptoc: 1\nname: t\ndims:\n  B: dynamic\n"
         "inputs:\n"
         "  x: {dtype: fp32, shape: [8, 16]}\n"
         "  y: {dtype: fp32, shape: [8, 16]}\n"
         "  h: {dtype: fp16, shape: [8, 16]}\n"
         "  z: {dtype: fp32, shape: [8, 8]}\n"
         "  o: {dtype: fp32, shape: [8, 18]}\n"
         "  q: {dtype: int8, shape: [8, 16]}\n"
         "  m: {dtype: bool, shape: [8, 16]}\n"
         "  x4: {dtype: fp32, shape: [2, 2, 2, 16]}\n"
         "  d: {dtype: fp32, shape: [8, B]}\n"
         "  rows: {dtype: int32, shape: [4], values: [0, 15]}\n"
         "  src: {dtype: fp32, shape: [4, 16]}\n"
         "  a3: {dtype: fp16, shape: [16, 2, 32]}\n"
         "  b3: {dtype: fp16, shape: [2, 32, 64]}\n"
         "  b5: {dtype: fp16, shape: [3, 32, 64]}\n"
         "  b6: {dtype: fp16, shape: [2, 24, 64]}\n"
         "  f3: {dtype: fp32, shape: [16, 2, 32]}\n"
         "  a2: {dtype: fp16, shape: [16, 32]}\n"
         "  kv: {dtype: fp16, shape: [16, 8]}\n"
         "  ti: {dtype: int32, shape: [1, 4], values: [0, 15]}\n"
         "  bt: {dtype: int32, shape: [1, 4], values: [0, 3]}\n"
         "  t2: {dtype: int32, shape: [2, 4], values: [0, 15]}\n"
         "outputs:\n" + o + "body:\n" +
         body;
}

int count(const ptoc::Program& p, ptoc::OpKind k) {
  int n = 0;
  for (const auto& op : p.ops) n += op.kind == k;
  return n;
}

const ptoc::Value& named(const ptoc::Program& p, const std::string& n) {
  for (const auto& v : p.values)
    if (v.name == n) return v;
  FAIL("no value " << n);
  return p.values[0];
}

std::string dims(const ptoc::Value& v) {
  std::string s;
  for (const auto& d : v.shape) s += (s.empty() ? "" : ", ") + d.str();
  return "[" + s + "]";
}

}  // namespace

TEST_CASE("interleave is a concat of columns, reshaped and cut in halves; deinterleave a transpose and a row",
          "[catalog5]") {
  auto p = ok(spec("  - {vec_tile: [4, 16]}\n"
                   "  - \"a, b = interleave(x, y)\"\n"
                   "  - \"u[...] = a\"\n"
                   "  - \"v[...] = b\"\n", "uv"));
  CHECK(count(p, ptoc::OpKind::Concat) == 1);
  CHECK(count(p, ptoc::OpKind::Transpose) == 0);
  CHECK(dims(named(p, "a")) == "[8, 16]");
  CHECK(dims(named(p, "b")) == "[8, 16]");
  // The pairs [8, 16, 2] run under the caller's row entry with the two inner axes whole.
  CHECK(op_tiles(p, ptoc::OpKind::Concat) == std::vector<std::vector<int64_t>>{{4, 16, 2}});

  auto q = ok(spec("  - {vec_tile: [4, 16]}\n"
                   "  - \"e, f = deinterleave(x)\"\n"
                   "  - \"w[...] = e + f\"\n", "w"));
  CHECK(count(q, ptoc::OpKind::Concat) == 0);
  CHECK(count(q, ptoc::OpKind::Transpose) == 2);
  CHECK(op_tiles(q, ptoc::OpKind::Transpose) == std::vector<std::vector<int64_t>>{{4, 2, 8}, {4, 2, 8}});
  CHECK(dims(named(q, "e")) == "[8, 8]");

  auto g = ok(spec("  - {vec_tile: [4, 16]}\n"
                   "  - \"w[...] = view(gathermask(x, 2), [8, 8], [0, 0])\"\n"
                   "  - \"u[...] = gathermask(x, 7)\"\n", "uw"));
  CHECK(op_tiles(g, ptoc::OpKind::Transpose) == std::vector<std::vector<int64_t>>{{4, 2, 8}});
}

TEST_CASE("interleave / deinterleave: two results, other like input, PyPTO's last-axis and tile rules",
          "[catalog5]") {
  expect_error(spec("  - {vec_tile: [8, 16]}\n  - \"u[...] = interleave(x, y)\"\n"), "interleave",
               "'interleave' has two results (out0, out1)", "bind both: 'a, b = interleave(...)'");
  expect_error(spec("  - {vec_tile: [8, 16]}\n  - \"a, b = interleave(x, h)\"\n"), "h)",
               "'interleave' needs other of input's dtype: 'x' is fp32, 'h' is fp16", "insert cast(h, fp32)");
  expect_error(spec("  - {vec_tile: [8, 16]}\n  - \"a, b = deinterleave(x, z)\"\n"), "z)",
               "'deinterleave' needs other of input's shape: 'x' is [8, 16], 'z' is [8, 8]");
  expect_error(spec("  - {vec_tile: [8, 8]}\n  - \"a, b = interleave(x, y)\"\n"), "interleave",
               "'interleave' needs the last axis whole in the vec_tile: the tile has 8, the axis 16",
               "set the vec_tile's last entry to 16 (PyPTO's rule)");
  expect_error(spec("  - {vec_tile: [8, 5]}\n  - \"a, b = deinterleave(x)\"\n"), "deinterleave",
               "'deinterleave' needs the vec_tile's last entry a multiple of 2, it is 5");
  expect_error(spec("  - {vec_tile: [2, 2, 2, 16]}\n  - \"a, b = interleave(x4, x4)\"\n"), "x4,",
               "'interleave' of a rank-4 value is not supported; ranks 1 to 3 are");
  expect_error(spec("  - {vec_tile: [8, 16]}\n  - \"a, b = deinterleave(d)\"\n"), "d)",
               "'deinterleave' needs a static, whole last axis, 'd' has shape [8, B]");
  expect_error(spec("  - {vec_tile: [8, 18]}\n  - \"a, b = interleave(view(o, [8, 9], [0, 0]), view(o, [8, 9], [0, 9]))\"\n"),
               "view(o, [8, 9], [0, 0])", "'interleave' needs the last axis a multiple of 2 (PyPTO's rule)");
  expect_error(spec("  - {vec_tile: [8, 16]}\n  - \"a, b = interleave(m, m)\"\n"), "interleave",
               "'interleave' does not take bool operands, 'm' is bool");
}

TEST_CASE("gathermask: pattern modes 1..7, PyPTO's dtypes, groups of 2 or 4 on the last axis", "[catalog5]") {
  expect_error(spec("  - {vec_tile: [8, 16]}\n  - \"w[...] = gathermask(x, 8)\"\n"), "8)",
               "gathermask pattern_mode must be 1..7, got 8");
  expect_error(spec("  - {vec_tile: [8, 16]}\n  - \"w[...] = cast(gathermask(q, 1), fp32)\"\n"), "q,",
               "'gathermask' takes fp32, fp16, bf16, int32, int16, uint16 or uint32 (PyPTO's dtypes), 'q' is int8",
               "insert cast(q, int32)");
  expect_error(spec("  - {vec_tile: [8, 18]}\n  - \"w[...] = view(gathermask(o, 3), [8, 4], [0, 0])\"\n"), "o,",
               "'gathermask' needs the last axis a multiple of 4 (pattern_mode 3 takes groups of 4), 'o' has 18");
  expect_error(spec("  - {vec_tile: [8, 6]}\n  - \"w[...] = view(gathermask(x, 4), [8, 4], [0, 0])\"\n"),
               "gathermask", "'gathermask' needs the vec_tile's last entry a multiple of 4, it is 6");
  expect_error(spec("  - {vec_tile: [8, 16]}\n  - \"w[...] = gathermask(x, B)\"\n"), "B)", "pattern_mode");
}

TEST_CASE("index_add_ub / index_add__ub: index_add under PyPTO's UB rules", "[catalog5]") {
  auto p = ok(spec("  - {vec_tile: [8, 16]}\n"
                   "  - \"t = index_add_ub(x, 0, rows, src, alpha=2)\"\n"
                   "  - \"t = index_add__ub(t, 0, rows, src)\"\n"
                   "  - \"u[...] = t\"\n", "u"));
  auto r = ok(spec("  - {vec_tile: [8, 16]}\n"
                   "  - \"t = index_add(x, 0, rows, src, alpha=2)\"\n"
                   "  - \"t = index_add_(t, 0, rows, src)\"\n"
                   "  - \"u[...] = t\"\n", "u"));
  CHECK(kinds(p) == kinds(r));  // the same ops as index_add
  expect_error(spec("  - {vec_tile: [4, 16]}\n  - \"u[...] = index_add_ub(x, 0, rows, src)\"\n"), "index_add_ub",
               "'index_add_ub' needs axis 0 whole in the vec_tile: the tile has 4, input and source have 8 and 4",
               "set the vec_tile's entry 0 to 8 (PyPTO's UB rule: the indexed axis and the index are not split), or "
               "use index_add");
  expect_error(spec("  - {vec_tile: [8, 16]}\n  - \"u[...] = cast(index_add__ub(q, 0, rows, cast(src, int8)), fp32)\"\n"),
               "q,", "'index_add__ub' takes fp32, fp16, bf16 or int32 (PyPTO's UB dtypes ptoc has), 'q' is int8");
}

TEST_CASE("transposed_batchmatmul: [M, B, K] x [B, K, N] -> [M, B, N], fp16 / bf16", "[catalog5]") {
  const std::string tiles = "  - cube_tile: {m: [16, 16], k: [16, 32], n: [16, 64]}\n  - {vec_tile: [4, 2, 64]}\n";
  auto p = ok(spec(tiles + "  - \"c[...] = transposed_batchmatmul(a3, b3, fp16)\"\n", "c"));
  CHECK(count(p, ptoc::OpKind::Matmul) == 1);
  CHECK(count(p, ptoc::OpKind::Transpose) == 2);
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Matmul) {
      CHECK(op.dtype == ptoc::DType::fp16);
      CHECK(dims(p.values[size_t(op.output)]) == "[2, 16, 64]");
    }
  expect_error(spec(tiles + "  - \"c[...] = transposed_batchmatmul(f3, b3, fp16)\"\n"), "f3,",
               "'transposed_batchmatmul' takes fp16 or bf16 (PyPTO's rule), 'f3' is fp32");
  expect_error(spec(tiles + "  - \"c[...] = transposed_batchmatmul(a3, b3, fp32)\"\n"), "fp32)",
               "transposed_batchmatmul out_dtype must be fp16 or bf16 (PyPTO's rule), got fp32");
  expect_error(spec(tiles + "  - \"c[...] = transposed_batchmatmul(a2, b3, fp16)\"\n"), "a2,",
               "transposed_batchmatmul takes tensor_a [M, B, K] and tensor_b [B, K, N], 'a2' has rank 2");
  expect_error(spec(tiles + "  - \"c[...] = transposed_batchmatmul(a3, b5, fp16)\"\n"), "b5,",
               "transposed_batchmatmul batch sizes differ: tensor_a [M, B, K] is [16, 2, 32], tensor_b [B, K, N] is "
               "[3, 32, 64]");
  expect_error(spec(tiles + "  - \"c[...] = transposed_batchmatmul(a3, b6, fp16)\"\n"), "b6,",
               "transposed_batchmatmul inner dimensions differ: K of tensor_a [16, 2, 32] is 32, of tensor_b "
               "[2, 24, 64] is 24");
  expect_error(spec("  - {vec_tile: [4, 2, 64]}\n  - \"c[...] = transposed_batchmatmul(a3, b3)\"\n"),
               "transposed_batchmatmul", "'transposed_batchmatmul' is missing its argument 'out_dtype'",
               "signature: transposed_batchmatmul(tensor_a, tensor_b, out_dtype)");
}

TEST_CASE("atomic_add(src, offsets, dst): a statement, dst's window read, added to and assembled back",
          "[catalog5]") {
  auto p = ok(spec("  - {vec_tile: [8, 8]}\n"
                   "  - \"w[...] = z\"\n"
                   "  - \"atomic_add(z * 2, [0, 0], w)\"\n"
                   "  - loop: {var: i, count: 2, kind: static}\n"
                   "    body:\n"
                   "      - {vec_tile: [4, 8]}\n"
                   "      - \"atomic_add(z[i * 4:(i + 1) * 4, :], [4 - i * 4, 0], w)\"\n",
                   "w"));
  CHECK(count(p, ptoc::OpKind::Assemble) == 4);  // the first write, then one per atomic_add
  CHECK(count(p, ptoc::OpKind::Add) == 3);
  const std::string tiles = "  - {vec_tile: [8, 8]}\n";
  expect_error(spec(tiles + "  - \"w[...] = atomic_add(z, [0, 0], w)\"\n"), "atomic_add",
               "atomic_add is a statement: it adds into dst and returns nothing",
               "write it on its own line: - \"atomic_add(src, [o0, o1], dst)\"");
  expect_error(spec(tiles + "  - \"atomic_add(z, [0, 0], x)\"\n"), "x)",
               "atomic_add's dst must be a GM tensor it can write, 'x' is a read-only input",
               "declare an output with 'inplace: x' to add into it in place");
  expect_error(spec(tiles + "  - \"t = z\"\n  - \"atomic_add(z, [0, 0], t)\"\n"), "t)",
               "atomic_add's dst must be a GM tensor it can write, 't' is not one");
  expect_error(spec(tiles + "  - \"atomic_add(cast(z, fp16), [0, 0], w)\"\n"), "cast(z, fp16)",
               "atomic_add of a fp16 src into fp32 tensor 'w'", "insert cast(cast(z, fp16), fp32)");
  expect_error(spec(tiles + "  - \"atomic_add(z, [0], w)\"\n"), "[0]",
               "atomic_add needs len(offsets) == src's rank == dst's rank (PyPTO's rule): offsets has 1, src 2, 'w' 2");
  expect_error(spec(tiles + "  - \"atomic_add(z, [1, 0], w)\"\n"), "1, 0]",
               "atomic_add's window runs past axis 0 of 'w': offset 1 + src extent 8 > 8",
               "PyPTO's rule: offsets[i] + src.shape[i] <= dst.shape[i]");
  expect_error(spec(tiles + "  - \"atomic_add(z, 0, w)\"\n"), "0, w",
               "atomic_add's offsets must be a list such as [0, b * 64], got '0'");
  expect_error(spec(tiles + "  - \"atomic_add(z, [0, 0])\"\n"), "atomic_add",
               "'atomic_add' is missing its argument 'dst'");
}

TEST_CASE("gather_in_ub: the block table's entry, then the row, as two one-hot masks", "[catalog5]") {
  auto p = ok(spec("  - {vec_tile: [4, 8]}\n  - \"g[...] = gather_in_ub(kv, ti, bt, 4, -2)\"\n", "g"));
  CHECK(count(p, ptoc::OpKind::Where) == 4);  // the entry, the hit count, the missing rows, the rows
  CHECK(count(p, ptoc::OpKind::Matmul) == 0);
  // The [k, T, H] mask runs under the user's k and hidden entries with the token axis whole.
  CHECK(op_tiles(p, ptoc::OpKind::Sum).back() == std::vector<int64_t>{4, 16, 8});
  const std::string t = "  - {vec_tile: [4, 8]}\n";
  expect_error(spec(t + "  - \"g[...] = gather_in_ub(kv, ti, bt, 4, 0)\"\n"), "0)",
               "gather_in_ub gathers along axis -2 only (PyPTO's rule), got 0");
  expect_error(spec(t + "  - \"g[...] = gather_in_ub(kv, ti, bt, 0)\"\n"), "0)",
               "gather_in_ub block_size must be at least 1, got 0");
  expect_error(spec(t + "  - \"g[...] = gather_in_ub(kv, t2, bt, 4)\"\n"), "t2,",
               "gather_in_ub's indices must be [1, k], 't2' has shape [2, 4]", "PyPTO's rule");
  expect_error(spec(t + "  - \"g[...] = cast(gather_in_ub(cast(kv, bf16), ti, bt, 4), fp16)\"\n"), "cast(kv, bf16)",
               "'gather_in_ub' takes fp32 or fp16 param (PyPTO's rule), 'cast(kv, bf16)' is bf16");
  expect_error(spec(t + "  - \"g[...] = gather_in_ub(kv, cast(ti, fp32), bt, 4)\"\n"), "cast(ti, fp32)",
               "'gather_in_ub' takes int32 indices (PyPTO's rule), 'cast(ti, fp32)' is fp32");
  expect_error(spec("  - {vec_tile: [4, 8, 1]}\n  - \"g[...] = gather_in_ub(kv, ti, bt, 4)\"\n"), "gather_in_ub",
               "gather_in_ub needs a vec_tile of rank 2 (the result [k, hidden_dim]) in force");
}

TEST_CASE("set_operation_options(combine_axis=...): a checked statement that changes nothing", "[catalog5]") {
  const std::string body = "  - {vec_tile: [8, 16]}\n  - \"u[...] = x + view(x, [8, 1], [0, 0])\"\n";
  auto plain = ok(spec(body, "u"));
  auto with = ok(spec("  - \"set_operation_options(combine_axis=true)\"\n" + body, "u"));
  CHECK(kinds(plain) == kinds(with));  // ptoc's kernels broadcast a [8, 1] operand inline already
  expect_error(spec(body + "  - \"set_operation_options(combine_axs=true)\"\n"), "combine_axs",
               "unknown argument 'combine_axs' to 'set_operation_options'", "did you mean 'combine_axis'?");
  expect_error(spec(body + "  - \"set_operation_options(true)\"\n"), "true)",
               "set_operation_options takes keyword arguments only (PyPTO's '*')", "write combine_axis=true");
  expect_error(spec(body + "  - \"set_operation_options(combine_axis=2)\"\n"), "2)",
               "'set_operation_options' argument combine_axis must be true or false, got '2'");
  expect_error(spec("  - {vec_tile: [8, 16]}\n  - \"u[...] = x + set_operation_options(combine_axis=true)\"\n"),
               "set_operation_options", "set_operation_options is a statement: it returns nothing");
}
