// The math ops' front end: PyPTO's dtype rules for the elementwise math ops past the op table's operand rule,
// the folding of two scalar operands, and three compositions written as ops ptoc has:
//   prelu(input, weight)             where(input >= 0, input, input * weight), weight per channel (axis 1)
//   axpy_(y, x, alpha=1.0)           y + x * alpha (y = axpy_(y, x, ...): bound by name, PyPTO updates y
//                                    in place); x fp16 with y fp32 is cast to fp32 first
//   expand_exp_dif(input, other)     exp(input - other), broadcasting
#include <cmath>
#include <string_view>

#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/shape_rules.h"

namespace ptoc::fe {

// PyPTO's PrecisionType of div, fmod, remainder, pow, exp, log, log10, sqrt, rsqrt and reciprocal
// (`pypto.exp(x, precision_type=pypto.PrecisionType.INTRINSIC)`): ptoc computes one result for both modes,
// the one the host kernels and the evaluator give (specs/README.md section 10 says how close to NumPy).
bool Elaborator::check_precision_type(const Call& c) {
  size_t at = 0;
  bool has = false;
  for (std::string_view ps = c.spec.params; !ps.empty(); ++at) {
    const size_t sp = ps.find(' ');
    if (ps.substr(0, sp) == "precision_type") {
      has = true;
      break;
    }
    ps = sp == std::string_view::npos ? std::string_view{} : ps.substr(sp + 1);
  }
  if (has && c.args.size() > at && c.args[at]) {
    const Expr& m = *c.args[at];
    if (m.kind != Expr::Kind::Name || (m.name != "HIGH_PRECISION" && m.name != "INTRINSIC")) {
      err(m.off, m.len, "unknown precision_type '" + text_of(m) + "' of '" + c.fn + "'",
          "PyPTO's PrecisionType: HIGH_PRECISION or INTRINSIC (both give the same result in ptoc)");
      return false;
    }
  }
  return true;
}

bool Elaborator::check_math_operands(const Call& c, const EV& a, const EV* b) {
  if (!c.spec.kind) return true;
  if (!check_precision_type(c)) return false;
  auto is_kind = [](const Call& call, OpKind k) { return *call.spec.kind == k; };
  auto dtype_of = [&](const EV& v) -> std::optional<DType> {
    if (!v.is_tensor()) return std::nullopt;
    return p_.values[size_t(v.value)].dtype;
  };
  const EV* ops[] = {&a, b};
  for (int k = 0; k < 2; ++k) {
    if (!ops[k] || !ops[k]->ok()) continue;
    const auto t = dtype_of(*ops[k]);
    if (!t) continue;
    const Expr& e = *c.args[size_t(k)];
    const std::string dt(dtype_name(*t));
    if (is_kind(c, OpKind::CeilDiv) && *t != DType::int32 && *t != DType::int64) {
      err(c.fo, c.fl, "'ceil_div' takes int32 operands (PyPTO's rule), '" + text_of(e) + "' is " + dt,
          "insert cast(" + text_of(e) + ", int32)");
      return false;
    }
    if (is_kind(c, OpKind::Remainder) && (*t == DType::int8 || *t == DType::uint8)) {
      err(c.fo, c.fl, "'remainder' takes fp32, fp16, bf16 or int32 operands (PyPTO's rule), '" + text_of(e) +
                          "' is " + dt,
          "insert cast(" + text_of(e) + ", int32)");
      return false;
    }
    if (is_kind(c, OpKind::Signbit) && *t == DType::uint8) {
      err(c.fo, c.fl, "'signbit' does not take uint8 operands (PyPTO's rule: they have no sign), '" + text_of(e) +
                          "' is uint8",
          "insert cast(" + text_of(e) + ", int32)");
      return false;
    }
  }
  return true;
}

std::optional<EV> Elaborator::fold_math(OpKind k, const EV& a, const EV& b, int op_off, int op_len,
                                         const std::string& spelling) {
  switch (k) {
    case OpKind::Atan2: case OpKind::Fmod: case OpKind::Remainder: case OpKind::FloorDiv: case OpKind::CeilDiv:
    case OpKind::Gcd: case OpKind::BitwiseLeftShift: case OpKind::BitwiseRightShift: break;
    default: return std::nullopt;
  }
  const bool integer = a.is_int && b.is_int;
  const bool int_only = k == OpKind::CeilDiv || k == OpKind::Gcd || k == OpKind::BitwiseLeftShift ||
                        k == OpKind::BitwiseRightShift;
  if (int_only && !integer) {
    err(op_off, op_len, "'" + spelling + "' takes integers");
    return EV::poison();
  }
  if (integer && b.scalar == 0 && (k == OpKind::FloorDiv || k == OpKind::CeilDiv || k == OpKind::Remainder)) {
    err(op_off, op_len, "division by zero");
    return EV::poison();
  }
  const bool int_result = integer && k != OpKind::Atan2 && k != OpKind::Fmod;
  auto v = scalar_binary_math(k, a.scalar, b.scalar, int_result);
  return EV::number(v ? *v : NAN, int_result);
}

EV Elaborator::call_math_op(const Call& c) {
  const Expr& e0 = *c.args[0];
  const Expr& e1 = *c.args[1];
  if (c.fn == "expand_exp_dif") {
    EV a = catalog_input(c);
    EV b = tensor_arg(c, c.args[1], "its other input");
    if (!a.ok() || !b.ok() || !check_nz(b, e1, c.fn)) return EV::poison();
    EV d = binary(OpKind::Sub, a, b, e0, e1, c.fo, c.fl, c.fn);
    if (!d.ok()) return EV::poison();
    return unary(OpKind::Exp, d, e0, c.fo, c.fn);
  }
  if (c.fn == "prelu") {
    EV a = catalog_input(c);
    EV w = tensor_arg(c, c.args[1], "its weight");
    if (!a.ok() || !w.ok() || !check_nz(w, e1, c.fn)) return EV::poison();
    const Value x = p_.values[size_t(a.value)];
    const Value wv = p_.values[size_t(w.value)];
    if (wv.dtype != x.dtype) {
      err(e1.off, e1.len, "prelu's weight must have the input's dtype " + std::string(dtype_name(x.dtype)) + ", '" +
                              text_of(e1) + "' is " + std::string(dtype_name(wv.dtype)),
          "insert cast(" + text_of(e1) + ", " + std::string(dtype_name(x.dtype)) + ")");
      return EV::poison();
    }
    const DimExpr want = x.shape.size() == 1 ? DimExpr(1) : x.shape[1];
    if (wv.shape.size() != 1 || !simplify(wv.shape[0]).same(simplify(want))) {
      err(e1.off, e1.len, "prelu's weight must be 1-D of " +
                              (x.shape.size() == 1 ? std::string("length 1 for a 1-D input")
                                                   : "the input's axis-1 (channel) length " + want.str()) +
                              ", '" + text_of(e1) + "' has shape " + shape_str(wv.shape),
          "PyPTO's prelu shares one weight per channel (axis 1)");
      return EV::poison();
    }
    int wid = w.value;
    if (x.shape.size() >= 3) {  // [C] -> [C, 1, ...]: broadcasts along axis 1
      Shape sh = wv.shape, va = wv.valid;
      sh.resize(x.shape.size() - 1, DimExpr(1));
      va.resize(x.shape.size() - 1, DimExpr(1));
      wid = reshape_to(w.value, sh, va, c.fo);
    }
    EV pos = binary(OpKind::Ge, a, EV::number(0, true), e0, e0, c.fo, c.fl, c.fn);
    EV neg = binary(OpKind::Mul, a, EV::tensor(wid), e0, e1, c.fo, c.fl, c.fn);
    if (!pos.ok() || !neg.ok()) return EV::poison();
    return EV::tensor(select3(pos.value, a.value, neg.value, c.fo, c.fl));
  }
  if (c.fn == "axpy_") {
    EV y = tensor_arg(c, c.args[0], "its y");
    EV x = tensor_arg(c, c.args[1], "its x");
    if (!y.ok() || !x.ok() || !check_nz(y, e0, c.fn) || !check_nz(x, e1, c.fn)) return EV::poison();
    const Value yv = p_.values[size_t(y.value)];
    const Value xv = p_.values[size_t(x.value)];
    const bool mixed = yv.dtype == DType::fp32 && xv.dtype == DType::fp16;
    if ((yv.dtype != DType::fp32 && yv.dtype != DType::fp16) || (xv.dtype != yv.dtype && !mixed)) {
      err(c.fo, c.fl, "axpy_ takes fp32 + fp32, fp16 + fp16 or fp32 y + fp16 x (PyPTO's rule), '" + text_of(e0) +
                          "' is " + std::string(dtype_name(yv.dtype)) + " and '" + text_of(e1) + "' is " +
                          std::string(dtype_name(xv.dtype)),
          "insert cast(..., fp32) on both");
      return EV::poison();
    }
    if (xv.shape.size() != yv.shape.size()) {
      err(e1.off, e1.len, "axpy_'s x must have y's rank " + std::to_string(yv.shape.size()) + ", '" + text_of(e1) +
                              "' has shape " + shape_str(xv.shape));
      return EV::poison();
    }
    for (size_t d = 0; d < yv.shape.size(); ++d) {
      const DimExpr xd = simplify(xv.shape[d]), yd = simplify(yv.shape[d]);
      if (xd.same(yd) || xd.same(DimExpr(1))) continue;
      err(e1.off, e1.len, "axpy_'s x must broadcast to y's shape " + shape_str(yv.shape) + " (y does not broadcast), '" +
                              text_of(e1) + "' has shape " + shape_str(xv.shape) + " (axis " + std::to_string(d) + ")",
          "x's axes are y's or 1");
      return EV::poison();
    }
    double alpha = 1.0;
    if (const Expr* s = c.args[2]) {
      EV sv = expr(*s);
      if (!sv.ok()) return EV::poison();
      if (!sv.is_scalar()) {
        err(s->off, s->len, "axpy_'s alpha is a number, got the tensor '" + text_of(*s) + "'");
        return EV::poison();
      }
      alpha = sv.scalar;
    }
    EV xs = x;
    if (mixed) {
      Op cv;
      cv.kind = OpKind::Cast;
      cv.inputs = {x.value};
      cv.dtype = DType::fp32;
      xs = EV::tensor(emit(cv, DType::fp32, xv.shape, xv.valid, c.fo, c.fl));
    }
    if (alpha != 1.0) xs = binary(OpKind::Mul, xs, EV::number(alpha, false), e1, e1, c.fo, c.fl, c.fn);
    if (!xs.ok()) return EV::poison();
    return binary(OpKind::Add, y, xs, e0, e1, c.fo, c.fl, c.fn);
  }
  err(c.fo, c.fl, "internal: math op '" + c.fn + "' has no elaboration");
  return EV::poison();
}

}  // namespace ptoc::fe
