// DimExpr: constant folding, Python floor semantics, eval/substitute/str/to_c.
#include <catch2/catch.hpp>

#include "runtime/core/dim_expr.h"

using namespace ptoc;

TEST_CASE("constants fold on construction", "[core][dim_expr]") {
  CHECK((DimExpr(3) + DimExpr(4)).as_const() == 7);
  CHECK((DimExpr(3) * DimExpr(4) - DimExpr(5)).as_const() == 7);
  CHECK(floordiv(DimExpr(7), DimExpr(2)).as_const() == 3);
  CHECK(ceil_div(DimExpr(7), DimExpr(2)).as_const() == 4);
  CHECK(min(DimExpr(7), DimExpr(2)).as_const() == 2);
  CHECK(max(DimExpr(7), DimExpr(2)).as_const() == 7);
  CHECK((-DimExpr(5)).as_const() == -5);
  CHECK(DimExpr().as_const() == 0);
}

TEST_CASE("floor division and modulo round toward -inf (Python)", "[core][dim_expr]") {
  CHECK(floor_div_i64(-7, 2) == -4);
  CHECK(floor_mod_i64(-7, 2) == 1);
  CHECK(floor_div_i64(7, -2) == -4);
  CHECK(floor_mod_i64(7, -2) == -1);
  CHECK(floor_div_i64(-8, 2) == -4);
  CHECK(floor_mod_i64(-8, 2) == 0);
  CHECK(floordiv(DimExpr(-7), DimExpr(2)).as_const() == -4);
  CHECK(mod(DimExpr(-7), DimExpr(2)).as_const() == 1);
  CHECK(ceil_div(DimExpr(-7), DimExpr(2)).as_const() == -3);
  CHECK_THROWS_AS(floor_div_i64(1, 0), DimEvalError);
  // Division by a constant zero is kept symbolic and fails only when evaluated.
  DimExpr z = floordiv(DimExpr(4), DimExpr(0));
  CHECK_FALSE(z.is_const());
  CHECK_THROWS_AS(z.eval({}), DimEvalError);
}

TEST_CASE("identities keep expressions short", "[core][dim_expr]") {
  DimExpr B = DimExpr::sym("B");
  CHECK((B + 0).str() == "B");
  CHECK((B * 1).str() == "B");
  CHECK((B * 0).as_const() == 0);
  CHECK((B - B).as_const() == 0);
  CHECK(floordiv(B, 1).str() == "B");
  CHECK(min(B, B).str() == "B");
}

TEST_CASE("eval, substitute and symbols", "[core][dim_expr]") {
  DimExpr B = DimExpr::sym("B"), b = DimExpr::sym("b");
  DimExpr e = min(B, (b + 1) * 64) - b * 64;
  CHECK(e.eval({{"B", 100}, {"b", 1}}) == 36);
  CHECK(e.eval({{"B", 1000}, {"b", 1}}) == 64);
  CHECK_THROWS_AS(e.eval({{"B", 100}}), UnboundSymbol);
  try {
    e.eval({{"B", 100}});
  } catch (const UnboundSymbol& u) {
    CHECK(u.symbol == "b");
  }
  DimExpr s = e.substitute({{"b", 0}});
  CHECK(s.str() == "min(B, 64)");
  CHECK(s.substitute({{"B", 10}}).as_const() == 10);
  std::vector<std::string> syms;
  e.collect_symbols(syms);
  CHECK(syms == std::vector<std::string>{"B", "b"});
}

TEST_CASE("str parenthesises only where needed", "[core][dim_expr]") {
  DimExpr a = DimExpr::sym("a"), b = DimExpr::sym("b"), c = DimExpr::sym("c");
  CHECK(((a + b) * c).str() == "(a + b) * c");
  CHECK((a + b * c).str() == "a + b * c");
  CHECK((a - (b - c)).str() == "a - (b - c)");
  CHECK((a - b - c).str() == "a - b - c");
  CHECK(floordiv(a + b, DimExpr(2)).str() == "(a + b) // 2");
  CHECK(mod(a, DimExpr(4)).str() == "a % 4");
  CHECK(ceil_div(a, DimExpr(64)).str() == "ceil_div(a, 64)");
  CHECK((a * DimExpr(-2)).str() == "a * (-2)");
  CHECK((a + b).same(a + b));
  CHECK_FALSE((a + b).same(b + a));
  CHECK((a + b).hash() == (a + b).hash());
}

TEST_CASE("to_c emits int64 C with floor helpers", "[core][dim_expr]") {
  DimExpr B = DimExpr::sym("B");
  auto c = floordiv(B + 3, DimExpr(4)).to_c([](const std::string& s) { return "dims[" + s + "]"; });
  CHECK(c == "pto_floordiv(dims[B] + 3LL, 4LL)");
  CHECK(min(B, DimExpr(8)).to_c([](const std::string& s) { return s; }) == "pto_min(B, 8LL)");
}

TEST_CASE("same() compares canonical text without rendering common cases", "[core][dim_expr]") {
  DimExpr a = DimExpr::sym("a"), b = DimExpr::sym("b");
  CHECK(DimExpr(5).same(DimExpr(2) + DimExpr(3)));
  CHECK_FALSE(DimExpr(5).same(DimExpr(-5)));
  CHECK_FALSE(DimExpr(5).same(a));
  CHECK(min(a, b * 64).same(min(DimExpr::sym("a"), DimExpr::sym("b") * 64)));  // built apart, equal trees
  CHECK_FALSE((a + b).same(a - b));
  CHECK_FALSE((a * 2).same(a * 3));
  // Symbols that are not identifiers fall back to the text: a symbol spelled "a + b" prints like a + b.
  CHECK(DimExpr::sym("a + b").same(a + b));
  CHECK(DimExpr::sym("7").same(DimExpr(7)));
  CHECK_FALSE(DimExpr::sym("x y").same(a));
  // Identities that test sameness.
  CHECK((min(a, b) - min(a, b)).as_const() == 0);
  CHECK(max(a + 1, DimExpr::sym("a") + 1).str() == "a + 1");
}

TEST_CASE("substitute keeps untouched expressions and folds bound ones", "[core][dim_expr]") {
  DimExpr a = DimExpr::sym("a"), b = DimExpr::sym("b");
  DimExpr e = mod(floordiv(a * 4 + -b, DimExpr(3)), DimExpr(5));
  CHECK(e.str() == "(a * 4 + -b) // 3 % 5");
  CHECK(e.substitute({{"z", 1}}).str() == e.str());
  CHECK(e.substitute({}).same(e));
  CHECK(e.substitute({{"b", 2}}).str() == "(a * 4 + (-2)) // 3 % 5");
  CHECK(e.substitute({{"a", 2}, {"b", 2}}).as_const() == 2);
  CHECK(e.eval({{"a", 2}, {"b", 2}}) == 2);
  CHECK((-a).substitute({{"a", 3}}).as_const() == -3);
  CHECK((-a).str() == "-a");
  CHECK(DimExpr(-3).to_c([](const std::string& s) { return s; }) == "-3LL");
  CHECK((a - DimExpr(-3)).str() == "a - (-3)");
  CHECK(DimExpr().is_const());
  CHECK(DimExpr().kind() == DimExpr::Kind::Const);
  CHECK(DimExpr().name().empty());
  CHECK(DimExpr(4).args().empty());
}
