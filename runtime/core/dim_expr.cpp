#include "dim_expr.h"

#include "runtime/core/checked_int.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <stdexcept>

namespace ptoc {

int64_t floor_div_i64(int64_t a, int64_t b) {
  if (b == 0) throw DimEvalError("division by zero in a dim expression");
  if (a == INT64_MIN && b == -1) dim_overflow(a, "//", b);  // the one quotient int64 cannot hold (SIGFPE)
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floor_mod_i64(int64_t a, int64_t b) {
  if (b == 0) throw DimEvalError("division by zero in a dim expression");
  if (b == -1) return 0;  // also for INT64_MIN, whose quotient by -1 overflows
  // C's remainder, moved to the divisor's sign (a - q * b could overflow on the way).
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
static int64_t ceil_div_i64(int64_t a, int64_t b) {
  if (b == 0) throw DimEvalError("division by zero in a dim expression");
  if ((a == INT64_MIN && b == -1)) dim_overflow(a, "ceil_div", b);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
  return q;
}

// An identifier: rendering cannot make it look like an operator or a number, so
// two trees of such symbols print the same text exactly when they are equal.
static bool plain_name(const std::string& s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (char ch : s)
    if (!(std::isalnum((unsigned char)ch) || ch == '_')) return false;
  return true;
}

DimExpr DimExpr::sym(const std::string& name) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Sym;
  n->plain = plain_name(name);
  n->name = name;
  return DimExpr(std::shared_ptr<const Node>(std::move(n)));
}
const std::string& DimExpr::name() const {
  static const std::string none;
  return n_ ? n_->name : none;
}
const std::vector<DimExpr>& DimExpr::args() const {
  static const std::vector<DimExpr> none;
  return n_ ? n_->args : none;
}

static int64_t apply_op(DimExpr::Kind k, int64_t a, int64_t b) {
  using K = DimExpr::Kind;
  switch (k) {
    case K::Add: return checked_add(a, b);
    case K::Sub: return checked_sub(a, b);
    case K::Mul: return checked_mul(a, b);
    case K::FloorDiv: return floor_div_i64(a, b);
    case K::Mod: return floor_mod_i64(a, b);
    case K::Neg: return checked_neg(a);
    case K::CeilDiv: return ceil_div_i64(a, b);
    case K::Min: return std::min(a, b);
    case K::Max: return std::max(a, b);
    default: throw std::logic_error("apply on leaf");
  }
}

// Folding and identities of a binary operation, without allocating when they apply.
DimExpr DimExpr::make2(Kind k, const DimExpr& a, const DimExpr& b) {
  if (a.is_const() && b.is_const()) {
    bool div_by_zero = (k == Kind::FloorDiv || k == Kind::Mod || k == Kind::CeilDiv) && b.v_ == 0;
    if (!div_by_zero) return DimExpr(apply_op(k, a.v_, b.v_));
  }
  // Identities that keep printed forms short.
  auto is = [](const DimExpr& x, int64_t v) { return x.is_const() && x.v_ == v; };
  switch (k) {
    case Kind::Add:
      if (is(a, 0)) return b;
      if (is(b, 0)) return a;
      break;
    case Kind::Sub:
      if (is(b, 0)) return a;
      if (a.same(b)) return DimExpr(0);
      break;
    case Kind::Mul:
      if (is(a, 1)) return b;
      if (is(b, 1)) return a;
      if (is(a, 0) || is(b, 0)) return DimExpr(0);
      break;
    case Kind::FloorDiv:
    case Kind::CeilDiv:
      if (is(b, 1)) return a;
      break;
    case Kind::Min:
    case Kind::Max:
      if (a.same(b)) return a;
      break;
    default: break;
  }
  auto n = std::make_shared<Node>();
  n->kind = k;
  n->plain = (a.is_const() || a.n_->plain) && (b.is_const() || b.n_->plain);
  n->args.reserve(2);
  n->args.push_back(a);
  n->args.push_back(b);
  return DimExpr(std::shared_ptr<const Node>(std::move(n)));
}

DimExpr DimExpr::make(Kind k, std::vector<DimExpr> args) {
  if (args.size() == 2) return make2(k, args[0], args[1]);
  // Neg (the only unary operation).
  if (args[0].is_const()) return DimExpr(apply_op(k, args[0].v_, 0));
  auto n = std::make_shared<Node>();
  n->kind = k;
  n->plain = args[0].n_->plain;
  n->args = std::move(args);
  return DimExpr(std::shared_ptr<const Node>(std::move(n)));
}

DimExpr operator+(const DimExpr& a, const DimExpr& b) { return DimExpr::make2(DimExpr::Kind::Add, a, b); }
DimExpr operator-(const DimExpr& a, const DimExpr& b) { return DimExpr::make2(DimExpr::Kind::Sub, a, b); }
DimExpr operator*(const DimExpr& a, const DimExpr& b) { return DimExpr::make2(DimExpr::Kind::Mul, a, b); }
DimExpr operator-(const DimExpr& a) { return DimExpr::make(DimExpr::Kind::Neg, {a}); }
DimExpr floordiv(const DimExpr& a, const DimExpr& b) { return DimExpr::make2(DimExpr::Kind::FloorDiv, a, b); }
DimExpr mod(const DimExpr& a, const DimExpr& b) { return DimExpr::make2(DimExpr::Kind::Mod, a, b); }
DimExpr ceil_div(const DimExpr& a, const DimExpr& b) { return DimExpr::make2(DimExpr::Kind::CeilDiv, a, b); }
DimExpr min(const DimExpr& a, const DimExpr& b) { return DimExpr::make2(DimExpr::Kind::Min, a, b); }
DimExpr max(const DimExpr& a, const DimExpr& b) { return DimExpr::make2(DimExpr::Kind::Max, a, b); }

int64_t DimExpr::eval(const Env& env) const {
  if (!n_) return v_;
  switch (n_->kind) {
    case Kind::Sym: {
      auto it = env.find(n_->name);
      if (it == env.end()) throw UnboundSymbol(n_->name);
      return it->second;
    }
    default: {
      const auto& a = n_->args;
      int64_t x = a[0].eval(env);
      int64_t y = a.size() > 1 ? a[1].eval(env) : 0;
      return apply_op(n_->kind, x, y);
    }
  }
}

DimExpr DimExpr::substitute(const Env& env) const {
  if (!n_ || env.empty()) return *this;
  switch (n_->kind) {
    case Kind::Sym: {
      auto it = env.find(n_->name);
      return it == env.end() ? *this : DimExpr(it->second);
    }
    default: {
      // Unchanged operands give this very node back (rebuilding it would give an equal one).
      const auto& a = n_->args;
      DimExpr x = a[0].substitute(env);
      if (a.size() == 1) return x.n_ == a[0].n_ && x.v_ == a[0].v_ ? *this : make(n_->kind, {x});
      DimExpr y = a[1].substitute(env);
      if (x.n_ == a[0].n_ && x.v_ == a[0].v_ && y.n_ == a[1].n_ && y.v_ == a[1].v_) return *this;
      return make2(n_->kind, x, y);
    }
  }
}

void DimExpr::collect_symbols(std::vector<std::string>& out) const {
  if (!n_) return;
  if (n_->kind == Kind::Sym) {
    for (auto& s : out)
      if (s == n_->name) return;
    out.push_back(n_->name);
  }
  for (auto& a : n_->args) a.collect_symbols(out);
}

static bool equal_tree(const DimExpr& a, const DimExpr& b) {
  if (a.kind() != b.kind()) return false;
  if (a.is_const()) return *a.as_const() == *b.as_const();
  if (a.kind() == DimExpr::Kind::Sym) return a.name() == b.name();
  const auto &x = a.args(), &y = b.args();
  if (&x == &y) return true;  // the same node
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (!equal_tree(x[i], y[i])) return false;
  return true;
}

bool DimExpr::same(const DimExpr& o) const {
  if (!n_ && !o.n_) return v_ == o.v_;
  // A constant prints as a number; a tree of identifiers always holds a letter.
  if (!n_ || !o.n_) return (n_ ? n_->plain : o.n_->plain) ? false : str() == o.str();
  if (n_ == o.n_ || equal_tree(*this, o)) return true;
  if (n_->plain && o.n_->plain) return false;  // different trees of identifiers print differently
  return str() == o.str();
}

int DimExpr::print_precedence(Kind k) {
  using K = DimExpr::Kind;
  switch (k) {
    case K::Add: case K::Sub: return 1;
    case K::Mul: case K::FloorDiv: case K::Mod: return 2;
    case K::Neg: return 3;
    default: return 4;
  }
}
static int prec(DimExpr::Kind k) { return DimExpr::print_precedence(k); }

using SymFn = std::function<std::string(const std::string&)>;

// Appends the text of `e` to `out` (one buffer for the whole expression).
static void render(const DimExpr& e, const SymFn* sym, bool c, std::string& out) {
  using K = DimExpr::Kind;
  auto sub = [&](const DimExpr& x, int min_prec) {
    bool paren = prec(x.kind()) < min_prec || (x.is_const() && *x.as_const() < 0 && min_prec > 1);
    if (paren) out += '(';
    render(x, sym, c, out);
    if (paren) out += ')';
  };
  auto call = [&](const char* f, const DimExpr& x, const DimExpr& y) {
    out += f;
    render(x, sym, c, out);
    out += ", ";
    render(y, sym, c, out);
    out += ')';
  };
  auto infix = [&](const DimExpr& x, int px, const char* op, const DimExpr& y, int py) {
    sub(x, px);
    out += op;
    sub(y, py);
  };
  const auto& a = e.args();
  switch (e.kind()) {
    case K::Const: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, *e.as_const());
      out.append(buf, r.ptr);
      if (c) out += "LL";
      return;
    }
    case K::Sym: out += sym ? (*sym)(e.name()) : e.name(); return;
    case K::Add: return infix(a[0], 1, " + ", a[1], 2);
    case K::Sub: return infix(a[0], 1, " - ", a[1], 2);
    case K::Mul: return infix(a[0], 2, " * ", a[1], 3);
    case K::FloorDiv: return c ? call("pto_floordiv(", a[0], a[1]) : infix(a[0], 2, " // ", a[1], 3);
    case K::Mod: return c ? call("pto_floormod(", a[0], a[1]) : infix(a[0], 2, " % ", a[1], 3);
    case K::Neg: out += '-'; return sub(a[0], 3);
    case K::CeilDiv: return call(c ? "pto_ceildiv(" : "ceil_div(", a[0], a[1]);
    case K::Min: return call(c ? "pto_min(" : "min(", a[0], a[1]);
    case K::Max: return call(c ? "pto_max(" : "max(", a[0], a[1]);
  }
  out += '?';
}

std::string DimExpr::str() const {
  std::string out;
  render(*this, nullptr, false, out);
  return out;
}
std::string DimExpr::to_c(const std::function<std::string(const std::string&)>& sym) const {
  std::string out;
  render(*this, &sym, true, out);
  return out;
}
size_t DimExpr::hash() const { return std::hash<std::string>{}(str()); }

}  // namespace ptoc
