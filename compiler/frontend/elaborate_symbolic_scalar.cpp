// PyPTO's SymbolicScalar bound to a Python name: one mechanism for every integer a port computes outside
// its tensors. A scalar binding is a dim expression whose value is known when the bundle is built (a
// dynamic extent, `bsz, s, h = x.shape` (elaborate_tensor_shape.cpp); arithmetic on it, `b_loop = (bsz + b
// - 1) // b`; a dynamic loop's variable, `b_valid = min(bsz - b_idx * b, b)`) or read at run time (an
// element of an int32/int64 input, DeepSeek-V4's `cur_s_q = cu_seqlens_q[b_idx + 1] - cu_seqlens_q[b_idx]`,
// `start_block = cur_start_s2_pos // block_size`), or both mixed.
//
// `NAME = EXPR` binds one when EXPR is an integer dim expression (`+ - * // %`, unary `-`, `min`, `max`,
// `ceil_div`/`ceildiv`, integer literals) whose leaves are dims, loop variables, constants, scalar
// bindings made before and elements of int32/int64 inputs (`seq[b]`, one index per axis), with at least
// one leaf that is not a compile-time constant (else it is a compile-time constant,
// elaborate_const_binding.cpp). The name then stands for its dim expression wherever one may stand: loop
// bounds, view offsets and valid extents, slices, `if`/`cond` conditions (an `if` on a scalar binding
// branches at run time, as PyPTO's `if` on a SymbolicScalar). Its value is taken where it is bound
// (Python's binding: a later rebinding of a name it reads does not change it); the run-time values it reads
// are read where it is used (before the loop or the root function that uses it, as if written there).
// Scope: a value's (local to a loop body; an `if` branch is spliced in place).
#include <string>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

// An element of an int32/int64 input indexed on every axis (`seq[b + 1]`): a run-time value.
bool is_input_element(const Expr& e, const Program& p, const Names& names) {
  if (e.kind != Expr::Kind::Subscript || e.items.size() != 1 || !e.items[0]) return false;
  const Expr& b = *e.items[0];
  if (b.kind != Expr::Kind::Name || b.quoted || names.count(b.name)) return false;
  const int t = p.find_tensor(b.name);
  if (t < 0) return false;
  const TensorDecl& td = p.tensors[size_t(t)];
  if (td.role != TensorRole::Input || (td.dtype != DType::int32 && td.dtype != DType::int64)) return false;
  if (e.slices.size() != td.shape.size()) return false;
  for (const auto& s : e.slices)
    if (s.kind != Slice::Kind::Index || !s.start) return false;
  return true;
}

// Whether `e` has the integer dim form above; `dynamic` is set when a leaf is not a compile-time constant.
// `slash`: also take `/`, to report it as the integer division it cannot be.
bool is_scalar_expr(const Expr& e, const Program& p, const Frame& f, const Names& names, bool& dynamic,
                    bool slash = false) {
  switch (e.kind) {
    case Expr::Kind::Number: return e.is_int;
    case Expr::Kind::Name: {
      if (e.quoted || names.count(e.name)) return false;
      if (const DimDecl* d = p.find_dim(e.name)) {
        dynamic = dynamic || d->dynamic;
        return true;
      }
      if (f.consts.count(e.name)) return true;
      if (f.dyn_vars.count(e.name) || f.scalars.count(e.name)) return dynamic = true;
      return false;
    }
    case Expr::Kind::Subscript:
      if (is_input_element(e, p, names)) return dynamic = true;
      return false;  // a constant list's entry alone is a compile-time constant, elaborated there
    case Expr::Kind::Neg: return e.items.size() == 1 && is_scalar_expr(*e.items[0], p, f, names, dynamic, slash);
    case Expr::Kind::Binary:
      if (e.op != "+" && e.op != "-" && e.op != "*" && e.op != "//" && e.op != "%" && !(slash && e.op == "/"))
        return false;
      return e.items.size() == 2 && is_scalar_expr(*e.items[0], p, f, names, dynamic, slash) &&
             is_scalar_expr(*e.items[1], p, f, names, dynamic, slash);
    case Expr::Kind::Call:
      if (e.name != "min" && e.name != "max" && e.name != "ceil_div" && e.name != "ceildiv") return false;
      if (e.args.size() != 2) return false;
      for (const auto& a : e.args)
        if (!a.name.empty() || !a.value || !is_scalar_expr(*a.value, p, f, names, dynamic, slash)) return false;
      return true;
    default: return false;
  }
}

}  // namespace

void Elaborator::forget_binding(const std::string& name) {
  Frame& fr = seq_->frame;
  // A rebinding may change the form (`n = 4`, then `n = seq[b]`): one name, one binding.
  fr.consts.erase(name);
  fr.float_consts.erase(name);
  fr.list_consts.erase(name);
  fr.nested_consts.erase(name);
  fr.named_consts.erase(name);
  fr.scalars.erase(name);
  fr.dtype_consts.erase(name);
}

void Elaborator::bind_scalar(const std::string& name, Frame::Scalar value) {
  forget_binding(name);
  seq_->frame.scalars[name] = std::move(value);
}

bool Elaborator::scalar_binding(const Stmt& s) {
  const AssignAst& a = s.assign;
  if (!seq_ || !a.value || a.subscript || !a.more_targets.empty()) return false;
  Frame& fr = seq_->frame;
  bool dynamic = false;
  if (!is_scalar_expr(*a.value, p_, fr, *names_, dynamic) || !dynamic) {
    // `m = n / 2`: integers that would make a scalar binding but for `/` (a tensor op's true division).
    bool dyn_slash = false;
    if (is_scalar_expr(*a.value, p_, fr, *names_, dyn_slash, true) && dyn_slash) {
      err(a.value->off, a.value->len, std::string("'") + text_of(*a.value) + "' divides integers with '/'; a run-time scalar is an integer",
          "use '//' (floor division) or ceil_div(a, b)");
      return true;
    }
    return false;
  }
  if (!fr.scalars.count(a.target) && !fr.named_consts.count(a.target) && !fr.dtype_consts.count(a.target)) {
    if (names_->count(a.target)) {
      err(a.target_off, a.target_len, "cannot bind run-time scalar '" + a.target + "': it names a tensor value",
          "choose another name");
      return true;
    }
    if (!check_binding_name(a.target, at(a.target_off), a.target_len, "run-time scalar")) return true;
  }
  Frame::Scalar sc;
  std::optional<DimExpr> d;
  {
    LoadSink sink(*this, &sc.loads);  // the reads move to each use
    d = dim(*a.value, DimUse::Loop);
  }
  if (!d) return true;  // reported by dim()
  sc.value = simplify(*d);
  bind_scalar(a.target, std::move(sc));
  return true;
}

std::optional<DimExpr> Elaborator::scalar_use(const Expr& e, DimUse use, bool& found) {
  found = false;
  if (!seq_ || e.kind != Expr::Kind::Name || e.quoted) return std::nullopt;
  auto it = seq_->frame.scalars.find(e.name);
  if (it == seq_->frame.scalars.end()) return std::nullopt;
  found = true;
  const Frame::Scalar& sc = it->second;
  if (use == DimUse::Static) {
    if (sc.extent)
      err(e.off, e.len, "'" + e.name + "' is a dynamic extent (" + sc.value.str() + "); this must be static",
          "an if condition may only use static dims, static loop variables and unroll factors");
    else
      err(e.off, e.len, "'" + e.name + "' is a run-time scalar (it reads dynamic dims, loop variables or run-time values); "
                            "this must be static",
          "tile shapes and compile-time constants are static; a run-time scalar stands in loop bounds, view offsets, "
          "valid extents, slices and `if`/`cond` conditions");
    return std::nullopt;
  }
  if (use == DimUse::DimsOnly) {
    err(e.off, e.len, "'" + e.name + "' is a run-time scalar; a tensor declaration's shape uses dims only",
        "declare the largest shape and narrow it with valid= in the body");
    return std::nullopt;
  }
  std::vector<ScalarLoad>& to = load_sink_ ? *load_sink_ : seq_->loads;
  for (const ScalarLoad& l : sc.loads) {
    bool present = false;
    for (const auto& have : to) present |= have.sym == l.sym;
    if (!present) to.push_back(l);
  }
  return sc.value;
}

bool Elaborator::reads_run_values(const Expr& e) const {
  if (!seq_ || !names_) return false;
  if (e.kind == Expr::Kind::Name && !e.quoted)
    if (seq_->frame.scalars.count(e.name)) return true;
  if (is_input_element(e, p_, *names_)) return true;
  for (const auto& i : e.items)
    if (i && reads_run_values(*i)) return true;
  for (const auto& a : e.args)
    if (a.value && reads_run_values(*a.value)) return true;
  for (const auto& sl : e.slices)
    if ((sl.start && reads_run_values(*sl.start)) || (sl.stop && reads_run_values(*sl.stop))) return true;
  return false;
}

}  // namespace ptoc::fe
