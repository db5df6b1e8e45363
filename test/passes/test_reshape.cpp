// Reshape in the tiler: size-1 axes added or dropped keep UB tiles as they
// are; other reshapes read/write the same GM bytes under a reshaped view.
#include "test/passes/tiling_test_util.h"

namespace ptoc::test {
namespace {

int reshape(ProgramBuilder& b, int src, std::vector<int64_t> shape) {
  std::vector<DimExpr> s;
  for (auto x : shape) s.push_back(DimExpr(x));
  int v = b.value(b.val(src).dtype, s);
  Op& o = b.op(OpKind::Reshape, {src}, v);
  o.shape = s;
  o.inplace = true;
  return v;
}

TEST_CASE("reshape: dropping and adding a size-1 axis keeps the UB tile (no GM round trip)", "[tiling][reshape]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {4, 64});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {4, 64});
  b.set_vec({64});
  int row = reshape(b, b.view(b.ref(x), {1, 64}, {2, 0}), {64});
  int e = b.unary(OpKind::Exp, row);
  b.assemble(reshape(b, e, {1, 64}), y, {2, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.subgraphs.size() == 1);  // CopyIn + exp + CopyOut in one leaf
  REQUIRE(r.temps.empty());
  REQUIRE(count_ops(r, TileOpKind::CopyIn) == 1);
  REQUIRE(count_ops(r, TileOpKind::CopyOut) == 1);
  for (const TileOp& op : r.ops)
    if (op.kind == TileOpKind::CopyOut) {
      // the rank-1 tile is stored into the rank-2 box y[2, 0:64]
      REQUIRE(op.gm.tensor == y);
      REQUIRE(r.tiles[op.srcs[0]].shape.size() <= op.gm.offset.size());
    }
}

TEST_CASE("reshape: a whole GM tensor is read under a reshaped view; the matmul output is written straight into the "
          "reshaped output", "[tiling][reshape][cube]") {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {1024, 16});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {64, 64});
  int c = b.tensor("c", TensorRole::Output, DType::fp16, {1024, 16});
  b.set_cube(128, 64, 64, 64);
  int a4 = reshape(b, b.ref(a), {256, 64});
  int m = b.matmul(a4, b.ref(w), DType::fp16);
  b.assemble(reshape(b, m, {1024, 16}), c, {0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.temps.empty());                      // no round trip through a temp
  REQUIRE(count_core(r, CoreType::AIV) == 0);    // no vector copy of the reshaped result
  int viewed_reads = 0, viewed_writes = 0;
  for (const TileOp& op : r.ops) {
    if (op.kind == TileOpKind::CopyIn && op.gm.tensor == a) {
      REQUIRE(op.gm.view.size() == 2);
      REQUIRE(op.gm.view[0].str() == "256");
      REQUIRE(op.gm.view[1].str() == "64");
      ++viewed_reads;
    }
    if (op.kind == TileOpKind::FixOut) {
      REQUIRE(op.gm.tensor == c);
      REQUIRE(op.gm.view.size() == 2);
      REQUIRE(op.gm.view[1].str() == "64");
      ++viewed_writes;
    }
  }
  REQUIRE(viewed_reads == 2);   // m tiles of 128 rows over 256
  REQUIRE(viewed_writes == 2);
}

TEST_CASE("reshape: a window of a tensor is copied to a temp before it is reshaped", "[tiling][reshape]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {8, 128});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {8, 32});
  b.set_vec({4, 64});
  int win = b.view(b.ref(x), {4, 64}, {0, 64});
  b.set_vec({8, 32});
  int rs = reshape(b, win, {8, 32});
  b.assemble(b.unary(OpKind::Exp, rs), y, {0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.temps.size() == 1);
  REQUIRE(r.temps[0].shape.size() == 2);
  int reads_view = 0;
  for (const TileOp& op : r.ops)
    if (op.kind == TileOpKind::CopyIn && !op.gm.view.empty()) ++reads_view;
  REQUIRE(reads_view == 1);
}

TEST_CASE("values crossing roots: constants are recomputed, other values go through an xroot workspace",
          "[tiling][cross_root]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {8, 64});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {8, 64});
  b.set_vec({8, 64});
  int full = b.value(DType::fp32, {DimExpr(8), DimExpr(64)});
  Op& f = b.op(OpKind::Full, {}, full);
  f.fill = 1;
  f.shape = {DimExpr(8), DimExpr(64)};
  int e = b.unary(OpKind::Exp, full);
  size_t split = b.root_ops.size();
  int s = b.binary(OpKind::Add, b.binary(OpKind::Add, b.ref(x), full), e);
  b.assemble(s, y, {0, 0});
  Program p = b.finish();
  // Two roots: the constant and its exp at top level, the sum in a second root.
  RootTemplate r1 = p.roots[0];
  r1.index = 1;
  r1.name = "top_1";
  r1.ops.assign(p.roots[0].ops.begin() + long(split), p.roots[0].ops.end());
  p.roots[0].ops.resize(split);
  p.roots.push_back(r1);
  LoopNode n;
  n.kind = LoopNode::Kind::Root;
  n.root = 1;
  p.body.push_back(n);
  size_t tensors = p.tensors.size();
  REQUIRE(carry_cross_root_values(p) == 1);  // only exp(c) is stored; c is recomputed
  REQUIRE(p.tensors.size() == tensors + 1);
  REQUIRE(p.tensors.back().role == TensorRole::Workspace);
  REQUIRE(p.tensors.back().name.rfind("xroot_", 0) == 0);
  auto t = tile(p);
  REQUIRE(t.ok);
  REQUIRE(t.roots.size() == 2);
  for (auto& r : t.roots) check_invariants(r);
  int ws = int(tensors);
  REQUIRE(count_ops(t.roots[0], TileOpKind::CopyOut) == 1);  // exp(c) stored once
  int reads = 0;
  for (const TileOp& op : t.roots[1].ops) reads += op.kind == TileOpKind::CopyIn && op.gm.tensor == ws;
  REQUIRE(reads == 1);
}

}  // namespace
}  // namespace ptoc::test

namespace ptoc::test {
namespace {

// Two branches over (256, 512) fp32 at [2, 512] in a parallel_merge scope:
// 128 tiles per branch, 4 KiB each, cannot all share one leaf's 192 KiB UB.
TEST_CASE("parallel_merge that cannot fit one leaf packs the branches into several", "[tiling][partition][scope]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {256, 512});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {256, 512});
  int z = b.tensor("z", TensorRole::Output, DType::fp32, {256, 512});
  b.set_vec({2, 512});
  int xv = b.ref(x);
  b.scope = ScopeInfo{7, true, false};
  int s = b.unary(OpKind::Sigmoid, xv);
  int t = b.unary(OpKind::Tanh, xv);
  b.scope = ScopeInfo{};
  b.assemble(s, y, {0, 0});
  b.assemble(t, z, {0, 0});
  auto tl = tile(b.finish());
  REQUIRE(tl.ok);
  const TileRoot& r = tl.roots[0];
  check_invariants(r);
  std::set<int> scoped;  // subgraphs holding scope-7 ops
  for (auto& sg : r.subgraphs)
    if (sg.scope == 7) scoped.insert(sg.id);
  REQUIRE(scoped.size() >= 2);                 // split, not one overflowing leaf
  REQUIRE(scoped.size() < 256);                // but still packed
  bool noted = false;
  for (auto& m : r.merges_applied) noted |= m.find("scope 7: parallel_merge split into") != std::string::npos;
  REQUIRE(noted);
  for (auto& sg : r.subgraphs) {
    auto peak = peak_bytes(r, sg.ops.vec(), {1, 32, 32, 512, 512, 512});
    REQUIRE(peak[int(MemKind::UB)] <= 196608);
  }
}

}  // namespace
}  // namespace ptoc::test
