// Expressions of statement strings -> ops of the tensor graph, with the
// dtype, shape, valid-shape and tile-state rules of spec-language.md 4 and 7.
#include <cmath>
#include <limits>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"
#include "compiler/frontend/suggest.h"

namespace ptoc::fe {

// Which dtype a mixed pair should meet at (the hint's cast target).
DType wider(DType a, DType b) {
  auto rank = [](DType t) {
    switch (t) {
      case DType::fp32: return 11;
      case DType::int64: return 10;
      case DType::uint64: return 9;
      case DType::bf16: return 8;
      case DType::fp16: return 7;
      case DType::int32: return 6;
      case DType::uint32: return 5;
      case DType::int16: return 4;
      case DType::uint16: return 3;
      case DType::int8: return 2;
      case DType::uint8: return 1;
      default: return 0;
    }
  };
  return rank(a) >= rank(b) ? a : b;
}


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
  if (e.quoted) {
    // PyPTO's strings are mode arguments, read by the op that takes them; elsewhere a string names nothing.
    err(e.off, e.len, "the string " + text_of(e) + " is not a tensor or a number",
        "strings are mode arguments (fillpad(x, \"constant\", 0.0)); a tensor is named without quotes");
    return EV::poison();
  }
  if (names_) {
    auto it = names_->find(n);
    if (it != names_->end()) {
      if (it->second.poison) return EV::poison();
      if (it->second.is_local_tensor()) return local_read(it->second, e.off);
      return EV::tensor(it->second.value, it->second.nz);
    }
  }
  int t = inplace_target(p_.find_tensor(n));
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
    // `eps = 1e-6` (elaborate_const_binding.cpp): a float literal by another name.
    if (auto f = seq_->frame.float_consts.find(n); f != seq_->frame.float_consts.end()) return EV::number(f->second, false);
    if (auto a = seq_->frame.scalars.find(n); a != seq_->frame.scalars.end()) {  // elaborate_symbolic_scalar.cpp
      if (a->second.extent)
        err(e.off, e.len, "'" + n + "' is a dynamic extent (" + a->second.value.str() + ") and cannot be a scalar operand",
            "use it in slice bounds and dim expressions");
      else
        err(e.off, e.len, "'" + n + "' is a run-time scalar and cannot be a scalar operand",
            "use it in loop bounds, view offsets, valid extents, slices and conditions");
      return EV::poison();
    }
    if (seq_->frame.dtype_consts.count(n)) {  // `dtype = x.dtype` (elaborate_tensor_shape.cpp)
      err(e.off, e.len, "'" + n + "' is a dtype, not a value", "a dtype is an argument: cast(y, " + n + "), full(shape, 0, " + n + ")");
      return EV::poison();
    }
    if (non_int_const(e, "a scalar operand")) return EV::poison();
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
  if (auto it = branch_mismatch_.find(n); it != branch_mismatch_.end()) {  // elaborate_bound_in_both.cpp
    err(e.off, e.len, it->second.first, it->second.second);
    return EV::poison();
  }
  if (auto it = branch_locals_.find(n); it != branch_locals_.end()) {
    err(e.off, e.len,
        "'" + n + "' was first bound inside the run-time branch at line " + std::to_string(it->second) +
            ", which may not run",
        "bind it before the branch (then both paths give it a value)");
    return EV::poison();
  }
  if (auto it = loop_vars_ended_.find(n); it != loop_vars_ended_.end()) {
    err(e.off, e.len, "'" + n + "' is the variable of the loop at line " + std::to_string(it->second) +
                          ", which has ended; loop variables are local to their loop");
    return EV::poison();
  }
  if (auto d = ast_.dict_names.find(n); d != ast_.dict_names.end()) {  // dict_constants.h
    err(e.off, e.len, "'" + n + "' is the dict bound at line " + std::to_string(d->second) + "; a dict has no value of its own",
        "read one of its entries by key: " + n + "['KEY']");
    return EV::poison();
  }
  std::string hint = did_you_mean(n, visible_names());
  if (hint.empty() && find_op(n)) hint = "'" + n + "' is a function; call it as " + n + "(...)";
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
      if (e.op == "**" || e.op == "@") return surface_binary(e);  // elaborate_python_operators.cpp
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
    case K::Compare: {
      // a == b ... a >= b: the comparison ops, producing bool.
      EV a = expr(*e.items[0]);
      EV b = expr(*e.items[1]);
      OpKind k = e.op == "==" ? OpKind::Eq : e.op == "!=" ? OpKind::Ne : e.op == "<" ? OpKind::Lt
               : e.op == "<=" ? OpKind::Le : e.op == ">" ? OpKind::Gt : OpKind::Ge;
      return binary(k, a, b, *e.items[0], *e.items[1], e.op_off, int(e.op.size()), e.op);
    }
    case K::Call: return call(e);
    case K::Subscript: {
      int64_t v = 0;  // `tile_shapes[0]`: an entry of a constant list, a scalar
      if (int c = const_list_item(e, v)) return c > 0 ? EV::number(double(v), true) : EV::poison();
      if (auto x = shape_entry_value(e)) return *x;  // `x.shape[-1]`: its extent, a number
      return subscript(e);
    }
    case K::List:
      err(e.off, e.len, "a list is not a tensor value", "lists are arguments of reshape, view, full and concat");
      return EV::poison();
    default:
      err(e.off, e.len, "'and', 'or' and 'not' are only allowed in if conditions",
          "for tensors use logical_and(a, b), logical_or(a, b), logical_not(a)");
      return EV::poison();
  }
}

EV Elaborator::binary(OpKind k, const EV& a, const EV& b, const Expr& ea, const Expr& eb, int op_off, int op_len,
                      const std::string& spelling) {
  if (!a.ok() || !b.ok()) return EV::poison();
  if (a.is_scalar() && b.is_scalar()) {
    double x = a.scalar, y = b.scalar;
    if (auto m = fold_math(k, a, b, op_off, op_len, spelling)) return *m;  // --- math ops ---
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
      case OpKind::Minimum: return EV::number(std::min(x, y), a.is_int && b.is_int);
      case OpKind::Pow: return EV::number(std::pow(x, y), false);
      case OpKind::Eq: return EV::number(x == y, true);
      case OpKind::Ne: return EV::number(x != y, true);
      case OpKind::Lt: return EV::number(x < y, true);
      case OpKind::Le: return EV::number(x <= y, true);
      case OpKind::Gt: return EV::number(x > y, true);
      case OpKind::Ge: return EV::number(x >= y, true);
      case OpKind::LogicalAnd: return EV::number(x != 0 && y != 0, true);
      case OpKind::LogicalOr: return EV::number(x != 0 || y != 0, true);
      default: {
        if (!a.is_int || !b.is_int) {
          err(op_off, op_len, "'" + spelling + "' takes integers");
          return EV::poison();
        }
        int64_t i = int64_t(x), j = int64_t(y);
        return EV::number(double(k == OpKind::BitwiseAnd ? (i & j) : k == OpKind::BitwiseOr ? (i | j) : (i ^ j)), true);
      }
    }
  }
  const OpSpec& spec = op_spec(k);
  const DType result_bool = DType::boolean;
  const std::string name(op_kind_name(k));
  if (!check_nz(a, ea, name) || !check_nz(b, eb, name)) return EV::poison();
  Op op;
  op.kind = k;
  if (a.is_scalar() || b.is_scalar()) {
    const EV& t = a.is_tensor() ? a : b;
    const EV& s = a.is_tensor() ? b : a;
    const Value& tv = p_.values[size_t(t.value)];
    if (!check_operand_dtype(spec, tv.dtype, a.is_tensor() ? ea : eb, op_off, op_len, spelling)) return EV::poison();
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
    return EV::tensor(emit(op, spec.result == ResultRule::Bool ? result_bool : tv.dtype, sh, va, op_off, op_len));
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
  if (!check_operand_dtype(spec, x.dtype, ea, op_off, op_len, spelling)) return EV::poison();
  Broadcast bc = broadcast(x.shape, x.valid, y.shape, y.valid);
  if (bc.bad_axis >= 0) {
    err(op_off, op_len, "shapes " + shape_str(x.shape) + " and " + shape_str(y.shape) + " of '" + spelling +
                            "' do not broadcast (axis " + std::to_string(bc.bad_axis) + ")",
        "broadcasting needs equal sizes or size 1 on each axis, aligned at the end");
    return EV::poison();
  }
  op.inputs = {a.value, b.value};
  DType dt = spec.result == ResultRule::Bool ? result_bool : x.dtype;
  return EV::tensor(emit(op, dt, bc.shape, bc.valid, op_off, op_len));
}

EV Elaborator::unary(OpKind k, const EV& a, const Expr& ea, int op_off, const std::string& spelling) {
  if (!a.ok()) return EV::poison();
  const OpSpec& spec = op_spec(k);
  if (a.is_scalar())
    return EV::number(scalar_unary(k, a.scalar), spec.result == ResultRule::Bool || k == OpKind::BitwiseNot);
  if (!check_nz(a, ea, spelling)) return EV::poison();
  const Value& x = p_.values[size_t(a.value)];
  if (!check_operand_dtype(spec, x.dtype, ea, op_off, int(spelling.size()), spelling)) return EV::poison();
  Op op;
  op.kind = k;
  op.inputs = {a.value};
  Shape sh = x.shape, va = x.valid;
  return EV::tensor(emit(op, spec.result == ResultRule::Bool ? DType::boolean : x.dtype, sh, va, op_off,
                         int(spelling.size())));
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

}  // namespace ptoc::fe
