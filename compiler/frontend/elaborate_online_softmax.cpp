// PyPTO's experimental online softmax for flash attention, written as existing ops so that
// a port of a FlashAttention loop is a transliteration (docs/zh/api/operation/
// pypto-experimental-online_softmax*.md). Statistics run along axis 0 (scores are [k_len, q_len]):
//   exp_bf16, m, l = online_softmax(scores, scale)
//       s = scores * scale; m = amax(s, 0, keepdim); e = exp(s - m); l = sum(e, 0, keepdim);
//       exp_bf16 = cast(e, bf16)   (l sums the fp32 exponentials, before the bf16 rounding)
//   m', l', o' = online_softmax_update(pm, pl, po, cm, cl, co)
//       m' = maximum(pm, cm); a = exp(pm - m'); b = exp(cm - m'); l' = a * pl + b * cl;
//       o' = a * po + b * co   ([1, q] factors broadcast over [head_dim, q])
// A state initialised to -inf (full([1, q], -inf, fp32)) merges with any block whose column max is
// finite (its factor is exp(-inf) = 0); two -inf maxima give NaN, as the formula does.
#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {
const char* const kOsUsage = "e, m, l = online_softmax(scores, scale): scores fp32 [k_len, q_len]";
const char* const kOsuUsage =
    "m, l, o = online_softmax_update(previous_max, previous_sum, previous_output, current_max, current_sum, "
    "current_output)";
}  // namespace

// A tensor argument of the online softmax: fp32, rank 2, ND (PyPTO: DT_FP32, two dims).
EV Elaborator::online_softmax_arg(const Call& c, size_t k) {
  const Expr& x = *c.args[k];
  EV a = tensor_arg(c, &x, c.names[k]);
  if (!a.ok() || !check_nz(a, x, c.fn)) return EV::poison();
  const Value& v = p_.values[size_t(a.value)];
  if (v.dtype != DType::fp32) {
    err(x.off, x.len, "'" + c.fn + "' takes fp32 tensors (PyPTO's rule); " + c.names[k] + " '" + text_of(x) +
                          "' is " + std::string(dtype_name(v.dtype)),
        "insert cast(" + text_of(x) + ", fp32)");
    return EV::poison();
  }
  if (v.shape.size() != 2) {
    err(x.off, x.len, "'" + c.fn + "' takes rank-2 tensors; " + c.names[k] + " '" + text_of(x) + "' has shape " +
                          shape_str(v.shape),
        k == 0 && c.fn == "online_softmax" ? std::string(kOsUsage) : std::string(kOsuUsage));
    return EV::poison();
  }
  return a;
}

EV Elaborator::call_online_softmax(const Call& c) {
  if (!c.two_targets) {
    err(c.fo, c.fl, "'online_softmax' has three results (exp_scores, column_max, column_sum)",
        "bind all three: 'e, m, l = online_softmax(scores, scale)'");
    return EV::poison();
  }
  EV s = online_softmax_arg(c, 0);
  if (!s.ok()) return EV::poison();
  EV sc = expr(*c.args[1]);
  if (!sc.ok()) return EV::poison();
  if (!sc.is_scalar()) {
    err(c.args[1]->off, c.args[1]->len, "online_softmax scale is a number, got the tensor '" + text_of(*c.args[1]) +
                                            "'",
        "PyPTO: a float such as 1.0 / sqrt(head_dim)");
    return EV::poison();
  }
  const Expr& e = c.e;
  EV x = sc.scalar == 1.0 ? s : binary(OpKind::Mul, s, EV::number(sc.scalar, false), e, e, c.fo, c.fl, c.fn);
  if (!x.ok()) return EV::poison();
  EV m = EV::tensor(reduce_keepdim(OpKind::Amax, x.value, 0, c.fo, c.fl));
  EV ex = unary(OpKind::Exp, binary(OpKind::Sub, x, m, e, e, c.fo, c.fl, c.fn), e, c.fo, c.fn);
  if (!ex.ok()) return EV::poison();
  EV l = EV::tensor(reduce_keepdim(OpKind::Sum, ex.value, 0, c.fo, c.fl));
  const Value exv = p_.values[size_t(ex.value)];
  Op cb;
  cb.kind = OpKind::Cast;
  cb.inputs = {ex.value};
  cb.dtype = DType::bf16;
  EV out = EV::tensor(emit(cb, DType::bf16, exv.shape, exv.valid, c.fo, c.fl));
  out.value2 = m.value;
  out.value3 = l.value;
  return out;
}

EV Elaborator::call_online_softmax_update(const Call& c) {
  if (!c.two_targets) {
    err(c.fo, c.fl, "'online_softmax_update' has three results (updated_max, updated_sum, updated_output)",
        "bind all three: 'm, l, o = online_softmax_update(...)'");
    return EV::poison();
  }
  EV in[6];
  for (size_t k = 0; k < 6; ++k) {
    in[k] = online_softmax_arg(c, k);
    if (!in[k].ok()) return EV::poison();
  }
  const Value& po = p_.values[size_t(in[2].value)];
  const Shape stat = {DimExpr(1), po.shape[1]};
  for (size_t k = 0; k < 6; ++k) {
    const bool is_out = k == 2 || k == 5;
    const Value& v = p_.values[size_t(in[k].value)];
    const Shape& want = is_out ? po.shape : stat;
    if (!provably_equal(v.shape[0], want[0]) || !provably_equal(v.shape[1], want[1])) {
      err(c.args[k]->off, c.args[k]->len, "online_softmax_update " + c.names[k] + " must have shape " +
                                              shape_str(want) + " (" + (is_out ? "previous_output's" : "[1, q_len]") +
                                              "), '" + text_of(*c.args[k]) + "' has " + shape_str(v.shape),
          "the statistics are [1, q_len] and the outputs [head_dim, q_len]");
      return EV::poison();
    }
  }
  const Expr& e = c.e;
  EV m = binary(OpKind::Maximum, in[0], in[3], *c.args[0], *c.args[3], c.fo, c.fl, c.fn);
  auto factor = [&](const EV& old_max, const Expr& at) -> EV {
    return unary(OpKind::Exp, binary(OpKind::Sub, old_max, m, at, e, c.fo, c.fl, c.fn), at, c.fo, c.fn);
  };
  EV a = factor(in[0], *c.args[0]);
  EV b = factor(in[3], *c.args[3]);
  EV l = binary(OpKind::Add, binary(OpKind::Mul, a, in[1], e, *c.args[1], c.fo, c.fl, c.fn),
                binary(OpKind::Mul, b, in[4], e, *c.args[4], c.fo, c.fl, c.fn), e, e, c.fo, c.fl, c.fn);
  EV o = binary(OpKind::Add, binary(OpKind::Mul, in[2], a, *c.args[2], e, c.fo, c.fl, c.fn),
                binary(OpKind::Mul, in[5], b, *c.args[5], e, c.fo, c.fl, c.fn), e, e, c.fo, c.fl, c.fn);
  if (!m.ok() || !l.ok() || !o.ok()) return EV::poison();
  EV out = m;
  out.value2 = l.value;
  out.value3 = o.value;
  return out;
}

}  // namespace ptoc::fe
