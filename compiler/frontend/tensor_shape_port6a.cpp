// PyPTO's models read a tensor's extents into Python variables and compute with them:
//   bt, l, d = v_flat.shape              (Kimi's block attention residual)
//   num_groups = scale.shape[0]          (QAT)
// A port binds the same names: a static extent becomes a compile-time constant (section 4, as `n = 4`),
// a dynamic one an alias of the dim expression (usable wherever the dim is: loop counts, slices,
// views, valid shapes; an `if` condition refuses it as it refuses a dynamic dim). The lexer reads
// `x.shape` as one name; here it must be a tensor (an input, an output, a workspace) or a value bound
// before, and the targets must match its rank (or the index be inside it).
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
    if (auto c = d.as_const()) fr.consts[t.text] = *c;
    else fr.dim_aliases[t.text] = d;
    fr.named_consts.insert(t.text);
  }
  return true;
}

}  // namespace ptoc::fe
