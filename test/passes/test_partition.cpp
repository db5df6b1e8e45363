// Partition and depth merging: one-to-one tile chains fuse, misaligned tiles
// stay apart (through GM), scopes force and join, capacity is checked while
// merging.
#include "test/passes/tiling_test_util.h"

using namespace ptoc;
using namespace ptoc::test;

// x[128,256] -> transpose (tile 64x128 on the [256,128] result) -> exp (tile `t2`) -> y
static Program transpose_exp(std::vector<int64_t> t2, std::optional<ScopeInfo> scope = std::nullopt) {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {128, 256});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {256, 128});
  if (scope) b.scope = *scope;
  b.set_vec({64, 128});
  int tr = b.transpose(b.ref(x), 0, 1);
  b.set_vec(t2);
  int e = b.unary(OpKind::Exp, tr);
  b.scope = ScopeInfo{};
  b.assemble(e, y, {0, 0});
  return b.finish();
}

TEST_CASE("aligned tiles fuse producer and consumer into one leaf per tile", "[tiling][partition]") {
  auto t = tile(transpose_exp({64, 128}));
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.subgraphs.size() == 4);
  REQUIRE(r.temps.empty());
  for (auto& sg : r.subgraphs) {
    REQUIRE(sg.ops.size() == 4);  // CopyIn, transpose, exp, CopyOut
    REQUIRE(sg.succ.empty());
  }
  REQUIRE(t.stats.depth_merges == 4);
}

TEST_CASE("misaligned tiles give many-to-many dependencies through a GM temp", "[tiling][partition]") {
  auto t = tile(transpose_exp({128, 64}));
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.subgraphs.size() == 8);  // 4 transpose leaves + 4 exp leaves
  REQUIRE(r.temps.size() == 1);
  int consumers = 0;
  for (auto& sg : r.subgraphs) {
    bool has_exp = false;
    for (int o : sg.ops) has_exp |= r.ops[o].kind == TileOpKind::Vec && r.ops[o].vop == OpKind::Exp;
    if (has_exp) {
      ++consumers;
      REQUIRE(preds_of(r, sg.id) == 2);  // an exp tile of 128 rows reads two 64-row transpose tiles
    } else {
      REQUIRE(sg.succ.size() == 2);
    }
  }
  REQUIRE(consumers == 4);
}

TEST_CASE("a scope forces same-scope producer and consumer together", "[tiling][partition][scope]") {
  auto t = tile(transpose_exp({128, 64}, ScopeInfo{3, false, false}));
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  // The many-to-many edges are forced together: rows 0..127 and 128..255 of the transpose.
  REQUIRE(r.subgraphs.size() == 2);
  for (auto& sg : r.subgraphs) REQUIRE(sg.scope == 3);
  REQUIRE(t.stats.scope_merges > 0);
}

static Program two_branches(std::optional<ScopeInfo> scope) {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {64, 256});
  int z = b.tensor("z", TensorRole::Input, DType::fp32, {64, 256});
  int y1 = b.tensor("y1", TensorRole::Output, DType::fp32, {64, 256});
  int y2 = b.tensor("y2", TensorRole::Output, DType::fp32, {64, 256});
  if (scope) b.scope = *scope;
  b.set_vec({64, 256});
  int e = b.unary(OpKind::Exp, b.ref(x));
  int s = b.unary(OpKind::Sqrt, b.ref(z));
  b.assemble(e, y1, {0, 0});
  b.assemble(s, y2, {0, 0});
  return b.finish();
}

TEST_CASE("parallel_merge joins independent branches of a scope", "[tiling][partition][scope]") {
  auto off = tile(two_branches(std::nullopt));
  REQUIRE(off.ok);
  REQUIRE(off.roots[0].subgraphs.size() == 2);
  auto plain = tile(two_branches(ScopeInfo{1, false, false}));
  REQUIRE(plain.ok);
  REQUIRE(plain.roots[0].subgraphs.size() == 2);  // no producer->consumer edge between them
  auto par = tile(two_branches(ScopeInfo{1, true, false}));
  REQUIRE(par.ok);
  check_invariants(par.roots[0]);
  REQUIRE(par.roots[0].subgraphs.size() == 1);
}

// e = exp(x), f = sqrt(x), h = gelu(x), g = e + f, k = g + h with fp16 tiles of
// 56 KiB: every op fits alone (3 tiles), but exp+sqrt+gelu together hold x, e, f
// and h at once (4 tiles = 229376 bytes > 196608).
static Program wide_chain(std::optional<ScopeInfo> scope) {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp16, {28, 1024});
  int y = b.tensor("y", TensorRole::Output, DType::fp16, {28, 1024});
  if (scope) b.scope = *scope;
  b.set_vec({28, 1024});
  int xv = b.ref(x);
  int e = b.unary(OpKind::Exp, xv);
  int f = b.unary(OpKind::Sqrt, xv);
  int h = b.unary(OpKind::Gelu, xv);  // never written in place: x, e, f and h are all live here
  int g = b.binary(OpKind::Add, e, f);
  int k = b.binary(OpKind::Add, g, h);
  b.scope = ScopeInfo{};
  b.assemble(k, y, {0, 0});
  return b.finish();
}

TEST_CASE("depth merge refuses a merge that would not fit UB", "[tiling][partition][capacity]") {
  auto t = tile(wide_chain(std::nullopt));
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.subgraphs.size() == 2);  // {gelu} and {exp, sqrt, e+f, g+h}
  REQUIRE(r.temps.size() == 1);      // h goes through GM
  REQUIRE(t.stats.cut_edges == 1);
  REQUIRE(r.subgraphs[0].succ == std::vector<int>{1});
  std::array<int64_t, 6> align{1, 32, 32, 512, 512, 64};
  for (auto& sg : r.subgraphs) REQUIRE(peak_bytes(r, sg.ops.vec(), align)[int(MemKind::UB)] <= 196608);
}

TEST_CASE("a scope that cannot fit is a located error with bytes and the fix", "[tiling][partition][capacity]") {
  auto t = tile(wide_chain(ScopeInfo{7, false, false}));
  REQUIRE_FALSE(t.ok);
  REQUIRE_THAT(t.errors, Catch::Contains("error: 'gelu' does not fit UB when scope 7 joins it with its producers"));
  // Every live buffer by name, the total and the excess (4 x [28, 1024] fp16 = 4 x 57344).
  REQUIRE_THAT(t.errors, Catch::Contains("the 4 buffers live at this op need 229376 bytes, ascend910b1 has 196608 "
                                         "(32768 too many): "));
  REQUIRE_THAT(t.errors, Catch::Contains("load of x [28, 1024] fp16 57344"));
  REQUIRE_THAT(t.errors, Catch::Contains("'gelu' result [28, 1024] fp16 57344"));
  REQUIRE_THAT(t.errors, Catch::Contains("reduce vec_tile on axis 0 at line"));
}

TEST_CASE("cross_scope_merge lets a scoped op merge with unscoped neighbours", "[tiling][partition][scope]") {
  auto build = [](bool cross) {
    ProgramBuilder b;
    int x = b.tensor("x", TensorRole::Input, DType::fp32, {64, 256});
    int y = b.tensor("y", TensorRole::Output, DType::fp32, {64, 256});
    b.set_vec({64, 256});
    int e = b.unary(OpKind::Exp, b.ref(x));
    b.scope = ScopeInfo{2, false, cross};
    int s = b.unary(OpKind::Sqrt, e);
    b.scope = ScopeInfo{};
    int n = b.unary(OpKind::Neg, s);
    b.assemble(n, y, {0, 0});
    return tile(b.finish());
  };
  auto closed = build(false);
  REQUIRE(closed.ok);
  check_invariants(closed.roots[0]);
  REQUIRE(closed.roots[0].subgraphs.size() == 3);
  auto open = build(true);
  REQUIRE(open.ok);
  check_invariants(open.roots[0]);
  REQUIRE(open.roots[0].subgraphs.size() == 1);
}

TEST_CASE("one-to-many: a shared producer fuses with its consumers when they fit", "[tiling][partition]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {64, 256});
  int y1 = b.tensor("y1", TensorRole::Output, DType::fp32, {64, 256});
  int y2 = b.tensor("y2", TensorRole::Output, DType::fp32, {64, 256});
  b.set_vec({64, 256});
  int e = b.unary(OpKind::Exp, b.ref(x));
  int s = b.unary(OpKind::Sqrt, e);
  int n = b.unary(OpKind::Neg, e);
  b.assemble(s, y1, {0, 0});
  b.assemble(n, y2, {0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.subgraphs.size() == 1);
  REQUIRE(r.temps.empty());
}
