// vec_tile entries written as dim expressions: PyPTO's set_vec_tile_shapes(t_tile, rope_dim) inside a
// loop_unroll body, where t_tile is the gear (`vec_tile: [t_tile, 64]`, `vec_tile: ["min(t_tile, 4)", 128]`).
// Each entry is a compile-time constant of the elaboration it is in: static dims, unroll factors, static-loop
// variables and literals. A dynamic dim or loop variable is the usual "this must be static" error; a value
// that is not positive is reported at the entry. A tile is otherwise exactly a written integer one.
// `vec_tile: NAME` takes a constant list bound by a statement (`tile_shapes = [4, 4096]`) whole.
#include <string>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

// The first name in `e` that is a dynamic dim or a dynamic loop variable in `frame` (nullptr: none).
const Expr* first_dynamic_name(const Expr& e, const Program& p, const Frame* frame) {
  if (e.kind == Expr::Kind::Name) {
    if (const DimDecl* d = p.find_dim(e.name)) return d->dynamic ? &e : nullptr;
    if (frame && !frame->consts.count(e.name) && frame->dyn_vars.count(e.name)) return &e;
    return nullptr;
  }
  for (const auto& i : e.items)
    if (const Expr* x = first_dynamic_name(*i, p, frame)) return x;
  for (const auto& a : e.args)
    if (a.value)
      if (const Expr* x = first_dynamic_name(*a.value, p, frame)) return x;
  return nullptr;
}

}  // namespace

std::optional<VecTile> Elaborator::vec_tile_of(const Stmt& s) {
  VecTile v = s.vec;
  if (s.vec_list.expr) {
    const std::string& n = s.vec_list.expr->name;
    const std::vector<int64_t>* l = const_list(n);
    const SrcLoc at = s.vec_list.loc();
    const int len = int(n.size());
    if (!l) {
      r_.error(at, "vec_tile: '" + n + "' is not a constant list",
               "bind it first (\"" + n + " = [16, 1024]\") or write the entries: vec_tile: [16, 1024]", len);
      return std::nullopt;
    }
    if (l->empty() || l->size() > 4) {
      r_.error(at, "vec_tile: the constant list '" + n + "' has " + std::to_string(l->size()) +
                       " entries; a vec_tile has 1 to 4", {}, len);
      return std::nullopt;
    }
    for (int64_t x : *l)
      if (x <= 0) {
        r_.error(at, "vec_tile: the constant list '" + n + "' holds " + std::to_string(x) +
                         "; tile entries must be positive", {}, len);
        return std::nullopt;
      }
    v.shape = *l;
    return v;
  }
  bool ok = true;
  for (size_t i = 0; i < s.vec_exprs.size(); ++i) {
    const SrcExpr& e = s.vec_exprs[i];
    if (!e.expr) continue;  // an integer entry, already in v.shape
    if (const Expr* d = first_dynamic_name(*e.expr, p_, seq_ ? &seq_->frame : nullptr)) {
      // A tile is a compile-time shape: say so here rather than with the `if` condition's hint.
      const bool dim = p_.find_dim(d->name) != nullptr;
      r_.error(e.at(d->off), "'" + d->name + "' is a dynamic " + (dim ? "dim" : "loop variable") +
                                 "; a vec_tile entry must be a compile-time constant",
               dim ? "tile a block of that axis: vec_tile: [16, ...] with x[b * 16:(b + 1) * 16, ...] in a loop over b"
                   : "use the loop's unroll factor (factor: k, vec_tile: [k, ...]) or a constant",
               d->len);
      ok = false;
      continue;
    }
    auto d = dim_src(e, DimUse::Static);
    if (!d) {
      ok = false;  // reported by dim()
      continue;
    }
    auto c = simplify(*d).as_const();
    if (!c || *c <= 0) {
      r_.error(e.loc(), "vec_tile entry '" + e.text + "' " +
                            (!c ? std::string("is not static")
                                : "is " + std::to_string(*c) + "; tile entries must be positive"),
               "a vec_tile entry may use static dims, unroll factors, static-loop variables and literals",
               int(e.text.size()));
      ok = false;
      continue;
    }
    v.shape[i] = *c;
  }
  if (!ok) return std::nullopt;
  return v;
}

}  // namespace ptoc::fe
