// int16, uint16, uint32, uint64 in the front end (issue 13): PyPTO's DT_ names and ptoc's short names, the
// type rules (which ops take them; uint64 refused by the ops ptoc does not compute exactly for it, located,
// naming the op, the dtype and the ops that take it), matmul refusing them, and unpack giving them.
#include "spec_helpers.h"

using fe_test::expect_error;
using fe_test::ok;

namespace {

std::string dspec(const std::string& stmt, const std::string& out_dt = "uint64") {
  return "ptoc: 1\n"
         "name: t\n"
         "inputs:\n"
         "  a: {dtype: uint64, shape: [8, 16]}\n"
         "  b: {dtype: DT_UINT64, shape: [8, 16]}\n"
         "  h: {dtype: int16, shape: [8, 16]}\n"
         "  u: {dtype: DT_UINT16, shape: [8, 16]}\n"
         "  w: {dtype: uint32, shape: [8, 16]}\n"
         "  p: {dtype: uint8, shape: [64]}\n"
         "outputs:\n"
         "  y: {dtype: " + out_dt + ", shape: [8, 16]}\n"
         "body:\n"
         "  - {vec_tile: [8, 16]}\n"
         "  - \"" + stmt + "\"\n";
}

}  // namespace

TEST_CASE("the new dtypes by both spellings; the ops that take them", "[frontend][dtype16]") {
  ok(dspec("y[0:, 0:] = maximum(a, b) + a * b"));
  ok(dspec("y[0:, 0:] = bitwise_xor(a, b)"));
  ok(dspec("y[0:, 0:] = where(a > b, a, b)"));
  ok(dspec("y[0:, 0:] = cast(a, DT_INT16, satmode=ON)", "int16"));
  ok(dspec("y[0:, 0:] = h * h - h / 3 + bitwise_and(h, h)", "int16"));
  ok(dspec("y[0:, 0:] = cast(floor_div(u, 7) + remainder(u, 5), uint16)", "uint16"));
  ok(dspec("y[0:, 0:] = full([8, 16], 65535, uint16)", "uint16"));
  ok(dspec("y[0:, 0:] = expand_clone(w[0:, 0:1], [8, 16])", "uint32"));
  ok(dspec("y[0:, 0:] = cast(w, fp32, satmode=ON)", "fp32"));
}

TEST_CASE("uint64 is refused where ptoc does not compute it exactly, located", "[frontend][dtype16]") {
  expect_error(dspec("y[0:, 0:] = exp(a)", "fp32"), "exp(a)",
               "'exp' does not take uint64 operands, 'a' is uint64 (ptoc takes uint64 in cast,", "insert cast(a, int32)");
  expect_error(dspec("y[0:, 0:] = prod(a, 1, keepdim=True)"), "prod(a",
               "'prod' does not take uint64 operands");
  expect_error(dspec("y[0:, 0:] = matmul(a, b)", "fp32"), "matmul(a, b)",
               "matmul takes fp16, bf16, fp32 or int8 operands, got uint64");
  expect_error(dspec("y[0:, 0:] = matmul(h, h)", "fp32"), "matmul(h, h)",
               "matmul takes fp16, bf16, fp32 or int8 operands, got int16");
}

TEST_CASE("an unknown dtype lists the new ones", "[frontend][dtype16]") {
  expect_error(dspec("y[0:, 0:] = cast(a, uint128)"), "uint128", "unknown dtype 'uint128'",
               "int16 uint16 uint32 uint64");
}
