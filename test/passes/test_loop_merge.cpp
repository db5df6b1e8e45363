// Loop merging: adjacent independent dynamic loops with equal bounds join.
#include "test/passes/tiling_test_util.h"

using namespace ptoc;
using namespace ptoc::test;

// Two loops over b in [0, B // 64): the first writes y1 from x, the second
// writes `second_out` from `second_in`.
static Program two_loops(const std::string& second_in, const std::string& second_out, bool same_bounds = true) {
  ProgramBuilder b;
  DimDecl B;
  B.name = "B";
  B.dynamic = true;
  b.p.dims.push_back(B);
  auto dyn = [&](const std::string& name, TensorRole role) {
    TensorDecl d;
    d.name = name;
    d.role = role;
    d.dtype = DType::fp32;
    d.shape = {DimExpr::sym("B"), DimExpr(128)};
    b.p.tensors.push_back(d);
    return int(b.p.tensors.size()) - 1;
  };
  dyn("x", TensorRole::Input);
  dyn("z", TensorRole::Input);
  dyn("y1", TensorRole::Output);
  dyn("y2", TensorRole::Output);
  b.set_vec({64, 128});
  auto body = [&](const std::string& var, const std::string& in, const std::string& out) {
    size_t first = b.root_ops.size();
    int t = b.ref(b.p.find_tensor(in));
    DimExpr row = DimExpr::sym(var) * DimExpr(64);
    int v = b.value(DType::fp32, {DimExpr(64), DimExpr(128)});
    Op& view = b.op(OpKind::View, {t}, v);
    view.offsets = {row, DimExpr(0)};
    view.shape = {DimExpr(64), DimExpr(128)};
    int e = b.unary(OpKind::Exp, v);
    Op& as = b.op(OpKind::Assemble, {e}, -1);
    as.tensor = b.p.find_tensor(out);
    as.offsets = {row, DimExpr(0)};
    RootTemplate rt;
    rt.index = int(b.p.roots.size());
    rt.ops.assign(b.root_ops.begin() + long(first), b.root_ops.end());
    rt.loop_vars = {var};
    b.p.roots.push_back(rt);
    LoopNode leaf;
    leaf.kind = LoopNode::Kind::Root;
    leaf.root = rt.index;
    LoopNode loop;
    loop.kind = LoopNode::Kind::Loop;
    loop.var = var;
    loop.begin = 0;
    loop.end = floordiv(DimExpr::sym("B"), DimExpr(same_bounds || var == "i" ? 64 : 32));
    loop.step = 1;
    loop.gears = {Gear{1, {leaf}}};
    b.p.body.push_back(loop);
  };
  body("i", "x", "y1");
  body("j", second_in, second_out);
  return b.p;
}

TEST_CASE("independent loops with equal bounds merge into one root", "[tiling][loops]") {
  Program p = two_loops("z", "y2");
  REQUIRE(merge_loops(p) == 1);
  REQUIRE(p.body.size() == 1);
  REQUIRE(p.roots.size() == 1);
  REQUIRE(p.body[0].gears[0].body[0].root == 0);
  // The second body now uses the first loop's variable.
  bool renamed = false;
  for (int o : p.roots[0].ops)
    if (p.ops[o].kind == OpKind::Assemble && p.ops[o].tensor == p.find_tensor("y2"))
      renamed = p.ops[o].offsets[0].str() == "i * 64";
  REQUIRE(renamed);
  auto t = tile(p);
  REQUIRE(t.ok);
  REQUIRE(t.roots.size() == 1);
  REQUIRE(t.roots[0].subgraphs.size() == 2);
  check_invariants(t.roots[0]);
}

TEST_CASE("dependent loops or different bounds stay apart", "[tiling][loops]") {
  Program dep = two_loops("y1", "y2");  // the second reads what the first writes
  REQUIRE(merge_loops(dep) == 0);
  REQUIRE(dep.roots.size() == 2);
  Program bounds = two_loops("z", "y2", false);
  REQUIRE(merge_loops(bounds) == 0);
  REQUIRE(bounds.body.size() == 2);
}

// loop b over ceil_div(B, 64) with unroll gears [4, 1]: each gear's body views
// k * 64 rows of x (valid clipped to B) and writes exp of it to y.
TEST_CASE("dynamic loop roots: unroll factors fix shapes, tails stay dim expressions", "[tiling][loops]") {
  ProgramBuilder b;
  DimDecl B;
  B.name = "B";
  B.dynamic = true;
  b.p.dims.push_back(B);
  TensorDecl x, y;
  x.name = "x";
  x.dtype = y.dtype = DType::fp32;
  x.shape = y.shape = {DimExpr::sym("B"), DimExpr(128)};
  y.name = "y";
  y.role = TensorRole::Output;
  b.p.tensors = {x, y};
  b.set_vec({64, 128});
  DimExpr bv = DimExpr::sym("b"), k = DimExpr::sym("k");
  LoopNode loop;
  loop.kind = LoopNode::Kind::Loop;
  loop.var = "b";
  loop.factor_var = "k";
  loop.begin = 0;
  loop.end = ceil_div(DimExpr::sym("B"), DimExpr(64));
  loop.step = 1;
  for (int64_t factor : {4, 1}) {
    size_t first = b.root_ops.size();
    int t = b.ref(0);
    DimExpr rows = k * DimExpr(64);
    DimExpr valid = min(rows, DimExpr::sym("B") - bv * DimExpr(64));
    int v = b.value(DType::fp32, {rows, DimExpr(128)}, {valid, DimExpr(128)});
    Op& view = b.op(OpKind::View, {t}, v);
    view.offsets = {bv * DimExpr(64), DimExpr(0)};
    view.shape = {rows, DimExpr(128)};
    int e = b.unary(OpKind::Exp, v);
    Op& as = b.op(OpKind::Assemble, {e}, -1);
    as.tensor = 1;
    as.offsets = {bv * DimExpr(64), DimExpr(0)};
    RootTemplate rt;
    rt.index = int(b.p.roots.size());
    rt.ops.assign(b.root_ops.begin() + long(first), b.root_ops.end());
    rt.loop_vars = {"b"};
    rt.factor = factor;
    b.p.roots.push_back(rt);
    LoopNode leaf;
    leaf.kind = LoopNode::Kind::Root;
    leaf.root = rt.index;
    loop.gears.push_back(Gear{factor, {leaf}});
  }
  b.p.body = {loop};
  auto t = tile(b.p);
  REQUIRE(t.ok);
  REQUIRE(t.roots.size() == 2);
  // Gear 4: 256 rows = 4 tiles (VecNBuffer auto keeps them apart: 4 <= 48 AIV).
  REQUIRE(t.roots[0].subgraphs.size() == 4);
  REQUIRE(t.roots[1].subgraphs.size() == 1);
  for (auto& r : t.roots) check_invariants(r);
  std::vector<std::string> offsets, extents;
  for (auto& sg : t.roots[0].subgraphs)
    for (int o : sg.ops) {
      const TileOp& op = t.roots[0].ops[o];
      if (op.kind == TileOpKind::CopyIn) {
        offsets.push_back(op.gm.offset[0].str());
        extents.push_back(op.gm.extent[0].str());
      }
    }
  REQUIRE(offsets == std::vector<std::string>{"b * 64", "b * 64 + 64", "b * 64 + 128", "b * 64 + 192"});
  REQUIRE(extents[0] == "max(0, min(64, min(256, B - b * 64)))");
  REQUIRE(extents[3] == "max(0, min(64, min(256, B - b * 64) - 192))");
  // The single-iteration gear: its valid extent is the view's own tail expression.
  for (auto& op : t.roots[1].ops)
    if (op.kind == TileOpKind::CopyIn) REQUIRE(op.gm.extent[0].str() == "min(64, B - b * 64)");
}
