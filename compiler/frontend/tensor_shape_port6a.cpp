// PyPTO's models read a tensor's extents into Python variables and compute with them:
//   bt, l, d = v_flat.shape              (Kimi's block attention residual)
//   num_groups = scale.shape[0]          (QAT)
// A port binds the same names: a static extent becomes a compile-time constant (section 4, as `n = 4`),
// a dynamic one an alias of the dim expression (usable wherever the dim is: loop counts, slices,
// views, valid shapes; an `if` condition refuses it as it refuses a dynamic dim). The lexer reads
// `x.shape` as one name; here it must be a tensor (an input, an output, a workspace) or a value bound
// before, and the targets must match its rank (or the index be inside it).
#include <functional>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

bool is_shape_name(const Expr& e) {
  const std::string kTail = ".shape";
  return e.kind == Expr::Kind::Name && !e.quoted && e.name.size() > kTail.size() &&
         e.name.compare(e.name.size() - kTail.size(), kTail.size(), kTail) == 0;
}

}  // namespace

bool Elaborator::tensor_shape_binding(const Stmt& s) {
  const AssignAst& a = s.assign;
  if (!seq_ || !a.value || a.subscript) return false;
  const Expr& e = *a.value;
  const Expr* base = nullptr;
  const Expr* index = nullptr;
  int64_t index_value = 0;
  if (is_shape_name(e)) {
    base = &e;
  } else if (e.kind == Expr::Kind::Subscript && !e.items.empty() && is_shape_name(*e.items[0])) {
    base = e.items[0].get();
    const Expr* i = e.slices.size() == 1 && e.slices[0].kind == Slice::Kind::Index ? e.slices[0].start.get() : nullptr;
    const bool neg = i && i->kind == Expr::Kind::Neg && i->items.size() == 1;  // x.shape[-1]
    const Expr* num = neg ? i->items[0].get() : i;
    if (!num || num->kind != Expr::Kind::Number || !num->is_int) {
      err(e.off, e.len, "'" + text_of(e) + "': index a tensor's shape with one integer, as x.shape[0]",
          "bind all extents with 'a, b = x.shape'");
      return true;
    }
    index = i;
    index_value = neg ? -num->ival : num->ival;
  } else {
    return false;
  }
  const std::string tensor = base->name.substr(0, base->name.size() - 6);
  Shape shape;
  if (auto it = names_->find(tensor); it != names_->end() && !it->second.poison && it->second.value >= 0) {
    shape = p_.values[size_t(it->second.value)].shape;
  } else if (int t = p_.find_tensor(tensor); t >= 0) {
    shape = p_.tensors[size_t(t)].shape;
  } else {
    err(base->off, int(tensor.size()), "'" + tensor + "' is not a tensor or a value: '" + base->name + "' reads one's extents",
        "x.shape takes an input, output or workspace name, or a value bound before");
    return true;
  }
  std::vector<AssignAst::Name> targets = {{a.target, a.target_off, a.target_len}};
  for (const auto& m : a.more_targets) targets.push_back(m);
  const int64_t rank = int64_t(shape.size());
  std::vector<int64_t> axes;
  if (index) {
    if (targets.size() != 1) {
      err(e.off, e.len, "'" + text_of(e) + "' is one extent; bind it to one name");
      return true;
    }
    int64_t i = index_value < 0 ? index_value + rank : index_value;
    if (i < 0 || i >= rank) {
      err(index->off, index->len, "'" + tensor + "' has rank " + std::to_string(rank) + "; index " +
                                      std::to_string(index_value) + " is outside its shape");
      return true;
    }
    axes.push_back(i);
  } else {
    if (int64_t(targets.size()) != rank) {
      err(a.target_off, a.target_len,
          "'" + base->name + "' has " + std::to_string(rank) + " extents; " + std::to_string(targets.size()) +
              " names are bound",
          "bind one name per axis, or one extent with x.shape[i]");
      return true;
    }
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  Frame& fr = seq_->frame;
  for (size_t k = 0; k < targets.size(); ++k) {
    const auto& t = targets[k];
    if (!fr.named_consts.count(t.text)) {
      if (names_->count(t.text)) {
        err(t.off, t.len, "cannot bind '" + t.text + "' to an extent: it names a tensor value", "choose another name");
        return true;
      }
      if (!check_binding_name(t.text, at(t.off), t.len, "compile-time constant")) return true;
    }
    const DimExpr d = simplify(shape[size_t(axes[k])].substitute(static_dims_));
    fr.consts.erase(t.text);
    fr.float_consts.erase(t.text);
    fr.list_consts.erase(t.text);
    fr.nested_consts.erase(t.text);
    fr.dim_aliases.erase(t.text);
    fr.runtime_aliases.erase(t.text);
    if (auto c = d.as_const()) fr.consts[t.text] = *c;
    else fr.dim_aliases[t.text] = d;
    fr.named_consts.insert(t.text);
  }
  return true;
}

}  // namespace ptoc::fe

namespace ptoc::fe {

namespace {

// Whether `e` is integer arithmetic over dims, constants, extent aliases and dynamic loop variables, with
// at least one dynamic leaf (else it is a compile-time constant: elaborate_const_binding.cpp).
bool symbolic_leaves(const Expr& e, const Program& p, const Frame& f, const Names& names, bool& dynamic) {
  switch (e.kind) {
    case Expr::Kind::Number: return e.is_int;
    case Expr::Kind::Name: {
      if (e.quoted || names.count(e.name)) return false;
      if (const DimDecl* d = p.find_dim(e.name)) return dynamic = dynamic || d->dynamic, true;
      if (f.dim_aliases.count(e.name) || f.dyn_vars.count(e.name)) return dynamic = true;
      return f.consts.count(e.name) > 0;
    }
    case Expr::Kind::Neg: return e.items.size() == 1 && symbolic_leaves(*e.items[0], p, f, names, dynamic);
    case Expr::Kind::Subscript: {
      // `start_pos_dy[b_idx * b + c_idx]`: an element of an integer input, a run-time value (section 8)
      const Expr& b = *e.items[0];
      const int t = b.kind == Expr::Kind::Name && !names.count(b.name) ? p.find_tensor(b.name) : -1;
      if (t < 0 || p.tensors[size_t(t)].role != TensorRole::Input) return false;
      const DType dt = p.tensors[size_t(t)].dtype;
      if (dt != DType::int32 && dt != DType::int64) return false;
      for (const auto& sl : e.slices)
        if (sl.kind != Slice::Kind::Index || !sl.start || !symbolic_leaves(*sl.start, p, f, names, dynamic)) return false;
      return dynamic = true;
    }
    case Expr::Kind::Binary:
      if (e.op != "+" && e.op != "-" && e.op != "*" && e.op != "//" && e.op != "%") return false;
      return symbolic_leaves(*e.items[0], p, f, names, dynamic) && symbolic_leaves(*e.items[1], p, f, names, dynamic);
    case Expr::Kind::Call:
      if ((e.name != "min" && e.name != "max" && e.name != "ceil_div") || e.args.size() != 2) return false;
      for (const auto& a : e.args)
        if (!a.name.empty() || !a.value || !symbolic_leaves(*a.value, p, f, names, dynamic)) return false;
      return true;
    default: return false;
  }
}

}  // namespace

// PyPTO's SymbolicScalar arithmetic bound to a Python name: `b_loop = (bsz + b - 1) // b` with bsz a dynamic
// extent, `b_valid = min(bsz - b_idx * b, b)` in a loop over b_idx. The name is an alias of the dim
// expression (as `bsz` is after `bsz, s1, h = x.shape`).
bool Elaborator::symbolic_binding(const Stmt& s) {
  const AssignAst& a = s.assign;
  if (!seq_ || !a.value || a.subscript || !a.more_targets.empty()) return false;
  bool dynamic = false;
  if (!symbolic_leaves(*a.value, p_, seq_->frame, *names_, dynamic) || !dynamic) return false;
  Frame& fr = seq_->frame;
  if (!fr.named_consts.count(a.target)) {
    if (names_->count(a.target)) {
      err(a.target_off, a.target_len, "cannot bind '" + a.target + "' to a dim expression: it names a tensor value",
          "choose another name");
      return true;
    }
    if (!check_binding_name(a.target, at(a.target_off), a.target_len, "compile-time constant")) return true;
  }
  auto d = dim(*a.value, DimUse::Loop);
  if (!d) return true;
  fr.consts.erase(a.target);
  fr.float_consts.erase(a.target);
  fr.list_consts.erase(a.target);
  fr.nested_consts.erase(a.target);
  fr.dim_aliases[a.target] = simplify(*d);
  // An alias holding a run-time value is re-read at each use, so that each use's root function loads it.
  bool runtime = false;
  std::function<void(const Expr&)> scan = [&](const Expr& x) {
    if (x.kind == Expr::Kind::Subscript) runtime = true;
    if (x.kind == Expr::Kind::Name && fr.runtime_aliases.count(x.name)) runtime = true;
    for (const auto& i : x.items) if (i) scan(*i);
    for (const auto& g : x.args) if (g.value) scan(*g.value);
  };
  scan(*a.value);
  if (runtime) fr.runtime_aliases[a.target] = a.value;
  else fr.runtime_aliases.erase(a.target);
  fr.named_consts.insert(a.target);
  return true;
}

}  // namespace ptoc::fe
