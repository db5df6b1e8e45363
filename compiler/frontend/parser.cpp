#include "compiler/frontend/parser.h"

#include <algorithm>
#include <memory>

#include "compiler/frontend/assemble_call_port6a.h"
#include "compiler/frontend/lexer.h"
#include "runtime/core/resource_limits.h"

namespace ptoc::fe {

namespace {

struct Fail {
  SyntaxError e;
};

class Parser {
 public:
  explicit Parser(std::vector<Token> toks)
      : t_(std::move(toks)), max_depth_(int(limits::get(limits::Id::expr_depth))) {}

  AssignAst assignment() {
    AssignAst a;
    const Token& n = peek();
    if (n.kind != Token::Kind::Name)
      fail(n, "expected a name at the start of the statement", "statements have the form 'NAME = EXPR' or 'NAME[SLICES] = EXPR'");
    a.target = n.text;
    a.target_off = n.off;
    a.target_len = n.len;
    next();
    if ((n.text == "atomic_add" || n.text == "set_operation_options" || n.text == "assemble") && is_op("(")) {
      // a call statement: PyPTO's atomic_add and set_operation_options return nothing
      --i_;
      a.target.clear();
      a.eq_off = n.off;
      a.value = expr();
      end();
      return a;
    }
    if (is_op("[")) {
      a.subscript = true;
      next();
      a.slices = slices();
      expect("]", "to close the subscript");
    }
    while (!a.subscript && is_op(",")) {  // `v, i = topk(...)`
      next();
      const Token& m = peek();
      if (m.kind != Token::Kind::Name)
        fail(m, "expected a name after ',' in the targets", "two results bind as 'v, i = topk(x, 8, -1)'");
      a.more_targets.push_back({m.text, m.off, m.len});
      next();
    }
    if (!is_op("=")) {
      if (is_op("=="))
        fail(peek(), "expected '=' but found '=='", "a statement assigns with a single '='");
      fail(peek(), "expected '=' after '" + a.target + "'",
           "statements have the form 'NAME = EXPR' or 'NAME[SLICES] = EXPR'");
    }
    a.eq_off = peek().off;
    next();
    a.value = compare();
    end();
    return a;
  }

  ExprPtr expression() {
    ExprPtr e = expr();
    end();
    return e;
  }

  ExprPtr condition() {
    cond_ = true;
    ExprPtr e = or_expr();
    end();
    return e;
  }

 private:
  std::vector<Token> t_;
  size_t i_ = 0;
  // Parsing an `if` condition: parentheses may group a comparison or a
  // boolean expression as well as arithmetic (`(N < 32) or N == 64`).
  bool cond_ = false;
  // Nesting bound: every recursive rule holds a Nest while it runs, and every
  // node records the depth of its tree, so that neither this parser nor the
  // recursive walks after it (elaborator, destructors) can overflow the stack
  // on `((((...))))`, `- - - x` or a chain `a + a + ... + a` of 10^5 terms.
  int nest_ = 0;
  const int max_depth_;
  [[noreturn]] void too_deep(const Token& t) {
    fail(t, "the expression nests more than " + std::to_string(max_depth_) +
                " levels deep (parentheses, unary minus, calls, lists or a long chain of operators)",
         "split it into several statements; or " + limits::raise_hint(limits::Id::expr_depth));
  }
  struct Nest {
    Parser& p;
    explicit Nest(Parser& pp) : p(pp) {
      if (++p.nest_ > p.max_depth_) {
        --p.nest_;
        p.too_deep(p.peek());
      }
    }
    ~Nest() { --p.nest_; }
  };
  // Depth of `e` from its children; fails past the limit.
  void set_depth(const std::shared_ptr<Expr>& e, int at_off) {
    int d = 0;
    for (const auto& x : e->items) d = std::max(d, x->depth);
    for (const auto& a : e->args) d = std::max(d, a.value->depth);
    for (const auto& sl : e->slices) {
      if (sl.start) d = std::max(d, sl.start->depth);
      if (sl.stop) d = std::max(d, sl.stop->depth);
    }
    e->depth = d + 1;
    if (e->depth > max_depth_) {
      Token t;
      t.off = at_off;
      t.len = 1;
      too_deep(t);
    }
  }

  const Token& peek(size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  void next() { if (i_ + 1 < t_.size()) ++i_; }
  bool is_op(const char* s, size_t k = 0) const {
    const Token& t = peek(k);
    return t.kind == Token::Kind::Op && t.text == s;
  }
  bool is_name(const char* s) const { return peek().kind == Token::Kind::Name && peek().text == s; }
  [[noreturn]] void fail(const Token& t, std::string msg, std::string hint = {}) {
    throw Fail{{t.off, std::max(1, t.len), std::move(msg), std::move(hint)}};
  }
  static std::string describe(const Token& t) {
    if (t.kind == Token::Kind::End) return "end of statement";
    if (t.kind == Token::Kind::String) return "the string \"" + t.text + "\"";
    return "'" + t.text + "'";
  }
  void expect(const char* op, const char* why) {
    if (!is_op(op)) fail(peek(), std::string("expected '") + op + "' " + why + ", found " + describe(peek()));
    next();
  }
  void end() {
    if (peek().kind != Token::Kind::End) {
      std::string hint;
      if (is_op("=")) hint = "only one '=' per statement; conditions compare with '=='";
      fail(peek(), "unexpected " + describe(peek()) + " after the expression", hint);
    }
  }
  static std::shared_ptr<Expr> make(Expr::Kind k, int off) {
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->off = off;
    return e;
  }
  int end_of_prev() const { return i_ == 0 ? 0 : t_[i_ - 1].off + t_[i_ - 1].len; }
  void close(const std::shared_ptr<Expr>& e) { e->len = std::max(1, end_of_prev() - e->off); }

  ExprPtr binary(ExprPtr l, const Token& op, ExprPtr r, Expr::Kind k = Expr::Kind::Binary) {
    auto e = make(k, l->off);
    e->op = op.text;
    e->op_off = op.off;
    e->items = {std::move(l), std::move(r)};
    close(e);
    set_depth(e, op.off);
    return e;
  }

  // Conditions.
  ExprPtr or_expr() {
    Nest guard(*this);
    ExprPtr l = and_expr();
    while (is_name("or")) {
      Token op = peek();
      next();
      l = binary(l, op, and_expr(), Expr::Kind::BoolOp);
    }
    return l;
  }
  ExprPtr and_expr() {
    ExprPtr l = not_expr();
    while (is_name("and")) {
      Token op = peek();
      next();
      l = binary(l, op, not_expr(), Expr::Kind::BoolOp);
    }
    return l;
  }
  ExprPtr not_expr() {
    if (is_name("not")) {
      Nest guard(*this);
      auto e = make(Expr::Kind::Not, peek().off);
      e->op = "not";
      e->op_off = peek().off;
      next();
      e->items = {not_expr()};
      close(e);
      set_depth(e, e->op_off);
      return e;
    }
    ExprPtr l = expr();
    static const char* const kCmp[] = {"==", "!=", "<", "<=", ">", ">="};
    for (const char* c : kCmp) {
      if (is_op(c)) {
        Token op = peek();
        next();
        ExprPtr r = expr();
        for (const char* c2 : kCmp)
          if (is_op(c2)) fail(peek(), "chained comparisons are not supported", "join comparisons with 'and'");
        return binary(l, op, r, Expr::Kind::Compare);
      }
    }
    return l;
  }

  // compare := expr (('=='|'!='|'<'|'<='|'>'|'>=') expr)?   (tensor comparisons, producing bool)
  ExprPtr compare() {
    ExprPtr l = expr();
    static const char* const kCmp[] = {"==", "!=", "<", "<=", ">", ">="};
    for (const char* c : kCmp) {
      if (!is_op(c)) continue;
      Token op = peek();
      next();
      ExprPtr r = expr();
      for (const char* c2 : kCmp)
        if (is_op(c2)) fail(peek(), "chained comparisons are not supported", "compare twice and join with logical_and");
      return binary(l, op, r, Expr::Kind::Compare);
    }
    return l;
  }

  // expr := expr ('+'|'-') term | term
  ExprPtr expr() {
    Nest guard(*this);
    ExprPtr l = term();
    while (is_op("+") || is_op("-")) {
      Token op = peek();
      next();
      l = binary(l, op, term());
    }
    return l;
  }
  // term := term ('*'|'/'|'//'|'%') unary | unary
  ExprPtr term() {
    ExprPtr l = unary();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      Token op = peek();
      next();
      if (op.text == "*" && is_op("*") && peek().off == op.off + 1)
        fail(op, "'**' (power) is not an operator of the spec language", "multiply the value by itself (x * x)");
      l = binary(l, op, unary());
    }
    return l;
  }
  ExprPtr unary() {
    if (is_op("-")) {
      Nest guard(*this);
      auto e = make(Expr::Kind::Neg, peek().off);
      e->op_off = peek().off;
      next();
      e->items = {unary()};
      close(e);
      set_depth(e, e->op_off);
      return e;
    }
    if (is_op("+")) {
      Nest guard(*this);
      next();
      return unary();
    }
    return postfix();
  }
  ExprPtr postfix() {
    ExprPtr e = primary();
    while (is_op("[")) {
      auto s = make(Expr::Kind::Subscript, e->off);
      s->op_off = peek().off;
      next();
      s->slices = slices();
      expect("]", "to close the subscript");
      s->items = {e};
      close(s);
      set_depth(s, s->op_off);
      e = s;
    }
    return e;
  }
  ExprPtr primary() {
    const Token t = peek();
    switch (t.kind) {
      case Token::Kind::Number: {
        auto e = make(Expr::Kind::Number, t.off);
        e->number = t.number;
        e->is_int = t.is_int;
        e->ival = t.ival;
        next();
        close(e);
        return e;
      }
      case Token::Kind::Name: {
        if (t.text == "and" || t.text == "or" || t.text == "not")
          fail(t, "'" + t.text + "' is only allowed in if conditions");
        next();
        if (is_op("(")) {
          auto e = make(Expr::Kind::Call, t.off);
          e->name = t.text;
          e->op_off = t.off;
          next();
          if (!is_op(")")) {
            while (true) {
              Arg a;
              if (peek().kind == Token::Kind::Name && is_op("=", 1)) {
                a.name = peek().text;
                a.name_off = peek().off;
                next();
                next();
              }
              a.value = compare();
              e->args.push_back(std::move(a));
              if (is_op(",")) {
                next();
                if (is_op(")")) break;  // a trailing comma, as Python allows
                continue;
              }
              break;
            }
          }
          if (!is_op(")"))
            fail(peek(), "expected ',' or ')' in the arguments of '" + t.text + "', found " + describe(peek()));
          next();
          close(e);
          set_depth(e, e->op_off);
          return e;
        }
        auto e = make(Expr::Kind::Name, t.off);
        e->name = t.text;
        close(e);
        return e;
      }
      case Token::Kind::String: {
        // A quoted name: the argument readers that take a name (modes) take it; as a value it is an error
        // (Elaborator::name_ref).
        auto e = make(Expr::Kind::Name, t.off);
        e->name = t.text;
        e->quoted = true;
        next();
        close(e);
        return e;
      }
      case Token::Kind::Op:
        if (t.text == "(") {
          next();
          ExprPtr inner = cond_ ? or_expr() : compare();
          expect(")", "to close '('");
          return inner;
        }
        if (t.text == "[") {
          auto e = make(Expr::Kind::List, t.off);
          next();
          if (!is_op("]")) {
            while (true) {
              e->items.push_back(expr());
              if (is_op(",")) { next(); if (is_op("]")) break; continue; }
              break;
            }
          }
          expect("]", "to close the list");
          close(e);
          set_depth(e, e->off);
          return e;
        }
        fail(t, "expected an expression, found " + describe(t));
      case Token::Kind::End:
        fail(t, "expected an expression, found end of statement");
    }
    fail(t, "expected an expression");
  }

  std::vector<Slice> slices() {
    std::vector<Slice> out;
    while (true) {
      Slice s;
      s.off = peek().off;
      if (is_op("...")) {
        s.kind = Slice::Kind::Ellipsis;
        next();
      } else {
        if (!is_op(":")) s.start = expr();
        if (is_op(":")) {
          s.kind = Slice::Kind::Range;
          next();
          if (!is_op(",") && !is_op("]")) s.stop = expr();
          if (is_op(":")) fail(peek(), "slice steps are not supported", "use a view with the shape you need");
        } else {
          s.kind = Slice::Kind::Index;
        }
      }
      s.len = std::max(1, end_of_prev() - s.off);
      out.push_back(std::move(s));
      if (is_op(",")) { next(); continue; }
      break;
    }
    return out;
  }
};

template <class T, class F>
std::variant<T, SyntaxError> run(std::string_view s, F f) {
  std::vector<Token> toks;
  SyntaxError err;
  if (!tokenize(s, toks, err)) return err;
  try {
    Parser p(std::move(toks));
    return f(p);
  } catch (const Fail& f) {
    return f.e;
  }
}

}  // namespace

std::variant<AssignAst, SyntaxError> parse_assignment(std::string_view s) {
  auto r = run<AssignAst>(s, [](Parser& p) { return p.assignment(); });
  if (auto* a = std::get_if<AssignAst>(&r); a && a->target.empty() && a->value && a->value->name == "assemble")
    if (auto e = desugar_assemble_call(*a)) return *e;  // PyPTO's assemble(src, [offsets], dst)
  return r;
}
std::variant<ExprPtr, SyntaxError> parse_expression(std::string_view s) {
  return run<ExprPtr>(s, [](Parser& p) { return p.expression(); });
}
std::variant<ExprPtr, SyntaxError> parse_condition(std::string_view s) {
  return run<ExprPtr>(s, [](Parser& p) { return p.condition(); });
}

}  // namespace ptoc::fe
