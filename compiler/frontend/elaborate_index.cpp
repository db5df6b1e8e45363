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
  const std::string how = "run-time values are elements of int32 inputs, indexed by dims, loop variables and integers";
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
        if (d.role == TensorRole::Input && d.dtype == DType::int32) cands.push_back(d.name);
      std::string hint = did_you_mean(name, cands);
      err(base.off, base.len, "unknown tensor '" + name + "' in a dim expression", hint.empty() ? how : hint);
    }
    return std::nullopt;
  }
  const TensorDecl& td = p_.tensors[size_t(t)];
  if (td.role != TensorRole::Input) {
    err(base.off, base.len, "'" + name + "' is an " + (td.role == TensorRole::Output ? "output" : "workspace") +
                                "; run-time values are read from inputs, before any kernel runs", how);
    return std::nullopt;
  }
  if (td.dtype != DType::int32) {
    err(base.off, base.len, "'" + name + "' is " + std::string(dtype_name(td.dtype)) +
                                "; run-time values are read from int32 inputs",
        "declare the index tensor with dtype: int32");
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
  std::string key = name + "[";
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
    key += (ax ? ", " : "") + x.str();
    index.push_back(x);
  }
  if (!ok) return std::nullopt;
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
    l.loc = at(e.off);
    to.push_back(std::move(l));
  }
  return DimExpr::sym(it->second);
}

}  // namespace ptoc::fe
