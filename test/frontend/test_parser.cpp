// Statement-string parser, dim-expression simplifier, edit-distance
// suggestions and positions inside YAML scalars.
#include <catch2/catch.hpp>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/parser.h"
#include "compiler/frontend/suggest.h"
#include "compiler/frontend/yaml_source.h"

using namespace ptoc;
using namespace ptoc::fe;

namespace {

// Fully parenthesised rendering of an expression tree, to check precedence.
std::string show(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Number: return e.is_int ? std::to_string(e.ival) : "f" + std::to_string(e.number).substr(0, 4);
    case Expr::Kind::Name: return e.name;
    case Expr::Kind::Neg: return "(-" + show(*e.items[0]) + ")";
    case Expr::Kind::Not: return "(not " + show(*e.items[0]) + ")";
    case Expr::Kind::Binary:
    case Expr::Kind::Compare:
    case Expr::Kind::BoolOp: return "(" + show(*e.items[0]) + " " + e.op + " " + show(*e.items[1]) + ")";
    case Expr::Kind::List: {
      std::string s = "[";
      for (size_t i = 0; i < e.items.size(); ++i) { if (i) s += ","; s += show(*e.items[i]); }
      return s + "]";
    }
    case Expr::Kind::Call: {
      std::string s = e.name + "(";
      for (size_t i = 0; i < e.args.size(); ++i)
      {
        if (i) s += ",";
        if (!e.args[i].name.empty()) s += e.args[i].name + "=";
        s += show(*e.args[i].value);
      }
      return s + ")";
    }
    case Expr::Kind::Subscript: {
      std::string s = show(*e.items[0]) + "[";
      for (size_t i = 0; i < e.slices.size(); ++i) {
        const Slice& sl = e.slices[i];
        s += i ? "," : "";
        if (sl.kind == Slice::Kind::Ellipsis) s += "...";
        else if (sl.kind == Slice::Kind::Index) s += show(*sl.start);
        else s += (sl.start ? show(*sl.start) : "") + ":" + (sl.stop ? show(*sl.stop) : "");
      }
      return s + "]";
    }
  }
  return "?";
}

std::string parse_show(const std::string& s) {
  auto r = parse_expression(s);
  REQUIRE(std::holds_alternative<ExprPtr>(r));
  return show(*std::get<ExprPtr>(r));
}

SyntaxError parse_fail(const std::string& s) {
  auto r = parse_assignment(s);
  REQUIRE(std::holds_alternative<SyntaxError>(r));
  return std::get<SyntaxError>(r);
}

}  // namespace

TEST_CASE("expressions parse with the section 7 precedence", "[frontend][parser]") {
  CHECK(parse_show("a + b * c") == "(a + (b * c))");
  CHECK(parse_show("a - b - c") == "((a - b) - c)");
  CHECK(parse_show("-a * b") == "((-a) * b)");
  CHECK(parse_show("B // 64 % 4") == "((B // 64) % 4)");
  CHECK(parse_show("(a + b) / c") == "((a + b) / c)");
  CHECK(parse_show("x[b * 64:(b + k) * 64, :]") == "x[(b * 64):((b + k) * 64),:]");
  CHECK(parse_show("x[..., 0]") == "x[...,0]");
  CHECK(parse_show("x[4:]") == "x[4:]");
  CHECK(parse_show("sum(e, -1, keepdim=true)") == "sum(e,(-1),keepdim=true)");
  CHECK(parse_show("concat([a, b], 0)") == "concat([a,b],0)");
  CHECK(parse_show("1e-5") == "f0.00");
  CHECK(parse_show("x[1][2]") == "x[1][2]");
  CHECK(parse_show("full([4, 8,], 0, fp32,)") == "full([4,8],0,fp32)");  // trailing commas, as in Python
}

TEST_CASE("conditions parse comparisons, and, or, not", "[frontend][parser]") {
  auto r = parse_condition("k <= 16 and not H == 4 or B > 1");
  REQUIRE(std::holds_alternative<ExprPtr>(r));
  CHECK(show(*std::get<ExprPtr>(r)) == "(((k <= 16) and (not (H == 4))) or (B > 1))");
  auto bad = parse_condition("1 < k < 4");
  REQUIRE(std::holds_alternative<SyntaxError>(bad));
  CHECK(std::get<SyntaxError>(bad).message == "chained comparisons are not supported");
  CHECK(std::get<SyntaxError>(bad).off == 6);
}

TEST_CASE("parentheses in conditions group comparisons and boolean terms", "[frontend][parser]") {
  auto show_cond = [](const std::string& c) {
    auto r = parse_condition(c);
    INFO(c);
    REQUIRE(std::holds_alternative<ExprPtr>(r));
    return show(*std::get<ExprPtr>(r));
  };
  // Comparisons bind tighter than not/and/or; parentheses may group either.
  CHECK(show_cond("(N < 32) or N == 64") == "((N < 32) or (N == 64))");
  CHECK(show_cond("not (N < 32 or k == 2)") == "(not ((N < 32) or (k == 2)))");
  CHECK(show_cond("(N < 32 and (k > 1)) or not (H == 4)") == "(((N < 32) and (k > 1)) or (not (H == 4)))");
  CHECK(show_cond("(N + 1) * 2 <= 64") == "(((N + 1) * 2) <= 64)");
  CHECK(show_cond("((N))") == "N");
  CHECK(show_cond("(true)") == "true");
  // Outside conditions a comparison is a tensor op (bool result), parenthesised or not; 'or' is not.
  auto cmp = parse_expression("(N < 32)");
  REQUIRE(std::holds_alternative<ExprPtr>(cmp));
  CHECK(std::get<ExprPtr>(cmp)->kind == Expr::Kind::Compare);
  auto bad = parse_expression("(N < 32 or k == 2)");
  REQUIRE(std::holds_alternative<SyntaxError>(bad));
  CHECK(std::get<SyntaxError>(bad).message == "expected ')' to close '(', found 'or'");
  auto unclosed = parse_condition("(N < 32 or k == 2");
  REQUIRE(std::holds_alternative<SyntaxError>(unclosed));
  CHECK(std::get<SyntaxError>(unclosed).message == "expected ')' to close '(', found end of statement");
  CHECK(std::get<SyntaxError>(unclosed).off == 17);
}

TEST_CASE("assignments and assemble statements", "[frontend][parser]") {
  auto r = parse_assignment("y[b * 64:, :] = e / s");
  REQUIRE(std::holds_alternative<AssignAst>(r));
  const auto& a = std::get<AssignAst>(r);
  CHECK(a.target == "y");
  CHECK(a.subscript);
  REQUIRE(a.slices.size() == 2);
  CHECK(a.slices[0].start);
  CHECK_FALSE(a.slices[0].stop);
  CHECK(a.eq_off == 14);
  CHECK(a.value->op_off == 18);
}

TEST_CASE("syntax errors point at the offending character", "[frontend][parser]") {
  auto e = parse_fail("t = x $ 2");
  CHECK(e.off == 6);
  CHECK(e.message == "unexpected character '$'");
  e = parse_fail("t = (x + 2");
  CHECK(e.off == 10);
  CHECK(e.message == "expected ')' to close '(', found end of statement");
  e = parse_fail("t == x");
  CHECK(e.off == 2);
  CHECK(e.message == "expected '=' but found '=='");
  e = parse_fail("t = x y");
  CHECK(e.off == 6);
  CHECK(e.message == "unexpected 'y' after the expression");
  e = parse_fail("t = 12ab");
  CHECK(e.off == 4);
  CHECK(e.message == "malformed number '12a'");
  e = parse_fail("t = x && y");
  CHECK(e.hint == "conditions use 'and'");
  e = parse_fail("t = f(a,");
  CHECK(e.message == "expected an expression, found end of statement");
  e = parse_fail("= x");
  CHECK(e.off == 0);
}

TEST_CASE("dim expressions simplify to a canonical polynomial", "[frontend][dims]") {
  DimExpr b = DimExpr::sym("b"), B = DimExpr::sym("B"), k = DimExpr::sym("k");
  CHECK(simplify((b + 4) * 64 - b * 64).str() == "256");
  CHECK(simplify(b * 64 + 64 - b * 64).str() == "64");
  CHECK(simplify(B - b * 64 + b * 64).str() == "B");
  CHECK(simplify(64 - b).str() == "64 - b");
  CHECK(simplify(floordiv(B * 64 + 128, 64)).str() == "B + 2");
  CHECK(simplify(mod(B * 64, 16)).str() == "0");
  CHECK(simplify(min(b * 64 + 64, b * 64 + 128)).str() == "b * 64 + 64");
  CHECK(simplify(min(B, b * 64 + 64) - b * 64).str() == "min(B, b * 64 + 64) - b * 64");
  CHECK(provably_equal(min(B, k), min(k, B)));
  CHECK(provably_equal(B * (k + 1), k * B + B));
  CHECK_FALSE(provably_equal(B, k));
  CHECK(const_difference(B + 3, B - 2) == 5);
  CHECK_FALSE(const_difference(B, k).has_value());
}

TEST_CASE("suggestions use edit distance", "[frontend][suggest]") {
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("vec_tiel", "vec_tile") == 1);  // a swap costs 1
  CHECK(did_you_mean("optoins", {"options", "outputs"}) == "did you mean 'options'?");
  CHECK(did_you_mean("zzz", {"options", "outputs"}).empty());
  CHECK(closest("x", {"x", "y"}) == "y");  // the word itself is not a suggestion
}

TEST_CASE("positions inside YAML scalars account for quotes and escapes", "[frontend][yaml]") {
  std::string text = "a:\n  - \"t = x\\t+ q\"\n  - 'it''s = y'\n  - plain = z\n  - |\n    lit = w\n";
  YAML::Node n = YAML::Load(text);
  YamlSource src(text);
  auto dq = src.scalar_map(n["a"][0]);
  CHECK(dq->at(0).line == 2);
  CHECK(dq->at(0).col == 6);   // after the quote
  CHECK(dq->at(8).col == 15);  // q after the two-character escape
  auto sq = src.scalar_map(n["a"][1]);
  CHECK(sq->at(3).col == 10);  // the character after '' (one value character)
  auto pl = src.scalar_map(n["a"][2]);
  CHECK(pl->at(8).col == 13);
  auto lit = src.scalar_map(n["a"][3]);
  CHECK(lit->at(6).line == 6);
  CHECK(lit->at(6).col == 11);
}
