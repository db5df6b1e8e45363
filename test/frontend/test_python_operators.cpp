// surf9 (issue 13): PyPTO's Python surface in statement strings, so that a PyPTO line ports as written.
// `**` with Python's precedence and constant folding, `@` (Tensor.__matmul__'s dtype rule), Tensor methods
// (`x.f(args)` is `f(x, args)`, `t.assemble(src, offsets)`), the `pypto.` prefix. Parse trees, located
// errors, the same tensor graph as ptoc's spelling, and numbers from the reference evaluator against a
// double-precision reference (NumPy's: specs/pypto_surface.yaml, test/specs/references_surf9.py).
#include "spec_helpers.h"

#include <cctype>
#include <cmath>

#include "compiler/eval/reference_eval.h"
#include "compiler/frontend/parser.h"
#include "compiler/ir.h"

using fe_test::expect_error;
using fe_test::graph;
using fe_test::run;

namespace {

using ptoc::fe::Expr;
using ptoc::fe::ExprPtr;

ExprPtr parse(const std::string& s) {
  auto r = ptoc::fe::parse_expression(s);
  if (auto* e = std::get_if<ptoc::fe::SyntaxError>(&r)) FAIL("syntax error: " << e->message << " at " << e->off);
  return std::get<ExprPtr>(r);
}

// An S-expression of a parse tree: (op a b), (neg a), f(args), names and numbers.
std::string sx(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Number: return e.is_int ? std::to_string(e.ival) : std::to_string(e.number);
    case Expr::Kind::Name: return e.name;
    case Expr::Kind::Neg: return "(neg " + sx(*e.items[0]) + ")";
    case Expr::Kind::Binary:
    case Expr::Kind::Compare: return "(" + e.op + " " + sx(*e.items[0]) + " " + sx(*e.items[1]) + ")";
    case Expr::Kind::Call: {
      std::string s = e.name + (e.method ? ".(" : "(");
      for (size_t i = 0; i < e.args.size(); ++i)
        s += (i ? " " : "") + (e.args[i].name.empty() ? "" : e.args[i].name + "=") + sx(*e.args[i].value);
      return s + ")";
    }
    case Expr::Kind::List: {
      std::string s = "[";
      for (size_t i = 0; i < e.items.size(); ++i) s += (i ? " " : "") + sx(*e.items[i]);
      return s + "]";
    }
    case Expr::Kind::Subscript: return sx(*e.items[0]) + "[..]";
    default: return "?";
  }
}

std::string sx(const std::string& s) { return sx(*parse(s)); }

std::string small(const std::string& body, const std::string& extra_outputs = {}) {
  return "ptoc: 1\nname: t\ndims:\n  M: 16\n  K: 32\n  N: 64\n  B: dynamic\n"
         "inputs:\n  x: {dtype: fp32, shape: [M, K]}\n  w: {dtype: fp32, shape: [K, N]}\n"
         "  h: {dtype: fp16, shape: [M, K]}\n  hw: {dtype: fp16, shape: [K, N]}\n"
         "  bh: {dtype: bf16, shape: [M, K]}\n  bw: {dtype: bf16, shape: [K, N]}\n"
         "  q: {dtype: int8, shape: [M, K]}\n  qw: {dtype: int8, shape: [K, N]}\n"
         "  iw: {dtype: int32, shape: [K, N]}\n  xb: {dtype: fp32, shape: [B, K]}\n"
         "outputs:\n  y: {dtype: fp32, shape: [M, N]}\n  yk: {dtype: fp32, shape: [M, K]}\n" + extra_outputs +
         "body:\n  - vec_tile: [16, 64]\n  - cube_tile: {m: [16, 16], k: [32, 32], n: [64, 64]}\n" + body;
}

// The whole program's outputs from the reference evaluator on deterministic inputs.
std::map<std::string, ptoc::TensorData> eval(const std::string& yaml, std::map<std::string, ptoc::TensorData> in) {
  auto r = run(yaml);
  INFO(r.rendered);
  REQUIRE(r.prog);
  REQUIRE(r.errors == 0);
  const ptoc::DimExpr::Env env{{"M", 16}, {"K", 32}, {"N", 64}, {"B", 16}};
  for (const auto& t : r.prog->tensors) {
    if (t.role != ptoc::TensorRole::Input || in.count(t.name)) continue;
    std::vector<int64_t> sh;
    for (const auto& d : t.shape) sh.push_back(d.eval(env));
    in[t.name] = ptoc::TensorData::zeros(t.dtype, sh);
  }
  return ptoc::evaluate(*r.prog, in, env);
}

ptoc::TensorData fill(std::vector<int64_t> shape, double lo, double hi, unsigned seed) {
  auto t = ptoc::TensorData::zeros(ptoc::DType::fp32, shape);
  uint32_t s = seed;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.set(i, lo + (hi - lo) * double(s >> 8) / double(1u << 24));
  }
  return t;
}

}  // namespace

TEST_CASE("'**' binds as in Python: tighter than a unary minus on its left, right-associative",
          "[frontend][surf9]") {
  CHECK(sx("-x ** 2") == "(neg (** x 2))");
  CHECK(sx("2 ** 3 ** 2") == "(** 2 (** 3 2))");
  CHECK(sx("x ** -1") == "(** x (neg 1))");
  CHECK(sx("-2 ** -2 ** 2") == "(neg (** 2 (neg (** 2 2))))");
  CHECK(sx("a * b ** 2") == "(* a (** b 2))");
  CHECK(sx("x.exp() ** 2") == "(** exp.(x) 2)");
  CHECK(sx("x[0:2] ** 2") == "(** x[..] 2)");
  // '@' is a multiplicative operator, left to right with '*'
  CHECK(sx("a + b @ c * d") == "(+ a (* (@ b c) d))");
  CHECK(sx("a @ b @ c") == "(@ (@ a b) c)");
  CHECK(sx("-a @ b") == "(@ (neg a) b)");
}

TEST_CASE("methods: x.f(args) is f(x, args), on names, parenthesised expressions and call results",
          "[frontend][surf9]") {
  CHECK(sx("row.reshape([a, b]).view([a, i], [0, 0]).transpose(1, 0)") ==
        "transpose.(view.(reshape.(row [a b]) [a i] [0 0]) 1 0)");
  CHECK(sx("(x + 1).exp().sum(1, keepdim=True)") == "sum.(exp.((+ x 1)) 1 keepdim=True)");
  CHECK(sx("exp(x).amax(-1)") == "amax.(exp(x) (neg 1))");
  CHECK(sx("x.greater(y)") == "gt.(x y)");  // PyPTO's greater is gt
  CHECK(sx("x.matmul(w, DT_FP32, b_trans=True)") == "matmul.(x w DT_FP32 b_trans=True)");
  // x.shape, x.shape[i] and x.dtype stay one name (elaborate_tensor_shape.cpp)
  CHECK(sx("x.shape") == "x.shape");
  CHECK(sx("x.shape[0] * 2") == "(* x.shape[..] 2)");
  CHECK(sx("cast(y, x.dtype)") == "cast(y x.dtype)");
}

TEST_CASE("the pypto. prefix: pypto.f, pypto.NAME and pypto.Enum.NAME are the unprefixed names", "[frontend][surf9]") {
  CHECK(sx("pypto.exp(x)") == "exp(x)");
  CHECK(sx("pypto.cast(x, pypto.DT_FP16, pypto.CastMode.CAST_RINT)") == "cast(x DT_FP16 CAST_RINT)");
  CHECK(sx("pypto.div(a, b, pypto.PrecisionType.INTRINSIC)") == "div(a b INTRINSIC)");
  CHECK(sx("pypto.DataType.DT_BF16") == "DT_BF16");
  // the name keeps its own position: errors point at it
  auto e = parse("1 + pypto.CastMode.CAST_RINT");
  CHECK(e->items[1]->off == 19);
  CHECK(e->items[1]->len == 9);
}

TEST_CASE("pypto. on statements, local tensors and conditions", "[frontend][surf9]") {
  const std::string body =
      "  - \"t = pypto.tensor([M, K], pypto.DT_FP32)\"\n"
      "  - loop: {var: j, count: 2}\n    body:\n"
      "      - if: \"pypto.is_loop_begin(j)\"\n        then: [\"t[...] = pypto.exp(x)\"]\n"
      "        else: [\"t[...] = t + x\"]\n"
      "  - \"pypto.assemble(t, [0, 0], yk)\"\n  - \"y[...] = x @ w\"\n";
  std::string plain = body;
  for (size_t at; (at = plain.find("pypto.")) != std::string::npos;) plain.erase(at, 6);
  CHECK(plain.find("DT_FP32") != std::string::npos);
  CHECK(graph(small(body)) == graph(small(plain)));
}

TEST_CASE("t.assemble(src, offsets) is assemble(src, offsets, t)", "[frontend][surf9]") {
  auto r = ptoc::fe::parse_assignment("t.assemble(v.exp(), [0, 16])");
  REQUIRE(std::holds_alternative<ptoc::fe::AssignAst>(r));
  const auto& a = std::get<ptoc::fe::AssignAst>(r);
  CHECK(a.target == "t");
  CHECK(a.subscript);
  REQUIRE(a.slices.size() == 2);
  CHECK(sx(*a.slices[1].start) == "16");
  CHECK(sx(*a.value) == "exp.(v)");
  CHECK(graph(small("  - \"yk.assemble(x.exp(), [0, 0])\"\n  - \"y[...] = x @ w\"\n")) ==
        graph(small("  - \"yk[0:, 0:] = exp(x)\"\n  - \"y[...] = matmul(x, w, fp32)\"\n")));
  CHECK(graph(small("  - \"yk.assemble(input=x.exp(), offsets=[0, 0])\"\n  - \"y[...] = x @ w\"\n")) ==
        graph(small("  - \"assemble(exp(x), [0, 0], yk)\"\n  - \"y[...] = matmul(x, w, fp32)\"\n")));
}

TEST_CASE("methods, '**', '@' and pypto. give ptoc's tensor graph", "[frontend][surf9]") {
  const std::string out = "  - \"y[...] = matmul(x, w, fp32)\"\n";
  CHECK(graph(small("  - \"a = x.reshape([M, K]).view([M, 16], [0, 16]).exp().sum(1, keepdim=True)\"\n"
                    "  - \"yk[...] = x.sub(a).mul(2.0).div(x.amax(1, keepdim=True)).sqrt()\"\n" + out)) ==
        graph(small("  - \"a = sum(exp(view(reshape(x, [M, K]), [M, 16], [0, 16])), 1, keepdim=True)\"\n"
                    "  - \"yk[...] = sqrt(div(mul(sub(x, a), 2.0), amax(x, 1, keepdim=True)))\"\n" + out)));
  CHECK(graph(small("  - \"yk[...] = -x ** 2 + x ** -1 + 2 ** x\"\n" + out)) ==
        graph(small("  - \"yk[...] = neg(pow(x, 2)) + pow(x, -1) + pow(2, x)\"\n" + out)));
  CHECK(graph(small("  - \"yk[...] = pypto.exp(x) * pypto.cast(h, pypto.DT_FP32)\"\n" + out)) ==
        graph(small("  - \"yk[...] = exp(x) * cast(h, fp32)\"\n" + out)));
  // a permute, transpose and unsqueeze chain
  CHECK(graph(small("  - \"t = x.transpose(0, 1).permute([1, 0]).unsqueeze(0).reshape([M, K])\"\n"
                    "  - \"yk[...] = t\"\n" + out)) ==
        graph(small("  - \"t = reshape(unsqueeze(permute(transpose(x, 0, 1), [1, 0]), 0), [M, K])\"\n"
                    "  - \"yk[...] = t\"\n" + out)));
}

TEST_CASE("'@' is matmul with PyPTO's result dtype: b's for fp16 / bf16 / fp32, int32 for int8", "[frontend][surf9]") {
  const std::string k = "  - \"yk[...] = x\"\n";
  const std::string outs = "  yh: {dtype: fp16, shape: [M, N]}\n  yb: {dtype: bf16, shape: [M, N]}\n"
                           "  yi: {dtype: int32, shape: [M, N]}\n";
  CHECK(graph(small("  - \"y[...] = x @ w\"\n  - \"yh[...] = h @ hw\"\n  - \"yb[...] = bh @ bw\"\n"
                    "  - \"yi[...] = q @ qw\"\n" + k, outs)) ==
        graph(small("  - \"y[...] = matmul(x, w, fp32)\"\n  - \"yh[...] = matmul(h, hw, fp16)\"\n"
                    "  - \"yb[...] = matmul(bh, bw, bf16)\"\n  - \"yi[...] = matmul(q, qw, int32)\"\n" + k, outs)));
  // operands that are expressions, and a chain
  CHECK(graph(small("  - \"y[...] = (x * 2.0) @ w.exp()\"\n" + k)) ==
        graph(small("  - \"y[...] = matmul(x * 2.0, exp(w), fp32)\"\n" + k)));
  // other dtypes: PyPTO's rule, at the operator
  expect_error(small("  - \"y[...] = cast(x, int32) @ iw\"\n" + k), "int32) @@ iw",
               "'@' takes a right operand of fp16, bf16, fp32 or int8 (PyPTO's __matmul__: the result has b's dtype",
               "matmul(cast(x, int32), iw, out_dtype)");
  expect_error(small("  - \"y[...] = x @ 7\"\n" + k), "7", "'@' multiplies two tensors; '7' is a number", "x * 7");
  // matmul's own rules, at the operator, the caret as wide as '@' (not as 'matmul')
  auto r = run(small("  - \"y[...] = h @ w\"\n" + k));
  INFO(r.rendered);
  CHECK(r.rendered.find("matmul operands have different dtypes: fp16 and fp32\n  - \"y[...] = h @ w\"\n"
                        "                ^\n") != std::string::npos);
}

TEST_CASE("a number to a number folds by Python's types, so n_levels = 2 ** (bit - 1) is a constant",
          "[frontend][surf9]") {
  const std::string out = "  - \"y[...] = x @ w\"\n";
  // an int constant: usable in dim expressions
  CHECK(graph(small("  - \"bit = 3\"\n  - \"n_levels = 2 ** (bit - 1)\"\n"
                    "  - \"yk[...] = x[:, 0:n_levels * 8] * n_levels\"\n" + out)) ==
        graph(small("  - \"yk[...] = x[:, 0:32] * 4\"\n" + out)));
  CHECK(graph(small("  - \"c = 2 ** 3 ** 2\"\n  - \"yk[...] = x * c\"\n" + out)) ==
        graph(small("  - \"yk[...] = x * 512\"\n" + out)));
  CHECK(graph(small("  - \"yk[...] = x * (-2) ** 3 + x[:, 0:2 ** 5]\"\n" + out)) ==
        graph(small("  - \"yk[...] = x * -8 + x[:, 0:32]\"\n" + out)));
  // a negative or float exponent gives a float: a float constant, not a dim
  CHECK(graph(small("  - \"f = 2 ** -1\"\n  - \"yk[...] = x * f\"\n" + out)) ==
        graph(small("  - \"yk[...] = x * 0.5\"\n" + out)));
  expect_error(small("  - \"g = 2.0 ** 2\"\n  - \"yk[...] = x[:, 0:g]\"\n" + out), "0:@g]", "'g' is a float constant");
  expect_error(small("  - \"yk[...] = x[:, 0:2 ** -1]\"\n" + out), "2 @** -1",
               "'2 ** -1' is not an integer (a negative power is a float in Python)");
  expect_error(small("  - \"yk[...] = x * 0 ** -1\"\n" + out), "0 @** -1",
               "0 cannot be raised to a negative power");
  expect_error(small("  - \"yk[...] = x * (-8) ** 0.5\"\n" + out), "(-8) @** 0.5", "complex");
  expect_error(small("  - \"c = 3 ** 50\"\n  - \"yk[...] = x * c\"\n" + out), "3 @** 50", "leaves int64");
  expect_error(small("  - \"t = xb[0:B ** 2, :]\"\n  - \"yk[...] = x\"\n" + out), "B @** 2",
               "'**' in a dim expression needs constant operands");
  // a tensor ** needs a float tensor (pow's rule)
  expect_error(small("  - \"t = cast(x, int32) ** 2\"\n  - \"yk[...] = x\"\n" + out), "@**", "");
}

TEST_CASE("x.shape[i] of a static extent is a number as an operand of '**' and of any operator", "[frontend][surf9]") {
  const std::string out = "  - \"y[...] = x @ w\"\n";
  // the torch reference's query * (1 / (query.shape[-1] ** 0.5)); PyPTO's scale = q.shape[-1] ** -0.5
  CHECK(graph(small("  - \"yk[...] = x * (1 / (x.shape[-1] ** 0.5))\"\n" + out)) ==
        graph(small("  - \"yk[...] = x * 0.17677669529663687\"\n" + out)));
  CHECK(graph(small("  - \"t = x * 2.0\"\n  - \"scale = t.shape[1] ** -0.5\"\n  - \"yk[...] = t * scale\"\n" + out)) ==
        graph(small("  - \"t = x * 2.0\"\n  - \"yk[...] = t * 0.17677669529663687\"\n" + out)));
  CHECK(graph(small("  - \"n = x.shape[0] ** 2 // 64\"\n  - \"yk[...] = x[:, 0:n]\"\n" + out)) ==
        graph(small("  - \"yk[...] = x[:, 0:4]\"\n" + out)));
  expect_error(small("  - \"t = xb * xb.shape[0] ** 2\"\n  - \"yk[...] = x\"\n" + out), "xb.shape[0] **",
               "'xb.shape[0]' is the dynamic extent B; as a value it must be a compile-time number");
  expect_error(small("  - \"yk[...] = x * x.shape[2] ** 2\"\n" + out), "x.shape[2]",
               "'x.shape[2]': index 2 is out of range for rank 2");
  // any operand, not only of '**': the mean over the last axis as PyPTO's models write it
  CHECK(graph(small("  - \"yk[...] = x / x.shape[-1]\"\n" + out)) == graph(small("  - \"yk[...] = x / 32\"\n" + out)));
  CHECK(graph(small("  - \"yk[...] = x * (1 / x.shape[1]) + x.shape[0]\"\n" + out)) ==
        graph(small("  - \"yk[...] = x * (1 / 32) + 16\"\n" + out)));
  expect_error(small("  - \"t = xb / xb.shape[0]\"\n  - \"yk[...] = x\"\n" + out), "xb.shape[0]\"",
               "'xb.shape[0]' is the dynamic extent B; as a value it must be a compile-time number");
}

TEST_CASE("method diagnostics: PyPTO's unsupported methods say so, suggestions only when close in meaning",
          "[frontend][surf9]") {
  const std::string k = "  - \"y[...] = x @ w\"\n";
  expect_error(small("  - \"yk[...] = x.sort32()\"\n" + k), "sort32", "'sort32' is a PyPTO operation that ptoc does not support yet");
  expect_error(small("  - \"yk[...] = x.fill_(1.0)\"\n" + k), "fill_", "'fill_' is a PyPTO operation that ptoc does not support yet");
  expect_error(small("  - \"yk[...] = x.exq()\"\n" + k), "exq", "'exq' is not a method of PyPTO's Tensor", "did you mean 'exp'?");
  expect_error(small("  - \"yk[...] = x.trnspose(0, 1)\"\n" + k), "trnspose", "'trnspose' is not a method", "'transpose'");
  // close in spelling, not in meaning: no suggestion
  {
    auto r = run(small("  - \"yk[...] = x + x.max(1, keepdim=True)\"\n" + k));
    bool found = false;
    for (const auto& d : r.diags)
      if (d.message.find("'max' is not a method of PyPTO's Tensor") != std::string::npos) {
        found = true;
        CHECK(d.hint.find("amax") == std::string::npos);
        CHECK(d.loc.col == int(std::string("  - \"yk[...] = x + x.").size()) + 1);
      }
    CHECK(found);
  }
  // a ptoc function that is no method of PyPTO's Tensor
  expect_error(small("  - \"yk[...] = x.cast(fp32)\"\n" + k), "cast(", "'cast' is not a method of PyPTO's Tensor",
               "call the function: cast(x, ...)");
  expect_error(small("  - \"yk[...] = x.exp\"\n" + k), "x.exp@\"", "expected '(' after the method 'exp'");
  expect_error(small("  - \"yk[...] = x.foo\"\n" + k), "foo", "'foo' is not an attribute ptoc knows");
  expect_error(small("  - \"yk[...] = (x + 1).shape\"\n" + k), "shape\"", "'.shape' reads a tensor's extents by its name");
  expect_error(small("  - \"yk[...] = x.assemble(x, [0, 0])\"\n" + k), "assemble(x", "is a statement of its own");
  // argument binding is the function's: a method's keyword goes through the op's parameter list
  expect_error(small("  - \"yk[...] = x + x.sum(1, keepdims=True)\"\n" + k), "keepdims", "unknown argument 'keepdims' to 'sum'");
  expect_error(small("  - \"yk[...] = pypto.expp(x)\"\n" + k), "expp", "unknown function 'expp'", "did you mean 'exp'?");
}

TEST_CASE("numbers: '**', '@' and methods against a double-precision reference", "[frontend][surf9]") {
  const std::string yaml = small(
      "  - \"bit = 3\"\n  - \"n = 2 ** (bit - 1)\"\n"
      "  - \"yk[...] = x ** 2 * 0.5 + x ** -1 - x ** 0.5 + 2 ** x.sub(1.0) + x ** n\"\n"
      "  - \"y[...] = x.exp().mul(0.1) @ w\"\n");
  auto x = fill({16, 32}, 0.25, 2.0, 7), w = fill({32, 64}, -1.0, 1.0, 11);
  auto out = eval(yaml, {{"x", x}, {"w", w}});
  const auto& yk = out.at("yk");
  double worst = 0;
  for (int64_t i = 0; i < 16 * 32; ++i) {
    const double v = x.get(i);
    const double want = v * v * 0.5 + 1.0 / v - std::sqrt(v) + std::pow(2.0, v - 1.0) + std::pow(v, 4);
    worst = std::max(worst, std::fabs(yk.get(i) - want) / std::max(1.0, std::fabs(want)));
  }
  CHECK(worst < 1e-5);
  const auto& y = out.at("y");
  worst = 0;
  for (int64_t m = 0; m < 16; ++m)
    for (int64_t n = 0; n < 64; ++n) {
      double want = 0;
      for (int64_t k = 0; k < 32; ++k) want += double(float(std::exp(x.get(m * 32 + k)) * 0.1f)) * w.get(k * 64 + n);
      worst = std::max(worst, std::fabs(y.get(m * 64 + n) - want));
    }
  CHECK(worst < 1e-4);
}
