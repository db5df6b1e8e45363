// conv6 (elaborate_conv_im2col.cpp): conv and experimental gather_in_l1, what each elaborates to (conv7: the
// im2col columns by data movement, one matmul per group on the cube), and the located diagnostics of PyPTO's dtype, shape and argument rules.
// Numerics against NumPy: test/conformance/specs/conv6_*.yaml.
#include "spec_helpers.h"

using fe_test::expect_error;
using fe_test::ok;

namespace {

const char* kCube = "  - {cube_tile: {m: [16, 16], k: [32, 32], n: [32, 32]}}\n";

std::string spec(const std::string& body, const std::string& out = "  y: {dtype: fp16, shape: [2, 6, 4, 5]}\n") {
  return "ptoc: 1\nname: t\ndims:\n  B: dynamic\n"
         "inputs:\n"
         "  x: {dtype: fp16, shape: [2, 4, 7, 9]}\n"
         "  w: {dtype: fp16, shape: [6, 4, 3, 3]}\n"
         "  b: {dtype: fp16, shape: [6]}\n"
         "  bf: {dtype: fp32, shape: [6]}\n"
         "  b5: {dtype: fp16, shape: [5]}\n"
         "  xb: {dtype: bf16, shape: [2, 4, 7, 9]}\n"
         "  wb: {dtype: bf16, shape: [6, 4, 3, 3]}\n"
         "  wg: {dtype: fp16, shape: [6, 2, 3, 3]}\n"
         "  w1: {dtype: fp16, shape: [6, 4, 1, 1]}\n"
         "  w3: {dtype: fp16, shape: [6, 4, 3]}\n"
         "  x1: {dtype: fp16, shape: [2, 4, 9]}\n"
         "  xi: {dtype: int32, shape: [2, 4, 7, 9]}\n"
         "  x2: {dtype: fp16, shape: [4, 9]}\n"
         "  xd: {dtype: fp16, shape: [B, 4, 7, 9]}\n"
         "  src: {dtype: fp16, shape: [16, 32]}\n"
         "  srci: {dtype: int32, shape: [16, 32]}\n"
         "  ix: {dtype: int32, shape: [1, 8], values: [0, 7]}\n"
         "  ix2: {dtype: int32, shape: [2, 4], values: [0, 7]}\n"
         "  ix64: {dtype: int64, shape: [1, 8], values: [0, 7]}\n"
         "  bt: {dtype: int32, shape: [1, 4], values: [0, 7]}\n"
         "outputs:\n" + out + "body:\n" + body;
}

std::string conv_stmt(const std::string& call, const char* tile = "[1, 6, 4, 5]") {
  return std::string(kCube) + "  - {vec_tile: " + tile + "}\n  - \"y[...] = " + call + "\"\n";
}

int count(const ptoc::Program& p, ptoc::OpKind k) {
  int n = 0;
  for (const auto& op : p.ops) n += op.kind == k;
  return n;
}

std::string out_shape(const ptoc::Program& p) {
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Assemble) {
      std::string s;
      for (const auto& d : p.values[size_t(op.inputs[0])].shape) s += (s.empty() ? "" : ", ") + d.str();
      return "[" + s + "]";
    }
  return "";
}

}  // namespace

TEST_CASE("conv is im2col on the cube: the columns by data movement, one matmul per group", "[conv6]") {
  // conv7: 3x3, strides 2, padding 1: no selection matmul (an inf or NaN input would spread through its row);
  // zero padding by full + concat, each tap a view of the padded input, then the [Cout, Cin * 9] matmul.
  auto p = ok(spec(conv_stmt("conv(x, w, fp16, [2, 2], [1, 1, 1, 1], [1, 1], bias_tensor=b)")));
  CHECK(count(p, ptoc::OpKind::Matmul) == 1);
  CHECK(count(p, ptoc::OpKind::Full) >= 2);
  CHECK(count(p, ptoc::OpKind::View) >= 9);
  CHECK(count(p, ptoc::OpKind::Concat) >= 3);
  CHECK(out_shape(p) == "[2, 6, 4, 5]");
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Matmul) CHECK(op.cube_tile.has_value());
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Full) CHECK(op.fill == 0);  // the padding only: no 0/1 matrices
  // A 1x1 kernel at stride 1 without padding pads nothing: only the weight matmul.
  auto q = ok(spec(conv_stmt("conv(x, w1, fp16, [1, 1], [0, 0, 0, 0], [1, 1])", "[1, 6, 7, 9]"),
                   "  y: {dtype: fp16, shape: [2, 6, 7, 9]}\n"));
  CHECK(count(q, ptoc::OpKind::Matmul) == 1);
  CHECK(count(q, ptoc::OpKind::Full) == 0);
  // groups 2: two weight matmuls, joined along Cout.
  auto g = ok(spec(conv_stmt("conv(x, wg, fp16, [2, 2], [1, 1, 1, 1], [1, 1], groups=2)")));
  CHECK(count(g, ptoc::OpKind::Matmul) == 2);
  // 1D: stride 3, dilation 2, padding [2, 1], a kernel of 3 on 9 columns: (9 + 3 - 4 - 1) / 3 + 1 = 3.
  auto d = ok(spec(conv_stmt("conv(x1, w3, fp16, [3], [2, 1], [2])", "[1, 6, 3]"),
                   "  y: {dtype: fp16, shape: [2, 6, 3]}\n"));
  CHECK(count(d, ptoc::OpKind::Matmul) == 1);
  CHECK(out_shape(d) == "[2, 6, 3]");
  // bf16 with an fp32 bias (PyPTO's A2 / A3 rule) and relu.
  auto r = ok(spec(conv_stmt("conv(xb, wb, bf16, [2, 2], [1, 1, 1, 1], [1, 1], bias_tensor=bf, relu_type=RELU)"),
                   "  y: {dtype: bf16, shape: [2, 6, 4, 5]}\n"));
  CHECK(count(r, ptoc::OpKind::Relu) == 1);
}

TEST_CASE("conv's located errors follow PyPTO's rules", "[conv6]") {
  const std::string ok_tail = "[2, 2], [1, 1, 1, 1], [1, 1])";
  expect_error(spec(conv_stmt("conv(xi, w, fp16, " + ok_tail)), "xi,",
               "conv's input_conv must be fp16, bf16 or fp32 (PyPTO's rule), 'xi' is int32");
  expect_error(spec(conv_stmt("conv(x, wb, fp16, " + ok_tail)), "wb,",
               "conv's weight must have input_conv's dtype fp16, 'wb' is bf16", "insert cast(wb, fp16)");
  expect_error(spec(conv_stmt("conv(x, w3, fp16, " + ok_tail)), "w3,",
               "conv's weight must have input_conv's rank 4, 'w3' has rank 3");
  expect_error(spec(conv_stmt("conv(x2, w, fp16, " + ok_tail)), "x2,",
               "conv's input_conv must have rank 3 (NCL) or 4 (NCHW), 'x2' has rank 2",
               "PyPTO's 3D conv (NCDHW) needs rank-5 tensors, which ptoc does not have");
  expect_error(spec(conv_stmt("conv(xd, w, fp16, " + ok_tail)), "xd,",
               "'conv' needs 'xd' of a static, whole shape");
  expect_error(spec(conv_stmt("conv(x, w, fp32, " + ok_tail)), "fp32, [2",
               "conv's out_dtype must be input_conv's dtype fp16, got fp32");
  expect_error(spec(conv_stmt("conv(x, w, fp16, [2], [1, 1, 1, 1], [1, 1])")), "[2],",
               "conv's strides has 1 entries, a 2D conv takes 2 ([h, w])");
  expect_error(spec(conv_stmt("conv(x, w, fp16, [2, 64], [1, 1, 1, 1], [1, 1])")), "64]",
               "conv's strides entries must be in [1, 63], got 64");
  expect_error(spec(conv_stmt("conv(x, w, fp16, [2, 2], [1, 1, 1, 1, 0], [1, 1])")), "[1, 1, 1, 1, 0]",
               "conv's paddings has 5 entries, a 2D conv takes 4 ([top, bottom, left, right])");
  expect_error(spec(conv_stmt("conv(x, w, fp16, [2, 2], [1, 1, 3, 1], [1, 1])")), "3, 1]",
               "conv's padding 3 on spatial axis 1 must be less than the kernel's 3",
               "PyPTO's rule: each padding < its kernel size");
  expect_error(spec(conv_stmt("conv(x, w, fp16, [2, 2], [1, 1, 1, 1], [0, 1])")), "0, 1])",
               "conv's dilations entries must be in [1, 63], got 0");
  expect_error(spec(conv_stmt("conv(x, w, fp16, [2, 2], [0, 0, 0, 0], [4, 1])")), "w, fp16, [2, 2], [0",
               "conv's kernel 3 (dilation 4) is wider than spatial axis 0 of 'x' padded: 7");
  expect_error(spec(conv_stmt("conv(x, w, fp16, " + ok_tail.substr(0, ok_tail.size() - 1) + ", groups=2)")),
               "2)", "conv's channels do not match groups 2: input_conv's Cin is 4, weight's Cout 6 and Cin 4");
  expect_error(spec(conv_stmt("conv(x, w, fp16, " + ok_tail.substr(0, ok_tail.size() - 1) + ", 1)")), "1)",
               "conv's arguments after dilations are keyword-only (PyPTO's '*'), '1' is given by position",
               "write groups=1");
  expect_error(spec(conv_stmt("conv(x, w, fp16, " + ok_tail.substr(0, ok_tail.size() - 1) + ", transposed=true)")),
               "true", "conv with transposed=true is not supported");
  expect_error(spec(conv_stmt("conv(x, w, fp16, " + ok_tail.substr(0, ok_tail.size() - 1) +
                              ", output_paddings=[1, 1])")),
               "[1, 1])", "conv's output_paddings is only for transposed=true");
  expect_error(spec(conv_stmt("conv(x, w, fp16, " + ok_tail.substr(0, ok_tail.size() - 1) + ", bias_tensor=b5)")),
               "b5)", "conv's bias_tensor must have shape [Cout] = [6], 'b5' has [5]");
  expect_error(spec(conv_stmt("conv(x, w, fp16, " + ok_tail.substr(0, ok_tail.size() - 1) + ", bias_tensor=bf)")),
               "bf)", "conv's bias_tensor must be fp16, 'bf' is fp32");
  expect_error(spec(conv_stmt("conv(x, w, fp16, " + ok_tail.substr(0, ok_tail.size() - 1) + ", relu_type=GELU)")),
               "GELU", "conv's relu_type must be RELU or NO_RELU, got 'GELU'");
  expect_error(spec("  - {vec_tile: [1, 6, 4, 5]}\n  - \"y[...] = conv(x, w, fp16, " + ok_tail + "\"\n"), "conv(",
               "no cube_tile in force for 'conv' (PyPTO needs set_conv_tile_shapes before conv)");
}

TEST_CASE("gather_in_l1 picks the paged rows by where and a sum; its located errors", "[conv6]") {
  const std::string out = "  y: {dtype: fp16, shape: [8, 16]}\n";
  auto stmt = [&](const std::string& call) {
    return std::string(kCube) + "  - {vec_tile: [8, 16]}\n  - \"y[...] = " + call + "\"\n";
  };
  auto p = ok(spec(stmt("gather_in_l1(src, ix, bt, 2, 16, false, false)"), out));
  // conv7: no one-hot matmul (0 * inf would spread an inf or NaN row of src to every row)
  CHECK(count(p, ptoc::OpKind::Matmul) == 0);
  CHECK(count(p, ptoc::OpKind::Where) >= 1);
  CHECK(out_shape(p) == "[8, 16]");
  expect_error(spec(stmt("gather_in_l1(srci, ix, bt, 2, 16, false, false)"), out), "srci,",
               "gather_in_l1's src must be fp32, fp16, bf16 or int8 (PyPTO's rule), 'srci' is int32");
  expect_error(spec(stmt("gather_in_l1(src, ix64, bt, 2, 16, false, false)"), out), "ix64,",
               "gather_in_l1's indices must be int32, 'ix64' is int64", "insert cast(ix64, int32)");
  expect_error(spec(stmt("gather_in_l1(src, ix2, bt, 2, 16, false, false)"), out), "ix2,",
               "gather_in_l1's indices must be [1, n], 'ix2' has shape [2, 4]");
  expect_error(spec(stmt("gather_in_l1(src, ix, bt, 0, 16, false, false)"), out), "0, 16",
               "gather_in_l1's block_size must be at least 1, got 0");
  expect_error(spec(stmt("gather_in_l1(src, ix, bt, 2, 33, false, false)"), out), "33",
               "gather_in_l1's size must be in [1, 32] (src's columns), got 33");
  expect_error(spec(stmt("gather_in_l1(src, ix, bt, 2, 16, 3, false)"), out), "3, false",
               "'gather_in_l1' argument is_b_matrix must be true or false, got '3'");
}
