// PyPTO's composition ops: operations of PyPTO's catalogue that are exactly
// a few existing ops, written as those ops here so that the evaluator, the
// tiling, the leaf programs and the machine model need nothing new.
//   zeros / ones      -> full
//   unsqueeze         -> reshape (a size-1 axis)
//   expand_clone      -> where(true, x, x) at the target shape (bit-exact for every dtype)
//   permute           -> transposes (one per misplaced axis)
//   softmax           -> PyPTO's operator.py: cast fp32, amax, sub, exp, sum, div, cast back
//   rms_norm          -> PyPTO's operator.py: cast fp32, sum(x*x*(1/n)), + eps, sqrt, div, * gamma, cast back
#include <algorithm>
#include <cmath>

#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/elaborator.h"
#include "compiler/frontend/suggest.h"

namespace ptoc::fe {

EV Elaborator::call_composite(const Call& c) {
  if (c.fn == "clip") return call_clip(c);
  if (c.fn == "var") return call_var(c);
  if (c.fn == "unsqueeze") return call_unsqueeze(c);
  if (c.fn == "expand_clone") return call_expand_clone(c);
  if (c.fn == "permute") return call_permute(c);
  if (c.fn == "softmax") return call_softmax(c);
  if (c.fn == "rms_norm") return call_rms_norm(c);
  err(c.fo, c.fl, "internal: composite op '" + c.fn + "' has no elaboration");
  return EV::poison();
}

int Elaborator::reduce_keepdim(OpKind k, int value, int axis, int loc_off, int loc_len) {
  const Value in = p_.values[size_t(value)];
  Op op;
  op.kind = k;
  op.inputs = {value};
  op.axes = {axis};
  op.keepdim = true;
  Shape sh = in.shape, va = in.valid;
  sh[size_t(axis)] = DimExpr(1);
  va[size_t(axis)] = DimExpr(1);
  return emit(op, in.dtype, sh, va, loc_off, loc_len);
}

// zeros(*size, dtype=fp32), ones(...): sizes are several dim expressions or one list; PyPTO reads a
// positional dtype as a size, so a dtype must be the keyword.
EV Elaborator::call_zeros_ones(const Expr& e, const OpSpec& spec) {
  const std::string& fn = e.name;
  const int fo = e.op_off, fl = int(fn.size());
  const Expr* dt_arg = nullptr;
  std::vector<const Expr*> sizes;
  for (const auto& a : e.args) {
    if (a.name.empty()) {
      sizes.push_back(a.value.get());
      continue;
    }
    if (a.name != "dtype") {
      std::string hint = did_you_mean(a.name, {"dtype"});
      err(a.name_off, int(a.name.size()), "unknown argument '" + a.name + "' to '" + fn + "'",
          hint.empty() ? fn + " takes sizes and dtype=" : hint);
      return EV::poison();
    }
    if (dt_arg) {
      err(a.name_off, int(a.name.size()), "argument 'dtype' of '" + fn + "' given twice");
      return EV::poison();
    }
    dt_arg = a.value.get();
  }
  if (sizes.empty()) {
    err(fo, e.len, "'" + fn + "' needs a size", "write " + fn + "(16, 64) or " + fn + "([16, 64], dtype=fp16)");
    return EV::poison();
  }
  Shape sh;
  if (sizes.size() == 1 && sizes[0]->kind == Expr::Kind::List) {
    auto l = list_arg(sizes[0], std::string(fn) + " size");
    if (!l) return EV::poison();
    sh = *l;
  } else {
    for (const Expr* s : sizes) {
      if (s->kind == Expr::Kind::Name && parse_dtype(s->name)) {
        err(s->off, s->len, "a dtype given by position to '" + fn + "' would be a size (as in PyPTO)",
            "write dtype=" + s->name);
        return EV::poison();
      }
      if (s->kind == Expr::Kind::List) {
        err(s->off, s->len, "'" + fn + "' takes either sizes or one list of sizes", "write " + fn + "(" +
                                                                                        text_of(*s) + ")");
        return EV::poison();
      }
      auto d = dim(*s, DimUse::Loop);
      if (!d) return EV::poison();
      DimExpr sd = simplify(*d);
      if (auto k = sd.as_const(); k && *k <= 0) {
        err(s->off, s->len, std::string(fn) + " sizes must be positive, got " + std::to_string(*k));
        return EV::poison();
      }
      sh.push_back(sd);
    }
  }
  if (sh.empty() || sh.size() > 4) {
    err(fo, e.len, "'" + fn + "' needs a shape of rank 1 to 4, got rank " + std::to_string(sh.size()));
    return EV::poison();
  }
  auto dt = dtype_arg(dt_arg, DType::fp32);
  if (!dt) return EV::poison();
  // PyPTO: DT_FP32, DT_INT32, DT_INT16, DT_FP16, DT_BF16 (ptoc has no int16).
  if (*dt != DType::fp32 && *dt != DType::fp16 && *dt != DType::bf16 && *dt != DType::int32) {
    err(dt_arg->off, dt_arg->len, "'" + fn + "' makes fp32, fp16, bf16 or int32 tensors (PyPTO's list), not " +
                                      std::string(dtype_name(*dt)),
        "write full([...], " + std::string(fn == "zeros" ? "0" : "1") + ", " + std::string(dtype_name(*dt)) + ")");
    return EV::poison();
  }
  (void)spec;
  Op op;
  op.kind = OpKind::Full;
  op.shape = sh;
  op.fill = fn == "zeros" ? 0.0 : 1.0;
  op.dtype = *dt;
  return EV::tensor(emit(op, *dt, sh, sh, fo, fl));
}

// unsqueeze(input, dim): a size-1 axis at dim, in -rank-1..rank.
EV Elaborator::call_unsqueeze(const Call& c) {
  EV a = tensor_arg(c, c.args[0], "its input");
  if (!a.ok() || !check_nz(a, *c.args[0], c.fn)) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  if (x.shape.size() >= 4) {
    err(c.fo, c.fl, "unsqueeze of a rank-" + std::to_string(x.shape.size()) + " value would be rank " +
                        std::to_string(x.shape.size() + 1) + "; ranks 1 to 4 are supported");
    return EV::poison();
  }
  auto ax = axis_arg(c.args[1], x.shape.size() + 1, "dim");
  if (!ax) return EV::poison();
  Shape sh = x.shape, va = x.valid;
  sh.insert(sh.begin() + *ax, DimExpr(1));
  va.insert(va.begin() + *ax, DimExpr(1));
  return EV::tensor(reshape_to(a.value, sh, va, c.fo));
}

// expand_clone(input, shape, valid_shape=None): size-1 axes of input stretch to shape (same rank; the
// other axes equal). Written where(full(shape, true), x, x): the select copies x's bits, -0.0 and NaN too.
EV Elaborator::call_expand_clone(const Call& c) {
  EV a = tensor_arg(c, c.args[0], "its input");
  auto sh = list_arg(c.args[1], "expand_clone shape");
  std::optional<Shape> given_valid;
  if (c.args[2]) {
    given_valid = list_arg(c.args[2], "expand_clone valid_shape");
    if (!given_valid) return EV::poison();
  }
  if (!a.ok() || !sh || !check_nz(a, *c.args[0], c.fn)) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  if (sh->size() != x.shape.size()) {
    err(c.args[1]->off, c.args[1]->len, "expand_clone shape has " + std::to_string(sh->size()) +
                                            " entries but the input has rank " + std::to_string(x.shape.size()),
        "give one entry per axis of " + shape_str(x.shape) + "; use unsqueeze first to add axes");
    return EV::poison();
  }
  for (size_t i = 0; i < sh->size(); ++i) {
    if (x.shape[i].as_const() == 1 || provably_equal(x.shape[i], (*sh)[i])) continue;
    const Expr& it = *c.args[1]->items[i];
    err(it.off, it.len, "expand_clone can only stretch size-1 axes: axis " + std::to_string(i) + " of '" +
                            text_of(*c.args[0]) + "' has " + x.shape[i].str() + ", the target " + (*sh)[i].str(),
        "the target must equal the input's extent on every axis that is not 1");
    return EV::poison();
  }
  if (given_valid && given_valid->size() != sh->size()) {
    err(c.args[2]->off, c.args[2]->len, "expand_clone valid_shape needs " + std::to_string(sh->size()) + " entries");
    return EV::poison();
  }
  Op f;
  f.kind = OpKind::Full;
  f.shape = *sh;
  f.fill = 1;
  f.dtype = DType::boolean;
  const int cond = emit(f, DType::boolean, *sh, *sh, c.fo, c.fl);
  Broadcast bc = broadcast(*sh, *sh, x.shape, x.valid);
  Op w;
  w.kind = OpKind::Where;
  w.inputs = {cond, a.value, a.value};
  int out = emit(w, x.dtype, bc.shape, bc.valid, c.fo, c.fl);
  if (!given_valid) return EV::tensor(out);
  for (size_t i = 0; i < sh->size(); ++i) {
    auto d = const_difference((*given_valid)[i], (*sh)[i]);
    if (d && *d > 0) {
      const Expr& it = *c.args[2]->items[i];
      err(it.off, it.len, "expand_clone valid_shape exceeds the shape on axis " + std::to_string(i));
      return EV::poison();
    }
  }
  Op v;
  v.kind = OpKind::View;
  v.inputs = {out};
  v.shape = *sh;
  v.offsets.assign(sh->size(), DimExpr(0));
  v.valid = *given_valid;
  return EV::tensor(emit(v, x.dtype, *sh, *given_valid, c.fo, c.fl));
}

// permute(input, perm): result axis i is input axis perm[i]. An identity returns the input (PyPTO
// returns self); otherwise one transpose per axis not yet in place, left to right.
EV Elaborator::call_permute(const Call& c) {
  EV a = tensor_arg(c, c.args[0], "its input");
  if (!a.ok() || !check_nz(a, *c.args[0], c.fn)) return EV::poison();
  const size_t rank = p_.values[size_t(a.value)].shape.size();
  const Expr* pl = c.args[1];
  if (pl->kind != Expr::Kind::List) {
    err(pl->off, pl->len, "permute perm must be a list such as [1, 0], got '" + text_of(*pl) + "'");
    return EV::poison();
  }
  if (pl->items.size() != rank) {
    err(pl->off, pl->len, "permute perm has " + std::to_string(pl->items.size()) + " entries but '" +
                              text_of(*c.args[0]) + "' has rank " + std::to_string(rank),
        "list every axis once, e.g. [" + std::string(rank == 3 ? "0, 2, 1" : rank == 4 ? "0, 2, 1, 3" : "1, 0") + "]");
    return EV::poison();
  }
  std::vector<int> perm;
  std::vector<bool> seen(rank, false);
  for (const auto& it : pl->items) {
    auto ax = axis_arg(it.get(), rank, "permute entry");
    if (!ax) return EV::poison();
    if (seen[size_t(*ax)]) {
      err(it->off, it->len, "permute lists axis " + std::to_string(*ax) + " twice", "perm must be a permutation of 0.." +
                                                                                       std::to_string(rank - 1));
      return EV::poison();
    }
    seen[size_t(*ax)] = true;
    perm.push_back(*ax);
  }
  std::vector<int> cur(rank);  // cur[j]: the input axis now at position j
  for (size_t j = 0; j < rank; ++j) cur[j] = int(j);
  int v = a.value;
  for (size_t i = 0; i < rank; ++i) {
    size_t j = size_t(std::find(cur.begin(), cur.end(), perm[i]) - cur.begin());
    if (j == i) continue;
    const Value x = p_.values[size_t(v)];
    Shape sh = x.shape, va = x.valid;
    std::swap(sh[i], sh[j]);
    std::swap(va[i], va[j]);
    std::swap(cur[i], cur[j]);
    Op op;
    op.kind = OpKind::Transpose;
    op.inputs = {v};
    op.axes = {int(i), int(j)};
    v = emit(op, x.dtype, sh, va, c.fo, c.fl);
  }
  return EV::tensor(v);
}

// softmax(input, dim), as PyPTO's operator.py: in fp32, exp(x - amax) / sum, cast back.
EV Elaborator::call_softmax(const Call& c) {
  EV a = tensor_arg(c, c.args[0], "its input");
  if (!a.ok() || !check_nz(a, *c.args[0], c.fn)) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  if (!check_operand_dtype(c.spec, x.dtype, *c.args[0], c.fo, c.fl, c.fn)) return EV::poison();
  auto ax = axis_arg(c.args[1], x.shape.size(), "dim");
  if (!ax) return EV::poison();
  const Expr& e = *c.args[0];
  int xf = a.value;
  if (x.dtype != DType::fp32) {
    Op cv;
    cv.kind = OpKind::Cast;
    cv.inputs = {a.value};
    cv.dtype = DType::fp32;
    xf = emit(cv, DType::fp32, x.shape, x.valid, c.fo, c.fl);
  }
  EV m = EV::tensor(reduce_keepdim(OpKind::Amax, xf, *ax, c.fo, c.fl));
  EV d = binary(OpKind::Sub, EV::tensor(xf), m, e, e, c.fo, c.fl, c.fn);
  EV ex = unary(OpKind::Exp, d, e, c.fo, c.fn);
  if (!ex.ok()) return EV::poison();
  EV s = EV::tensor(reduce_keepdim(OpKind::Sum, ex.value, *ax, c.fo, c.fl));
  EV y = binary(OpKind::Div, ex, s, e, e, c.fo, c.fl, c.fn);
  if (!y.ok() || x.dtype == DType::fp32) return y;
  const Value& yv = p_.values[size_t(y.value)];
  Op cb;
  cb.kind = OpKind::Cast;
  cb.inputs = {y.value};
  cb.dtype = x.dtype;
  return EV::tensor(emit(cb, x.dtype, yv.shape, yv.valid, c.fo, c.fl));
}

// rms_norm(input, gamma=None, epsilon=1e-6) over the last axis, as PyPTO's operator.py:
// x = cast(input, fp32); r = sqrt(sum(x * x * (1 / n), -1, keepdim) + epsilon); y = x / r;
// y = y * cast(reshape(gamma, [1, ..., C]), fp32); cast back. n is the last axis's (static) size.
EV Elaborator::call_rms_norm(const Call& c) {
  EV a = tensor_arg(c, c.args[0], "its input");
  if (!a.ok() || !check_nz(a, *c.args[0], c.fn)) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  if (!check_operand_dtype(c.spec, x.dtype, *c.args[0], c.fo, c.fl, c.fn)) return EV::poison();
  const size_t rank = x.shape.size();
  const int last = int(rank) - 1;
  auto n = x.shape.back().as_const();
  if (!n) {
    err(c.fo, c.fl, "rms_norm needs a static last axis, '" + text_of(*c.args[0]) + "' has " + x.shape.back().str(),
        "PyPTO normalises over x.shape[-1], a compile-time size");
    return EV::poison();
  }
  double eps = 1e-6;
  if (c.args[2]) {
    EV ev = expr(*c.args[2]);
    if (!ev.ok()) return EV::poison();
    if (!ev.is_scalar() || !(ev.scalar >= 0) || !std::isfinite(ev.scalar)) {
      err(c.args[2]->off, c.args[2]->len, "rms_norm epsilon must be a finite number >= 0, got '" +
                                              text_of(*c.args[2]) + "'");
      return EV::poison();
    }
    eps = ev.scalar;
  }
  std::optional<EV> g;
  if (c.args[1]) {
    EV gv = tensor_arg(c, c.args[1], "its gamma");
    if (!gv.ok() || !check_nz(gv, *c.args[1], c.fn)) return EV::poison();
    const Value gx = p_.values[size_t(gv.value)];
    if (gx.shape.size() != 1 || !provably_equal(gx.shape[0], x.shape.back())) {
      err(c.args[1]->off, c.args[1]->len, "rms_norm gamma must have shape [" + x.shape.back().str() + "], '" +
                                              text_of(*c.args[1]) + "' has " + shape_str(gx.shape),
          "gamma scales the last axis of the input, one entry per element");
      return EV::poison();
    }
    if (!dtype_is_float(gx.dtype)) {
      err(c.args[1]->off, c.args[1]->len, "rms_norm gamma must be a float tensor, '" + text_of(*c.args[1]) + "' is " +
                                              std::string(dtype_name(gx.dtype)),
          "insert cast(" + text_of(*c.args[1]) + ", fp32)");
      return EV::poison();
    }
    g = gv;
  }
  const Expr& e = *c.args[0];
  auto to_fp32 = [&](int v) {
    const Value& in = p_.values[size_t(v)];
    if (in.dtype == DType::fp32) return v;
    Op cv;
    cv.kind = OpKind::Cast;
    cv.inputs = {v};
    cv.dtype = DType::fp32;
    return emit(cv, DType::fp32, in.shape, in.valid, c.fo, c.fl);
  };
  EV xf = EV::tensor(to_fp32(a.value));
  EV sq = binary(OpKind::Mul, xf, xf, e, e, c.fo, c.fl, c.fn);
  EV sc = binary(OpKind::Mul, sq, EV::number(1.0 / double(*n), false), e, e, c.fo, c.fl, c.fn);
  if (!sc.ok()) return EV::poison();
  EV s = EV::tensor(reduce_keepdim(OpKind::Sum, sc.value, last, c.fo, c.fl));
  EV se = binary(OpKind::Add, s, EV::number(eps, false), e, e, c.fo, c.fl, c.fn);
  EV r = unary(OpKind::Sqrt, se, e, c.fo, c.fn);
  EV y = binary(OpKind::Div, xf, r, e, e, c.fo, c.fl, c.fn);
  if (!y.ok()) return EV::poison();
  if (g) {
    const Value gx = p_.values[size_t(g->value)];
    Shape gs(rank, DimExpr(1)), gva(rank, DimExpr(1));
    gs.back() = gx.shape[0];
    gva.back() = gx.valid[0];
    EV gr = EV::tensor(to_fp32(reshape_to(g->value, gs, gva, c.fo)));
    y = binary(OpKind::Mul, y, gr, e, *c.args[1], c.fo, c.fl, c.fn);
    if (!y.ok()) return EV::poison();
  }
  if (x.dtype == DType::fp32) return y;
  const Value& yv = p_.values[size_t(y.value)];
  Op cb;
  cb.kind = OpKind::Cast;
  cb.inputs = {y.value};
  cb.dtype = x.dtype;
  return EV::tensor(emit(cb, x.dtype, yv.shape, yv.valid, c.fo, c.fl));
}

}  // namespace ptoc::fe
