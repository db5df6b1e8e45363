// Composition ops: PyPTO's names and argument orders, written as ops ptoc has (each rounds to the
// input's dtype, as every op does):
//   clone(x)                 x itself (values are immutable: a copy is the same value)
//   isnan(x)                 x != x (bool; false for integers)
//   log10(x)                 log(x) * (1 / ln 10)
//   lrelu(x, negative_slope) where(x > 0, x, x * negative_slope), slope 0.01 by default
//   hypot(x, y)              sqrt(x * x + y * y)
#include "compiler/frontend/elaborate_call.h"

namespace ptoc::fe {

EV Elaborator::call_compose_math(const Call& c) {
  EV a = catalog_input(c);
  if (!a.ok()) return EV::poison();
  const Expr& e = *c.args[0];
  if (c.fn == "clone") return a;
  if (c.fn == "isnan") return binary(OpKind::Ne, a, a, e, e, c.fo, c.fl, c.fn);
  if (c.fn == "log10") {
    if (!check_precision_type(c)) return EV::poison();
    EV l = unary(OpKind::Log, a, e, c.fo, c.fn);
    if (!l.ok()) return EV::poison();
    return binary(OpKind::Mul, l, EV::number(0.43429448190325182765, false), e, e, c.fo, c.fl, c.fn);
  }
  if (c.fn == "lrelu") {
    double slope = 0.01;
    if (const Expr* s = c.args[1]) {
      EV sv = expr(*s);
      if (!sv.ok()) return EV::poison();
      if (!sv.is_scalar()) {
        err(s->off, s->len, "lrelu's negative_slope is a number, got the tensor '" + text_of(*s) + "'");
        return EV::poison();
      }
      slope = sv.scalar;
    }
    EV pos = binary(OpKind::Gt, a, EV::number(0, true), e, e, c.fo, c.fl, c.fn);
    EV neg = binary(OpKind::Mul, a, EV::number(slope, false), e, e, c.fo, c.fl, c.fn);
    if (!pos.ok() || !neg.ok()) return EV::poison();
    return EV::tensor(select3(pos.value, a.value, neg.value, c.fo, c.fl));
  }
  if (c.fn == "hypot") {
    EV b = tensor_arg(c, c.args[1], "its other input");
    if (!b.ok() || !check_nz(b, *c.args[1], c.fn)) return EV::poison();
    if (p_.values[size_t(b.value)].dtype != p_.values[size_t(a.value)].dtype) {
      err(c.args[1]->off, c.args[1]->len, "hypot's inputs must have one dtype, '" + text_of(e) + "' is " +
                                              std::string(dtype_name(p_.values[size_t(a.value)].dtype)) + ", '" +
                                              text_of(*c.args[1]) + "' is " +
                                              std::string(dtype_name(p_.values[size_t(b.value)].dtype)));
      return EV::poison();
    }
    const Expr& f = *c.args[1];
    EV xx = binary(OpKind::Mul, a, a, e, e, c.fo, c.fl, c.fn);
    EV yy = binary(OpKind::Mul, b, b, f, f, c.fo, c.fl, c.fn);
    if (!xx.ok() || !yy.ok()) return EV::poison();
    EV s = binary(OpKind::Add, xx, yy, e, f, c.fo, c.fl, c.fn);
    if (!s.ok()) return EV::poison();
    return unary(OpKind::Sqrt, s, e, c.fo, c.fn);
  }
  err(c.fo, c.fl, "internal: composition op '" + c.fn + "' has no elaboration");
  return EV::poison();
}

}  // namespace ptoc::fe
