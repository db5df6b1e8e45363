#include "dim_expr.h"

#include <stdexcept>

namespace ptoc {

struct DimExpr::Node {
  Kind kind;
  int64_t value = 0;
  std::string name;
  std::vector<DimExpr> args;
};

namespace {
const std::shared_ptr<const DimExpr::Node>& zero_node() {
  static const auto z = std::make_shared<const DimExpr::Node>(DimExpr::Node{DimExpr::Kind::Const, 0, {}, {}});
  return z;
}
}  // namespace

int64_t floor_div_i64(int64_t a, int64_t b) {
  if (b == 0) throw DimEvalError("division by zero in a dim expression");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floor_mod_i64(int64_t a, int64_t b) { return a - floor_div_i64(a, b) * b; }

DimExpr::DimExpr() : n_(zero_node()) {}
DimExpr::DimExpr(int64_t v) : n_(std::make_shared<const Node>(Node{Kind::Const, v, {}, {}})) {}
DimExpr DimExpr::sym(const std::string& name) {
  return DimExpr(std::make_shared<const Node>(Node{Kind::Sym, 0, name, {}}));
}
DimExpr::Kind DimExpr::kind() const { return n_->kind; }
std::optional<int64_t> DimExpr::as_const() const {
  if (n_->kind == Kind::Const) return n_->value;
  return std::nullopt;
}
const std::string& DimExpr::name() const { return n_->name; }
const std::vector<DimExpr>& DimExpr::args() const { return n_->args; }

static int64_t apply_op(DimExpr::Kind k, const std::vector<int64_t>& v) {
  using K = DimExpr::Kind;
  switch (k) {
    case K::Add: return v[0] + v[1];
    case K::Sub: return v[0] - v[1];
    case K::Mul: return v[0] * v[1];
    case K::FloorDiv: return floor_div_i64(v[0], v[1]);
    case K::Mod: return floor_mod_i64(v[0], v[1]);
    case K::Neg: return -v[0];
    case K::CeilDiv: return -floor_div_i64(-v[0], v[1]);
    case K::Min: return std::min(v[0], v[1]);
    case K::Max: return std::max(v[0], v[1]);
    default: throw std::logic_error("apply on leaf");
  }
}

DimExpr DimExpr::make(Kind k, std::vector<DimExpr> args) {
  bool all_const = true;
  std::vector<int64_t> vals;
  for (auto& a : args) {
    if (!a.is_const()) { all_const = false; break; }
    vals.push_back(*a.as_const());
  }
  if (all_const) {
    bool div_by_zero = (k == Kind::FloorDiv || k == Kind::Mod || k == Kind::CeilDiv) && vals[1] == 0;
    if (!div_by_zero) return DimExpr(apply_op(k, vals));
  }
  // Identities that keep printed forms short.
  auto c = [&](size_t i) { return args[i].as_const(); };
  switch (k) {
    case Kind::Add:
      if (c(0) == 0) return args[1];
      if (c(1) == 0) return args[0];
      break;
    case Kind::Sub:
      if (c(1) == 0) return args[0];
      if (args[0].same(args[1])) return DimExpr(0);
      break;
    case Kind::Mul:
      if (c(0) == 1) return args[1];
      if (c(1) == 1) return args[0];
      if (c(0) == 0 || c(1) == 0) return DimExpr(0);
      break;
    case Kind::FloorDiv:
    case Kind::CeilDiv:
      if (c(1) == 1) return args[0];
      break;
    case Kind::Min:
    case Kind::Max:
      if (args[0].same(args[1])) return args[0];
      break;
    default: break;
  }
  return DimExpr(std::make_shared<const Node>(Node{k, 0, {}, std::move(args)}));
}

DimExpr operator+(const DimExpr& a, const DimExpr& b) { return DimExpr::make(DimExpr::Kind::Add, {a, b}); }
DimExpr operator-(const DimExpr& a, const DimExpr& b) { return DimExpr::make(DimExpr::Kind::Sub, {a, b}); }
DimExpr operator*(const DimExpr& a, const DimExpr& b) { return DimExpr::make(DimExpr::Kind::Mul, {a, b}); }
DimExpr operator-(const DimExpr& a) { return DimExpr::make(DimExpr::Kind::Neg, {a}); }
DimExpr floordiv(const DimExpr& a, const DimExpr& b) { return DimExpr::make(DimExpr::Kind::FloorDiv, {a, b}); }
DimExpr mod(const DimExpr& a, const DimExpr& b) { return DimExpr::make(DimExpr::Kind::Mod, {a, b}); }
DimExpr ceil_div(const DimExpr& a, const DimExpr& b) { return DimExpr::make(DimExpr::Kind::CeilDiv, {a, b}); }
DimExpr min(const DimExpr& a, const DimExpr& b) { return DimExpr::make(DimExpr::Kind::Min, {a, b}); }
DimExpr max(const DimExpr& a, const DimExpr& b) { return DimExpr::make(DimExpr::Kind::Max, {a, b}); }

int64_t DimExpr::eval(const Env& env) const {
  switch (n_->kind) {
    case Kind::Const: return n_->value;
    case Kind::Sym: {
      auto it = env.find(n_->name);
      if (it == env.end()) throw UnboundSymbol(n_->name);
      return it->second;
    }
    default: {
      std::vector<int64_t> v;
      v.reserve(n_->args.size());
      for (auto& a : n_->args) v.push_back(a.eval(env));
      return apply_op(n_->kind, v);
    }
  }
}

DimExpr DimExpr::substitute(const Env& env) const {
  switch (n_->kind) {
    case Kind::Const: return *this;
    case Kind::Sym: {
      auto it = env.find(n_->name);
      return it == env.end() ? *this : DimExpr(it->second);
    }
    default: {
      std::vector<DimExpr> a;
      for (auto& x : n_->args) a.push_back(x.substitute(env));
      return make(n_->kind, std::move(a));
    }
  }
}

void DimExpr::collect_symbols(std::vector<std::string>& out) const {
  if (n_->kind == Kind::Sym) {
    for (auto& s : out)
      if (s == n_->name) return;
    out.push_back(n_->name);
  }
  for (auto& a : n_->args) a.collect_symbols(out);
}

// Precedence: 1 additive, 2 multiplicative, 3 unary, 4 atom.
static int prec(DimExpr::Kind k) {
  using K = DimExpr::Kind;
  switch (k) {
    case K::Add: case K::Sub: return 1;
    case K::Mul: case K::FloorDiv: case K::Mod: return 2;
    case K::Neg: return 3;
    default: return 4;
  }
}

static std::string render(const DimExpr& e, const std::function<std::string(const std::string&)>* sym, bool c) {
  using K = DimExpr::Kind;
  auto sub = [&](const DimExpr& x, int min_prec) {
    std::string s = render(x, sym, c);
    if (prec(x.kind()) < min_prec || (x.is_const() && *x.as_const() < 0 && min_prec > 1)) return "(" + s + ")";
    return s;
  };
  const auto& a = e.args();
  switch (e.kind()) {
    case K::Const: return c ? std::to_string(*e.as_const()) + "LL" : std::to_string(*e.as_const());
    case K::Sym: return sym ? (*sym)(e.name()) : e.name();
    case K::Add: return sub(a[0], 1) + " + " + sub(a[1], 2);
    case K::Sub: return sub(a[0], 1) + " - " + sub(a[1], 2);
    case K::Mul: return sub(a[0], 2) + " * " + sub(a[1], 3);
    case K::FloorDiv:
      return c ? "pto_floordiv(" + render(a[0], sym, c) + ", " + render(a[1], sym, c) + ")"
               : sub(a[0], 2) + " // " + sub(a[1], 3);
    case K::Mod:
      return c ? "pto_floormod(" + render(a[0], sym, c) + ", " + render(a[1], sym, c) + ")"
               : sub(a[0], 2) + " % " + sub(a[1], 3);
    case K::Neg: return "-" + sub(a[0], 3);
    case K::CeilDiv: return (c ? "pto_ceildiv(" : "ceil_div(") + render(a[0], sym, c) + ", " + render(a[1], sym, c) + ")";
    case K::Min: return (c ? "pto_min(" : "min(") + render(a[0], sym, c) + ", " + render(a[1], sym, c) + ")";
    case K::Max: return (c ? "pto_max(" : "max(") + render(a[0], sym, c) + ", " + render(a[1], sym, c) + ")";
  }
  return "?";
}

std::string DimExpr::str() const { return render(*this, nullptr, false); }
std::string DimExpr::to_c(const std::function<std::string(const std::string&)>& sym) const {
  return render(*this, &sym, true);
}
size_t DimExpr::hash() const { return std::hash<std::string>{}(str()); }

}  // namespace ptoc
