// mathops5's ops in the front end: each is its own op kind (or, for prelu / axpy_ / expand_exp_dif, the ops
// it is written as), PyPTO's argument names and dtype rules, constant folding, and located diagnostics.
// Numerics (evaluator and compiled, with tails, every dtype) are checked against NumPy by the conformance
// specs catalog5_math_unary and catalog5_math_binary.
#include "spec_helpers.h"

#include "compiler/op_table.h"

using fe_test::expect_error;
using fe_test::kinds;
using fe_test::ok;
using fe_test::run;
using fe_test::spec;

namespace {

const std::string kTile = "  - {vec_tile: [16, 64]}\n";

std::string body(const std::string& stmt) { return kTile + "  - \"" + stmt + "\"\n"; }

const std::string kInts =
    "tensors:\n  k8: {dtype: int8, shape: [B, H]}\n  u8: {dtype: uint8, shape: [B, H]}\n"
    "  b16: {dtype: bf16, shape: [B, H]}\n  z: {dtype: int32, shape: [B, H]}\n  zb: {dtype: bool, shape: [B, H]}\n"
    "  w1: {dtype: fp32, shape: [H]}\n  w2: {dtype: fp32, shape: [32]}\n  hf: {dtype: fp16, shape: [B, H]}\n";

}  // namespace

TEST_CASE("mathops5 unary ops are their own op kinds, float operands only", "[frontend][catalog5]") {
  for (const char* fn : {"acos", "asin", "atan", "acosh", "asinh", "atanh", "sinh", "cosh", "tan", "cbrt", "erfc"}) {
    INFO(fn);
    auto p = ok(spec(body(std::string("y[0:16, :] = ") + fn + "(x[0:16, :])")));
    CHECK(kinds(p) == std::vector<std::string>{"view", fn});
    const ptoc::OpSpec* s = ptoc::find_op(fn);
    REQUIRE(s);
    CHECK(s->form == ptoc::OpForm::Unary);
    expect_error(spec(body(std::string("y[0:16, :] = cast(") + fn + "(n[0:16, :]), fp32)")), fn,
                 std::string("'") + fn + "' needs a floating-point operand, 'n[0:16, :]' is int32", "insert cast(");
  }
}

TEST_CASE("signbit gives bool, takes floats and signed integers but not uint8", "[frontend][catalog5]") {
  auto p = ok(spec(body("y[0:16, :] = cast(signbit(x[0:16, :]), fp32) + cast(signbit(n[0:16, :]), fp32)")));
  int saw = 0;
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Signbit) {
      CHECK(p.values[size_t(op.output)].dtype == ptoc::DType::boolean);
      ++saw;
    }
  CHECK(saw == 2);
  expect_error(spec(body("y[0:16, :] = cast(signbit(u8[0:16, :]), fp32)"), kInts), "signbit",
               "'signbit' does not take uint8 operands (PyPTO's rule: they have no sign), 'u8[0:16, :]' is uint8",
               "insert cast(u8[0:16, :], int32)");
}

TEST_CASE("mathops5 binary ops: PyPTO's argument names, literals either side, broadcasting", "[frontend][catalog5]") {
  auto p = ok(spec(body("y[0:16, :] = atan2(y=x[0:16, :], x=x[0:16, 0:1]) + fmod(x[0:16, :], 0.5) + "
                        "remainder(2.5, x[0:16, :]) + floor_div(x[0:16, :], other=3)")));
  CHECK(kinds(p) == std::vector<std::string>{"view", "view", "atan2", "view", "fmod", "add", "view", "remainder", "add",
                                             "view", "floor_div", "add"});
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Remainder) {
      CHECK(op.scalar_first);
      CHECK(op.scalar == 2.5);
    }
  auto q = ok(spec(body("y[0:16, :] = cast(ceil_div(self=n[0:16, :], other=4) + gcd(n[0:16, :], 6) + "
                        "bitwise_left_shift(1, n[0:16, :]) + bitwise_right_shift(n[0:16, :], 2), fp32)")));
  CHECK(kinds(q) == std::vector<std::string>{"view", "ceil_div", "view", "gcd", "add", "view", "bitwise_left_shift",
                                             "add", "view", "bitwise_right_shift", "add", "cast"});
  ok(spec(body("y[0:16, :] = fmod(x[0:16, :], 2, precision_type=HIGH_PRECISION)")));
}

TEST_CASE("mathops5 binary ops: PyPTO's dtype rules, located", "[frontend][catalog5]") {
  expect_error(spec(body("y[0:16, :] = cast(ceil_div(k8[0:16, :], 2), fp32)"), kInts), "ceil_div",
               "'ceil_div' takes int32 operands (PyPTO's rule), 'k8[0:16, :]' is int8", "insert cast(k8[0:16, :], int32)");
  expect_error(spec(body("y[0:16, :] = cast(remainder(u8[0:16, :], 3), fp32)"), kInts), "remainder",
               "'remainder' takes fp32, fp16, bf16 or int32 operands (PyPTO's rule), 'u8[0:16, :]' is uint8");
  expect_error(spec(body("y[0:16, :] = cast(gcd(x[0:16, :], 3), fp32)")), "gcd",
               "'gcd' takes integer operands (int32, int8, uint8, int16, uint16, uint32, uint64), 'x[0:16, :]' is fp32");
  expect_error(spec(body("y[0:16, :] = cast(bitwise_left_shift(x[0:16, :], 3), fp32)")), "bitwise_left_shift",
               "'bitwise_left_shift' takes integer operands");
  expect_error(spec(body("y[0:16, :] = atan2(x[0:16, :], cast(n[0:16, :], fp16))")), "atan2",
               "operands of 'atan2' have different dtypes: fp32 and fp16");
  expect_error(spec(body("y[0:16, :] = cast(fmod(n[0:16, :], 2), fp32)")), "fmod",
               "'fmod' needs a floating-point operand, 'n[0:16, :]' is int32");
  expect_error(spec(body("y[0:16, :] = cast(floor_div(zb[0:16, :], zb[0:16, :]), fp32)"), kInts), "floor_div",
               "'floor_div' does not take bool operands");
  expect_error(spec(body("y[0:16, :] = fmod(x[0:16, :], 2, precision_type=EXACT)")), "EXACT",
               "unknown precision_type 'EXACT' of 'fmod'", "HIGH_PRECISION or INTRINSIC");
  expect_error(spec(body("y[0:16, :] = x[0:16, :] + gcd(2.5, 3)")), "gcd", "'gcd' takes integers");
  expect_error(spec(body("y[0:16, :] = x[0:16, :] + floor_div(7, 0)")), "floor_div", "division by zero");
}

TEST_CASE("mathops5 binary ops fold two literals by the tile library's rules", "[frontend][catalog5]") {
  // floor_div(-7, 2) = -4, remainder(-7, 2) = 1, ceil_div(7, 2) = 4, gcd(-12, 18) = 6, 1 << 4 = 16,
  // -16 >> 2 = -4, 1 << 40 = 0 (past the width), -1 >> 70 = -1: 23; remainder(-7.5, 2) = 0.5, fmod(-7.5, 2) = -1.5.
  auto p = ok(spec(body("y[0:16, :] = x[0:16, :] + (floor_div(-7, 2) + remainder(-7, 2) + ceil_div(7, 2) + "
                        "gcd(-12, 18) + bitwise_left_shift(1, 4) + bitwise_right_shift(-16, 2) + "
                        "bitwise_left_shift(1, 40) + bitwise_right_shift(-1, 70) + 4 + 1)")));
  bool saw = false;
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Add && op.scalar) {
      CHECK(*op.scalar == 23);
      saw = true;
    }
  CHECK(saw);
  auto q = ok(spec(body("y[0:16, :] = x[0:16, :] * (remainder(-7.5, 2) + fmod(-7.5, 2) * 10)")));
  for (const auto& op : q.ops)
    if (op.kind == ptoc::OpKind::Mul && op.scalar) CHECK(*op.scalar == 0.5 - 15);
}

TEST_CASE("prelu, axpy_ and expand_exp_dif are written as existing ops", "[frontend][catalog5]") {
  auto p = ok(spec(body("y[0:16, :] = prelu(x[0:16, :], w1)"), kInts));
  CHECK(kinds(p) == std::vector<std::string>{"view", "ge", "mul", "where"});  // w1 [H] broadcasts as it is
  auto q = ok(spec(body("y[0:16, :] = axpy_(x[0:16, :], cast(hf[0:16, 0:1], fp16), alpha=2)"), kInts));
  CHECK(kinds(q) == std::vector<std::string>{"view", "view", "cast", "cast", "mul", "add"});
  auto r = ok(spec(body("y[0:16, :] = axpy_(x[0:16, :], x[0:16, :])")));
  CHECK(kinds(r) == std::vector<std::string>{"view", "view", "add"});
  auto e = ok(spec(body("y[0:16, :] = expand_exp_dif(x[0:16, :], amax(x[0:16, :], 1, keepdim=true))")));
  CHECK(kinds(e) == std::vector<std::string>{"view", "view", "amax", "sub", "exp"});
}

TEST_CASE("prelu, axpy_ and expand_exp_dif: located errors", "[frontend][catalog5]") {
  expect_error(spec(body("y[0:16, :] = prelu(x[0:16, :], w2)"), kInts), "w2)",
               "prelu's weight must be 1-D of the input's axis-1 (channel) length 64, 'w2' has shape [32]",
               "one weight per channel");
  expect_error(spec(body("y[0:16, :] = prelu(x[0:16, :], cast(w1, fp16))"), kInts), "cast(w1, fp16)",
               "prelu's weight must have the input's dtype fp32");
  expect_error(spec(body("y[0:16, :] = cast(axpy_(cast(x[0:16, :], bf16), cast(x[0:16, :], bf16)), fp32)")), "axpy_",
               "axpy_ takes fp32 + fp32, fp16 + fp16 or fp32 y + fp16 x (PyPTO's rule)");
  expect_error(spec(body("y[0:16, :] = axpy_(x[0:16, 0:1], x[0:16, :])")), "x[0:16, :])",
               "axpy_'s x must broadcast to y's shape [16, 1] (y does not broadcast)");
  expect_error(spec(body("y[0:16, :] = axpy_(x[0:16, :], x[0:16, :], alpha=x[0:16, :])")), "x[0:16, :])\"",
               "axpy_'s alpha is a number");
  expect_error(spec(body("y[0:16, :] = expand_exp_dif(x[0:16, :], 1.5)")), "1.5",
               "'expand_exp_dif' needs a tensor as its other input");
}

TEST_CASE("PyPTO's catalogue maps the mathops5 ops to themselves", "[frontend][catalog5]") {
  for (const char* fn : {"acos", "asin", "atan", "atan2", "acosh", "asinh", "atanh", "sinh", "cosh", "tan", "cbrt",
                         "erfc", "signbit", "fmod", "remainder", "floor_div", "ceil_div", "gcd", "bitwise_left_shift",
                         "bitwise_right_shift", "prelu", "axpy_", "expand_exp_dif"}) {
    INFO(fn);
    const ptoc::PyptoOp* p = ptoc::find_pypto_op(fn);
    REQUIRE(p);
    CHECK(p->ptoc == fn);
    CHECK(ptoc::find_op(fn));
  }
}

TEST_CASE("PyPTO's precision_type on exp, log, log10, log2, sqrt, rsqrt, reciprocal and pow: the same op either way",
          "[frontend][catalog5]") {
  // `pypto.exp(x, precision_type=pypto.PrecisionType.INTRINSIC)` as PyPTO's models write it, positional or keyword,
  // with or without the module and the enum's name: the program is the one without the argument.
  auto ir = [](const std::string& stmt) {
    std::string text = ptoc::print_ir(ok(spec(body(stmt))));
    std::string out;
    for (size_t i = 0; i < text.size();) {  // source positions differ with the argument's text
      size_t at = text.find("  @", i);
      if (at == std::string::npos) {
        out += text.substr(i);
        break;
      }
      out += text.substr(i, at - i);
      i = text.find('\n', at);
      if (i == std::string::npos) break;
    }
    return out;
  };
  for (const char* fn : {"exp", "log", "log10", "log2", "sqrt", "rsqrt", "reciprocal"}) {
    INFO(fn);
    const std::string plain = ir(std::string("y[0:16, :] = ") + fn + "(abs(x[0:16, :]) + 1)");
    for (const char* arg : {", precision_type=pypto.PrecisionType.INTRINSIC", ", PrecisionType.HIGH_PRECISION",
                            ", precision_type=INTRINSIC"})
      CHECK(ir(std::string("y[0:16, :] = pypto.") + fn + "(abs(x[0:16, :]) + 1" + arg + ")") == plain);
    expect_error(spec(body(std::string("y[0:16, :] = ") + fn + "(abs(x[0:16, :]) + 1, precision_type=FAST)")),
                 "FAST", std::string("unknown precision_type 'FAST' of '") + fn + "'", "HIGH_PRECISION or INTRINSIC");
  }
  CHECK(ir("y[0:16, :] = pow(abs(x[0:16, :]) + 1, 1.5, precision_type=PrecisionType.INTRINSIC)") ==
        ir("y[0:16, :] = pow(abs(x[0:16, :]) + 1, 1.5)"));
  expect_error(spec(body("y[0:16, :] = pow(abs(x[0:16, :]) + 1, 1.5, FAST)")), "FAST)",
               "unknown precision_type 'FAST' of 'pow'");
}
