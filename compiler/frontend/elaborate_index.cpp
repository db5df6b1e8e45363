// Run-time values: an element of an int32 input tensor used in a dim expression
// (a loop bound, a view offset, a valid extent), PyPTO's host-ready tensors.
// The element becomes a symbol that the control flow binds before the node that
// uses it runs (LoopNode::loads); the index may use dims and loop variables.
#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"
#include "compiler/frontend/suggest.h"

namespace ptoc::fe {

std::optional<DimExpr> Elaborator::scalar_read(const Expr& e, DimUse use) {
  const Expr& base = *e.items[0];
  const std::string shown = text_of(e);
  const std::string how = "run-time values are elements of int32 (or int64) inputs, indexed by dims, loop variables and integers";
  if (base.kind != Expr::Kind::Name) {
    err(e.off, e.len, "'" + shown + "' is not a dim expression", how);
    return std::nullopt;
  }
  const std::string& name = base.name;
  if (names_ && names_->count(name)) {
    err(base.off, base.len, "'" + name + "' is a tensor value; only elements of int32 input tensors can be read as run-time values", how);
    return std::nullopt;
  }
  const int t = p_.find_tensor(name);
  if (t < 0) {
    if (!broken_tensors_.count(name)) {
      std::vector<std::string> cands;
      for (const auto& d : p_.tensors)
        if (d.role == TensorRole::Input && (d.dtype == DType::int32 || d.dtype == DType::int64)) cands.push_back(d.name);
      std::string hint = did_you_mean(name, cands);
      err(base.off, base.len, "unknown tensor '" + name + "' in a dim expression", hint.empty() ? how : hint);
    }
    return std::nullopt;
  }
  if (!check_not_inplace_values(t, base.off, base.len)) return std::nullopt;
  const TensorDecl& td = p_.tensors[size_t(t)];
  if (td.role != TensorRole::Input) {
    err(base.off, base.len, "'" + name + "' is an " + (td.role == TensorRole::Output ? "output" : "workspace") +
                                "; run-time values are read from inputs, before any kernel runs", how);
    return std::nullopt;
  }
  if (td.dtype != DType::int32 && td.dtype != DType::int64) {
    err(base.off, base.len, "'" + name + "' is " + std::string(dtype_name(td.dtype)) +
                                "; run-time values are read from int32 inputs (or int64)",
        "declare the index tensor with dtype: int32 (or int64, PyPTO's DT_INT64)");
    return std::nullopt;
  }
  if (use == DimUse::DimsOnly) {
    err(e.off, e.len, "'" + shown + "' is a run-time value; a tensor declaration's shape uses dims only",
        "declare a dynamic dim and narrow with valid= in the body");
    return std::nullopt;
  }
  if (use == DimUse::Static) {
    err(e.off, e.len, "'" + shown + "' is a run-time value; this must be static",
        "a run-time condition is written {cond: ...}; it may use run-time values");
    return std::nullopt;
  }
  if (!seq_) {
    err(e.off, e.len, "'" + shown + "': run-time values are read only in the body");
    return std::nullopt;
  }
  if (e.slices.size() != td.shape.size()) {
    err(e.op_off, 1, "'" + name + "' has rank " + std::to_string(td.shape.size()) + " but '" + shown + "' gives " +
                         std::to_string(e.slices.size()) + " indices",
        "a run-time value is one element: give one index per axis");
    return std::nullopt;
  }
  std::vector<DimExpr> index;
  bool ok = true;
  for (size_t ax = 0; ax < e.slices.size(); ++ax) {
    const Slice& s = e.slices[ax];
    if (s.kind != Slice::Kind::Index || !s.start) {
      err(s.off, s.len, "a run-time value is one element: axis " + std::to_string(ax) + " of '" + name +
                            "' needs a single index, not a slice");
      ok = false;
      continue;
    }
    auto d = dim(*s.start, use);
    if (!d) {
      ok = false;
      continue;
    }
    DimExpr x = simplify(*d);
    DimExpr extent = simplify(td.shape[ax].substitute(static_dims_));
    if (auto c = x.as_const()) {
      auto n = extent.as_const();
      if (*c < 0 || (n && *c >= *n)) {
        err(s.off, s.len, "index " + std::to_string(*c) + " is outside axis " + std::to_string(ax) + " of '" + name +
                              "' (extent " + extent.str() + ")",
            "indices run from 0 to the extent minus one");
        ok = false;
        continue;
      }
    }
    index.push_back(x);
  }
  if (!ok) return std::nullopt;
  return load_symbol(t, std::move(index), e.off);
}

DimExpr Elaborator::load_symbol(int t, std::vector<DimExpr> index, int loc_off) {
  const std::string& name = p_.tensors[size_t(t)].name;
  std::string key = name + "[";
  for (size_t ax = 0; ax < index.size(); ++ax) key += (ax ? ", " : "") + index[ax].str();
  key += "]";
  auto [it, fresh] = load_syms_.emplace(key, "");
  if (fresh) it->second = name + "__" + std::to_string(load_syms_.size() - 1);
  std::vector<ScalarLoad>& to = load_sink_ ? *load_sink_ : seq_->loads;
  bool present = false;
  for (const auto& l : to) present |= l.sym == it->second;
  if (!present) {
    ScalarLoad l;
    l.sym = it->second;
    l.tensor = t;
    l.index = std::move(index);
    l.text = key;
    l.loc = at(loc_off);
    to.push_back(std::move(l));
  }
  return DimExpr::sym(it->second);
}

// index_select(x, dim, idx): slices idx[0], idx[1], ... of the GM tensor x along dim, idx an int32
// input of static extent (a rank-1 tensor, or one row of it: ids[b, :]). Each index is a run-time
// value; the result is the concat along dim of the one-slice views at those offsets, whose windows
// the run-time checks keep inside x.
EV Elaborator::call_index_select(const Expr& e) {
  const int fo = e.op_off, fl = int(e.name.size());
  const std::string usage = "index_select(x, dim, idx): slices of a GM tensor x along dim picked by an int32 input idx";
  if (e.args.size() != 3) {
    err(fo, fl, "index_select takes three arguments, got " + std::to_string(e.args.size()), usage);
    return EV::poison();
  }
  for (const auto& a : e.args)
    if (!a.name.empty()) {
      err(a.name_off, int(a.name.size()), "index_select takes its arguments by position", usage);
      return EV::poison();
    }
  const Expr& xe = *e.args[0].value;
  const Expr& de = *e.args[1].value;
  const Expr& ie = *e.args[2].value;
  EV x = expr(xe);
  if (!x.ok()) return EV::poison();
  if (!x.is_tensor() || p_.values[size_t(x.value)].def_op < 0 ||
      p_.ops[size_t(p_.values[size_t(x.value)].def_op)].kind != OpKind::TensorRef) {
    err(xe.off, xe.len, "index_select reads rows of a GM tensor; '" + text_of(xe) + "' is a computed value",
        "assemble it into a tensors: workspace and select from that");
    return EV::poison();
  }
  const Value xv = p_.values[size_t(x.value)];
  auto dim_c = const_int(de, "index_select's dim");
  if (!dim_c) return EV::poison();
  const int64_t xr = int64_t(xv.shape.size());
  if (*dim_c < -xr || *dim_c >= xr) {
    err(de.off, de.len, "index_select dim " + std::to_string(*dim_c) + " is out of range for '" + text_of(xe) +
                            "' of rank " + std::to_string(xr),
        "dim is in " + std::to_string(-xr) + ".." + std::to_string(xr - 1));
    return EV::poison();
  }
  const size_t sel = size_t(*dim_c < 0 ? *dim_c + xr : *dim_c);
  // The index tensor: a name, or a subscript whose last axis is ':' and the others single indices.
  const Expr* base = &ie;
  std::vector<DimExpr> prefix;
  if (ie.kind == Expr::Kind::Subscript) {
    base = ie.items[0].get();
    for (size_t ax = 0; ax < ie.slices.size(); ++ax) {
      const Slice& s = ie.slices[ax];
      const bool last = ax + 1 == ie.slices.size();
      if (last && s.kind == Slice::Kind::Range && !s.start && !s.stop) break;
      if (last || s.kind != Slice::Kind::Index || !s.start) {
        err(s.off, s.len, "index_select's index is a rank-1 int32 input or one row of one ('ids[b, :]')");
        return EV::poison();
      }
      auto d = dim(*s.start, DimUse::Loop);
      if (!d) return EV::poison();
      prefix.push_back(simplify(*d));
    }
  }
  const int t = base->kind == Expr::Kind::Name && !(names_ && names_->count(base->name)) ? p_.find_tensor(base->name) : -1;
  if (t < 0 || p_.tensors[size_t(t)].role != TensorRole::Input ||
      (p_.tensors[size_t(t)].dtype != DType::int32 && p_.tensors[size_t(t)].dtype != DType::int64)) {
    err(ie.off, ie.len, "index_select's index '" + text_of(ie) + "' must be an int32 input tensor (its elements are "
                        "read as run-time values; int64 is taken too)", "declare it under inputs: with dtype: int32");
    return EV::poison();
  }
  if (!check_not_inplace_values(t, ie.off, ie.len)) return EV::poison();
  const TensorDecl& td = p_.tensors[size_t(t)];
  if (td.shape.size() != prefix.size() + 1) {
    err(ie.off, ie.len, "index_select's index must select one row of '" + td.name + "' (rank " +
                            std::to_string(td.shape.size()) + "); write " + td.name + "[" +
                            std::string(td.shape.size() > 1 ? "b, " : "") + ":]");
    return EV::poison();
  }
  for (size_t ax = 0; ax < prefix.size(); ++ax)
    if (auto c = prefix[ax].as_const(), n = simplify(td.shape[ax].substitute(static_dims_)).as_const();
        c && n && (*c < 0 || *c >= *n)) {
      err(ie.off, ie.len, "index " + std::to_string(*c) + " is outside axis " + std::to_string(ax) + " of '" +
                              td.name + "' (extent " + std::to_string(*n) + ")");
      return EV::poison();
    }
  constexpr int64_t kMaxRows = 256;
  auto n = simplify(td.shape.back().substitute(static_dims_)).as_const();
  if (!n || *n < 1 || *n > kMaxRows) {
    err(ie.off, ie.len, "index_select's index needs a static extent from 1 to " + std::to_string(kMaxRows) +
                            " on its last axis, got " + td.shape.back().str(),
        "select in blocks of at most " + std::to_string(kMaxRows) + " rows");
    return EV::poison();
  }
  if (!seq_) return EV::poison();
  std::vector<int> rows;
  Shape row_shape = xv.shape;
  row_shape[sel] = DimExpr(1);
  Shape row_valid = xv.valid;
  row_valid[sel] = DimExpr(1);
  for (int64_t i = 0; i < *n; ++i) {
    std::vector<DimExpr> index = prefix;
    index.push_back(DimExpr(i));
    Op op;
    op.kind = OpKind::View;
    op.inputs = {x.value};
    op.shape = row_shape;
    op.offsets = Shape(row_shape.size(), DimExpr(0));
    op.offsets[sel] = load_symbol(t, std::move(index), ie.off);
    op.valid = row_valid;  // one whole slice along dim: its index is checked against x at run time
    rows.push_back(emit(op, xv.dtype, row_shape, row_valid, fo, fl));
  }
  if (rows.size() == 1) return EV::tensor(rows[0]);
  Shape sh = xv.shape, va = xv.valid;
  sh[sel] = DimExpr(*n);
  va[sel] = DimExpr(*n);
  Op cat;
  cat.kind = OpKind::Concat;
  cat.inputs = rows;
  cat.axes = {int(sel)};
  return EV::tensor(emit(cat, xv.dtype, sh, va, fo, fl));
}

}  // namespace ptoc::fe
