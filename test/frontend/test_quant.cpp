// Casts with PyPTO's rounding / saturation modes, int8 matmul, quantize,
// dequantize and scaled_mm in the front end: what they are written as (the
// ops the evaluator and backend then see) and their located diagnostics.
// Their numbers are checked against NumPy by test/conformance (cast_modes,
// mm_int8_nz, quant_scales) and test/specs (attention_prequant_prolog).
#include "spec_helpers.h"

using fe_test::find_pos;
using fe_test::expect_error;
using fe_test::run;
using fe_test::kinds;

namespace {

const char* const kInputs =
    "inputs:\n  x: {dtype: fp32, shape: [16, 64]}\n  s: {dtype: fp32, shape: [16]}\n  c: {dtype: fp32, shape: [64]}\n"
    "  a: {dtype: int8, shape: [16, 64]}\n  w: {dtype: int8, shape: [64, 32]}\n  h: {dtype: fp16, shape: [64, 32]}\n"
    "  u: {dtype: uint8, shape: [64, 32]}\n  i: {dtype: int32, shape: [16, 64]}\n";

// The output a statement `NAME[...] = ...` writes, by its name.
std::string output_decl(const std::string& body) {
  size_t q = body.find('"');
  const char n = q == std::string::npos ? 'y' : body[q + 1];
  switch (n) {
    case 'f': return "  f: {dtype: fp32, shape: [16, 64]}\n";
    case 'm': return "  m: {dtype: int32, shape: [16, 32]}\n";
    case 'j': return "  j: {dtype: int32, shape: [16, 64]}\n";
    default: return "  y: {dtype: int8, shape: [16, 64]}\n";
  }
}

std::string spec(const std::string& body, const std::string& decls = "") {
  return "ptoc: 1\nname: t\n" + (decls.empty() ? kInputs + ("outputs:\n" + output_decl(body)) : decls) +
         "body:\n  - {vec_tile: [16, 64]}\n  - {cube_tile: {m: [16, 16], k: [32, 64], n: [32, 32]}}\n" + body;
}


std::vector<std::string> ops_of(const std::string& stmt) {
  auto r = run(spec("  - \"" + stmt + "\"\n"));
  INFO(r.rendered);
  REQUIRE(r.prog);
  return kinds(*r.prog);
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("cast modes are written as the rounding op, the saturating clip, then the cast", "[frontend][quant]") {
  CHECK(ops_of("y[:, :] = cast(x, int8)") == V{"cast"});  // first-release cast: unchanged
  CHECK(ops_of("y[:, :] = cast(x, int8, mode=CAST_RINT, satmode=ON)") == V{"round", "maximum", "minimum", "cast"});
  CHECK(ops_of("y[:, :] = cast(x, int8, CAST_FLOOR)") == V{"floor", "cast"});
  CHECK(ops_of("y[:, :] = cast(x, int8, CAST_CEIL, OFF)") == V{"ceil", "cast"});
  // PyPTO's CAST_NONE from float to integer truncates.
  CHECK(ops_of("y[:, :] = cast(x, int8, mode=CAST_NONE)") == V{"trunc", "cast"});
  // Half away from zero, exactly: t = trunc(x); t + trunc(2 * (x - t)).
  CHECK(ops_of("y[:, :] = cast(x, int8, mode=CAST_ROUND)") == V{"trunc", "sub", "mul", "trunc", "add", "cast"});
  // Same-type rounding needs no cast; integer sources ignore the mode.
  CHECK(ops_of("f[:, :] = cast(x, fp32, mode=CAST_FLOOR)") == V{"floor"});
  CHECK(ops_of("y[:, :] = cast(i, int8, mode=CAST_FLOOR, satmode=ON)") ==
        V{"maximum", "minimum", "cast"});
}

TEST_CASE("saturation bounds are exact in the source dtype and only where they can bind", "[frontend][quant]") {
  auto r = run(spec("  - \"j[:, :] = cast(x, int32, satmode=ON)\"\n"));
  REQUIRE(r.prog);
  std::vector<double> bounds;
  for (const auto& op : r.prog->ops)
    if (op.scalar) bounds.push_back(*op.scalar);
  // int32 from fp32 stops at the largest fp32 below 2^31 (2^31 itself would wrap).
  CHECK(bounds == std::vector<double>{-2147483648.0, 2147483520.0});
  auto u = run(spec("  - \"y[:, :] = cast(cast(a, uint8), int8, satmode=ON)\"\n"));
  REQUIRE(u.prog);
  bounds.clear();
  for (const auto& op : u.prog->ops)
    if (op.scalar) bounds.push_back(*op.scalar);
  CHECK(bounds == std::vector<double>{127.0});  // uint8 -> int8: no lower clip (uint8 cannot hold -128)
}

TEST_CASE("int8 matmul gives int32 and its misuse is located", "[frontend][quant]") {
  auto r = run(spec("  - \"m[:, :] = matmul(a, w)\"\n"));
  INFO(r.rendered);
  REQUIRE(r.prog);
  bool found = false;
  for (const auto& op : r.prog->ops)
    if (op.kind == ptoc::OpKind::Matmul) {
      CHECK(op.dtype == ptoc::DType::int32);
      found = true;
    }
  CHECK(found);
  const std::string bad_out = spec("  - \"m[:, :] = matmul(a, w, out_dtype=fp16)\"\n");
  expect_error(bad_out, "fp16)\"", "an int8 matmul gives int32 (exact int32 accumulation); out_dtype must be int32",
               "give the fixpipe's dequant scale: scale=0.5");
  expect_error(spec("  - \"m[:, :] = matmul(a, h)\"\n"), "matmul(a, h)",
               "matmul operands have different dtypes: int8 and fp16");
  expect_error(spec("  - \"m[:, :] = matmul(cast(a, uint8), u)\"\n"), "matmul(cast",
               "matmul takes fp16, bf16, fp32 or int8 operands, got uint8", "the cube multiplies signed int8");
}

TEST_CASE("int8 matmul to fp16 with scale= is the int32 matmul, then the fixpipe's cast / mul / relu / cast", "[frontend][quant]") {
  auto r = run(spec("  - \"m[:, :] = cast(matmul(a, w, fp16, scale=0.37, relu_type=RELU), int32)\"\n"));
  INFO(r.rendered);
  REQUIRE(r.prog);
  std::vector<ptoc::OpKind> seen;
  for (const auto& op : r.prog->ops)
    if (op.kind == ptoc::OpKind::Matmul || op.kind == ptoc::OpKind::Cast || op.kind == ptoc::OpKind::Mul ||
        op.kind == ptoc::OpKind::Relu)
      seen.push_back(op.kind);
  using K = ptoc::OpKind;
  CHECK(seen == std::vector<K>{K::Matmul, K::Cast, K::Mul, K::Relu, K::Cast, K::Cast});
  for (const auto& op : r.prog->ops) {
    if (op.kind == K::Matmul) CHECK(op.dtype == ptoc::DType::int32);
    if (op.kind == K::Mul) CHECK(op.scalar == double(0.36987305f));  // 0.37 cut to 10 mantissa bits
  }
  expect_error(spec("  - \"m[:, :] = matmul(a, w, bf16, scale=0.5)\"\n"), "bf16,",
               "an int8 matmul with scale= gives fp16", "write out_dtype=fp16");
  expect_error(spec("  - \"m[:, :] = matmul(x, x, fp32, b_trans=true, scale=0.5)\"\n"), "0.5)",
               "matmul's scale= dequantizes an int8 x int8 product; the operands are fp32");
  expect_error(spec("  - \"m[:, :] = cast(matmul(a, w, fp16, scale=0.5, relu_type=YES), int32)\"\n"), "YES",
               "matmul's relu_type must be RELU or NO_RELU, got 'YES'");
}

TEST_CASE("cast mode and satmode diagnostics", "[frontend][quant]") {
  expect_error(spec("  - \"y[:, :] = cast(x, int8, mode=CAST_RINTT)\"\n"), "CAST_RINTT", "unknown cast mode 'CAST_RINTT'",
               "did you mean 'CAST_RINT'?");
  expect_error(spec("  - \"y[:, :] = cast(x, int8, mode=CAST_ODD)\"\n"), "CAST_ODD",
               "cast mode CAST_ODD (fp32 -> fp16 round to odd) is not supported yet");
  expect_error(spec("  - \"y[:, :] = cast(x, int8, satmode=1.5)\"\n"), "1.5",
               "cast satmode must be ON or OFF (PyPTO's SaturationMode), got '1.5'");
  expect_error(spec("  - \"f[:, :] = cast(cast(x, fp16), fp32, mode=CAST_FLOOR)\"\n"), "cast(cast",
               "cast from fp16 to fp32 rounds to nearest even only; its mode cannot be chosen yet");
}

TEST_CASE("quantize and dequantize: per row, per column, and located errors", "[frontend][quant]") {
  CHECK(ops_of("y[:, :] = quantize(x, s, int8, -1)") == V{"reshape", "mul", "round", "maximum", "minimum", "cast"});
  CHECK(ops_of("y[:, :] = quantize(x, c, int8, -2, c)") ==
        V{"reshape", "reshape", "mul", "add", "round", "maximum", "minimum", "cast"});
  CHECK(ops_of("f[:, :] = dequantize(a, s, fp32, -1)") == V{"reshape", "cast", "mul"});
  expect_error(spec("  - \"y[:, :] = quantize(x, c, int8, -1)\"\n"), "c, int8",
               "'quantize' scale 'c' has shape [64]; along axis -1 of [16, 64] it must be [16] (one per row) or [16, 1]",
               "axis=-1 scales each row (per token), axis=-2 each column (per channel)");
  expect_error(spec("  - \"y[:, :] = quantize(x, s, int8, 2)\"\n"), "2)\"",
               "'quantize' axis 2 is not one of the last two axes of a rank-2 input");
  expect_error(spec("  - \"y[:, :] = quantize(x, s, int32, -1)\"\n"), "int32, -1",
               "'quantize' otype must be int8 or uint8, got int32");
  expect_error(spec("  - \"f[:, :] = dequantize(x, s, fp32, -1)\"\n"), "x, s, fp32",
               "'dequantize' takes an int8, uint8 or int32 input, 'x' is fp32");
  expect_error(spec("  - \"y[:, :] = quantize(a, s, int8, -1)\"\n"), "a, s, int8",
               "'quantize' takes an fp32 input, 'a' is int8", "insert cast(a, fp32)");
  expect_error(spec("  - \"y[:, :] = quantize(x, cast(s, fp16), int8, -1)\"\n"), "cast(s, fp16)",
               "'quantize' scale must be fp32, 'cast(s, fp16)' is fp16", "insert cast(cast(s, fp16), fp32)");
  expect_error(spec("  - \"y[:, :] = quantize(x, s, int8)\"\n"), "quantize(",
               "'quantize' is missing its argument 'axis'");
}

TEST_CASE("scaled_mm is an int8 matmul with a scale per row and per column", "[frontend][quant]") {
  const std::string decls =
      "inputs:\n  a: {dtype: int8, shape: [16, 64]}\n  w: {dtype: int8, shape: [64, 32]}\n"
      "  sa: {dtype: fp32, shape: [16]}\n  sb: {dtype: fp32, shape: [32]}\n  h: {dtype: fp16, shape: [64, 32]}\n"
      "outputs:\n  o: {dtype: bf16, shape: [16, 32]}\n";
  auto r = run(spec("  - {vec_tile: [16, 32]}\n  - \"o[:, :] = scaled_mm(a, w, bf16, sa, sb)\"\n", decls));
  INFO(r.rendered);
  REQUIRE(r.prog);
  CHECK(kinds(*r.prog) == V{"matmul", "reshape", "reshape", "cast", "mul", "mul", "cast"});
  expect_error(spec("  - {vec_tile: [16, 32]}\n  - \"o[:, :] = scaled_mm(a, h, bf16, sa, sb)\"\n", decls), "h, bf16",
               "'scaled_mm' takes int8 operands, 'h' is fp16", "PyPTO's fp8/fp4 MX formats are not supported");
  expect_error(spec("  - {vec_tile: [16, 32]}\n  - \"o[:, :] = scaled_mm(a, w, bf16, sb, sb)\"\n", decls), "sb, sb",
               "'scaled_mm' scale_a 'sb' has shape [32]; along axis -1 of [16, 32] it must be [16] (one per row)");
}
