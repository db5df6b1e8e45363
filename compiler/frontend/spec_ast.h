// The spec file after syntax checking: top-level sections and the statement
// tree, every string already parsed, every node with its file position.
// Semantic checks and elaboration (elaborate.h) work from here.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/frontend/ast.h"
#include "compiler/frontend/yaml_source.h"
#include "compiler/ir.h"

namespace ptoc::fe {

// An expression written in the spec (a YAML integer or a string), with the
// map from its character offsets to file positions.
struct SrcExpr {
  ExprPtr expr;
  PosMapPtr pos;
  std::string text;  // the string it was parsed from
  SrcLoc loc() const { return pos ? pos->at(expr ? expr->off : 0) : SrcLoc{}; }
  SrcLoc at(int off) const { return pos ? pos->at(off) : SrcLoc{}; }
};

// One `carry: {NAME: INIT, ...}` entry of a loop header: a value carried across iterations.
struct CarryAst {
  std::string name;
  SrcLoc name_loc;
  SrcExpr init;  // a tensor expression, evaluated before the loop
};

struct LoopAst {
  std::string var, name, factor;
  std::vector<CarryAst> carry;       // in header order
  SrcLoc var_loc, name_loc, factor_loc, unroll_loc, kind_loc, count_loc;
  bool is_static = false;
  bool has_count = false;
  SrcExpr begin, end, step, count;  // range: [begin, end, step] (begin/step optional); or count
  std::vector<int64_t> unroll;       // as written
  std::string unroll_const;          // `unroll: unroll_list`: a constant list bound by a statement
};

struct Stmt {
  enum class Kind { Assign, VecTile, CubeTile, Loop, If, Scope, Label, CachePolicy, Knobs };
  Kind kind = Kind::Assign;
  SrcLoc loc;
  int index = -1;  // pre-order statement number (Op::stmt)

  AssignAst assign;  // Assign
  std::string text;  // Assign / If: the string as the YAML scalar holds it
  PosMapPtr pos;     // Assign / If: positions inside the string
  VecTile vec;       // VecTile
  // VecTile: entries written as dim expressions (`[t_tile, 64]`, `["min(k, 4)", 128]`), index-aligned with
  // vec.shape (whose entry is 0 until the elaborator evaluates it; a null expr is an integer entry).
  std::vector<SrcExpr> vec_exprs;
  SrcExpr vec_list;  // VecTile written `vec_tile: NAME`: a constant list bound by a statement (expr null: not)
  CubeTile cube;     // CubeTile
  // CubeTile: entries written as dim expressions (`m: [unroll_level, unroll_level]`), index-aligned with
  // m[0..1], k[0..2], n[0..1] (a null expr: an integer entry, already in cube); empty when all are integers.
  std::vector<SrcExpr> cube_exprs;
  SrcExpr cube_split_k;  // CubeTile `split_k: NAME`: a constant bound by a statement (expr null: not)
  // CubeTile: an axis written as the name of a constant list (`set_cube_tile_shapes(m_tile, k_tile, n_tile)`
  // after `m_tile = [16, 128]`), read per elaboration (elaborate_cube_tile.cpp); m, k, n in that order, a null
  // expr an axis written as a list. Empty when no axis is a name.
  std::vector<SrcExpr> cube_lists;
  bool broken = false;  // VecTile / CubeTile: reported invalid; the ops after it do not also say "no tile"
  LoopAst loop;      // Loop
  ExprPtr cond;      // If
  bool runtime = false;  // If written as {cond: ...}: decided per instance at run time
  ScopeInfo scope;   // Scope
  bool has_body = false;  // Scope: with a body (restores) or without (sets)
  std::string label;      // Label
  std::string cache_tensor;  // CachePolicy
  SrcLoc cache_tensor_loc;
  bool bypass = false;
  // Knobs: set_pass_options(...) under an `if` or scope of the top-level body: the knobs it sets, checked when
  // read, applied when the statement is elaborated (elaborate_config_calls.cpp)
  std::shared_ptr<const Options> knobs;
  std::vector<std::string> knob_names;  // "pass.vec_nbuffer_setting", ...
  std::vector<Stmt> body;       // Loop / Scope body; If then-branch
  std::vector<Stmt> else_body;  // If else-branch

  // A CubeTile's extents, checked: m and n [L0, L1], k [L0, L1] or [L0, L1_A, L1_B] (a two-entry k's B tile is
  // its A tile), with the entries written as dim expressions (me, ke, ne: index-aligned, a null expr an integer
  // entry). The `cube_tile:` mapping and `set_cube_tile_shapes(...)` both end here.
  void set_cube_extents(const std::vector<int64_t>& m, const std::vector<int64_t>& k, const std::vector<int64_t>& n,
                        const std::vector<SrcExpr>& me, const std::vector<SrcExpr>& ke,
                        const std::vector<SrcExpr>& ne) {
    cube.m = {m[0], m[1]};
    cube.n = {n[0], n[1]};
    cube.k = {k[0], k[1], k.size() == 3 ? k[2] : k[1]};
    auto has_expr = [](const std::vector<SrcExpr>& v) {
      for (const SrcExpr& x : v)
        if (x.expr) return true;
      return false;
    };
    if (has_expr(me) || has_expr(ke) || has_expr(ne))
      cube_exprs = {me[0], me[1], ke[0], ke[1], k.size() == 3 ? ke[2] : ke[1], ne[0], ne[1]};
  }
};

struct TensorAst {
  TensorDecl decl;             // shape filled by the elaborator from shape_src
  std::vector<SrcExpr> shape_src;
  SrcLoc shape_loc;
  SrcLoc inplace_loc;          // `inplace: IN` of an output
};

struct SpecAst {
  std::string name, doc, target;
  SrcLoc name_loc, target_loc;
  std::vector<DimDecl> dims;
  std::vector<TensorAst> tensors;  // inputs, outputs, workspaces
  Options options;
  std::vector<Stmt> body;
  SrcLoc body_loc;
  std::vector<std::string> labels_used;  // for warnings about unused option keys
  // Names bound to a dict at the top of the body (dict_constants.h), with their lines: a dict is read by key
  // (`params['b']`) and has no value of its own, which a use of the bare name is told.
  std::map<std::string, int> dict_names;
};

}  // namespace ptoc::fe
