// PyPTO's Python operators in statement strings: `**` (Tensor.__pow__ is pow; a number to a
// number folds to a constant, Python's types: int ** non-negative int is an int, otherwise a float) and `@`
// (Tensor.__matmul__: matmul(a, b, out) with out = b's dtype for fp16 / bf16 / fp32 and int32 for int8).
// The parser makes both Binary nodes (parser.cpp: `**` binds tighter than a unary minus on its left and is
// right-associative); methods `x.f(args)` and the `pypto.` prefix need no elaboration of their own (parser.cpp,
// lexer.cpp).
#include <cmath>
#include <functional>
#include <limits>

#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

struct Num {
  double v = 0;
  bool is_int = false;
};

// Python's `a ** b` on numbers; nullopt with `why` set for what Python rejects (0 ** -1, (-8) ** 0.5) or what
// leaves int64 (an int result past 2^63 is reported rather than rounded).
std::optional<Num> py_pow(Num a, Num b, std::string& why) {
  if (a.is_int && b.is_int && b.v >= 0) {
    int64_t base = int64_t(a.v), e = int64_t(b.v), r = 1;
    while (e > 0) {
      if (__builtin_mul_overflow(r, base, &r)) {
        why = "the integer power leaves int64 (|result| >= 2^63)";
        return std::nullopt;
      }
      --e;
      if (r == 0 || r == 1) break;  // 0 ** n, 1 ** n
      if (r == -1 && base == -1) {  // (-1) ** n
        r = (e % 2 == 0) ? -1 : 1;
        break;
      }
    }
    return Num{double(r), true};
  }
  if (a.v == 0 && b.v < 0) {
    why = "0 cannot be raised to a negative power (Python's ZeroDivisionError)";
    return std::nullopt;
  }
  if (a.v < 0 && std::isfinite(b.v) && b.v != std::floor(b.v)) {
    why = "a negative number to a fractional power is complex in Python";
    return std::nullopt;
  }
  return Num{std::pow(a.v, b.v), false};
}

// `x.shape[i]` with a constant index (i < 0 counts from the end): the base name and the index, else nullptr.
const Expr* shape_entry_of(const Expr& e, int64_t& index) {
  if (e.kind != Expr::Kind::Subscript || e.items.size() != 1 || !e.items[0] || e.slices.size() != 1) return nullptr;
  const Expr& b = *e.items[0];
  const std::string tail = ".shape";
  if (b.kind != Expr::Kind::Name || b.quoted || b.name.size() <= tail.size() ||
      b.name.compare(b.name.size() - tail.size(), tail.size(), tail) != 0)
    return nullptr;
  const Slice& s = e.slices[0];
  if (s.kind != Slice::Kind::Index || !s.start) return nullptr;
  const Expr* i = s.start.get();
  const bool neg = i->kind == Expr::Kind::Neg && i->items.size() == 1;
  const Expr* num = neg ? i->items[0].get() : i;
  if (num->kind != Expr::Kind::Number || !num->is_int) return nullptr;
  index = neg ? -num->ival : num->ival;
  return &b;
}

}  // namespace

// `x.shape[i]` (a constant index) as a value: its extent, a number when static (the torch reference's
// `query.shape[-1] ** 0.5`, PyPTO's `scale = q.shape[-1] ** -0.5`, `x / x.shape[-1]`); nullopt when `e` is not one.
std::optional<EV> Elaborator::shape_entry_value(const Expr& e) {
  int64_t i = 0;
  const Expr* base = shape_entry_of(e, i);
  if (!base) return std::nullopt;
  auto sh = shape_of_name(*base);
  if (!sh) return EV::poison();
  const int64_t rank = int64_t(sh->size());
  if (i < -rank || i >= rank) {
    err(e.off, e.len, "'" + text_of(e) + "': index " + std::to_string(i) + " is out of range for rank " +
                          std::to_string(rank));
    return EV::poison();
  }
  const DimExpr& d = (*sh)[size_t(i < 0 ? i + rank : i)];
  if (auto c = d.as_const()) return EV::number(double(*c), true);
  err(e.off, e.len, "'" + text_of(e) + "' is the dynamic extent " + d.str() + "; as a value it must be a compile-time number",
      "a dynamic extent is no compile-time number: bind it ('n = " + text_of(e) + "') for dim expressions");
  return EV::poison();
}

EV Elaborator::surface_binary(const Expr& e) {
  const Expr& l = *e.items[0];
  const Expr& r = *e.items[1];
  EV a = expr(l);
  EV b = expr(r);
  if (!a.ok() || !b.ok()) return EV::poison();
  const int oplen = int(e.op.size());
  if (e.op == "**") {
    if (a.is_scalar() && b.is_scalar()) {
      std::string why;
      auto v = py_pow({a.scalar, a.is_int}, {b.scalar, b.is_int}, why);
      if (!v) {
        err(e.op_off, oplen, "'" + text_of(e) + "': " + why);
        return EV::poison();
      }
      return EV::number(v->v, v->is_int);
    }
    return binary(OpKind::Pow, a, b, l, r, e.op_off, oplen, e.op);  // Tensor.__pow__ is pypto.pow
  }
  // `@`: Tensor.__matmul__
  if (!a.is_tensor() || !b.is_tensor()) {
    const Expr& s = a.is_tensor() ? r : l;
    err(s.off, s.len, "'@' multiplies two tensors; '" + text_of(s) + "' is a number",
        "scale a tensor with '*': " + text_of(l) + " * " + text_of(r));
    return EV::poison();
  }
  const DType bt = p_.values[size_t(b.value)].dtype;
  DType out;
  if (bt == DType::fp16 || bt == DType::bf16 || bt == DType::fp32) out = bt;
  else if (bt == DType::int8) out = DType::int32;
  else {
    err(e.op_off, oplen,
        "'@' takes a right operand of fp16, bf16, fp32 or int8 (PyPTO's __matmul__: the result has b's dtype for "
        "fp16 / bf16 / fp32 and int32 for int8); '" + text_of(r) + "' is " + std::string(dtype_name(bt)),
        "cast it, or call matmul(" + text_of(l) + ", " + text_of(r) + ", out_dtype) with the dtype you want");
    return EV::poison();
  }
  // matmul(a, b, out) on the two values already elaborated: they are bound under names no statement can
  // spell for the call, which reads them as it reads any name.
  if (!names_) return EV::poison();
  static const std::string kA = "@lhs", kB = "@rhs";
  auto saved_a = names_->find(kA) == names_->end() ? std::optional<Binding>{} : names_->at(kA);
  auto saved_b = names_->find(kB) == names_->end() ? std::optional<Binding>{} : names_->at(kB);
  (*names_)[kA] = Binding::of(a.value, a.nz);
  (*names_)[kB] = Binding::of(b.value, b.nz);
  auto name = [](const std::string& n, const Expr& at) {
    auto x = std::make_shared<Expr>();
    x->kind = Expr::Kind::Name;
    x->name = n;
    x->off = at.off;
    x->len = at.len;
    return x;
  };
  Expr c;
  c.kind = Expr::Kind::Call;
  c.name = "matmul";
  c.op = "@";  // its errors point at the operator
  c.off = e.off;
  c.len = e.len;
  c.op_off = e.op_off;
  c.depth = e.depth;
  c.args.push_back({"", -1, name(kA, l)});
  c.args.push_back({"", -1, name(kB, r)});
  auto d = name(std::string(dtype_name(out)), e);
  c.args.push_back({"", -1, d});
  EV v = call(c);
  names_->erase(kA);
  names_->erase(kB);
  if (saved_a) (*names_)[kA] = *saved_a;
  if (saved_b) (*names_)[kB] = *saved_b;
  return v;
}

std::optional<DimExpr> Elaborator::dim_surface(const Expr& e, const std::optional<DimExpr>& a,
                                               const std::optional<DimExpr>& b) {
  if (!a || !b) return std::nullopt;
  const int oplen = int(e.op.size());
  if (e.op == "@") {
    err(e.op_off, oplen, "'@' (matmul) is not a dim operator", "dim expressions use + - * // % ** and ceil_div");
    return std::nullopt;
  }
  auto x = a->as_const(), y = b->as_const();
  if (!x || !y) {
    err(e.op_off, oplen, "'**' in a dim expression needs constant operands; '" + text_of(e) + "' is not",
        "bind the power as a constant ('n = 2 ** (bit - 1)') or write the product");
    return std::nullopt;
  }
  if (*y < 0) {
    err(e.op_off, oplen, "'" + text_of(e) + "' is not an integer (a negative power is a float in Python)",
        "dim expressions are integers");
    return std::nullopt;
  }
  int64_t r = 1;  // exact in int64
  for (int64_t k = 0; k < *y && r != 0; ++k) {
    if (__builtin_mul_overflow(r, *x, &r)) {
      err(e.op_off, oplen, "'" + text_of(e) + "' leaves int64", "dims and the products of shapes must stay below 2^63");
      return std::nullopt;
    }
    if ((r == 1 || r == -1) && (*x == 1 || *x == -1)) {
      r = (*x == -1 && (*y % 2)) ? -1 : 1;
      break;
    }
  }
  return DimExpr(r);
}

namespace {

// The value of a constant expression with at least one `**` in it (numbers, static dims, constant bindings,
// + - * / // % **, unary minus), or nullopt: not constant, or an error the ordinary path reports.
using ShapeFn = std::function<std::optional<Num>(const Expr&)>;

std::optional<Num> const_value(const Expr& e, const Program& p, const Frame& f, bool& has_pow, const ShapeFn& shape) {
  switch (e.kind) {
    case Expr::Kind::Subscript: return shape(e);  // `x.shape[i]` of a static extent
    case Expr::Kind::Number: return Num{e.is_int ? double(e.ival) : e.number, e.is_int};
    case Expr::Kind::Name: {
      if (e.quoted) return std::nullopt;
      if (const DimDecl* d = p.find_dim(e.name)) {
        if (d->dynamic) return std::nullopt;
        return Num{double(d->value), true};
      }
      if (auto it = f.consts.find(e.name); it != f.consts.end()) return Num{double(it->second), true};
      if (auto it = f.float_consts.find(e.name); it != f.float_consts.end()) return Num{it->second, false};
      return std::nullopt;
    }
    case Expr::Kind::Neg: {
      auto a = const_value(*e.items[0], p, f, has_pow, shape);
      if (!a) return std::nullopt;
      return Num{-a->v, a->is_int};
    }
    case Expr::Kind::Binary: {
      auto a = const_value(*e.items[0], p, f, has_pow, shape);
      auto b = const_value(*e.items[1], p, f, has_pow, shape);
      if (!a || !b) return std::nullopt;
      const bool ints = a->is_int && b->is_int;
      if (e.op == "+") return Num{a->v + b->v, ints};
      if (e.op == "-") return Num{a->v - b->v, ints};
      if (e.op == "*") return Num{a->v * b->v, ints};
      if (e.op == "**") {
        has_pow = true;
        std::string why;
        return py_pow(*a, *b, why);
      }
      if (b->v == 0) return std::nullopt;
      if (e.op == "/") return Num{a->v / b->v, false};
      if (e.op == "//") return Num{std::floor(a->v / b->v), ints};
      if (e.op == "%") {
        const double m = std::fmod(a->v, b->v);
        return Num{(m != 0 && ((m < 0) != (b->v < 0))) ? m + b->v : m, ints};
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

}  // namespace

bool Elaborator::surface_fold_stmt(const Stmt& s) {
  const AssignAst& a = s.assign;
  if (!seq_ || !a.value || a.target.empty() || a.subscript || !a.more_targets.empty()) return false;
  bool has_pow = false;
  // `x.shape[i]` of a tensor or a value bound before, static: a number (anything else is the ordinary path's)
  const ShapeFn shape = [&](const Expr& x) -> std::optional<Num> {
    int64_t i = 0;
    const Expr* base = shape_entry_of(x, i);
    if (!base) return std::nullopt;
    const std::string owner = base->name.substr(0, base->name.rfind('.'));
    const bool known = (names_ && names_->count(owner) && !names_->at(owner).poison) || p_.find_tensor(owner) >= 0;
    if (!known) return std::nullopt;
    auto sh = shape_of_name(*base);
    const int64_t rank = sh ? int64_t(sh->size()) : 0;
    if (!sh || i < -rank || i >= rank) return std::nullopt;
    auto c = (*sh)[size_t(i < 0 ? i + rank : i)].as_const();
    if (!c) return std::nullopt;
    return Num{double(*c), true};
  };
  auto v = const_value(*a.value, p_, seq_->frame, has_pow, shape);
  if (!v || !has_pow) return false;
  // `n_levels = 2 ** (bit - 1)`: the statement binds the folded number (a constant binding, an int when
  // integral by Python's rule), at the expression's place.
  auto n = std::make_shared<Expr>(*a.value);
  n->kind = Expr::Kind::Number;
  n->items.clear();
  n->op.clear();
  n->number = v->v;
  n->is_int = v->is_int && std::fabs(v->v) < 9.2e18;
  n->ival = n->is_int ? int64_t(v->v) : 0;
  n->depth = 1;
  if (v->is_int && !n->is_int) return false;  // past int64: the ordinary path reports it
  Stmt copy = s;
  copy.assign.value = n;
  assign(copy);
  return true;
}

}  // namespace ptoc::fe
