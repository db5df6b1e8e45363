// PyPTO's `with pypto.function("main", a, b):` as a function statement (compiler/frontend/function_block.h): its
// body is the spec's top-level body (same IR as the spec without it, config calls at its top hold for the whole
// operator, its loops are top-level loops), and each misuse is refused where it is written.
#include <regex>
#include <string>

#include "spec_helpers.h"

using fe_test::expect_error;
using fe_test::ok;

namespace {

const std::string kHead =
    "ptoc: 1\nname: t\ndims:\n  B: dynamic\n  H: 64\n"
    "inputs:\n  x: {dtype: fp32, shape: [B, H]}\n"
    "outputs:\n  y: {dtype: fp32, shape: [B, H]}\n"
    "tensors:\n  ws: {dtype: fp32, shape: [B, H]}\n";

// The statements of a body, each line indented by `ind` (they are written for the top-level body).
std::string stmts(const std::string& ind) {
  return ind + "- \"set_vec_tile_shapes(16, 64)\"\n" +
         ind + "- \"pypto.set_pass_options(vec_nbuffer_setting={-1: 2})\"\n" +
         ind + "- loop: {var: b, count: \"ceil_div(B, 16)\", name: LOOP_B}\n" +
         ind + "  body:\n" +
         ind + "    - \"y[b * 16:, :] = exp(x[b * 16:(b + 1) * 16, :]) * 2\"\n";
}

std::string ir_nopos(const std::string& yaml) {
  static const std::regex at(R"(  @[0-9]+:[0-9]+)");
  return std::regex_replace(ptoc::print_ir(ok(yaml)), at, "");
}

}  // namespace

TEST_CASE("a function statement's body is the spec's top-level body", "[frontend][function]") {
  const std::string plain = kHead + "body:\n" + stmts("  ");
  const std::string wrapped = kHead + "body:\n  - function: main\n    args: [x, y]\n    body:\n" + stmts("      ");
  const std::string no_args = kHead + "body:\n  - function: kernel\n    body:\n" + stmts("      ");
  const std::string ir = ir_nopos(plain);
  CHECK(ir_nopos(wrapped) == ir);
  CHECK(ir_nopos(no_args) == ir);
  // the config calls at the function's top are the operator's: the knob set there is in the IR's options
  CHECK(ir.find("pass.vec_nbuffer_setting = {-1: 2}") != std::string::npos);
  // positions stay those of the statements where they are written: 3 lines down, 4 columns right
  auto exp_loc = [](const ptoc::Program& p) {
    for (const auto& op : p.ops)
      if (op.kind == ptoc::OpKind::Exp) return op.loc;
    return ptoc::SrcLoc{};
  };
  const ptoc::SrcLoc a = exp_loc(ok(plain)), b = exp_loc(ok(wrapped));
  CHECK(a.line == 17);
  CHECK(b.line == a.line + 3);
  CHECK(b.col == a.col + 4);
}

TEST_CASE("statements before and after a function statement stay in order", "[frontend][function]") {
  const std::string plain = kHead + "body:\n  - \"s = 3\"\n" + stmts("  ");
  const std::string wrapped = kHead + "body:\n  - \"s = 3\"\n  - function: main\n    body:\n" + stmts("      ");
  CHECK(ir_nopos(wrapped) == ir_nopos(plain));
}

TEST_CASE("function statement errors are located and say what to write", "[frontend][function]") {
  expect_error(kHead + "body:\n  - function: main\n    args: [x, z]\n    body:\n" + stmts("      "), "z]",
               "function argument 'z' is not a declared tensor", "declare it under inputs:, outputs: or tensors:");
  expect_error(kHead + "body:\n  - function: main\n    args: [x, ys]\n    body:\n" + stmts("      "), "ys]",
               "function argument 'ys' is not a declared tensor", "did you mean 'y'?");
  expect_error(kHead + "body:\n  - function: main\n    args: [x, y, x]\n    body:\n" + stmts("      "), "x]",
               "'x' is passed to the function twice");
  expect_error(kHead + "body:\n  - function: main\n    args: x\n    body:\n" + stmts("      "), "x\n",
               "function args must be a list of tensor names, got");
  expect_error(kHead + "body:\n  - function: [main]\n    body:\n" + stmts("      "), "[main]",
               "function needs a name", "'- function: main'");
  expect_error(kHead + "body:\n  - function: main\n    args: [x]\n", "function: main",
               "a function statement needs a 'body' list");
  expect_error(kHead + "body:\n  - function: main\n    argz: [x]\n    body:\n" + stmts("      "), "argz",
               "unknown key 'argz' in a function statement", "did you mean 'args'?");
  expect_error(kHead + "body:\n  - loop: {var: i, count: 2}\n    body:\n      - function: main\n        body:\n" +
                   stmts("          "),
               "function: main", "a function statement inside a loop, if or scope body",
               "write it once, at the top of the spec's body");
  expect_error(kHead + "body:\n  - function: main\n    body:\n      - function: inner\n        body:\n" +
                   stmts("          "),
               "function: inner", "a function statement inside another function");
}
