// vec_tile entries written as dim expressions: PyPTO's set_vec_tile_shapes(t_tile, rope_dim) inside a
// loop_unroll body, where t_tile is the gear (`vec_tile: [t_tile, 64]`, `vec_tile: ["min(t_tile, 4)", 128]`).
// Each entry is a compile-time constant of the elaboration it is in: static dims, unroll factors, static-loop
// variables and literals. A dynamic dim or loop variable is the usual "this must be static" error; a value
// that is not positive is reported at the entry. A tile is otherwise exactly a written integer one.
#include <string>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

std::optional<VecTile> Elaborator::vec_tile_of(const Stmt& s) {
  VecTile v = s.vec;
  bool ok = true;
  for (size_t i = 0; i < s.vec_exprs.size(); ++i) {
    const SrcExpr& e = s.vec_exprs[i];
    if (!e.expr) continue;  // an integer entry, already in v.shape
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
