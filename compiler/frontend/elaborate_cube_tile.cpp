// cube_tile entries written as dim expressions: PyPTO's set_cube_tile_shapes([unroll_level, unroll_level],
// [256, 512], [256, 256]) inside a loop_unroll body, where the m tile is the gear. Each entry is a
// compile-time constant of its elaboration (static dims, unroll factors, static-loop variables, constants
// and constant-list entries), evaluated per gear and then held to the rules of an integer entry
// (cube_tile_rules.h), reported at the entry. One difference, PyPTO's: an m entry that is an expression is
// rounded up to whole 16-row fractals (gear 1, 2, 4, 8 -> 16; 24 -> 32), as the cube pads rows; k and n
// entries must be multiples of 16 as written ones must. `split_k: NAME` reads a constant the same way
// (PyPTO's `enable_split_k` flag chosen per gear). An axis may also name a constant list
// (`set_cube_tile_shapes(m_tile, k_tile, n_tile)` after `m_tile = [16, 128]`, as PyPTO's ports write them):
// its entries are read here, held to the length of the axis and to positive integers, reported at the name,
// and taken as a written list's are (an m entry of 1, 2, 4 or 8 pads to one 16-row fractal).
#include <string>

#include "compiler/frontend/cube_tile_rules.h"
#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

std::optional<CubeTile> Elaborator::cube_tile_of(const Stmt& s) {
  CubeTile c = s.cube;
  // m[0..1], k[0..2], n[0..1], as spec_reader.cpp lays out cube_exprs.
  int64_t* slot[7] = {&c.m[0], &c.m[1], &c.k[0], &c.k[1], &c.k[2], &c.n[0], &c.n[1]};
  bool ok = true;
  SrcLoc first;
  int first_len = 1;
  static const char* const kAxis[3] = {"m", "k", "n"};
  for (size_t a = 0; a < s.cube_lists.size() && a < 3; ++a) {
    const SrcExpr& e = s.cube_lists[a];
    if (!e.expr) continue;
    const std::string& n = e.expr->name;
    const std::string axis = kAxis[a];
    const std::string form = a == 1 ? "[L0, L1] or [L0, L1_A, L1_B]" : "[L0, L1]";
    const int len = int(n.size());
    if (!first.valid()) {
      first = e.loc();
      first_len = len;
    }
    const std::vector<int64_t>* l = const_list(n);
    if (!l) {
      const bool scalar = seq_ && (seq_->frame.consts.count(n) || seq_->frame.float_consts.count(n));
      r_.error(e.loc(), "set_cube_tile_shapes's " + axis + ": '" + n + "' is " +
                            (scalar ? "a constant number, not a list" : "not a constant list bound before this statement"),
               "bind it first (\"" + n + " = " + (a == 1 ? "[64, 256]" : "[128, 128]") +
                   "\") or write the list itself, e.g. " + (a == 1 ? "[64, 256]" : "[128, 128]"),
               len);
      ok = false;
      continue;
    }
    if (l->size() < 2 || l->size() > (a == 1 ? 3u : 2u)) {
      r_.error(e.loc(), "set_cube_tile_shapes's " + axis + ": the constant list '" + n + "' has " +
                            std::to_string(l->size()) + (l->size() == 1 ? " entry" : " entries") + "; " + axis +
                            " must be " + form,
               {}, len);
      ok = false;
      continue;
    }
    bool positive = true;
    for (int64_t x : *l)
      if (x <= 0) {
        r_.error(e.loc(), "set_cube_tile_shapes's " + axis + ": the constant list '" + n + "' holds " +
                              std::to_string(x) + "; cube_tile entries must be positive integers",
                 {}, len);
        positive = false;
        break;
      }
    if (!positive) {
      ok = false;
      continue;
    }
    std::vector<int64_t> v = *l;
    if (a == 0)
      for (int64_t& x : v) x = x < 16 && 16 % x == 0 ? 16 : x;  // as a written m entry: one fractal
    if (a == 0) c.m = {v[0], v[1]};
    if (a == 1) c.k = {v[0], v[1], v.size() == 3 ? v[2] : v[1]};
    if (a == 2) c.n = {v[0], v[1]};
  }
  for (size_t i = 0; i < s.cube_exprs.size() && i < 7; ++i) {
    const SrcExpr& e = s.cube_exprs[i];
    if (!e.expr) continue;
    if (!first.valid()) {
      first = e.loc();
      first_len = int(e.text.size());
    }
    auto d = dim_src(e, DimUse::Static);
    if (!d) {
      ok = false;  // reported by dim(): a dynamic name says "this must be static"
      continue;
    }
    auto v = simplify(*d).as_const();
    if (!v || *v <= 0) {
      r_.error(e.loc(), "cube_tile entry '" + e.text + "' " +
                            (!v ? std::string("is not static")
                                : "is " + std::to_string(*v) + "; tile entries must be positive"),
               "a cube_tile entry may use static dims, unroll factors, static-loop variables, constants and literals",
               int(e.text.size()));
      ok = false;
      continue;
    }
    *slot[i] = i < 2 ? (*v + 15) / 16 * 16 : *v;  // m: whole fractals
  }
  if (const SrcExpr& e = s.cube_split_k; e.expr) {
    // `split_k: NAME`: a constant bound by a statement (`enable_split_k = True`, or 0 / 1 per gear).
    const bool is_const = e.expr->kind == Expr::Kind::Name && seq_ && seq_->frame.consts.count(e.expr->name);
    std::optional<int64_t> v;
    if (is_const) v = seq_->frame.consts.at(e.expr->name);
    if (!v || (*v != 0 && *v != 1)) {
      r_.error(e.loc(),
               !is_const ? "cube_tile split_k '" + e.text + "' is not a constant bound before this statement"
                         : "cube_tile split_k '" + e.text + "' is " + std::to_string(*v) + "; it must be true or false",
               "bind it first, e.g. \"enable_split_k = True\", or write split_k: true", int(e.text.size()));
      ok = false;
    } else {
      c.split_k = *v == 1;
    }
  }
  if (!ok) return std::nullopt;
  // The rules of written entries, on the evaluated axes (reported at the first expression entry).
  const std::vector<std::pair<std::string, std::vector<int64_t>>> axes = {
      {"m", {c.m[0], c.m[1]}}, {"k", {c.k[0], c.k[1], c.k[2]}}, {"n", {c.n[0], c.n[1]}}};
  for (const auto& [axis, v] : axes)
    for (const CubeAxisIssue& i : cube_axis_issues(axis, v)) {
      r_.error(first.valid() ? first : s.loc, i.message + " (this gear's cube_tile)", i.hint, first_len);
      ok = false;
    }
  if (!ok) return std::nullopt;
  return c;
}

}  // namespace ptoc::fe
