#include "compiler/frontend/parser.h"

#include <algorithm>
#include <memory>

#include "compiler/frontend/assemble_call.h"
#include "compiler/frontend/lexer.h"
#include "compiler/frontend/suggest.h"
#include "compiler/op_table.h"
#include "runtime/core/resource_limits.h"

namespace ptoc::fe {

namespace {

struct Fail {
  SyntaxError e;
};

// The methods of PyPTO's Tensor (python/pypto/tensor.py) that are operations: `x.f(args)` is `f(x, args)`.
// The second name is the op it calls when ptoc spells it differently (`greater` is `gt`).
struct Method {
  std::string_view name, op;
};
constexpr Method kTensorMethods[] = {
    {"add", ""},         {"axpy_", ""},     {"sub", ""},          {"mul", ""},          {"hypot", ""},
    {"prelu", ""},       {"div", ""},       {"fmod", ""},         {"remainder", ""},    {"greater", "gt"},
    {"fill_", ""},       {"matmul", ""},    {"assemble", ""},     {"reshape", ""},      {"unsqueeze", ""},
    {"view", ""},        {"clone", ""},     {"sin", ""},          {"cos", ""},          {"sinh", ""},
    {"cosh", ""},        {"asinh", ""},     {"acosh", ""},        {"sigmoid", ""},      {"softmax", ""},
    {"maximum", ""},     {"where", ""},     {"lrelu", ""},        {"topk", ""},         {"quant_mx", ""},
    {"sort32", ""},      {"mrgsort", ""},   {"exp", ""},          {"sign", ""},         {"signbit", ""},
    {"tanh", ""},        {"exp2", ""},      {"expm1", ""},        {"erfc", ""},         {"log", ""},
    {"log1p", ""},       {"log10", ""},     {"log2", ""},         {"logical_not", ""},  {"amax", ""},
    {"amin", ""},        {"argmax", ""},    {"argmin", ""},       {"sum", ""},          {"round", ""},
    {"rsqrt", ""},       {"sqrt", ""},      {"ceil", ""},         {"floor", ""},        {"trunc", ""},
    {"reciprocal", ""},  {"relu", ""},      {"permute", ""},      {"transpose", ""},    {"gather", ""},
    {"gathermask", ""},  {"index_add_", ""}, {"index_add", ""},   {"cumsum", ""},       {"cumprod", ""},
    {"gcd", ""},         {"triu", ""},      {"triu_", ""},        {"tril", ""},         {"tril_", ""},
    {"expand_clone", ""}, {"pad", ""},      {"fillpad", ""},      {"scatter_update", ""}, {"scatter_", ""},
    {"scatter", ""},     {"var", ""},       {"pack", ""},         {"unpack", ""},
    // Tensor methods that are not operations on values (Python object plumbing)
    {"copy", "-"},       {"move", "-"},     {"is_empty", "-"},    {"set_cache_policy", "-"},
    {"get_cache_policy", "-"}, {"to_tensor", "-"}, {"set_logical_tensor", "-"},
};

const Method* find_method(std::string_view n) {
  for (const auto& m : kTensorMethods)
    if (m.name == n) return &m;
  return nullptr;
}

// Whether two names that are close in spelling mean different things (argmax / amax, cumsum / sum, isnan / nan).
bool differs_in_meaning(std::string_view a, std::string_view b) {
  static const std::string_view kPrefixes[] = {"arg", "cum", "is", "bitwise_", "logical_", "a", "log"};
  for (auto p : kPrefixes) {
    auto strip = [&](std::string_view s) { return s.substr(0, p.size()) == p ? s.substr(p.size()) : s; };
    if ((strip(a) != a) != (strip(b) != b) && edit_distance(strip(a), strip(b)) <= 1) return true;
  }
  return false;
}

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
    if (is_op(".") && peek(1).kind == Token::Kind::Name && peek(1).text == "assemble" && is_op("(", 2)) {
      // PyPTO's `t.assemble(src, offsets)`: self is the target, so it is assemble(src, offsets, out=t)
      --i_;
      a.target.clear();
      a.eq_off = n.off;
      assemble_stmt_ = true;
      ExprPtr v = expr();
      end();
      if (v->kind != Expr::Kind::Call || v->name != "assemble" || v->args.empty())
        fail(n, "expected 't.assemble(src, offsets)'", "PyPTO's Tensor.assemble(input, offsets) writes input into t");
      auto c = std::make_shared<Expr>(*v);
      Arg self = c->args.front();
      c->args.erase(c->args.begin());
      self.name = "out";
      self.name_off = n.off;
      c->args.push_back(std::move(self));
      a.value = c;
      return a;
    }
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
  // Parsing the statement `t.assemble(src, offsets)`: its one assemble method call.
  bool assemble_stmt_ = false;
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
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%") || is_op("@")) {
      Token op = peek();
      next();
      l = binary(l, op, unary());
    }
    return l;
  }
  // power := postfix ('**' unary)?   Python's rule: tighter than a unary minus on its left (`-x ** 2` is
  // `-(x ** 2)`), looser than one on its right (`x ** -1`), right-associative (`2 ** 3 ** 2` is 512).
  ExprPtr power() {
    ExprPtr l = postfix();
    if (!is_op("**")) return l;
    Nest guard(*this);
    Token op = peek();
    next();
    return binary(l, op, unary());
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
    return power();
  }
  ExprPtr postfix() {
    ExprPtr e = primary();
    while (is_op("[") || is_op(".")) {
      if (is_op(".")) {
        e = method(e);
        continue;
      }
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
          call_args(*e, t.text);
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

  // `(args)` of a call to `fn`, the '(' next; appends to e.args.
  void call_args(Expr& e, const std::string& fn) {
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
        e.args.push_back(std::move(a));
        if (is_op(",")) {
          next();
          if (is_op(")")) break;  // a trailing comma, as Python allows
          continue;
        }
        break;
      }
    }
    if (!is_op(")")) fail(peek(), "expected ',' or ')' in the arguments of '" + fn + "', found " + describe(peek()));
    next();
  }

  // `self.f(args)`, the '.' next: PyPTO's Tensor method, the call f(self, args) (`greater` is gt).
  ExprPtr method(ExprPtr self) {
    Nest guard(*this);
    const Token dot = peek();
    next();
    const Token m = peek();
    if (m.kind != Token::Kind::Name)
      fail(m, "expected a method name after '.', found " + describe(m), "a method call is x.f(args), as x.exp()");
    next();
    if (m.text == "shape" || m.text == "dtype")
      fail(m, "'." + m.text + "' reads a tensor's " + (m.text == "shape" ? "extents" : "dtype") + " by its name",
           "bind the value first ('y = ...'), then write y." + m.text);
    const Method* md = find_method(m.text);
    if (!is_op("(")) {
      if (md)
        fail(peek(), "expected '(' after the method '" + m.text + "', found " + describe(peek()),
             "call it: x." + m.text + "(...)");
      fail(m, "'" + m.text + "' is not an attribute ptoc knows",
           "a tensor's attributes are x.shape and x.dtype; its methods are called, as x.exp()");
    }
    std::string op(m.text);
    if (!md) {
      std::string hint;
      if (const OpSpec* o = find_op(m.text); o && o->form != OpForm::Internal)
        hint = "PyPTO's Tensor has no method '" + m.text + "'; call the function: " + m.text + "(x, ...)";
      else {
        std::vector<std::string> names;
        for (const auto& x : kTensorMethods)
          if (x.op != "-") names.emplace_back(x.name);
        std::sort(names.begin(), names.end());
        std::string best = closest(m.text, names);
        if (!best.empty() && !differs_in_meaning(m.text, best)) hint = "did you mean '" + best + "'?";
      }
      fail(m, "'" + m.text + "' is not a method of PyPTO's Tensor", hint);
    }
    if (!md->op.empty() && md->op != "-") op = std::string(md->op);
    if (op == "assemble") {
      if (!assemble_stmt_ || self->kind != Expr::Kind::Name)
        fail(m, "t.assemble(src, offsets) is a statement of its own and returns nothing",
             "write it as its own statement: \"t.assemble(src, [0, 0])\"");
      assemble_stmt_ = false;
    }
    const OpSpec* o = find_op(op);
    if (op != "assemble" && (md->op == "-" || !o || o->form == OpForm::Internal)) {
      const PyptoOp* pp = find_pypto_op(m.text);
      fail(m, "'" + m.text + "' is a PyPTO operation that ptoc does not support yet",
           pp && !pp->ptoc.empty() && pp->ptoc != m.text ? "in ptoc write it as " + std::string(pp->ptoc)
                                                          : "docs/OPERATIONS.md lists PyPTO's operations and which ptoc supports");
    }
    if (op == "where")
      fail(m, "PyPTO's x.where(condition, a, b) has no ptoc form", "write where(condition, input, other)");
    auto e = make(Expr::Kind::Call, self->off);
    e->name = op;
    e->op_off = m.off;
    e->method = true;
    Arg a;
    a.value = self;
    e->args.push_back(std::move(a));
    (void)dot;
    call_args(*e, m.text);
    close(e);
    set_depth(e, e->op_off);
    return e;
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
