// Expressions of statement strings -> ops of the tensor graph, with the
// dtype, shape, valid-shape and tile-state rules of spec-language.md 4 and 7.
#include <cmath>
#include <limits>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"
#include "compiler/frontend/suggest.h"

namespace ptoc::fe {

namespace {

struct FnInfo {
  OpKind kind;
  enum class Form { Binary, Unary, Reduce, Cast, Matmul, Transpose, Reshape, View, Concat, Full } form;
};

const std::map<std::string, FnInfo>& functions() {
  using F = FnInfo::Form;
  static const std::map<std::string, FnInfo> m = {
      {"add", {OpKind::Add, F::Binary}},         {"sub", {OpKind::Sub, F::Binary}},
      {"mul", {OpKind::Mul, F::Binary}},         {"div", {OpKind::Div, F::Binary}},
      {"maximum", {OpKind::Maximum, F::Binary}}, {"minimum", {OpKind::Minimum, F::Binary}},
      {"exp", {OpKind::Exp, F::Unary}},          {"log", {OpKind::Log, F::Unary}},
      {"sqrt", {OpKind::Sqrt, F::Unary}},        {"rsqrt", {OpKind::Rsqrt, F::Unary}},
      {"abs", {OpKind::Abs, F::Unary}},          {"neg", {OpKind::Neg, F::Unary}},
      {"reciprocal", {OpKind::Reciprocal, F::Unary}}, {"relu", {OpKind::Relu, F::Unary}},
      {"sigmoid", {OpKind::Sigmoid, F::Unary}},  {"tanh", {OpKind::Tanh, F::Unary}},
      {"gelu", {OpKind::Gelu, F::Unary}},        {"silu", {OpKind::Silu, F::Unary}},
      {"sum", {OpKind::Sum, F::Reduce}},         {"amax", {OpKind::Amax, F::Reduce}},
      {"amin", {OpKind::Amin, F::Reduce}},       {"mean", {OpKind::Mean, F::Reduce}},
      {"cast", {OpKind::Cast, F::Cast}},         {"matmul", {OpKind::Matmul, F::Matmul}},
      {"transpose", {OpKind::Transpose, F::Transpose}}, {"reshape", {OpKind::Reshape, F::Reshape}},
      {"view", {OpKind::View, F::View}},         {"concat", {OpKind::Concat, F::Concat}},
      {"full", {OpKind::Full, F::Full}},
  };
  return m;
}

// Unary ops that only make sense on floating-point data.
bool float_only(OpKind k) {
  return k == OpKind::Exp || k == OpKind::Log || k == OpKind::Sqrt || k == OpKind::Rsqrt ||
         k == OpKind::Reciprocal || k == OpKind::Sigmoid || k == OpKind::Tanh || k == OpKind::Gelu ||
         k == OpKind::Silu || k == OpKind::Mean;
}


// Which dtype a mixed pair should meet at (the hint's cast target).
DType wider(DType a, DType b) {
  auto rank = [](DType t) {
    switch (t) {
      case DType::fp32: return 6;
      case DType::bf16: return 5;
      case DType::fp16: return 4;
      case DType::int32: return 3;
      case DType::int8: return 2;
      case DType::uint8: return 1;
      default: return 0;
    }
  };
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace

std::string Elaborator::text_of(const Expr& e) const {
  if (!text_ || e.off < 0 || size_t(e.off) >= text_->size()) return "?";
  return text_->substr(size_t(e.off), size_t(e.len));
}

std::vector<std::string> Elaborator::visible_names() const {
  std::vector<std::string> v;
  if (names_)
    for (const auto& [k, b] : *names_) v.push_back(k);
  for (const auto& t : p_.tensors) v.push_back(t.name);
  for (const auto& d : p_.dims) v.push_back(d.name);
  if (seq_) {
    for (const auto& [k, x] : seq_->frame.consts) v.push_back(k);
    for (const auto& k : seq_->frame.dyn_vars) v.push_back(k);
  }
  return v;
}

int Elaborator::emit(Op op, DType dt, Shape shape, Shape valid, int loc_off, int loc_len) {
  op.id = int(p_.ops.size());
  op.loc = at(loc_off);
  op.stmt = cur_ ? cur_->index : -1;
  op.vec_tile = ts_->vec;
  op.cube_tile = ts_->cube;
  op.scope = ts_->scope;
  op.label = ts_->label;
  if (op.kind != OpKind::Assemble) {
    Value v;
    v.id = int(p_.values.size());
    v.dtype = dt;
    v.shape = simplify_all(shape);
    v.valid = simplify_all(valid);
    v.def_op = op.id;
    op.output = v.id;
    p_.values.push_back(std::move(v));
  }
  const std::string name(op_kind_name(op.kind));
  if (is_vector_op(op.kind)) {
    size_t rank = op.output >= 0 ? p_.values[size_t(op.output)].shape.size() : 0;
    size_t in_rank = op.inputs.empty() ? rank : p_.values[size_t(op.inputs[0])].shape.size();
    if (!ts_->vec) {
      if (!ts_->vec_broken) err(loc_off, loc_len, "no vec_tile in force for '" + name + "'",
          "add {vec_tile: [...]} with " + std::to_string(rank) + " entries before this statement");
    } else if (ts_->vec->shape.size() != rank && !(is_reduction(op.kind) && ts_->vec->shape.size() == in_rank)) {
      std::string tile = "[";
      for (size_t i = 0; i < ts_->vec->shape.size(); ++i) { if (i) tile += ", "; tile += std::to_string(ts_->vec->shape[i]); }
      tile += "]";
      std::string where = ts_->vec->loc.valid() ? " (set at line " + std::to_string(ts_->vec->loc.line) + ")" : "";
      err(loc_off, loc_len,
          "vec_tile " + tile + where + " has rank " + std::to_string(ts_->vec->shape.size()) + " but '" + name +
              "' produces a rank-" + std::to_string(rank) + " value",
          "set a vec_tile with " + std::to_string(rank) + " entries before this statement");
    }
  }
  if (op.kind == OpKind::Matmul && !ts_->cube && !ts_->cube_broken)
    err(loc_off, loc_len, "no cube_tile in force for 'matmul'",
        "add {cube_tile: {m: [L0, L1], k: [L0, L1], n: [L0, L1]}} before this statement");
  int out = op.output;
  if (seq_) seq_->run.push_back(op.id);
  p_.ops.push_back(std::move(op));
  return out;
}

int Elaborator::reshape_to(int value, const Shape& shape, const Shape& valid, int loc_off) {
  Op op;
  op.kind = OpKind::Reshape;
  op.inputs = {value};
  op.shape = shape;
  return emit(op, p_.values[size_t(value)].dtype, shape, valid, loc_off);
}

bool Elaborator::check_nz(const EV& v, const Expr& e, const std::string& consumer) {
  if (!v.is_tensor() || !v.nz) return true;
  err(e.off, e.len, "'" + text_of(e) + "' is stored in NZ format and only matmul can read it; '" + consumer +
                        "' cannot", "declare the tensor with format: ND to use it in vector ops");
  return false;
}

EV Elaborator::tensor_ref(int t) {
  if (seq_) {
    auto it = seq_->tensor_refs.find(t);
    if (it != seq_->tensor_refs.end()) return EV::tensor(it->second, p_.tensors[size_t(t)].format == Format::NZ);
  }
  const TensorDecl& d = p_.tensors[size_t(t)];
  Op op;
  op.kind = OpKind::TensorRef;
  op.tensor = t;
  Shape sh;
  for (const auto& x : d.shape) sh.push_back(x.substitute(static_dims_));
  int v = emit(op, d.dtype, sh, sh, cur_ && cur_->kind == Stmt::Kind::Assign ? cur_->assign.target_off : 0);
  p_.values[size_t(v)].name = d.name;
  if (seq_) seq_->tensor_refs[t] = v;
  return EV::tensor(v, d.format == Format::NZ);
}

EV Elaborator::name_ref(const Expr& e) {
  const std::string& n = e.name;
  if (names_) {
    auto it = names_->find(n);
    if (it != names_->end()) {
      if (it->second.poison) return EV::poison();
      return EV::tensor(it->second.value, it->second.nz);
    }
  }
  int t = p_.find_tensor(n);
  if (t >= 0) {
    EV v = tensor_ref(t);
    // Point TensorRef ops at the first use of the name.
    Op& op = p_.ops[size_t(p_.values[size_t(v.value)].def_op)];
    if (!op.loc.valid() || op.stmt == (cur_ ? cur_->index : -1)) op.loc = at(e.off);
    return v;
  }
  if (broken_tensors_.count(n)) return EV::poison();
  if (const DimDecl* d = p_.find_dim(n)) {
    if (!d->dynamic) return EV::number(double(d->value), true);
    err(e.off, e.len, "'" + n + "' is a dynamic dim and cannot be a scalar operand",
        "only static dims and literals can be used as scalars in tensor expressions");
    return EV::poison();
  }
  if (seq_) {
    auto it = seq_->frame.consts.find(n);
    if (it != seq_->frame.consts.end()) return EV::number(double(it->second), true);
    if (seq_->frame.dyn_vars.count(n)) {
      err(e.off, e.len, "'" + n + "' is a dynamic loop variable and cannot be a scalar operand",
          "use it in slice bounds and dim expressions");
      return EV::poison();
    }
  }
  if (n == "inf") return EV::number(std::numeric_limits<double>::infinity(), false);
  if (n == "nan") return EV::number(std::numeric_limits<double>::quiet_NaN(), false);
  if (n == "true" || n == "True") return EV::number(1, true);
  if (n == "false" || n == "False") return EV::number(0, true);
  if (auto it = loop_locals_.find(n); it != loop_locals_.end()) {
    err(e.off, e.len,
        "'" + n + "' was bound inside the loop at line " + std::to_string(it->second) +
            "; names bound in a loop body are local to it",
        "to pass data out of a loop, assemble it into a 'tensors:' workspace inside the loop (ws[...] = " + n +
            ") and read the workspace after the loop");
    return EV::poison();
  }
  if (auto it = loop_vars_ended_.find(n); it != loop_vars_ended_.end()) {
    err(e.off, e.len, "'" + n + "' is the variable of the loop at line " + std::to_string(it->second) +
                          ", which has ended; loop variables are local to their loop");
    return EV::poison();
  }
  std::string hint = did_you_mean(n, visible_names());
  if (hint.empty() && functions().count(n)) hint = "'" + n + "' is a function; call it as " + n + "(...)";
  err(e.off, e.len, "unknown name '" + n + "'", hint);
  return EV::poison();
}

EV Elaborator::expr(const Expr& e) {
  using K = Expr::Kind;
  switch (e.kind) {
    case K::Number: return EV::number(e.number, e.is_int);
    case K::Name: return name_ref(e);
    case K::Neg: {
      EV a = expr(*e.items[0]);
      if (a.is_scalar()) return EV::number(-a.scalar, a.is_int);
      return unary(OpKind::Neg, a, *e.items[0], e.op_off, "-");
    }
    case K::Binary: {
      EV a = expr(*e.items[0]);
      EV b = expr(*e.items[1]);
      int oplen = int(e.op.size());
      if (e.op == "//" || e.op == "%") {
        if (a.is_scalar() && b.is_scalar() && a.is_int && b.is_int) {
          if (b.scalar == 0) {
            err(e.op_off, oplen, "division by zero");
            return EV::poison();
          }
          int64_t x = int64_t(a.scalar), y = int64_t(b.scalar);
          return EV::number(double(e.op == "//" ? floor_div_i64(x, y) : floor_mod_i64(x, y)), true);
        }
        if (a.ok() && b.ok())
          err(e.op_off, oplen, "'" + e.op + "' is for dim expressions; tensor arithmetic has + - * /");
        return EV::poison();
      }
      OpKind k = e.op == "+" ? OpKind::Add : e.op == "-" ? OpKind::Sub : e.op == "*" ? OpKind::Mul : OpKind::Div;
      return binary(k, a, b, *e.items[0], *e.items[1], e.op_off, oplen, e.op);
    }
    case K::Call: return call(e);
    case K::Subscript: return subscript(e);
    case K::List:
      err(e.off, e.len, "a list is not a tensor value", "lists are arguments of reshape, view, full and concat");
      return EV::poison();
    default:
      err(e.off, e.len, "comparisons are only allowed in if conditions");
      return EV::poison();
  }
}

EV Elaborator::binary(OpKind k, const EV& a, const EV& b, const Expr& ea, const Expr& eb, int op_off, int op_len,
                      const std::string& spelling) {
  if (!a.ok() || !b.ok()) return EV::poison();
  if (a.is_scalar() && b.is_scalar()) {
    double x = a.scalar, y = b.scalar;
    switch (k) {
      case OpKind::Add: return EV::number(x + y, a.is_int && b.is_int);
      case OpKind::Sub: return EV::number(x - y, a.is_int && b.is_int);
      case OpKind::Mul: return EV::number(x * y, a.is_int && b.is_int);
      case OpKind::Div:
        if (y == 0) {
          err(op_off, op_len, "division by zero");
          return EV::poison();
        }
        return EV::number(x / y, false);
      case OpKind::Maximum: return EV::number(std::max(x, y), a.is_int && b.is_int);
      default: return EV::number(std::min(x, y), a.is_int && b.is_int);
    }
  }
  const std::string name(op_kind_name(k));
  if (!check_nz(a, ea, name) || !check_nz(b, eb, name)) return EV::poison();
  Op op;
  op.kind = k;
  if (a.is_scalar() || b.is_scalar()) {
    const EV& t = a.is_tensor() ? a : b;
    const EV& s = a.is_tensor() ? b : a;
    const Value& tv = p_.values[size_t(t.value)];
    if (!dtype_is_float(tv.dtype) && !s.is_int && std::isfinite(s.scalar)) {
      const Expr& se = a.is_tensor() ? eb : ea;
      err(se.off, se.len, "the literal " + text_of(se) + " is not an integer but '" + text_of(a.is_tensor() ? ea : eb) +
                              "' is " + std::string(dtype_name(tv.dtype)),
          "a scalar literal takes the tensor's dtype; cast the tensor to a float type first");
      return EV::poison();
    }
    op.inputs = {t.value};
    op.scalar = s.scalar;
    op.scalar_first = a.is_scalar();
    Shape sh = tv.shape, va = tv.valid;
    return EV::tensor(emit(op, tv.dtype, sh, va, op_off, op_len));
  }
  const Value& x = p_.values[size_t(a.value)];
  const Value& y = p_.values[size_t(b.value)];
  if (x.dtype != y.dtype) {
    DType to = wider(x.dtype, y.dtype);
    const Expr& narrow = x.dtype == to ? eb : ea;
    err(op_off, op_len,
        "operands of '" + spelling + "' have different dtypes: " + std::string(dtype_name(x.dtype)) + " and " +
            std::string(dtype_name(y.dtype)) + " (no implicit promotion)",
        "insert cast(" + text_of(narrow) + ", " + std::string(dtype_name(to)) + ")");
    return EV::poison();
  }
  Broadcast bc = broadcast(x.shape, x.valid, y.shape, y.valid);
  if (bc.bad_axis >= 0) {
    err(op_off, op_len, "shapes " + shape_str(x.shape) + " and " + shape_str(y.shape) + " of '" + spelling +
                            "' do not broadcast (axis " + std::to_string(bc.bad_axis) + ")",
        "broadcasting needs equal sizes or size 1 on each axis, aligned at the end");
    return EV::poison();
  }
  op.inputs = {a.value, b.value};
  DType dt = x.dtype;
  return EV::tensor(emit(op, dt, bc.shape, bc.valid, op_off, op_len));
}

EV Elaborator::unary(OpKind k, const EV& a, const Expr& ea, int op_off, const std::string& spelling) {
  if (!a.ok()) return EV::poison();
  if (a.is_scalar()) return EV::number(scalar_unary(k, a.scalar), false);
  if (!check_nz(a, ea, spelling)) return EV::poison();
  const Value& x = p_.values[size_t(a.value)];
  if (float_only(k) && !dtype_is_float(x.dtype)) {
    err(op_off, int(spelling.size()), "'" + spelling + "' needs a floating-point operand, '" + text_of(ea) + "' is " +
                                          std::string(dtype_name(x.dtype)),
        "insert cast(" + text_of(ea) + ", fp32)");
    return EV::poison();
  }
  Op op;
  op.kind = k;
  op.inputs = {a.value};
  Shape sh = x.shape, va = x.valid;
  return EV::tensor(emit(op, x.dtype, sh, va, op_off, int(spelling.size())));
}

Elaborator::SliceResult Elaborator::slices(const std::vector<Slice>& sl, const Shape& shape, const Shape& valid,
                                           const std::string& what, int err_off) {
  SliceResult r;
  size_t rank = shape.size();
  size_t given = 0, ellipses = 0;
  for (const auto& s : sl) (s.kind == Slice::Kind::Ellipsis ? ellipses : given)++;
  if (ellipses > 1) {
    err(err_off, 1, "at most one '...' per subscript");
    r.ok = false;
    return r;
  }
  if (given > rank) {
    err(err_off, 1, "too many indices for " + what + " of rank " + std::to_string(rank) + " (" + std::to_string(given) +
                        " given)");
    r.ok = false;
    return r;
  }
  // Expand '...' (or the missing trailing axes) to full ranges.
  std::vector<const Slice*> per_axis;
  for (const auto& s : sl) {
    if (s.kind == Slice::Kind::Ellipsis) {
      for (size_t i = 0; i < rank - given; ++i) per_axis.push_back(nullptr);
    } else {
      per_axis.push_back(&s);
    }
  }
  while (per_axis.size() < rank) per_axis.push_back(nullptr);
  for (size_t ax = 0; ax < rank; ++ax) {
    const Slice* s = per_axis[ax];
    DimExpr start(0), stop = shape[ax];
    bool index = false, open = s == nullptr || !s->stop;
    if (s) {
      // A constant negative start or stop counts from the end, as in NumPy,
      // on an axis of static extent (x[-16:], x[:, -1]); on a dynamic axis
      // the position could fall before 0, so it stays an error below.
      auto from_end = [&](DimExpr v) {
        auto c = v.as_const();
        auto ext = shape[ax].as_const();
        if (c && *c < 0 && ext && *ext + *c >= 0) return DimExpr(*ext + *c);
        return v;
      };
      if (s->start) {
        auto d = dim(*s->start, DimUse::Loop);
        if (!d) { r.ok = false; continue; }
        start = from_end(simplify(*d));
      }
      if (s->kind == Slice::Kind::Index) {
        index = true;
        stop = simplify(start + DimExpr(1));
      } else if (s->stop) {
        auto d = dim(*s->stop, DimUse::Loop);
        if (!d) { r.ok = false; continue; }
        stop = from_end(simplify(*d));
      }
      if (auto c = start.as_const(); c && *c < 0) {
        err(s->off, s->len, "negative slice start " + std::to_string(*c) + " on axis " + std::to_string(ax) +
                                " of extent " + shape[ax].str() + " (before the first element)",
            shape[ax].as_const() ? "negative positions count from the end; this one is before the start"
                                 : "negative positions count from the end only on axes of static extent; write '" +
                                       shape[ax].str() + " - " + std::to_string(-*c) + "'");
        r.ok = false;
        continue;
      }
      auto over = const_difference(stop, shape[ax]);
      if (over && *over > 0) {
        err(s->off, s->len, "slice '" + (text_ ? text_->substr(size_t(s->off), size_t(s->len)) : "") +
                                "' goes past the end of axis " + std::to_string(ax) + " (size " + shape[ax].str() + ")");
        r.ok = false;
        continue;
      }
      auto ext = const_difference(stop, start);
      if (ext && *ext <= 0) {
        err(s->off, s->len, "empty slice on axis " + std::to_string(ax) + " (" + start.str() + " to " + stop.str() + ")");
        r.ok = false;
        continue;
      }
    }
    r.offsets.push_back(start);
    r.extents.push_back(simplify(stop - start));
    // Clipped to the source's valid extent: a tail tile reads only real data.
    r.valid.push_back(simplify(min_in(stop, valid[ax], ranges(), sym_ranges(), divisible_) - start));
    r.index.push_back(index);
    r.open_stop.push_back(open);
  }
  return r;
}

EV Elaborator::subscript(const Expr& e) {
  EV base = expr(*e.items[0]);
  if (!base.ok()) return EV::poison();
  if (base.is_scalar()) {
    err(e.op_off, 1, "'" + text_of(*e.items[0]) + "' is a scalar and cannot be sliced");
    return EV::poison();
  }
  const Value& src = p_.values[size_t(base.value)];
  Shape shape = src.shape, valid = src.valid;
  SliceResult s = slices(e.slices, shape, valid, "'" + text_of(*e.items[0]) + "'", e.op_off);
  if (!s.ok) return EV::poison();
  Op op;
  op.kind = OpKind::View;
  op.inputs = {base.value};
  op.offsets = s.offsets;
  op.shape = s.extents;
  int v = emit(op, src.dtype, s.extents, s.valid, e.op_off);
  bool any_index = false;
  for (bool b : s.index) any_index = any_index || b;
  if (any_index) {
    Shape sh, va;
    for (size_t i = 0; i < s.index.size(); ++i)
      if (!s.index[i]) { sh.push_back(s.extents[i]); va.push_back(s.valid[i]); }
    if (sh.empty()) {
      sh.push_back(DimExpr(1));
      va.push_back(DimExpr(1));
    }
    v = reshape_to(v, sh, va, e.op_off);
  }
  return EV::tensor(v, base.nz);
}

namespace {

// Positional-then-keyword argument binding for a call.
struct Params {
  std::vector<std::string> names;
  size_t required;
};

}  // namespace

EV Elaborator::call(const Expr& e) {
  const std::string& fn = e.name;
  auto it = functions().find(fn);
  if (it == functions().end()) {
    if (fn == "min" || fn == "max" || fn == "ceil_div") {
      // Scalar folding is allowed; tensors need maximum/minimum.
      std::vector<EV> vals;
      for (const auto& a : e.args) vals.push_back(expr(*a.value));
      for (const auto& v : vals) if (!v.ok()) return EV::poison();
      bool all_scalar = vals.size() == 2;
      for (const auto& v : vals) all_scalar = all_scalar && v.is_scalar();
      if (all_scalar) {
        double x = vals[0].scalar, y = vals[1].scalar;
        bool ints = vals[0].is_int && vals[1].is_int;
        if (fn == "ceil_div") {
          if (!ints || y == 0) {
            err(e.op_off, int(fn.size()), "ceil_div needs two integers, the second non-zero");
            return EV::poison();
          }
          return EV::number(double(-floor_div_i64(-int64_t(x), int64_t(y))), true);
        }
        return EV::number(fn == "min" ? std::min(x, y) : std::max(x, y), ints);
      }
      err(e.op_off, int(fn.size()), "'" + fn + "' is a dim function",
          fn == "ceil_div" ? std::string("tensors have no ceil_div")
                           : "for tensors use " + std::string(fn == "min" ? "minimum" : "maximum") + "(a, b)");
      return EV::poison();
    }
    std::vector<std::string> names;
    for (const auto& [k, v] : functions()) names.push_back(k);
    std::string hint = did_you_mean(fn, names);
    err(e.op_off, int(fn.size()), "unknown function '" + fn + "'", hint);
    return EV::poison();
  }
  using F = FnInfo::Form;
  const FnInfo& info = it->second;
  static const std::map<F, Params> params = {
      {F::Binary, {{"a", "b"}, 2}},
      {F::Unary, {{"a"}, 1}},
      {F::Reduce, {{"a", "dim", "keepdim"}, 2}},
      {F::Cast, {{"a", "dtype"}, 2}},
      {F::Matmul, {{"a", "b", "out_dtype", "trans_a", "trans_b"}, 2}},
      {F::Transpose, {{"a", "d0", "d1"}, 3}},
      {F::Reshape, {{"a", "shape", "inplace"}, 2}},
      {F::View, {{"a", "shape", "offsets", "valid"}, 3}},
      {F::Concat, {{"tensors", "dim"}, 2}},
      {F::Full, {{"shape", "value", "dtype"}, 3}},
  };
  const Params& pr = params.at(info.form);
  std::vector<const Expr*> args(pr.names.size(), nullptr);
  size_t positional = 0;
  bool bad = false;
  for (const auto& a : e.args) {
    if (a.name.empty()) {
      if (positional >= pr.names.size()) {
        err(a.value->off, a.value->len, "too many arguments to '" + fn + "' (it takes " +
                                            std::to_string(pr.names.size()) + ")");
        bad = true;
        break;
      }
      args[positional++] = a.value.get();
      continue;
    }
    size_t k = 0;
    while (k < pr.names.size() && pr.names[k] != a.name) ++k;
    if (k == pr.names.size()) {
      std::string hint = did_you_mean(a.name, pr.names);
      if (hint.empty()) {
        hint = fn + " takes";
        for (size_t i = 0; i < pr.names.size(); ++i) hint += (i ? ", " : " ") + pr.names[i];
      }
      err(a.name_off, int(a.name.size()), "unknown argument '" + a.name + "' to '" + fn + "'", hint);
      bad = true;
      continue;
    }
    if (args[k]) {
      err(a.name_off, int(a.name.size()), "argument '" + a.name + "' of '" + fn + "' given twice");
      bad = true;
      continue;
    }
    args[k] = a.value.get();
  }
  if (bad) return EV::poison();
  for (size_t k = 0; k < pr.required; ++k)
    if (!args[k]) {
      err(e.op_off, e.len, "'" + fn + "' is missing its argument '" + pr.names[k] + "'",
          "signature: " + fn + "(" + [&] {
            std::string s;
            for (size_t i = 0; i < pr.names.size(); ++i) { if (i) s += ", "; s += pr.names[i]; }
            return s;
          }() + ")");
      return EV::poison();
    }

  const int fo = e.op_off, fl = int(fn.size());
  auto tensor_arg = [&](const Expr* x, const std::string& what) -> EV {
    EV v = expr(*x);
    if (v.is_scalar()) {
      err(x->off, x->len, "'" + fn + "' needs a tensor as " + what + ", got the scalar '" + text_of(*x) + "'");
      return EV::poison();
    }
    return v;
  };
  auto bool_arg = [&](size_t k, bool dflt) -> std::optional<bool> {
    const Expr* x = args[k];
    if (!x) return dflt;
    if (x->kind == Expr::Kind::Name && (x->name == "true" || x->name == "True")) return true;
    if (x->kind == Expr::Kind::Name && (x->name == "false" || x->name == "False")) return false;
    if (x->kind == Expr::Kind::Number && x->is_int && (x->ival == 0 || x->ival == 1)) return x->ival == 1;
    err(x->off, x->len, "'" + fn + "' argument " + pr.names[k] + " must be true or false, got '" + text_of(*x) + "'");
    return std::nullopt;
  };
  auto dtype_arg = [&](const Expr* x, DType dflt) -> std::optional<DType> {
    if (!x) return dflt;
    if (x->kind == Expr::Kind::Name)
      if (auto d = parse_dtype(x->name)) return *d;
    std::vector<std::string> names;
    for (DType t : kAllDTypes) names.emplace_back(dtype_name(t));
    std::string hint = x->kind == Expr::Kind::Name ? did_you_mean(x->name, names) : "";
    err(x->off, x->len, "unknown dtype '" + text_of(*x) + "'",
        hint.empty() ? "dtypes: fp32 fp16 bf16 int32 int8 uint8 bool" : hint);
    return std::nullopt;
  };
  auto axis_arg = [&](const Expr* x, size_t rank, const std::string& what) -> std::optional<int> {
    auto c = const_int(*x, what);
    if (!c) return std::nullopt;
    int64_t ax = *c < 0 ? *c + int64_t(rank) : *c;
    if (ax < 0 || ax >= int64_t(rank)) {
      err(x->off, x->len, what + " " + std::to_string(*c) + " is out of range for a rank-" + std::to_string(rank) +
                              " value (" + std::to_string(-int64_t(rank)) + ".." + std::to_string(rank - 1) + ")");
      return std::nullopt;
    }
    return int(ax);
  };
  auto list_arg = [&](const Expr* x, const std::string& what) -> std::optional<Shape> {
    if (x->kind != Expr::Kind::List) {
      err(x->off, x->len, what + " must be a list such as [B, 64], got '" + text_of(*x) + "'");
      return std::nullopt;
    }
    Shape s;
    bool ok = true;
    for (const auto& item : x->items) {
      auto d = dim(*item, DimUse::Loop);
      if (!d) { ok = false; continue; }
      DimExpr sd = simplify(*d);
      if (auto c = sd.as_const(); c && *c <= 0) {
        err(item->off, item->len, what + " entries must be positive, got " + std::to_string(*c));
        ok = false;
        continue;
      }
      s.push_back(sd);
    }
    if (!ok) return std::nullopt;
    return s;
  };

  switch (info.form) {
    case F::Binary: {
      EV a = expr(*args[0]);
      EV b = expr(*args[1]);
      return binary(info.kind, a, b, *args[0], *args[1], fo, fl, fn);
    }
    case F::Unary: return unary(info.kind, expr(*args[0]), *args[0], fo, fn);
    case F::Reduce: {
      EV a = tensor_arg(args[0], "its first argument");
      if (!a.ok()) return EV::poison();
      if (!check_nz(a, *args[0], fn)) return EV::poison();
      const Value x = p_.values[size_t(a.value)];
      auto ax = axis_arg(args[1], x.shape.size(), "dim");
      auto keep = bool_arg(2, false);
      if (!ax || !keep) return EV::poison();
      if (float_only(info.kind) && !dtype_is_float(x.dtype)) {
        err(fo, fl, "'" + fn + "' needs a floating-point operand", "insert cast(" + text_of(*args[0]) + ", fp32)");
        return EV::poison();
      }
      Op op;
      op.kind = info.kind;
      op.inputs = {a.value};
      op.axes = {*ax};
      op.keepdim = *keep;
      Shape sh, va;
      for (size_t i = 0; i < x.shape.size(); ++i) {
        if (int(i) == *ax) {
          if (*keep) { sh.push_back(DimExpr(1)); va.push_back(DimExpr(1)); }
          continue;
        }
        sh.push_back(x.shape[i]);
        va.push_back(x.valid[i]);
      }
      if (sh.empty()) {  // reducing a rank-1 value leaves one element
        sh.push_back(DimExpr(1));
        va.push_back(DimExpr(1));
      }
      return EV::tensor(emit(op, x.dtype, sh, va, fo, fl));
    }
    case F::Cast: {
      EV a = tensor_arg(args[0], "its first argument");
      auto dt = dtype_arg(args[1], DType::fp32);
      if (!a.ok() || !dt) return EV::poison();
      if (!check_nz(a, *args[0], fn)) return EV::poison();
      const Value x = p_.values[size_t(a.value)];
      Op op;
      op.kind = OpKind::Cast;
      op.inputs = {a.value};
      op.dtype = *dt;
      return EV::tensor(emit(op, *dt, x.shape, x.valid, fo, fl));
    }
    case F::Matmul: {
      EV a = tensor_arg(args[0], "its left operand");
      EV b = tensor_arg(args[1], "its right operand");
      auto od = dtype_arg(args[2], DType::fp32);
      auto ta = bool_arg(3, false), tb = bool_arg(4, false);
      if (!a.ok() || !b.ok() || !od || !ta || !tb) return EV::poison();
      const Value x = p_.values[size_t(a.value)], y = p_.values[size_t(b.value)];
      for (const auto* v : {&x, &y})
        if (v->dtype != DType::fp16 && v->dtype != DType::bf16 && v->dtype != DType::fp32) {
          err(fo, fl, "matmul takes fp16, bf16 or fp32 operands, got " + std::string(dtype_name(v->dtype)));
          return EV::poison();
        }
      if (x.dtype != y.dtype) {
        DType to = wider(x.dtype, y.dtype);
        err(fo, fl, "matmul operands have different dtypes: " + std::string(dtype_name(x.dtype)) + " and " +
                        std::string(dtype_name(y.dtype)),
            "insert cast(" + text_of(x.dtype == to ? *args[1] : *args[0]) + ", " + std::string(dtype_name(to)) + ")");
        return EV::poison();
      }
      if (!dtype_is_float(*od)) {
        err(args[2]->off, args[2]->len, "matmul out_dtype must be fp32, fp16 or bf16");
        return EV::poison();
      }
      size_t ra = x.shape.size(), rb = y.shape.size();
      if (!((ra == 2 && rb == 2) || (ra == 3 && rb == 3))) {
        err(fo, fl, "matmul takes [M, K] x [K, N] or [G, M, K] x [G, K, N]; got ranks " + std::to_string(ra) +
                        " and " + std::to_string(rb));
        return EV::poison();
      }
      size_t o = ra - 2;
      size_t am = o + (*ta ? 1 : 0), ak = o + (*ta ? 0 : 1);
      size_t bk = o + (*tb ? 1 : 0), bn = o + (*tb ? 0 : 1);
      if (!provably_equal(x.shape[ak], y.shape[bk])) {
        err(fo, fl, "matmul inner dimensions differ: " + x.shape[ak].str() + " (" + text_of(*args[0]) + ") vs " +
                        y.shape[bk].str() + " (" + text_of(*args[1]) + ")",
            "shapes are " + shape_str(x.shape) + " and " + shape_str(y.shape) + "; use trans_a/trans_b for transposed operands");
        return EV::poison();
      }
      // The contract lets G broadcast, but the tiling reads the right operand's batch g at offset g even when
      // its extent is 1 (wrong numbers, test/conformance/failing/mm_batched_broadcast.yaml): refuse it until then.
      if (o == 1 && !provably_equal(x.shape[0], y.shape[0])) {
        err(fo, fl, "batched matmul batch sizes differ: " + x.shape[0].str() + " vs " + y.shape[0].str(),
            "broadcasting the batch axis is not supported yet; repeat the operand with concat to the same batch size");
        return EV::poison();
      }
      Op op;
      op.kind = OpKind::Matmul;
      op.inputs = {a.value, b.value};
      op.dtype = *od;
      op.trans_a = *ta;
      op.trans_b = *tb;
      Shape sh, va;
      if (o == 1) { sh.push_back(x.shape[0]); va.push_back(combine_valid(x.valid[0], y.valid[0])); }
      sh.push_back(x.shape[am]);
      va.push_back(x.valid[am]);
      sh.push_back(y.shape[bn]);
      va.push_back(y.valid[bn]);
      return EV::tensor(emit(op, *od, sh, va, fo, fl));
    }
    case F::Transpose: {
      EV a = tensor_arg(args[0], "its first argument");
      if (!a.ok() || !check_nz(a, *args[0], fn)) return EV::poison();
      const Value x = p_.values[size_t(a.value)];
      auto d0 = axis_arg(args[1], x.shape.size(), "d0");
      auto d1 = axis_arg(args[2], x.shape.size(), "d1");
      if (!d0 || !d1) return EV::poison();
      Shape sh = x.shape, va = x.valid;
      std::swap(sh[size_t(*d0)], sh[size_t(*d1)]);
      std::swap(va[size_t(*d0)], va[size_t(*d1)]);
      Op op;
      op.kind = OpKind::Transpose;
      op.inputs = {a.value};
      op.axes = {*d0, *d1};
      return EV::tensor(emit(op, x.dtype, sh, va, fo, fl));
    }
    case F::Reshape: {
      EV a = tensor_arg(args[0], "its first argument");
      auto sh = list_arg(args[1], "reshape shape");
      auto inplace = bool_arg(2, false);
      if (!a.ok() || !sh || !inplace) return EV::poison();
      if (!check_nz(a, *args[0], fn)) return EV::poison();
      const Value x = p_.values[size_t(a.value)];
      if (sh->empty() || sh->size() > 4) {
        err(args[1]->off, args[1]->len, "reshape to rank " + std::to_string(sh->size()) + "; ranks 1 to 4 are supported");
        return EV::poison();
      }
      auto diff = const_difference(element_count(x.shape), element_count(*sh));
      if (diff && *diff != 0) {
        err(fo, fl, "reshape changes the element count: " + shape_str(x.shape) + " has " +
                        element_count(x.shape).str() + " elements, " + shape_str(*sh) + " has " +
                        element_count(*sh).str());
        return EV::poison();
      }
      Shape va = *sh;
      if (!fully_valid(x.shape, x.valid)) {
        // As the evaluator does: size-1 axes come and go freely; otherwise only a
        // valid prefix of the leading axis (rows) survives, as whole new rows.
        Shape big_src, big_valid, big_dst;
        for (size_t i = 0; i < x.shape.size(); ++i)
          if (x.shape[i].as_const() != 1) { big_src.push_back(x.shape[i]); big_valid.push_back(x.valid[i]); }
        for (const auto& d : *sh)
          if (d.as_const() != 1) big_dst.push_back(d);
        bool same = big_src.size() == big_dst.size();
        for (size_t i = 0; same && i < big_src.size(); ++i) same = provably_equal(big_src[i], big_dst[i]);
        if (same) {
          size_t j = 0;
          for (size_t i = 0; i < sh->size(); ++i) va[i] = (*sh)[i].as_const() == 1 ? DimExpr(1) : big_valid[j++];
        } else {
          bool prefix = true;
          for (size_t i = 1; i < x.shape.size(); ++i) prefix = prefix && provably_equal(x.shape[i], x.valid[i]);
          DimExpr nvalid = element_count(x.valid);
          DimExpr row = element_count(Shape(sh->begin() + 1, sh->end()));
          if (!prefix || !provably_equal(simplify(mod(nvalid, row)), DimExpr(0))) {
            err(fo, fl, "reshape of a partially valid value (shape " + shape_str(x.shape) + ", valid " +
                            shape_str(x.valid) + ") into " + shape_str(*sh) +
                            ": its valid elements do not map to whole rows",
                "reshape before slicing the tail, or keep the trailing axes unchanged");
            return EV::poison();
          }
          va[0] = simplify(floordiv(nvalid, row));
        }
      }
      Op op;
      op.kind = OpKind::Reshape;
      op.inputs = {a.value};
      op.shape = *sh;
      op.inplace = *inplace;
      return EV::tensor(emit(op, x.dtype, *sh, va, fo, fl), a.nz);
    }
    case F::View: {
      EV a = tensor_arg(args[0], "its first argument");
      auto sh = list_arg(args[1], "view shape");
      if (args[2]->kind != Expr::Kind::List) {
        err(args[2]->off, args[2]->len, "view offsets must be a list such as [0, b * 64]");
        return EV::poison();
      }
      std::optional<Shape> offs = Shape{};
      for (const auto& item : args[2]->items) {
        auto d = dim(*item, DimUse::Loop);
        if (!d) { offs.reset(); break; }
        offs->push_back(simplify(*d));
      }
      std::optional<Shape> given_valid;
      if (args[3]) {
        given_valid = list_arg(args[3], "view valid");
        if (!given_valid) return EV::poison();
      }
      if (!a.ok() || !sh || !offs) return EV::poison();
      const Value x = p_.values[size_t(a.value)];
      size_t rank = x.shape.size();
      if (sh->size() != rank || offs->size() != rank || (given_valid && given_valid->size() != rank)) {
        err(fo, fl, "view of a rank-" + std::to_string(rank) + " value needs " + std::to_string(rank) +
                        " entries in shape, offsets and valid");
        return EV::poison();
      }
      Shape va;
      for (size_t i = 0; i < rank; ++i) {
        auto over = const_difference((*offs)[i] + (*sh)[i], x.shape[i]);
        if (over && *over > 0) {
          err(args[1]->items[i]->off, args[1]->items[i]->len,
              "view window on axis " + std::to_string(i) + " ends at " + simplify((*offs)[i] + (*sh)[i]).str() +
                  ", past the size " + x.shape[i].str());
          return EV::poison();
        }
        if (given_valid) {
          auto d = const_difference((*given_valid)[i], (*sh)[i]);
          if (d && *d > 0) {
            err(args[3]->items[i]->off, args[3]->items[i]->len, "view valid extent exceeds the window on axis " +
                                                                    std::to_string(i));
            return EV::poison();
          }
          va.push_back((*given_valid)[i]);
        } else {
          va.push_back(simplify(min_in(simplify((*offs)[i] + (*sh)[i]), x.valid[i], ranges(), sym_ranges(), divisible_) - (*offs)[i]));
        }
      }
      Op op;
      op.kind = OpKind::View;
      op.inputs = {a.value};
      op.shape = *sh;
      op.offsets = *offs;
      if (given_valid) op.valid = *given_valid;
      return EV::tensor(emit(op, x.dtype, *sh, va, fo, fl), a.nz);
    }
    case F::Concat: {
      const Expr* l = args[0];
      if (l->kind != Expr::Kind::List || l->items.empty()) {
        err(l->off, l->len, "concat takes a list of tensors: concat([a, b], dim)");
        return EV::poison();
      }
      std::vector<EV> parts;
      bool ok = true;
      for (const auto& item : l->items) {
        EV v = tensor_arg(item.get(), "a list element");
        if (!v.ok() || !check_nz(v, *item, fn)) ok = false;
        parts.push_back(v);
      }
      if (!ok) return EV::poison();
      const Value x0 = p_.values[size_t(parts[0].value)];
      auto ax = axis_arg(args[1], x0.shape.size(), "dim");
      if (!ax) return EV::poison();
      Shape sh = x0.shape, va = x0.valid;
      DimExpr total(0), valid_total(0);
      bool prefix_full = true;
      for (size_t i = 0; i < parts.size(); ++i) {
        const Value& xi = p_.values[size_t(parts[i].value)];
        const Expr& ei = *l->items[i];
        if (xi.dtype != x0.dtype) {
          err(ei.off, ei.len, "concat operands have different dtypes: " + std::string(dtype_name(x0.dtype)) + " and " +
                                  std::string(dtype_name(xi.dtype)),
              "insert cast(" + text_of(ei) + ", " + std::string(dtype_name(x0.dtype)) + ")");
          return EV::poison();
        }
        if (xi.shape.size() != x0.shape.size()) {
          err(ei.off, ei.len, "concat operands have different ranks");
          return EV::poison();
        }
        for (size_t d = 0; d < sh.size(); ++d) {
          if (int(d) == *ax) continue;
          if (!provably_equal(xi.shape[d], x0.shape[d])) {
            err(ei.off, ei.len, "concat operand shape " + shape_str(xi.shape) + " differs from " +
                                    shape_str(x0.shape) + " on axis " + std::to_string(d));
            return EV::poison();
          }
          va[d] = combine_valid(va[d], xi.valid[d]);
        }
        if (!prefix_full) {
          err(ei.off, ei.len, "concat after a partially valid operand would put padding inside the result",
              "only the last operand may have a partial valid extent on the concat axis");
          return EV::poison();
        }
        total = total + xi.shape[size_t(*ax)];
        valid_total = valid_total + xi.valid[size_t(*ax)];
        prefix_full = provably_equal(xi.shape[size_t(*ax)], xi.valid[size_t(*ax)]);
      }
      sh[size_t(*ax)] = simplify(total);
      va[size_t(*ax)] = simplify(valid_total);
      Op op;
      op.kind = OpKind::Concat;
      for (const auto& v : parts) op.inputs.push_back(v.value);
      op.axes = {*ax};
      return EV::tensor(emit(op, x0.dtype, sh, va, fo, fl));
    }
    case F::Full: {
      auto sh = list_arg(args[0], "full shape");
      EV v = expr(*args[1]);
      auto dt = dtype_arg(args[2], DType::fp32);
      if (!sh || !v.ok() || !dt) return EV::poison();
      if (!v.is_scalar()) {
        err(args[1]->off, args[1]->len, "full takes a scalar value, got the tensor '" + text_of(*args[1]) + "'");
        return EV::poison();
      }
      if (sh->empty() || sh->size() > 4) {
        err(args[0]->off, args[0]->len, "full needs a shape of rank 1 to 4");
        return EV::poison();
      }
      Op op;
      op.kind = OpKind::Full;
      op.shape = *sh;
      op.fill = v.scalar;
      op.dtype = *dt;
      return EV::tensor(emit(op, *dt, *sh, *sh, fo, fl));
    }
  }
  return EV::poison();
}

}  // namespace ptoc::fe
