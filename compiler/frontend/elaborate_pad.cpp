// PyPTO's pad and fillpad (constant mode), written as existing ops:
//   pad(input, pad, mode=constant, value=0): PyPTO's (pad_left, pad_right, pad_top, pad_bottom), read
//       from the last axis backwards; only right and bottom padding (PyPTO's rule). Each padded axis is
//       concat([x, full([..., p, ...], value)], axis).
//   fillpad(input, mode=constant, value=0): the same shape, every element past the valid shape set to
//       value, the result whole. The valid extent of each partly valid axis is counted at run time as
//       sum(view(full([n], 1), valid=[v])) (a reduction reads valid elements only), and the result is
//       where(iota < count, x, value) over the whole shape; that where carries the result's valid
//       (Op::valid, the whole shape), which the evaluator honours, since it is the one op that reads a
//       value's padding (and never chooses it).
#include <cmath>

#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

// The value to pad with, in the input's dtype: a number (inf and -inf for floats only), PyPTO's rule
// that an integer tensor takes integer values.
struct PadValue {
  bool ok = false;
  double v = 0;
};

}  // namespace

static PadValue pad_value(Elaborator& el, const Elaborator::Call& c, const Expr* x, DType dt) {
  PadValue r;
  if (!x) {
    r.ok = true;
    return r;
  }
  EV v = el.expr(*x);
  if (!v.ok()) return r;
  if (!v.is_scalar()) {
    el.err(x->off, x->len, "'" + c.fn + "' value is a number, got the tensor '" + el.text_of(*x) + "'");
    return r;
  }
  if (!dtype_is_float(dt) && (!std::isfinite(v.scalar) || v.scalar != std::floor(v.scalar))) {
    el.err(x->off, x->len, "'" + c.fn + "' of an integer tensor (" + std::string(dtype_name(dt)) +
                              ") takes an integer value, got '" + el.text_of(*x) + "' (PyPTO's rule)",
          "write the dtype's bound explicitly, e.g. -2147483648 for int32");
    return r;
  }
  r.ok = true;
  r.v = v.scalar;
  return r;
}

// mode: PyPTO's "constant" is the only mode it implements; the string and the bare name are one thing.
static bool constant_mode(Elaborator& el, const Elaborator::Call& c, const Expr* m) {
  if (!m || (m->kind == Expr::Kind::Name && m->name == "constant")) return true;
  const bool known = m->kind == Expr::Kind::Name &&
                     (m->name == "reflect" || m->name == "replicate" || m->name == "circular");
  el.err(m->off, m->len, known ? "'" + c.fn + "' mode " + m->name + " is not supported (PyPTO supports constant only)"
                              : "'" + c.fn + "' mode must be \"constant\", got " + el.text_of(*m),
        "write mode=\"constant\" (or mode=constant), or leave it out");
  return false;
}

EV Elaborator::call_pad(const Call& c) {
  EV a = catalog_input(c);
  if (!a.ok()) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  const size_t rank = x.shape.size();
  const Expr* pl = c.args[1];
  const std::string usage = rank == 1 ? "pad=[0, right]" : "pad=[0, right] or [0, right, 0, bottom]";
  if (pl->kind != Expr::Kind::List) {
    err(pl->off, pl->len, "pad's sizes are a list such as [0, 2, 0, 1], got '" + text_of(*pl) + "'", usage);
    return EV::poison();
  }
  if (pl->items.size() != 2 && pl->items.size() != 4) {
    err(pl->off, pl->len, "pad takes 2 or 4 sizes (pad_left, pad_right[, pad_top, pad_bottom]), got " +
                              std::to_string(pl->items.size()), usage);
    return EV::poison();
  }
  if (pl->items.size() / 2 > rank) {
    err(pl->off, pl->len, "pad gives sizes for " + std::to_string(pl->items.size() / 2) + " axes but '" +
                              text_of(*c.args[0]) + "' has rank " + std::to_string(rank), usage);
    return EV::poison();
  }
  std::vector<int64_t> p;
  for (const auto& it : pl->items) {
    auto v = const_int(*it, "a pad size");
    if (!v) return EV::poison();
    if (*v < 0) {
      err(it->off, it->len, "pad sizes must be >= 0, got " + std::to_string(*v) + " (PyPTO's rule)");
      return EV::poison();
    }
    p.push_back(*v);
  }
  for (size_t k = 0; k < p.size(); k += 2)
    if (p[k] != 0) {
      const Expr& it = *pl->items[k];
      err(it.off, it.len, std::string("pad only pads ") + (k == 0 ? "right" : "bottom") + " (PyPTO's rule); " +
                              (k == 0 ? "pad_left" : "pad_top") + " must be 0, got " + std::to_string(p[k]),
          usage);
      return EV::poison();
    }
  if (!constant_mode(*this, c, c.args[2])) return EV::poison();
  PadValue pv = pad_value(*this, c, c.args[3], x.dtype);
  if (!pv.ok) return EV::poison();
  int v = a.value;
  for (size_t k = 0; k < p.size(); k += 2) {
    const int64_t amount = p[k + 1];
    if (amount == 0) continue;
    const size_t axis = rank - 1 - k / 2;
    const Value cur = p_.values[size_t(v)];
    if (!provably_equal(cur.valid[axis], cur.shape[axis])) {
      err(pl->items[k + 1]->off, pl->items[k + 1]->len,
          "pad on axis " + std::to_string(axis) + " of '" + text_of(*c.args[0]) + "', whose valid extent " +
              cur.valid[axis].str() + " is less than its shape " + cur.shape[axis].str() +
              ", would put the padding after unset elements",
          "fillpad(x, value=...) first to fill the tail, or pad a whole block");
      return EV::poison();
    }
    Shape fs = cur.shape;
    fs[axis] = DimExpr(amount);
    Shape fv = cur.valid;
    fv[axis] = DimExpr(amount);
    Op f;
    f.kind = OpKind::Full;
    f.shape = fs;
    f.fill = pv.v;
    f.dtype = x.dtype;
    int fill = emit(f, x.dtype, fs, fs, c.fo, c.fl);
    Shape sh = cur.shape, va = cur.valid;
    sh[axis] = simplify(cur.shape[axis] + DimExpr(amount));
    va[axis] = simplify(cur.valid[axis] + DimExpr(amount));
    Op cat;
    cat.kind = OpKind::Concat;
    cat.inputs = {v, fill};
    cat.axes = {int(axis)};
    v = emit(cat, x.dtype, sh, va, c.fo, c.fl);
  }
  if (v == a.value) {  // all sizes 0: a copy, as PyPTO returns a new tensor
    Op w;
    w.kind = OpKind::View;
    w.inputs = {v};
    w.shape = x.shape;
    w.offsets.assign(rank, DimExpr(0));
    w.valid = x.valid;
    v = emit(w, x.dtype, x.shape, x.valid, c.fo, c.fl);
  }
  return EV::tensor(v);
}

EV Elaborator::call_fillpad(const Call& c) {
  EV a = catalog_input(c);
  if (!a.ok()) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  const size_t rank = x.shape.size();
  if (!constant_mode(*this, c, c.args[1])) return EV::poison();
  PadValue pv = pad_value(*this, c, c.args[2], x.dtype);
  if (!pv.ok) return EV::poison();
  const Expr& e = c.e;
  std::optional<EV> keep;  // bool: inside the valid shape on every partly valid axis
  for (size_t ax = 0; ax < rank; ++ax) {
    if (provably_equal(x.valid[ax], x.shape[ax])) continue;
    auto n = x.shape[ax].as_const();
    if (!n) {
      err(c.fo, c.fl, "fillpad needs a static shape on axis " + std::to_string(ax) + ", '" + text_of(*c.args[0]) +
                          "' has " + x.shape[ax].str(),
          "slice a block of static size, e.g. x[b * 8:(b + 1) * 8, :]");
      return EV::poison();
    }
    Shape cs(rank, DimExpr(1)), cv(rank, DimExpr(1));
    cs[ax] = DimExpr(*n);
    cv[ax] = x.valid[ax];
    Op one;
    one.kind = OpKind::Full;
    one.shape = cs;
    one.fill = 1;
    one.dtype = DType::int32;
    int full_ones = emit(one, DType::int32, cs, cs, c.fo, c.fl);
    Op nv;  // narrowed to the input's valid extent on this axis
    nv.kind = OpKind::View;
    nv.inputs = {full_ones};
    nv.shape = cs;
    nv.offsets.assign(rank, DimExpr(0));
    nv.valid = cv;
    int ones = emit(nv, DType::int32, cs, cv, c.fo, c.fl);
    EV count = EV::tensor(reduce_keepdim(OpKind::Sum, ones, int(ax), c.fo, c.fl));
    int io = iota(int(ax), *n, rank, DType::int32, e, c.fo, c.fl);
    if (io < 0) return EV::poison();
    EV in = binary(OpKind::Lt, EV::tensor(io), count, e, e, c.fo, c.fl, c.fn);
    keep = keep ? binary(OpKind::LogicalAnd, *keep, in, e, e, c.fo, c.fl, c.fn) : in;
    if (!keep->ok()) return EV::poison();
  }
  Op w;
  if (!keep) {  // whole already: a copy, as PyPTO returns a new tensor
    w.kind = OpKind::View;
    w.inputs = {a.value};
    w.shape = x.shape;
    w.offsets.assign(rank, DimExpr(0));
    w.valid = x.valid;
    return EV::tensor(emit(w, x.dtype, x.shape, x.valid, c.fo, c.fl));
  }
  Op f;
  f.kind = OpKind::Full;
  f.shape.assign(rank, DimExpr(1));
  f.fill = pv.v;
  f.dtype = x.dtype;
  int fill = emit(f, x.dtype, f.shape, f.shape, c.fo, c.fl);
  w.kind = OpKind::Where;
  w.inputs = {keep->value, a.value, fill};
  w.valid = x.shape;  // the result is whole: the evaluator reads this (the tiles compute the whole shape)
  return EV::tensor(emit(w, x.dtype, x.shape, x.shape, c.fo, c.fl));
}

}  // namespace ptoc::fe
