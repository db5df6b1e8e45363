// PyPTO's composition ops: operations of PyPTO's catalogue that are exactly
// a few existing ops, written as those ops here so that the evaluator, the
// tiling, the leaf programs and the machine model need nothing new.
//   zeros / ones      -> full
//   unsqueeze         -> reshape (a size-1 axis)
//   expand_clone      -> where(true, x, x) at the target shape (bit-exact for every dtype)
//   permute           -> transposes (one per misplaced axis)
//   softmax           -> PyPTO's operator.py: cast fp32, amax, sub, exp, sum, div, cast back
//   rms_norm          -> PyPTO's operator.py: cast fp32, sum(x*x*(1/n)), + eps, sqrt, div, * gamma, cast back
//   arange, tril, triu, one_hot -> an index ramp (iota: full 0, then concat([v, v + len]) doublings)
//                        with comparisons and where
//   cumsum, cumprod   -> a log-step (Hillis-Steele) scan: y = y + concat([identity, y[..:n-s]]) for
//                        s = 1, 2, 4, ...; whole values, so tiles, tails and split axes need nothing new
//   topk, argsort     -> native row sorts (SortValues / SortIndices): per tile of the sorted axis, then a
//                        merge of the candidates (elaborate_topk_tiles.cpp); ties to the lower index
#include <algorithm>
#include <cmath>

#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/elaborate_structural_ops.h"
#include "compiler/frontend/elaborate_conv_im2col.h"
#include "compiler/frontend/elaborate_topk_tiles.h"
#include "compiler/frontend/elaborator.h"
#include "compiler/frontend/suggest.h"

namespace ptoc::fe {

// The first argument of an index op or scan: a tensor in ND layout whose dtype the op's row accepts
// (each check reports its own located error).
EV Elaborator::catalog_input(const Call& c) {
  EV a = tensor_arg(c, c.args[0], "its input");
  if (!a.ok() || !check_nz(a, *c.args[0], c.fn)) return EV::poison();
  if (!check_operand_dtype(c.spec, p_.values[size_t(a.value)].dtype, *c.args[0], c.fo, c.fl, c.fn)) return EV::poison();
  return a;
}

EV Elaborator::call_composite(const Call& c) {
  if (c.fn == "clip") return call_clip(c);
  if (c.fn == "var") return call_var(c);
  if (c.fn == "unsqueeze") return call_unsqueeze(c);
  if (c.fn == "expand_clone") return call_expand_clone(c);
  if (c.fn == "permute") return call_permute(c);
  if (c.fn == "softmax") return call_softmax(c);
  if (c.fn == "rms_norm") return call_rms_norm(c);
  if (c.fn == "tril" || c.fn == "triu") return call_tril_triu(c);
  if (c.fn == "arange") return call_arange(c);
  if (c.fn == "one_hot") return call_one_hot(c);
  if (c.fn == "topk") return call_topk(c);
  if (c.fn == "argsort") return call_argsort(c);
  if (c.fn == "cumsum" || c.fn == "cumprod") return call_scan(c);
  if (c.fn == "online_softmax") return call_online_softmax(c);  // elaborate_online_softmax.cpp
  if (c.fn == "online_softmax_update") return call_online_softmax_update(c);
  if (c.fn == "pad") return call_pad(c);  // elaborate_pad.cpp
  if (c.fn == "fillpad") return call_fillpad(c);
  if (c.fn == "gather") return call_gather(c);  // elaborate_gather.cpp
  if (c.fn == "index_add" || c.fn == "index_add_") return call_index_add(c);
  if (c.fn == "index_put_") return call_index_put(c);
  if (c.fn == "scatter" || c.fn == "scatter_") return call_scatter(c);
  if (c.fn == "scatter_update") return call_scatter_update(c);  // elaborate_scatter_update.cpp
  if (c.fn == "clone" || c.fn == "isnan" || c.fn == "log10" || c.fn == "lrelu" || c.fn == "hypot")
    return call_compose_math(c);  // elaborate_compose_math.cpp
  if (c.fn == "quantize" || c.fn == "dequantize" || c.fn == "scaled_mm") return call_quant(c);  // elaborate_quant.cpp
  if (is_structural_op(c.fn)) return call_structural(*this, c);  // elaborate_structural_ops.cpp
  if (c.fn == "prelu" || c.fn == "axpy_" || c.fn == "expand_exp_dif") return call_math_op(c);  // elaborate_math_ops.cpp
  if (is_conv_op(c.fn)) return call_conv(*this, c);  // elaborate_conv_im2col.cpp
  if (c.fn == "uniform" || c.fn == "normal") return call_random(c);  // elaborate_random.cpp --- random ops ---
  if (c.fn == "pack" || c.fn == "unpack") return call_pack_unpack(c);  // elaborate_pack.cpp
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
  // PyPTO: DT_FP32, DT_INT32, DT_INT16, DT_FP16, DT_BF16.
  if (*dt != DType::fp32 && *dt != DType::fp16 && *dt != DType::bf16 && *dt != DType::int32 && *dt != DType::int16) {
    err(dt_arg->off, dt_arg->len, "'" + fn + "' makes fp32, fp16, bf16, int32 or int16 tensors (PyPTO's list), not " +
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
  EV a = catalog_input(c);
  if (!a.ok()) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
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
  EV a = catalog_input(c);
  if (!a.ok()) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
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

// --- index ops -------------------------------------------------------------------

int Elaborator::iota(int axis, int64_t n, size_t rank, DType dt, const Expr& at, int loc_off, int loc_len) {
  Op f;
  f.kind = OpKind::Full;
  f.shape.assign(rank, DimExpr(1));
  f.fill = 0;
  f.dtype = dt;
  int v = emit(f, dt, f.shape, f.shape, loc_off, loc_len);
  int64_t len = 1;
  while (len < n) {
    EV hi = binary(OpKind::Add, EV::tensor(v), EV::number(double(len), true), at, at, loc_off, loc_len, "iota");
    if (!hi.ok()) return -1;
    Shape sh(rank, DimExpr(1));
    sh[size_t(axis)] = DimExpr(2 * len);
    Op cat;
    cat.kind = OpKind::Concat;
    cat.inputs = {v, hi.value};
    cat.axes = {axis};
    v = emit(cat, dt, sh, sh, loc_off, loc_len);
    len *= 2;
  }
  if (len == n) return v;
  Shape sh(rank, DimExpr(1));
  sh[size_t(axis)] = DimExpr(n);
  Op w;
  w.kind = OpKind::View;
  w.inputs = {v};
  w.shape = sh;
  w.offsets.assign(rank, DimExpr(0));
  return emit(w, dt, sh, sh, loc_off, loc_len);
}

// tril(input, diagonal=0) keeps x[..., i, j] with j - i <= diagonal, triu with j - i >= diagonal;
// the rest is 0: where(iota_j - iota_i <= diagonal, x, 0).
EV Elaborator::call_tril_triu(const Call& c) {
  EV a = tensor_arg(c, c.args[0], "its input");
  if (!a.ok() || !check_nz(a, *c.args[0], c.fn)) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  const size_t rank = x.shape.size();
  if (rank < 2) {
    err(c.fo, c.fl, "'" + c.fn + "' needs a value of rank 2 or more, '" + text_of(*c.args[0]) + "' has rank " +
                        std::to_string(rank));
    return EV::poison();
  }
  int64_t diag = 0;
  if (c.args[1]) {
    auto d = const_int(*c.args[1], c.fn + " diagonal");
    if (!d) return EV::poison();
    diag = *d;
  }
  auto m = x.shape[rank - 2].as_const(), n = x.shape[rank - 1].as_const();
  if (!m || !n) {
    err(c.fo, c.fl, "'" + c.fn + "' needs static sizes on the last two axes, '" + text_of(*c.args[0]) + "' has " +
                        shape_str(x.shape),
        "slice a block of static size first");
    return EV::poison();
  }
  const Expr& e = c.e;
  int ri = iota(int(rank) - 2, *m, rank, DType::int32, e, c.fo, c.fl);
  int cj = iota(int(rank) - 1, *n, rank, DType::int32, e, c.fo, c.fl);
  if (ri < 0 || cj < 0) return EV::poison();
  EV d = binary(OpKind::Sub, EV::tensor(cj), EV::tensor(ri), e, e, c.fo, c.fl, c.fn);
  EV keep = binary(c.fn == "tril" ? OpKind::Le : OpKind::Ge, d, EV::number(double(diag), true), e, e, c.fo, c.fl, c.fn);
  if (!keep.ok()) return EV::poison();
  Op z;
  z.kind = OpKind::Full;
  z.shape.assign(rank, DimExpr(1));
  z.fill = 0;
  z.dtype = x.dtype;
  int zero = emit(z, x.dtype, z.shape, z.shape, c.fo, c.fl);
  Broadcast bc = broadcast(x.shape, x.valid, p_.values[size_t(keep.value)].shape, p_.values[size_t(keep.value)].valid);
  Op w;
  w.kind = OpKind::Where;
  w.inputs = {keep.value, a.value, zero};
  return EV::tensor(emit(w, x.dtype, bc.shape, bc.valid, c.fo, c.fl));
}

// arange(end), arange(start, end, step=1): ceil((end - start) / step) elements start + i * step,
// int32 when all three are integers, else fp32 (PyPTO's rule).
EV Elaborator::call_arange(const Call& c) {
  const Expr* se = c.args[0];
  const Expr* ee = c.args[1];
  const Expr* pe = c.args[2];
  if (!ee) {  // arange(end)
    if (pe) {
      err(c.fo, c.fl, "'arange' is missing its argument 'end'", "signature: arange(start=0, end, step=1)");
      return EV::poison();
    }
    ee = se;
    se = nullptr;
  }
  auto scalar = [&](const Expr* x, double dflt, bool& is_int) -> std::optional<double> {
    if (!x) return dflt;
    EV v = expr(*x);
    if (!v.ok()) return std::nullopt;
    if (!v.is_scalar()) {
      err(x->off, x->len, "arange takes numbers, got the tensor '" + text_of(*x) + "'");
      return std::nullopt;
    }
    is_int = is_int && v.is_int;
    return v.scalar;
  };
  bool ints = true;
  auto start = scalar(se, 0, ints), end = scalar(ee, 0, ints), step = scalar(pe, 1, ints);
  if (!start || !end || !step) return EV::poison();
  if (!(std::fabs(*step) > 1e-8)) {
    err(pe->off, pe->len, "arange step must not be 0 (|step| > 1e-8)");
    return EV::poison();
  }
  const double count = std::ceil((*end - *start) / *step);
  if (!(count > 0)) {
    err(c.fo, c.fl, "arange(" + text_of(se ? *se : *ee) + "...) is empty: (end - start) / step must be > 0");
    return EV::poison();
  }
  if (count > 65536) {
    err(c.fo, c.fl, "arange of " + std::to_string(int64_t(count)) + " elements; at most 65536 are supported");
    return EV::poison();
  }
  const DType dt = ints ? DType::int32 : DType::fp32;
  int v = iota(0, int64_t(count), 1, dt, c.e, c.fo, c.fl);
  if (v < 0) return EV::poison();
  EV r = EV::tensor(v);
  if (*step != 1) r = binary(OpKind::Mul, r, EV::number(*step, ints), c.e, c.e, c.fo, c.fl, c.fn);
  if (r.ok() && *start != 0) r = binary(OpKind::Add, r, EV::number(*start, ints), c.e, c.e, c.fo, c.fl, c.fn);
  return r;
}

// one_hot(input, num_classes): [..., C] with 1 where the class equals the element; int32 (PyPTO gives
// int64). Elements outside 0..C-1 give an all-zero row. An int64 input (PyPTO's DT_INT64) is cast to
// int32 saturating, so an element past int32 stays outside 0..C-1 and its row is zero: bit-exact.
EV Elaborator::call_one_hot(const Call& c) {
  EV a = tensor_arg(c, c.args[0], "its input");
  if (!a.ok() || !check_nz(a, *c.args[0], c.fn)) return EV::poison();
  if (p_.values[size_t(a.value)].dtype != DType::int64 &&
      !check_operand_dtype(c.spec, p_.values[size_t(a.value)].dtype, *c.args[0], c.fo, c.fl, c.fn))
    return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  auto nc = const_int(*c.args[1], "num_classes");
  if (!nc) return EV::poison();
  if (*nc < 1 || *nc > 65536) {
    err(c.args[1]->off, c.args[1]->len, "one_hot num_classes must be in 1..65536, got " + std::to_string(*nc));
    return EV::poison();
  }
  if (x.shape.size() >= 4) {
    err(c.fo, c.fl, "one_hot of a rank-" + std::to_string(x.shape.size()) + " value would be rank " +
                        std::to_string(x.shape.size() + 1) + "; ranks 1 to 4 are supported");
    return EV::poison();
  }
  // Compared as [..., C, N] (the input as [..., 1, N] against classes [..., C, 1]), then transposed: a
  // reshape that adds a trailing size-1 axis is miscompiled next to a broadcast partner
  // (test/conformance/failing/reshape_trailing_one*.yaml), a leading one is not.
  const size_t rank = x.shape.size() + 1;
  Shape sh = x.shape, va = x.valid;
  sh.insert(sh.end() - 1, DimExpr(1));
  va.insert(va.end() - 1, DimExpr(1));
  int u = reshape_to(a.value, sh, va, c.fo);
  if (x.dtype == DType::int64) {  // at the output's rank, where the vec_tile applies
    EV s32 = rounded_cast(EV::tensor(u), DType::int32, -1, true, *c.args[0], c.fo, c.fl);
    if (!s32.ok()) return EV::poison();
    u = s32.value;
  } else if (x.dtype != DType::int32) {
    Op cv;
    cv.kind = OpKind::Cast;
    cv.inputs = {u};
    cv.dtype = DType::int32;
    u = emit(cv, DType::int32, sh, va, c.fo, c.fl);
  }
  int io = iota(int(rank) - 2, *nc, rank, DType::int32, c.e, c.fo, c.fl);
  if (io < 0) return EV::poison();
  EV eq = binary(OpKind::Eq, EV::tensor(u), EV::tensor(io), c.e, c.e, c.fo, c.fl, c.fn);
  if (!eq.ok()) return EV::poison();
  const Value ev = p_.values[size_t(eq.value)];
  Op cv;
  cv.kind = OpKind::Cast;
  cv.inputs = {eq.value};
  cv.dtype = DType::int32;
  int ci = emit(cv, DType::int32, ev.shape, ev.valid, c.fo, c.fl);
  Shape ts = ev.shape, tv = ev.valid;
  std::swap(ts[rank - 1], ts[rank - 2]);
  std::swap(tv[rank - 1], tv[rank - 2]);
  Op tr;
  tr.kind = OpKind::Transpose;
  tr.inputs = {ci};
  tr.axes = {int(rank) - 2, int(rank) - 1};
  return EV::tensor(emit(tr, DType::int32, ts, tv, c.fo, c.fl));
}

namespace {
constexpr int64_t kMergeSortTileBytes = 22 * 1024;  // PyPTO's MERGE_SORT bound on TileShape[-1] * 4

// The sorted axis of `x`: static in shape (a run-time length is a view of a static window with
// valid=[..., S]); its valid extent may be smaller or dynamic (positions past it are never selected).
bool sort_axis_ok(Elaborator& el, const Elaborator::Call& c, const Value& x, int axis, const char* fn) {
  if (x.shape[size_t(axis)].as_const()) return true;
  el.err(c.fo, c.fl,
         std::string(fn) + " needs a static extent on its sorted axis " + std::to_string(axis) + ", '" +
             el.text_of(*c.args[0]) + "' has shape " + shape_str(x.shape),
         "sort a static window with a run-time valid length: view(x, [R, MAX], [0, 0], valid=[R, S]) "
         "(PyPTO's view with valid_shape)");
  return false;
}
}  // namespace

// topk(input, k, dim=-1, largest=true) -> (values, int32 indices), sorted, along dim (another axis than
// the last is transposed last and back). Ties: the lower index first (a stable order). Native row sorts
// (elaborate_topk_tiles.cpp): a vec_tile entry below the axis (and >= k, PyPTO's rule) splits it into
// per-tile sorts and a merge. A valid extent below the shape (a tail, or a run-time length) is sorted
// alone; when it is below k the result is padded with -inf (+inf for smallest) and index -1.
EV Elaborator::call_topk(const Call& c) {
  if (!c.two_targets) {
    err(c.fo, c.fl, "'topk' has two results (values, indices)", "bind both: 'v, i = topk(...)'");
    return EV::poison();
  }
  EV a = catalog_input(c);
  if (!a.ok()) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  const size_t rank = x.shape.size();
  const int last = int(rank) - 1;
  int axis = last;
  if (c.args[2]) {
    auto ax = axis_arg(c.args[2], rank, "dim");
    if (!ax) return EV::poison();
    axis = *ax;
  }
  auto largest = bool_arg(c, 3, true);
  auto k = const_int(*c.args[1], "topk k");
  if (!largest || !k) return EV::poison();
  const size_t d = size_t(axis);
  if (!sort_axis_ok(*this, c, x, axis, "topk")) return EV::poison();
  const int64_t n = *x.shape[d].as_const();
  if (*k < 1 || *k > n) {
    err(c.args[1]->off, c.args[1]->len, "topk k must be in 1.." + std::to_string(n) + " (the sorted axis), got " +
                                            std::to_string(*k));
    return EV::poison();
  }
  // PyPTO's MERGE_SORT rules: "k <= TileShape[-1]" and "TileShape[-1]*4 < 22KB".
  int64_t tile = n;
  if (ts_ && ts_->vec && ts_->vec->shape.size() == rank) tile = std::min(tile, ts_->vec->shape[d]);
  if (tile < *k) {
    err(c.args[1]->off, c.args[1]->len, "topk k " + std::to_string(*k) + " is above the vec_tile's entry " +
                                            std::to_string(tile) + " on the sorted axis " + std::to_string(axis),
        "set vec_tile's entry " + std::to_string(axis) + " to at least " + std::to_string(*k) +
            " (PyPTO: k <= TileShape[-1])");
    return EV::poison();
  }
  // A warning, not an error: PyPTO's own lightning indexer sorts in tiles of 8192 (32KB) past its docs' bound.
  if (tile < n && tile * 4 >= kMergeSortTileBytes)
    r_.warning(at(c.fo), "topk over a split axis: the vec_tile's entry " + std::to_string(axis) + " (" +
                             std::to_string(tile) + ") times 4 is not below 22KB, PyPTO's documented MERGE_SORT bound",
               "below " + std::to_string(kMergeSortTileBytes / 4) + " the NPU's merge sort fits its buffers (ptoc sorts either way)",
               c.fl);
  // Bounded before any op is made: one sort per tile and the merge.
  if (!check_select_steps(*this, c, "topk(" + text_of(*c.args[0]) + ", " + std::to_string(*k) + ")", axis, n, *k, tile))
    return EV::poison();
  if (axis != last) {
    // Off the last axis: a transpose around the sort, the tile's entries swapped with it.
    std::optional<VecTile> saved = ts_->vec;
    if (saved && saved->shape.size() == rank) std::swap(ts_->vec->shape[d], ts_->vec->shape[size_t(last)]);
    int xt = swap_axes(a.value, axis, last, c.fo, c.fl);
    auto r = sort_k(*this, c, xt, *k, *largest, tile);
    ts_->vec = saved;
    if (!r) return EV::poison();
    EV out = EV::tensor(swap_axes(r->first, axis, last, c.fo, c.fl));
    out.value2 = swap_axes(r->second, axis, last, c.fo, c.fl);
    return out;
  }
  auto r = sort_k(*this, c, a.value, *k, *largest, tile);
  if (!r) return EV::poison();
  EV out = EV::tensor(r->first);
  out.value2 = r->second;
  return out;
}

// argsort(input, dim=-1, descending=true): int32 indices of a stable sort along dim (PyPTO: "stable
// sort" on ties), one native row sort; the axis static in shape and whole in the vec_tile (its valid
// part sorted, the positions past it -1).
EV Elaborator::call_argsort(const Call& c) {
  EV a = catalog_input(c);
  if (!a.ok()) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  const size_t rank = x.shape.size();
  const int last = int(rank) - 1;
  int axis = last;
  if (c.args[1]) {
    auto ax = axis_arg(c.args[1], rank, "dim");
    if (!ax) return EV::poison();
    axis = *ax;
  }
  auto desc = bool_arg(c, 2, true);
  if (!desc) return EV::poison();
  if (!sort_axis_ok(*this, c, x, axis, "argsort")) return EV::poison();
  const int64_t n = *x.shape[size_t(axis)].as_const();
  if (ts_ && ts_->vec && ts_->vec->shape.size() == rank && ts_->vec->shape[size_t(axis)] < n) {
    err(c.fo, c.fl, "argsort needs axis " + std::to_string(axis) + " whole in the vec_tile: the tile has " +
                        std::to_string(ts_->vec->shape[size_t(axis)]) + ", the axis " + std::to_string(n),
        "set that vec_tile entry to " + std::to_string(n));
    return EV::poison();
  }
  int v = a.value;
  std::optional<VecTile> saved = ts_ ? ts_->vec : std::nullopt;
  if (axis != last) {
    if (saved && saved->shape.size() == rank) std::swap(ts_->vec->shape[size_t(axis)], ts_->vec->shape[size_t(last)]);
    v = swap_axes(a.value, axis, last, c.fo, c.fl);
  }
  auto r = sort_k(*this, c, v, n, *desc, n, false);
  if (ts_) ts_->vec = saved;
  if (!r) return EV::poison();
  return EV::tensor(axis != last ? swap_axes(r->second, axis, last, c.fo, c.fl) : r->second);
}

// `v, i = CALL`, `e, m, l = CALL`: a call with two results (topk) or three (online_softmax,
// online_softmax_update) binds every name.
void Elaborator::assign_two(const Stmt& s, bool first_name_ok) {
  const AssignAst& a = s.assign;
  bool names_ok = first_name_ok;
  for (const auto& m : a.more_targets) names_ok = check_binding_name(m.text, at(m.off), m.len, "value") && names_ok;
  auto poison_all = [&] {
    (*names_)[a.target] = Binding::poisoned();
    for (const auto& m : a.more_targets) (*names_)[m.text] = Binding::poisoned();
  };
  static const char* const kCount[] = {"no", "one", "two", "three", "four", "five"};
  const size_t wanted = 1 + a.more_targets.size();
  const std::string several = "only topk, interleave, deinterleave (two), online_softmax and online_softmax_update (three) return several tensors";
  if (wanted > 3) {
    err(a.more_targets[2].off, a.more_targets[2].len, "too many names: a call has at most three results",
        "write 'v, i = topk(x, k)' or 'e, m, l = online_softmax(scores, scale)'");
    poison_all();
    return;
  }
  if (a.value->kind != Expr::Kind::Call) {
    err(a.value->off, a.value->len, "'" + text_of(*a.value) + "' has one result but " + kCount[wanted] +
                                        " names are bound", several);
    poison_all();
    return;
  }
  tuple_target_ = true;
  EV v = expr(*a.value);
  tuple_target_ = false;
  const size_t results = v.ok() ? 1 + (v.value2 >= 0) + (v.value3 >= 0) : wanted;
  if (results != wanted) {
    err(a.value->op_off, int(a.value->name.size()), "'" + a.value->name + "' has " + kCount[results] +
                                                        (results == 1 ? " result" : " results") + " but " +
                                                        kCount[wanted] + " names are bound",
        results == 1 ? several : "bind " + std::string(kCount[results]) + " names");
    v = EV::poison();
  }
  if (!v.ok()) {
    poison_all();
    return;
  }
  if (!names_ok) return;
  const int ids[] = {v.value, v.value2, v.value3};
  for (size_t k = 0; k < wanted; ++k) {
    const std::string& n = k == 0 ? a.target : a.more_targets[k - 1].text;
    Value& val = p_.values[size_t(ids[k])];
    if (val.name.empty()) val.name = n;
    (*names_)[n] = Binding::of(ids[k], false);
  }
}

// cumsum(input, dim), cumprod(input, dim): inclusive scans along dim (static extent n), written as
// ceil(log2 n) steps y = y op concat([identity, y[0:n-s]], dim). Integers are exact; floats add in the
// scan's order (each element is a tree of partial sums), which can differ from a left-to-right sum in
// the last bits. Padding past the valid extent never reaches a valid element: a prefix looks left only.
EV Elaborator::call_scan(const Call& c) {
  EV a = catalog_input(c);
  if (!a.ok()) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  auto ax = axis_arg(c.args[1], x.shape.size(), "dim");
  if (!ax) return EV::poison();
  const size_t d = size_t(*ax);
  auto n = x.shape[d].as_const();
  if (!n) {
    err(c.fo, c.fl, "'" + c.fn + "' needs a static extent on axis " + std::to_string(*ax) + ", '" +
                        text_of(*c.args[0]) + "' has " + x.shape[d].str(),
        "scan a block of static size (a loop over blocks can carry the running total)");
    return EV::poison();
  }
  const bool sum = c.fn == "cumsum";
  int y = a.value;
  for (int64_t st = 1; st < *n; st *= 2) {
    const Value yv = p_.values[size_t(y)];
    Shape hs = yv.shape, hv = yv.valid;
    hs[d] = DimExpr(*n - st);
    hv[d] = simplify(min_in(DimExpr(*n - st), yv.valid[d], ranges(), sym_ranges(), divisible_));
    Op w;
    w.kind = OpKind::View;
    w.inputs = {y};
    w.shape = hs;
    w.offsets.assign(hs.size(), DimExpr(0));
    int hi = emit(w, x.dtype, hs, hv, c.fo, c.fl);
    Shape ps = yv.shape;
    ps[d] = DimExpr(st);
    Op f;
    f.kind = OpKind::Full;
    f.shape = ps;
    f.fill = sum ? 0.0 : 1.0;
    f.dtype = x.dtype;
    int pad = emit(f, x.dtype, ps, ps, c.fo, c.fl);
    Shape cs = yv.shape, cv = yv.valid;
    // Off the scan axis the identity block is whole (its extent is y's shape, never below y's valid
    // extent), so the concat keeps y's valid extents as they are: min(shape, v) here and min(v, that)
    // in the step's add would double the expression's text at every one of the log2(n) steps.
    for (size_t i = 0; i < cs.size(); ++i)
      if (i != d) cv[i] = hv[i];
    cv[d] = simplify(DimExpr(st) + hv[d]);
    Op cat;
    cat.kind = OpKind::Concat;
    cat.inputs = {pad, hi};
    cat.axes = {int(d)};
    int shifted = emit(cat, x.dtype, cs, cv, c.fo, c.fl);
    EV r = binary(sum ? OpKind::Add : OpKind::Mul, EV::tensor(y), EV::tensor(shifted), c.e, c.e, c.fo, c.fl, c.fn);
    if (!r.ok()) return EV::poison();
    y = r.value;
  }
  return EV::tensor(y);
}

}  // namespace ptoc::fe
