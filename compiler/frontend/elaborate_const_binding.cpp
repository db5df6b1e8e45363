// Compile-time constants bound by a statement: PyPTO's Python variables that hold an integer chosen per
// unroll gear or per static-loop copy (`tile_t = unroll_length`, `tile_shape_2 = 4` in an `if` branch,
// `split_k = True`), then read by set_vec_tile_shapes, slices and `if`s.
//
// `NAME = EXPR` binds a constant when EXPR is an integer dim expression whose names are all static dims,
// unroll factors, static-loop variables or constants bound before (`+ - * // %`, unary `-`, `min`, `max`,
// `ceil_div`, integer literals), or exactly `true`/`false` (1/0). The name then reads like an unroll factor
// wherever one may stand: vec_tile entries, dim expressions, `if` conditions, scalar operands. It follows the
// frame's scope: an `if` branch is spliced in place, so a constant bound there holds after the `if`, while one
// bound in a loop body is local to that body. Any other right side is a tensor expression, as before.
#include <string>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

bool is_bool_name(const Expr& e) {
  return e.kind == Expr::Kind::Name &&
         (e.name == "true" || e.name == "True" || e.name == "false" || e.name == "False");
}

// Whether every leaf of `e` is an integer literal or a name with a compile-time integer value here, through
// integer arithmetic only (a `/`, a float literal or a tensor name makes it a tensor expression).
bool is_const_int_expr(const Expr& e, const Program& p, const Frame& f, const Names& names, bool slash = false) {
  switch (e.kind) {
    case Expr::Kind::Number: return e.is_int;
    case Expr::Kind::Name: {
      if (names.count(e.name)) return false;  // a tensor value
      if (const DimDecl* d = p.find_dim(e.name)) return !d->dynamic;
      return f.consts.count(e.name) > 0;
    }
    case Expr::Kind::Neg: return e.items.size() == 1 && is_const_int_expr(*e.items[0], p, f, names, slash);
    case Expr::Kind::Binary:
      if (e.op != "+" && e.op != "-" && e.op != "*" && e.op != "//" && e.op != "%" && !(slash && e.op == "/"))
        return false;
      return e.items.size() == 2 && is_const_int_expr(*e.items[0], p, f, names, slash) &&
             is_const_int_expr(*e.items[1], p, f, names, slash);
    case Expr::Kind::Call:
      if (e.name != "min" && e.name != "max" && e.name != "ceil_div") return false;
      if (e.args.size() != 2) return false;
      for (const auto& a : e.args)
        if (!a.name.empty() || !a.value || !is_const_int_expr(*a.value, p, f, names, slash)) return false;
      return true;
    default: return false;
  }
}

}  // namespace

bool Elaborator::const_binding(const Stmt& s) {
  const AssignAst& a = s.assign;
  if (!seq_ || !a.value || a.subscript || !a.more_targets.empty()) return false;
  const Expr& e = *a.value;
  const bool boolean = is_bool_name(e);
  if (!boolean && !is_const_int_expr(e, p_, seq_->frame, *names_)) {
    // `n = k / 2`: integers that would make a constant but for `/` (which is a tensor op's true division).
    if (is_const_int_expr(e, p_, seq_->frame, *names_, true)) {
      err(e.off, e.len, "'" + text_of(e) + "' divides integers with '/'; a compile-time constant is an integer",
          "use '//' (floor division) or ceil_div(a, b)");
      return true;
    }
    return false;
  }

  int64_t value = 0;
  if (boolean) {
    value = (e.name == "true" || e.name == "True") ? 1 : 0;
  } else {
    auto d = dim(e, DimUse::Static);
    if (!d) return true;  // reported by dim()
    auto c = simplify(*d).as_const();
    if (!c) {
      err(e.off, e.len, "'" + text_of(e) + "' is not a compile-time constant",
          "a constant may use static dims, unroll factors, static-loop variables and literals");
      return true;
    }
    value = *c;
  }
  // Rebinding a constant is Python's rebinding of a variable; any other clash is reported as for a value.
  if (!seq_->frame.named_consts.count(a.target)) {
    if (names_->count(a.target)) {
      err(a.target_off, a.target_len,
          "cannot bind compile-time constant '" + a.target + "': it names a tensor value",
          "choose another name");
      return true;
    }
    if (!check_binding_name(a.target, at(a.target_off), a.target_len, "compile-time constant")) return true;
  }
  seq_->frame.consts[a.target] = value;
  seq_->frame.named_consts.insert(a.target);
  return true;
}

}  // namespace ptoc::fe
