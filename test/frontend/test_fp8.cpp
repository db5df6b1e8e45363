// The 8-bit floats in the front end (issue 13): both spellings, Ascend 950 only (a located error naming the
// target otherwise), cast the only op taking them, PyPTO's 950 cast table (others refused, located), hif8
// refused with the reason.
#include "spec_helpers.h"

using fe_test::expect_error;
using fe_test::ok;

namespace {

std::string fspec(const std::string& stmt, const std::string& out_dt = "fp8e4m3",
                  const std::string& target = "ascend950pr") {
  return "ptoc: 1\n"
         "name: t\n"
         "target: " + target + "\n"
         "inputs:\n"
         "  x: {dtype: fp32, shape: [8, 32]}\n"
         "  i: {dtype: int32, shape: [8, 32]}\n"
         "  q: {dtype: DT_FP8E4M3, shape: [8, 32]}\n"
         "  e: {dtype: fp8e8m0, shape: [8, 32]}\n"
         "outputs:\n"
         "  y: {dtype: " + out_dt + ", shape: [8, 32]}\n"
         "body:\n"
         "  - {vec_tile: [8, 32]}\n"
         "  - \"" + stmt + "\"\n";
}

}  // namespace

TEST_CASE("fp8 casts on Ascend 950", "[frontend][fp8]") {
  ok(fspec("y[0:, 0:] = cast(x, fp8e4m3)"));
  ok(fspec("y[0:, 0:] = cast(x, pypto.DT_FP8E5M2)", "fp8e5m2"));
  ok(fspec("y[0:, 0:] = cast(cast(x, fp16), DT_FP8E4M3FN, mode=CAST_RINT)"));
  ok(fspec("y[0:, 0:] = cast(q, fp32) * 2", "fp32"));
  ok(fspec("y[0:, 0:] = cast(e, bf16)", "bf16"));
}

TEST_CASE("fp8 is refused where PyPTO does not have it, located", "[frontend][fp8]") {
  expect_error(fspec("y[0:, 0:] = q + q"), "+ q", "does not take fp8e4m3 operands", "insert cast(q, fp32)");
  expect_error(fspec("y[0:, 0:] = exp(q)", "fp32"), "exp(q)", "does not take fp8e4m3 operands");
  expect_error(fspec("y[0:, 0:] = cast(i, fp8e4m3)"), "cast(i, fp8e4m3)",
               "cast from int32 to fp8e4m3 is not supported", "cast to fp32 first");
  expect_error(fspec("y[0:, 0:] = cast(x, fp8e8m0)", "fp8e8m0"), "cast(x, fp8e8m0)",
               "nothing casts to fp8e8m0");
  expect_error(fspec("y[0:, 0:] = cast(e, fp16)", "fp16"), "cast(e, fp16)", "fp8e8m0 casts to fp32 or bf16");
  expect_error(fspec("y[0:, 0:] = cast(x, fp8e4m3, mode=CAST_FLOOR)"), "cast(x, fp8e4m3, mode=CAST_FLOOR)",
               "rounds to nearest even only");
  expect_error(fspec("y[0:, 0:] = cast(x, DT_HF8)", "fp32"), "DT_HF8", "do not define its encoding");
  expect_error(fspec("y[0:, 0:] = cast(x, fp8e5m2)", "fp32", "ascend910b1"), "fp8e5m2",
               "fp8e5m2 needs an Ascend 950 target, the spec's target is ascend910b1", "target: ascend950pr");
}
