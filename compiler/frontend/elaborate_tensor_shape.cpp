// PyPTO's models read a tensor's extents into Python variables and compute with them:
//   bt, l, d = v_flat.shape              (Kimi's block attention residual)
//   num_groups = scale.shape[0]          (QAT)
// A port binds the same names: a static extent becomes a compile-time constant (section 4, as `n = 4`),
// a dynamic one a scalar binding of the dim (elaborate_symbolic_scalar.cpp: usable wherever the dim is,
// loop counts, slices, views, valid shapes, arithmetic, run-time `if` conditions). The lexer reads
// `x.shape` as one name; here it must be a tensor (an input, an output, a workspace) or a value bound
// before, and the targets must match its rank (or the index be inside it).
#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

bool has_tail(const Expr& e, const std::string& tail) {
  return e.kind == Expr::Kind::Name && !e.quoted && e.name.size() > tail.size() &&
         e.name.compare(e.name.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_shape_name(const Expr& e) { return has_tail(e, ".shape"); }

// `x.shape[i]` (i an integer, -1 counting from the end): the index expression, its value in `value`;
// nullptr when the index is not one integer.
const Expr* shape_index(const Expr& e, int64_t& value) {
  const Expr* i = e.slices.size() == 1 && e.slices[0].kind == Slice::Kind::Index ? e.slices[0].start.get() : nullptr;
  const bool neg = i && i->kind == Expr::Kind::Neg && i->items.size() == 1;  // x.shape[-1]
  const Expr* num = neg ? i->items[0].get() : i;
  if (!num || num->kind != Expr::Kind::Number || !num->is_int) return nullptr;
  value = neg ? -num->ival : num->ival;
  return i;
}

}  // namespace

// The tensor or value a `x.shape` / `x.dtype` name reads: 1 for a value (`*value` set), 2 for a tensor
// (`*tensor` set), 3 for a local tensor (its window on `*tensor`, names_' binding), 0 when reported.
int Elaborator::attribute_owner(const Expr& base, const std::string& what, int* value, int* tensor) {
  const std::string owner = base.name.substr(0, base.name.rfind('.'));
  if (names_) {
    if (auto it = names_->find(owner); it != names_->end()) {
      if (it->second.poison) return 0;  // reported where it was bound
      if (it->second.value >= 0) {
        *value = it->second.value;
        return 1;
      }
      if (it->second.is_local_tensor()) {  // a local tensor or a loop's carried value (elaborate_state.cpp)
        *value = -1;
        *tensor = it->second.tensor;
        return 3;
      }
    }
  }
  if (int t = p_.find_tensor(owner); t >= 0) {
    *tensor = t;
    return 2;
  }
  err(base.off, int(owner.size()), "'" + owner + "' is not a tensor or a value: '" + base.name + "' reads one's " + what,
      std::string("x") + base.name.substr(owner.size()) + " takes an input, output or workspace name, or a value bound before");
  return 0;
}

std::optional<Shape> Elaborator::shape_of_name(const Expr& base) {
  int v = -1, t = -1;
  const int k = attribute_owner(base, "extents", &v, &t);
  if (!k) return std::nullopt;
  const std::string owner = base.name.substr(0, base.name.rfind('.'));
  Shape shape = k == 1 ? p_.values[size_t(v)].shape : k == 2 ? p_.tensors[size_t(t)].shape : names_->at(owner).shape;
  for (auto& d : shape) d = simplify(d.substitute(static_dims_));
  return shape;
}

std::optional<DType> Elaborator::dtype_of_name(const Expr& e) {
  int v = -1, t = -1;
  const int k = attribute_owner(e, "dtype", &v, &t);
  if (!k) return std::nullopt;
  return k == 1 ? p_.values[size_t(v)].dtype : p_.tensors[size_t(t)].dtype;  // a local tensor: its workspace's
}

bool Elaborator::is_dtype_attribute(const Expr& e) { return has_tail(e, ".dtype"); }

// `dtype = x.dtype` (DeepSeek-V4's compressor): the name is then a dtype argument (`cast(y, dtype)`), as in
// Python; it is no tensor value or number.
bool Elaborator::dtype_binding(const Stmt& s) {
  const AssignAst& a = s.assign;
  if (!seq_ || !a.value || a.subscript || !a.more_targets.empty() || !is_dtype_attribute(*a.value)) return false;
  Frame& fr = seq_->frame;
  if (!fr.dtype_consts.count(a.target)) {
    if (names_->count(a.target)) {
      err(a.target_off, a.target_len, "cannot bind dtype '" + a.target + "': it names a tensor value", "choose another name");
      return true;
    }
    if (!check_binding_name(a.target, at(a.target_off), a.target_len, "dtype")) return true;
  }
  auto dt = dtype_of_name(*a.value);
  if (!dt) return true;  // reported
  forget_binding(a.target);
  fr.dtype_consts[a.target] = *dt;
  return true;
}

std::optional<Shape> Elaborator::shape_list_of(const Expr& e) {
  if (!is_shape_name(e)) return std::nullopt;
  return shape_of_name(e);
}

int Elaborator::shape_entry(const Expr& e, DimExpr& out) {
  if (e.kind != Expr::Kind::Subscript || e.items.empty() || !e.items[0] || !is_shape_name(*e.items[0])) return 0;
  int64_t iv = 0;
  const Expr* index = shape_index(e, iv);
  if (!index) {
    err(e.off, e.len, std::string("'") + text_of(e) + "': index a tensor's shape with one integer, as x.shape[0]");
    return -1;
  }
  auto shape = shape_of_name(*e.items[0]);
  if (!shape) return -1;
  const int64_t rank = int64_t(shape->size());
  const int64_t i = iv < 0 ? iv + rank : iv;
  if (i < 0 || i >= rank) {
    err(index->off, index->len, std::string("'") + e.items[0]->name.substr(0, e.items[0]->name.size() - 6) + "' has rank " +
                                    std::to_string(rank) + "; index " + std::to_string(iv) + " is outside its shape");
    return -1;
  }
  out = (*shape)[size_t(i)];
  return 1;
}

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
    index = shape_index(e, index_value);
    if (!index) {
      err(e.off, e.len, std::string("'") + text_of(e) + "': index a tensor's shape with one integer, as x.shape[0]",
          "bind all extents with 'a, b = x.shape'");
      return true;
    }
  } else {
    return false;
  }
  const std::string tensor = base->name.substr(0, base->name.size() - 6);
  auto got = shape_of_name(*base);
  if (!got) return true;  // reported
  const Shape& shape = *got;
  std::vector<AssignAst::Name> targets = {{a.target, a.target_off, a.target_len}};
  for (const auto& m : a.more_targets) targets.push_back(m);
  const int64_t rank = int64_t(shape.size());
  std::vector<int64_t> axes;
  if (index) {
    if (targets.size() != 1) {
      err(e.off, e.len, std::string("'") + text_of(e) + "' is one extent; bind it to one name");
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
    if (!fr.named_consts.count(t.text) && !fr.scalars.count(t.text)) {
      if (names_->count(t.text)) {
        err(t.off, t.len, "cannot bind '" + t.text + "' to an extent: it names a tensor value", "choose another name");
        return true;
      }
      if (!check_binding_name(t.text, at(t.off), t.len, "compile-time constant")) return true;
    }
    const DimExpr d = shape[size_t(axes[k])];
    if (auto c = d.as_const()) {
      forget_binding(t.text);
      fr.consts[t.text] = *c;
      fr.named_consts.insert(t.text);
    } else {
      Frame::Scalar sc;
      sc.value = d;
      sc.extent = true;
      bind_scalar(t.text, std::move(sc));
    }
  }
  return true;
}

}  // namespace ptoc::fe
