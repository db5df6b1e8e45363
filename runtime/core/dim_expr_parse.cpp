#include "runtime/core/dim_expr_parse.h"

#include <cctype>
#include <limits>

namespace ptoc::runtime {

namespace {

// Recursive descent, left-associative, with the precedence DimExpr::str() prints with.
class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  DimExpr parse() {
    DimExpr e = additive();
    skip_ws();
    if (p_ != s_.size()) fail("unexpected '" + std::string(1, s_[p_]) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw DimParseError("bad dim expression '" + std::string(s_) + "' at column " + std::to_string(p_ + 1) + ": " +
                        what);
  }
  void skip_ws() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  bool eat(std::string_view tok) {
    skip_ws();
    if (s_.substr(p_, tok.size()) == tok) {
      p_ += tok.size();
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(std::string_view(&c, 1))) fail(std::string("expected '") + c + "'");
  }

  DimExpr additive() {
    DimExpr e = multiplicative();
    for (;;) {
      if (eat("+")) e = e + multiplicative();
      else if (eat("-")) e = e - multiplicative();
      else return e;
    }
  }
  DimExpr multiplicative() {
    DimExpr e = unary();
    for (;;) {
      if (eat("*")) e = e * unary();
      else if (eat("//")) e = floordiv(e, unary());
      else if (eat("%")) e = mod(e, unary());
      else return e;
    }
  }
  DimExpr unary() {
    if (eat("-")) return -unary();
    return primary();
  }
  DimExpr primary() {
    skip_ws();
    if (p_ >= s_.size()) fail("unexpected end");
    char c = s_[p_];
    if (c == '(') {
      ++p_;
      DimExpr e = additive();
      expect(')');
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      uint64_t v = 0;
      while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) {
        v = v * 10 + uint64_t(s_[p_] - '0');
        if (v > uint64_t(std::numeric_limits<int64_t>::max()) + 1) fail("integer too large");
        ++p_;
      }
      // INT64_MIN prints as "-9223372036854775808": the magnitude only fits negated.
      if (v == uint64_t(std::numeric_limits<int64_t>::max()) + 1) return DimExpr(std::numeric_limits<int64_t>::min());
      return DimExpr(int64_t(v));
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t b = p_;
      while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_')) ++p_;
      std::string name(s_.substr(b, p_ - b));
      skip_ws();
      if (p_ < s_.size() && s_[p_] == '(') {
        ++p_;
        DimExpr a = additive();
        expect(',');
        DimExpr b2 = additive();
        expect(')');
        if (name == "ceil_div") return ceil_div(a, b2);
        if (name == "min") return min(a, b2);
        if (name == "max") return max(a, b2);
        p_ = b;
        fail("unknown function '" + name + "'");
      }
      return DimExpr::sym(name);
    }
    fail(std::string("unexpected '") + c + "'");
  }

  std::string_view s_;
  size_t p_ = 0;
};

}  // namespace

DimExpr parse_dim_expr(std::string_view text) { return Parser(text).parse(); }

}  // namespace ptoc::runtime
