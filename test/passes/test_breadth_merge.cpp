// Breadth merging: VecNBuffer, L1Reuse and CubeNBuffer, with every key kind
// of the *_setting maps (DEFAULT, integer, func{magic}_{order}, label).
#include "compiler/passes/tile_build.h"
#include "test/passes/tiling_test_util.h"

#include <set>

using namespace ptoc;
using namespace ptoc::test;

static MergeSetting::Entry entry(const std::string& key, int64_t count, const std::string& side = "") {
  MergeSetting::Entry e;
  e.name = key;
  e.count = count;
  e.side = side;
  if (key == "DEFAULT") {
    e.key = MergeSetting::Entry::Key::Default;
  } else if (key.rfind("func", 0) == 0) {
    e.key = MergeSetting::Entry::Key::Func;
    auto us = key.find('_');
    e.func_magic = std::stoll(key.substr(4, us - 4));
    e.func_order = std::stoll(key.substr(us + 1));
  } else if (std::isdigit(static_cast<unsigned char>(key[0])) || key[0] == '-') {
    e.key = MergeSetting::Entry::Key::Global;
  } else {
    e.key = MergeSetting::Entry::Key::Label;
  }
  return e;
}

// 96 isomorphic AIV leaves: x[6144,128] fp16, exp by (64,128) tiles.
static Program many_vec(std::vector<MergeSetting::Entry> setting, const std::string& label = "") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp16, {6144, 128});
  int y = b.tensor("y", TensorRole::Output, DType::fp16, {6144, 128});
  b.label = label;
  b.set_vec({64, 128});
  int e = b.unary(OpKind::Exp, b.ref(x));
  b.assemble(e, y, {0, 0});
  if (!setting.empty()) {
    b.p.options.vec_nbuffer_setting.given = true;
    b.p.options.vec_nbuffer_setting.entries = setting;
  }
  return b.finish();
}

static void check_chains(const TileRoot& r, int chains) {
  for (auto& sg : r.subgraphs) {
    REQUIRE(sg.chains == chains);
    std::set<int> seen;
    for (int o : sg.ops) seen.insert(r.ops[o].chain);
    REQUIRE(int(seen.size()) == chains);
  }
}

TEST_CASE("VecNBuffer: automatic count follows the AIV core count", "[tiling][breadth][vec]") {
  auto t = tile(many_vec({}));
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  // n = 96 leaves, L = 48 AIV cores: N = 2 -> 48 leaves of 2 chains.
  REQUIRE(r.subgraphs.size() == 48);
  check_chains(r, 2);
  REQUIRE_THAT(r.subgraphs[0].merge_info, Catch::Contains("vecNBufferInfo hashOrder: func0_0, subGraphCount: 96"));
  REQUIRE(t.stats.vec_nbuffer_merges == 48);
}

TEST_CASE("VecNBuffer: DEFAULT, integer, func and label keys; most specific wins", "[tiling][breadth][vec]") {
  SECTION("DEFAULT: 1 turns it off") {
    auto t = tile(many_vec({entry("DEFAULT", 1)}));
    REQUIRE(t.roots[0].subgraphs.size() == 96);
  }
  SECTION("DEFAULT: 4") {
    auto t = tile(many_vec({entry("DEFAULT", 4)}));
    REQUIRE(t.roots[0].subgraphs.size() == 24);
    check_chains(t.roots[0], 4);
  }
  SECTION("integer key is global") {
    auto t = tile(many_vec({entry("0", 3)}));
    REQUIRE(t.roots[0].subgraphs.size() == 32);
  }
  SECTION("func key beats DEFAULT") {
    auto t = tile(many_vec({entry("DEFAULT", 4), entry("func0_0", 8)}));
    REQUIRE(t.roots[0].subgraphs.size() == 12);
  }
  SECTION("a func key of another root does not apply") {
    auto t = tile(many_vec({entry("DEFAULT", 4), entry("func1_0", 8)}));
    REQUIRE(t.roots[0].subgraphs.size() == 24);
  }
  SECTION("label beats DEFAULT, func beats label") {
    auto t = tile(many_vec({entry("DEFAULT", 4), entry("ROWS", 6)}, "ROWS"));
    REQUIRE(t.roots[0].subgraphs.size() == 16);
    auto u = tile(many_vec({entry("func0_0", 2), entry("ROWS", 6)}, "ROWS"));
    REQUIRE(u.roots[0].subgraphs.size() == 48);
  }
}

TEST_CASE("VecNBuffer: the count is lowered when merged chains would not fit UB", "[tiling][breadth][vec]") {
  // (64,128) fp32 tiles: one chain holds 2 x 32 KiB; 8 chains would need 512 KiB.
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {1024, 128});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {1024, 128});
  b.set_vec({64, 128});
  int e = b.unary(OpKind::Exp, b.ref(x));
  b.assemble(e, y, {0, 0});
  b.p.options.vec_nbuffer_setting.given = true;
  b.p.options.vec_nbuffer_setting.entries = {entry("DEFAULT", 8)};
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  std::array<int64_t, 6> align{1, 32, 32, 512, 512, 64};
  for (auto& sg : r.subgraphs) {
    REQUIRE(sg.chains <= 6);  // 6 x 32 KiB = 192 KiB (each chain: its exp tile reuses... at most 6 fit)
    REQUIRE(peak_bytes(r, sg.ops.vec(), align)[int(MemKind::UB)] <= 196608);
  }
  REQUIRE(r.subgraphs.size() < 16);
}

// A[256,K] x B[K,512] with m 128, n 256: 2 x 2 chains; chains with the same m
// share their A blocks, chains with the same n share their B blocks.
static Program gemm(std::vector<MergeSetting::Entry> l1, std::vector<MergeSetting::Entry> nbuf = {},
                    int64_t K = 256, const std::string& label = "") {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {256, K});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {K, 512});
  int c = b.tensor("c", TensorRole::Output, DType::fp32, {256, 512});
  b.label = label;
  b.set_cube(128, 64, 256, 256);
  int m = b.matmul(b.ref(a), b.ref(w));
  b.assemble(m, c, {0, 0});
  if (!l1.empty()) {
    b.p.options.cube_l1_reuse_setting.given = true;
    b.p.options.cube_l1_reuse_setting.entries = l1;
  }
  if (!nbuf.empty()) {
    b.p.options.cube_nbuffer_setting.given = true;
    b.p.options.cube_nbuffer_setting.entries = nbuf;
  }
  return b.finish();
}

TEST_CASE("L1Reuse: automatic count is 1 for a small class, off means no merge", "[tiling][breadth][l1]") {
  auto t = tile(gemm({}));
  REQUIRE(t.ok);
  REQUIRE(t.roots[0].subgraphs.size() == 4);  // 4 / (2 * 24 AIC) -> 1
  REQUIRE(count_ops(t.roots[0], TileOpKind::CopyIn, MemKind::L1) == 8);
}

// L1 tiles of a subgraph read by more than one chain, per side.
static std::pair<int, int> shared_l1(const TileRoot& r, const Subgraph& sg) {
  std::map<int, std::set<int>> a, b;
  for (int o : sg.ops) {
    const TileOp& op = r.ops[o];
    if (op.kind == TileOpKind::L1ToL0A) a[op.srcs[0]].insert(op.chain);
    if (op.kind == TileOpKind::L1ToL0B) b[op.srcs[0]].insert(op.chain);
  }
  int sa = 0, sb = 0;
  for (auto& [t, c] : a) sa += c.size() > 1;
  for (auto& [t, c] : b) sb += c.size() > 1;
  return {sa, sb};
}

TEST_CASE("L1Reuse: merged chains share one L1 copy of the common block", "[tiling][breadth][l1]") {
  auto t = tile(gemm({entry("DEFAULT", 2)}));
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.subgraphs.size() == 2);
  REQUIRE(count_ops(r, TileOpKind::CopyIn, MemKind::L1) == 6);  // 8 loads, 2 duplicates removed
  REQUIRE(t.stats.l1_loads_removed == 2);
  for (auto& sg : r.subgraphs) {
    REQUIRE(sg.chains == 2);
    REQUIRE_THAT(sg.merge_info, Catch::Contains("l1ReuseInfo hashOrder: func0_0, subGraphCount: 4"));
    auto [sa, sb] = shared_l1(r, sg);
    REQUIRE(sa + sb == 1);  // auto side: the first common block (same n: B, with n outermost)
  }
}

TEST_CASE("L1Reuse: side left or right chooses the shared operand", "[tiling][breadth][l1]") {
  for (std::string side : {"left", "right"}) {
    auto t = tile(gemm({entry("DEFAULT", 2, side)}));
    REQUIRE(t.ok);
    const TileRoot& r = t.roots[0];
    check_invariants(r);
    REQUIRE(r.subgraphs.size() == 2);
    for (auto& sg : r.subgraphs) {
      auto [sa, sb] = shared_l1(r, sg);
      REQUIRE(sa == (side == "left" ? 1 : 0));
      REQUIRE(sb == (side == "right" ? 1 : 0));
    }
  }
}

TEST_CASE("L1Reuse: refused when the shared row of K does not fit L1", "[tiling][breadth][l1]") {
  // K = 4096: a chain-major merge keeps 16 A blocks of 128 x 256 fp16 (1 MiB) resident.
  auto t = tile(gemm({entry("DEFAULT", 2)}, {}, 4096));
  REQUIRE(t.ok);
  REQUIRE(t.roots[0].subgraphs.size() == 4);
  REQUIRE(t.stats.l1_loads_removed == 0);
}

TEST_CASE("L1Reuse: a label key applies only to labelled subgraphs", "[tiling][breadth][l1]") {
  auto on = tile(gemm({entry("MM1", 2)}, {}, 256, "MM1"));
  REQUIRE(on.roots[0].subgraphs.size() == 2);
  auto other = tile(gemm({entry("MM1", 2)}, {}, 256, "MM2"));
  REQUIRE(other.roots[0].subgraphs.size() == 4);
}

TEST_CASE("CubeNBuffer: off by default, merges isomorphic AIC leaves when asked", "[tiling][breadth][cube]") {
  auto batched = [](std::vector<MergeSetting::Entry> nbuf) {
    ProgramBuilder b;
    int a = b.tensor("a", TensorRole::Input, DType::fp16, {8, 64, 64});
    int w = b.tensor("w", TensorRole::Input, DType::fp16, {8, 64, 64});
    int c = b.tensor("c", TensorRole::Output, DType::fp32, {8, 64, 64});
    b.set_cube(64, 64, 64, 64);
    int m = b.matmul(b.ref(a), b.ref(w));
    b.assemble(m, c, {0, 0, 0});
    if (!nbuf.empty()) {
      b.p.options.cube_nbuffer_setting.given = true;
      b.p.options.cube_nbuffer_setting.entries = nbuf;
    }
    return tile(b.finish());
  };
  auto off = batched({});
  REQUIRE(off.roots[0].subgraphs.size() == 8);
  auto on = batched({entry("DEFAULT", 4)});
  REQUIRE(on.ok);
  check_invariants(on.roots[0]);
  REQUIRE(on.roots[0].subgraphs.size() == 2);
  check_chains(on.roots[0], 4);
  REQUIRE_THAT(on.roots[0].subgraphs[0].merge_info, Catch::Contains("cubeNBufferInfo hashOrder: func0_0"));
  REQUIRE(on.stats.cube_nbuffer_merges == 6);
}

TEST_CASE("merge_creates_cycle: equal producer sets need no walk; a path through a third subgraph is a cycle",
          "[breadth][cycle]") {
  // p -> a, p -> b, a -> c -> d; b has the producers of a: merging them closes nothing.
  ptoc::tiling::SgGraph g;
  g.succ.assign(5, {});
  g.pred.assign(5, {});
  auto edge = [&](int f, int t) {
    g.succ[size_t(f)].insert(t);
    g.pred[size_t(t)].insert(f);
  };
  const int p = 0, a = 1, b = 2, c = 3, d = 4;
  edge(p, a);
  edge(p, b);
  edge(a, c);
  edge(c, d);
  CHECK_FALSE(g.merge_creates_cycle(a, b));
  CHECK_FALSE(g.merge_creates_cycle(b, a));
  // a -> c -> d and a -> d: merging a and d would put c both after and before the merged one.
  edge(a, d);
  CHECK(g.merge_creates_cycle(a, d));
  CHECK(g.merge_creates_cycle(d, a));
  CHECK_FALSE(g.merge_creates_cycle(c, b));  // unordered, different producers: walked, no path
  g.merge(a, b);
  CHECK(g.pred[size_t(a)] == std::set<int>{p});
  CHECK(g.succ[size_t(p)] == std::set<int>{a});
}

TEST_CASE("VecNBuffer: chains merged apart keep the order Kahn's walk over their edges gives", "[tiling][breadth][vec]") {
  // try_absorb sorts the merge keys instead of walking the edges when no edge joins the chains
  // (breadth_merge.cpp): the order must be the one merged_order computes from the edges.
  for (int64_t n : {2, 8, 96}) {
    auto t = tile(many_vec({entry("DEFAULT", n)}));
    REQUIRE(t.ok);
    const TileRoot& r = t.roots[0];
    check_invariants(r);
    if (n <= 8) check_chains(r, int(n));
    REQUIRE(r.subgraphs.size() < 96);  // 96 chains do not fit UB: fewer per leaf, still merged
    for (const Subgraph& sg : r.subgraphs) CHECK(tiling::merged_order(r, sg.ops.vec(), false) == sg.ops.vec());
  }
}
