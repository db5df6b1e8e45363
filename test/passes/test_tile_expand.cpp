// Tile expansion: vector tiles and tails, reductions (whole and split axes),
// matmul L0/L1 structure, transposes, NZ operands, batches and split_k.
#include "test/passes/tiling_test_util.h"

using namespace ptoc;
using namespace ptoc::test;

TEST_CASE("vector tiles: tails keep the static tile shape and clip the valid extent", "[tiling][expand]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp16, {100, 512});
  int y = b.tensor("y", TensorRole::Output, DType::fp16, {100, 512});
  b.set_vec({64, 512});
  int e = b.unary(OpKind::Exp, b.ref(x));
  b.assemble(e, y, {0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.subgraphs.size() == 2);  // two row tiles, CopyIn + exp + CopyOut each
  std::vector<std::string> valid_rows;
  for (auto& sg : r.subgraphs)
    for (int o : sg.ops) {
      const TileOp& op = r.ops[o];
      if (op.kind == TileOpKind::Vec) {
        REQUIRE(r.tiles[op.dst].shape == std::vector<int64_t>{64, 512});
        valid_rows.push_back(r.tiles[op.dst].valid[0].str());
      }
      if (op.kind == TileOpKind::CopyOut) {
        REQUIRE(op.gm.tensor == y);
      }
    }
  REQUIRE(valid_rows == std::vector<std::string>{"64", "36"});
  REQUIRE(r.temps.empty());  // the output is the value's home: no temp
}

TEST_CASE("vector tiles: broadcast operands read their size-1 box", "[tiling][expand]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp16, {128, 256});
  int g = b.tensor("g", TensorRole::Input, DType::fp16, {1, 256});
  int y = b.tensor("y", TensorRole::Output, DType::fp16, {128, 256});
  b.set_vec({64, 128});
  int m = b.binary(OpKind::Mul, b.ref(x), b.ref(g));
  b.assemble(m, y, {0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.subgraphs.size() == 4);
  int gloads = 0;
  for (auto& sg : r.subgraphs)
    for (int o : sg.ops)
      if (r.ops[o].kind == TileOpKind::CopyIn && r.ops[o].gm.tensor == g) {
        ++gloads;
        REQUIRE(r.tiles[r.ops[o].dst].shape == std::vector<int64_t>{1, 128});
        REQUIRE(r.ops[o].gm.offset[0].str() == "0");
      }
  REQUIRE(gloads == 4);  // each leaf loads its own slice of g
}

TEST_CASE("reductions: a whole axis reduces in one step, a split axis needs a GM round trip", "[tiling][expand]") {
  auto build = [](int64_t tile_cols) {
    ProgramBuilder b;
    int x = b.tensor("x", TensorRole::Input, DType::fp32, {32, 1024});
    int y = b.tensor("y", TensorRole::Output, DType::fp32, {32, 1});
    b.set_vec({32, tile_cols});
    int s = b.reduce(OpKind::Sum, b.ref(x), 1, true);
    b.assemble(s, y, {0, 0});
    return tile(b.finish());
  };
  auto whole = build(1024);
  REQUIRE(whole.ok);
  check_invariants(whole.roots[0]);
  REQUIRE(whole.roots[0].subgraphs.size() == 1);
  REQUIRE(whole.roots[0].temps.empty());

  auto split = build(256);
  REQUIRE(split.ok);
  const TileRoot& r = split.roots[0];
  check_invariants(r);
  // 4 partial reductions (one per column tile) + 1 combine.
  REQUIRE(r.subgraphs.size() == 5);
  REQUIRE(r.temps.size() == 1);
  REQUIRE(r.temps[0].shape[1].str() == "4");
  const Subgraph& last = r.subgraphs.back();
  REQUIRE(preds_of(r, last.id) == 4);
  for (int i = 0; i < 4; ++i) REQUIRE(has_succ(r, i, last.id));
}

TEST_CASE("reductions: mean over a split axis scales the combined sum", "[tiling][expand]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {16, 512});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {16});
  b.set_vec({16, 128});
  int s = b.reduce(OpKind::Mean, b.ref(x), 1, false);
  b.assemble(s, y, {0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  bool scaled = false;
  for (auto& op : r.ops)
    if (op.kind == TileOpKind::Vec && op.vop == OpKind::Mul && op.scalar) {
      REQUIRE(*op.scalar == Approx(1.0 / 512));
      REQUIRE(r.tiles[op.dst].shape == std::vector<int64_t>{16});  // keepdim=false: output rank
      scaled = true;
    }
  REQUIRE(scaled);
}

TEST_CASE("matmul: L0 chains accumulate in L0C, L1 tiles group k steps", "[tiling][expand][cube]") {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {256, 512});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {512, 256});
  int c = b.tensor("c", TensorRole::Output, DType::fp32, {256, 256});
  b.set_cube(128, 64, 256, 128);
  int m = b.matmul(b.ref(a), b.ref(w));
  b.assemble(m, c, {0, 0});
  b.p.options.cube_l1_reuse_setting.given = true;  // {DEFAULT: 1}: no L1 reuse here
  MergeSetting::Entry e;
  e.key = MergeSetting::Entry::Key::Default;
  e.name = "DEFAULT";
  e.count = 1;
  b.p.options.cube_l1_reuse_setting.entries = {e};
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.subgraphs.size() == 4);  // 2 (m) x 2 (n) L0 output tiles
  for (auto& sg : r.subgraphs) {
    REQUIRE(sg.core == CoreType::AIC);
    int l1 = 0, mm = 0, acc = 0, fix = 0;
    for (int o : sg.ops) {
      const TileOp& op = r.ops[o];
      if (op.kind == TileOpKind::CopyIn) {
        ++l1;
        REQUIRE(r.tiles[op.dst].mem == MemKind::L1);
      }
      if (op.kind == TileOpKind::Mmad) ++mm, acc += op.accumulate;
      if (op.kind == TileOpKind::FixOut) {
        ++fix;
        REQUIRE(op.gm.tensor == c);
        REQUIRE(op.dtype == DType::fp32);
      }
    }
    REQUIRE(l1 == 4);   // K=512 / kL1=256 = 2 groups, A and B each
    REQUIRE(mm == 8);   // K / kL0 = 8 k steps
    REQUIRE(acc == 7);  // all but the first accumulate
    REQUIRE(fix == 1);
  }
  REQUIRE(r.temps.empty());
}

TEST_CASE("matmul: transposes and NZ operands", "[tiling][expand][cube]") {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {64, 128});          // stored [K, M]
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {128, 64}, Format::NZ);
  int c = b.tensor("c", TensorRole::Output, DType::fp32, {128, 128});
  b.set_cube(128, 64, 64, 128);
  int m = b.matmul(b.ref(a), b.ref(w), DType::fp32, true, false);
  b.assemble(m, c, {0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.subgraphs.size() == 1);
  for (auto& op : r.ops) {
    if (op.kind == TileOpKind::CopyIn && op.gm.tensor == a) {
      REQUIRE(r.tiles[op.dst].shape == std::vector<int64_t>{64, 128});  // stored orientation [k, m]
      REQUIRE(op.trans_a);
    }
    if (op.kind == TileOpKind::CopyIn && op.gm.tensor == w) REQUIRE(r.tiles[op.dst].layout == Format::NZ);
    if (op.kind == TileOpKind::L1ToL0A) {
      REQUIRE(op.trans_a);
      REQUIRE(r.tiles[op.dst].shape == std::vector<int64_t>{128, 64});
    }
  }
}

TEST_CASE("matmul: a vector result feeding the cube goes through GM", "[tiling][expand][cube]") {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {128, 128});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {128, 128});
  int c = b.tensor("c", TensorRole::Output, DType::fp32, {128, 128});
  b.set_vec({64, 128});
  int ax = b.unary(OpKind::Exp, b.ref(a));
  b.set_cube(128, 64, 128, 128);
  int m = b.matmul(ax, b.ref(w));
  b.set_vec({64, 128});
  int r2 = b.unary(OpKind::Relu, m);
  b.assemble(r2, c, {0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(count_core(r, CoreType::AIC) == 1);
  REQUIRE(count_core(r, CoreType::AIV) == 4);  // 2 exp tiles before, 2 relu tiles after
  REQUIRE(r.temps.size() == 2);                // exp result and matmul result
  int cube = -1;
  for (auto& sg : r.subgraphs)
    if (sg.core == CoreType::AIC) cube = sg.id;
  REQUIRE(preds_of(r, cube) == 2);
  REQUIRE(r.subgraphs[cube].succ.size() == 2);
}

TEST_CASE("matmul: batched matmul has one chain per batch and output tile", "[tiling][expand][cube]") {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {4, 64, 64});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {4, 64, 64});
  int c = b.tensor("c", TensorRole::Output, DType::fp32, {4, 64, 64});
  b.set_cube(64, 64, 64, 64);
  int m = b.matmul(b.ref(a), b.ref(w));
  b.assemble(m, c, {0, 0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(r.subgraphs.size() == 4);
  std::set<std::string> batches;
  for (auto& op : r.ops)
    if (op.kind == TileOpKind::FixOut) {
      REQUIRE(op.gm.offset.size() == 3);
      batches.insert(op.gm.offset[0].str());
    }
  REQUIRE(batches.size() == 4);
}

TEST_CASE("matmul: split_k makes independent partial chains added into a zeroed output", "[tiling][expand][cube]") {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {128, 1024});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {1024, 128});
  int c = b.tensor("c", TensorRole::Output, DType::fp32, {128, 128});
  b.set_cube(128, 64, 256, 128, true);
  int m = b.matmul(b.ref(a), b.ref(w));
  b.assemble(m, c, {0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(count_core(r, CoreType::AIC) == 4);  // K 1024 / 256
  REQUIRE(count_core(r, CoreType::AIV) == 1);  // the zero fill
  REQUIRE(r.subgraphs[0].core == CoreType::AIV);
  REQUIRE(r.subgraphs[0].succ == std::vector<int>{1, 2, 3, 4});
  for (int i = 1; i <= 4; ++i) REQUIRE(r.subgraphs[i].succ.empty());  // atomic adds do not order each other
  for (auto& op : r.ops)
    if (op.kind == TileOpKind::FixOut) REQUIRE(op.atomic_add);
}

TEST_CASE("matmul: int8 split_k adds int32 partials into an int32 zero fill", "[tiling][expand][cube]") {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::int8, {64, 1024});
  int w = b.tensor("w", TensorRole::Input, DType::int8, {1024, 64});
  int c = b.tensor("c", TensorRole::Output, DType::int32, {64, 64});
  b.set_cube(64, 64, 256, 64, true);
  int m = b.matmul(b.ref(a), b.ref(w), DType::int32);
  b.assemble(m, c, {0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  REQUIRE(count_core(r, CoreType::AIC) == 4);  // K 1024 / 256
  int fixouts = 0, fills = 0;
  for (auto& op : r.ops) {
    if (op.kind == TileOpKind::FixOut) {
      ++fixouts;
      REQUIRE(op.atomic_add);
      REQUIRE(op.dtype == DType::int32);
    }
    if (op.kind == TileOpKind::Vec && op.vop == OpKind::Full) {
      ++fills;
      REQUIRE(r.tiles[size_t(op.dst)].dtype == DType::int32);  // not an fp32 zero reinterpreted
    }
  }
  REQUIRE(fixouts == 4);
  REQUIRE(fills == 1);
}

TEST_CASE("matmul: split_k with a non-fp32 output is a located error", "[tiling][expand][cube][errors]") {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {128, 1024});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {1024, 128});
  int c = b.tensor("c", TensorRole::Output, DType::fp16, {128, 128});
  b.set_cube(128, 64, 256, 128, true);
  int m = b.matmul(b.ref(a), b.ref(w), DType::fp16);
  int line = b.p.ops.back().loc.line;
  b.assemble(m, c, {0, 0});
  auto t = tile(b.finish());
  REQUIRE_FALSE(t.ok);
  REQUIRE_THAT(t.errors, Catch::Contains("t.yaml:" + std::to_string(line) + ":5: error: split_k"));
  REQUIRE_THAT(t.errors, Catch::Contains("out_dtype=fp32"));
}

TEST_CASE("views move no data: a slice changes the GM offsets of the copies", "[tiling][expand]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {256, 128});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {64, 128});
  b.set_vec({64, 128});
  int v = b.view(b.ref(x), {64, 128}, {128, 0});
  int e = b.unary(OpKind::Abs, v);
  b.assemble(e, y, {0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  REQUIRE(r.subgraphs.size() == 1);
  for (auto& op : r.ops)
    if (op.kind == TileOpKind::CopyIn) REQUIRE(op.gm.offset[0].str() == "128");
}

TEST_CASE("a tile set that cannot fit UB names the op, the bytes and the fix", "[tiling][errors]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {256, 1024});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {256, 1024});
  b.set_vec({128, 1024});  // 512 KiB per tile
  int vt_line = b.line;
  int e = b.unary(OpKind::Exp, b.ref(x));
  int line = b.p.ops.back().loc.line;
  b.assemble(e, y, {0, 0});
  auto t = tile(b.finish());
  REQUIRE_FALSE(t.ok);
  REQUIRE_THAT(t.errors, Catch::Contains("t.yaml:" + std::to_string(line) + ":5: error: 'exp' does not fit UB"));
  // exp is written over its dying load: one 512 KiB tile, not two.
  REQUIRE_THAT(t.errors, Catch::Contains("the 1 buffer live at this op needs 524288 bytes, ascend910b1 has "
                                         "196608 (327680 too many): load of x [128, 1024] fp32 524288"));
  REQUIRE_THAT(t.errors, Catch::Contains("hint: vec_tile [48, 1024] at line " + std::to_string(vt_line) +
                                         " fits (196608 bytes live here)"));
  REQUIRE_THAT(t.errors, Catch::Contains("reduce vec_tile on axis 0 at line " + std::to_string(vt_line)));
}
