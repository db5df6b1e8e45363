// Loops: trip counts from begin/end/step, greedy coverage by unroll gears
// (largest factor that fits, factor 1 last), the loop and factor variables,
// nesting, loop-carried data through a workspace, values kept across roots.
#include <catch2/catch.hpp>

#include "program_builder.h"

using namespace ptoc;
using namespace ptoc::test;

TEST_CASE("unroll gears cover the trip count greedily, largest first", "[eval][loops]") {
  // Each gear body writes its factor k over the k positions it covers: g[b : b + k] = k.
  ProgramBuilder b;
  b.dyn_dim("N");
  b.output("g", DType::int32, {S("N")});
  b.loop("b", 0, S("N"), 1, {4, 2, 1}, "k", [&](int64_t k) {
    b.assemble("g", b.full({k}, double(k), DType::int32), {S("b")});
  });
  auto gears = [&](int64_t n) { return values_of(run(b.p, {}, {{"N", n}}).at("g")); };
  CHECK(gears(11) == std::vector<double>{4, 4, 4, 4, 4, 4, 4, 4, 2, 2, 1});
  CHECK(gears(3) == std::vector<double>{2, 2, 1});
  CHECK(gears(8) == std::vector<double>(8, 4.0));
  CHECK(gears(1) == std::vector<double>{1});
  CHECK(gears(0).empty());
}

TEST_CASE("gears that do not divide each other still cover every iteration once", "[eval][loops]") {
  // Gears 5 and 3 over 12: 5, 5, then 2 left -> 1, 1. Each gear adds 1 to its positions: all must be 1.
  ProgramBuilder b;
  b.dyn_dim("N");
  b.output("g", DType::int32, {S("N")});
  b.output("cover", DType::int32, {S("N")});
  b.loop("b", 0, S("N"), 1, {5, 3, 1}, "k", [&](int64_t k) {
    b.assemble("g", b.full({k}, double(k), DType::int32), {S("b")});
    int cur = b.view(b.ref("cover"), {k}, {S("b")});
    b.assemble("cover", b.bin_s(OpKind::Add, cur, 1), {S("b")});
  });
  auto out = run(b.p, {}, {{"N", 12}});
  CHECK(values_of(out.at("g")) == std::vector<double>{5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 1, 1});
  CHECK(values_of(out.at("cover")) == std::vector<double>(12, 1.0));
  out = run(b.p, {}, {{"N", 9}});
  CHECK(values_of(out.at("g")) == std::vector<double>{5, 5, 5, 5, 5, 3, 3, 3, 1});
}

TEST_CASE("the factor variable and loop variable are bound inside the gear body", "[eval][loops]") {
  // Row tiles of 2 * k rows (the window's extent uses k): y[b*2 : (b+k)*2, :] = x[b*2 : (b+k)*2, :],
  // with gears 4 and 1 over ceil(B/2) tiles.
  ProgramBuilder b;
  b.dyn_dim("B");
  b.input("x", DType::fp32, {S("B"), 2});
  b.output("y", DType::fp32, {S("B"), 2});
  b.loop("b", 0, ceil_div(S("B"), 2), 1, {4, 1}, "k", [&](int64_t) {
    int t = b.view(b.ref("x"), {S("k") * 2, 2}, {S("b") * 2, 0});
    b.assemble("y", t, {S("b") * 2, 0});
  });
  // 11 rows -> 6 tiles -> gears 4 (rows 0..7) + 1 + 1 (rows 8..9, 10 with a tail)
  std::vector<double> xs;
  for (int i = 0; i < 22; ++i) xs.push_back(i);
  CHECK(values_of(run(b.p, {{"x", tensor_of(DType::fp32, {11, 2}, xs)}}).at("y")) == xs);
}

TEST_CASE("begin, end and step give ceil_div(end - begin, step) iterations", "[eval][loops]") {
  // range [3, 20, 4]: b = 3, 7, 11, 15, 19, covered by gears 2, 2, 1; y[(b - 3) // 4 + j] = iota[b + 4 j].
  ProgramBuilder c;
  c.input("iota", DType::int32, {32});
  c.output("y", DType::int32, {6});
  c.loop("b", 3, 20, 4, {2, 1}, "k", [&](int64_t k) {
    for (int64_t j = 0; j < k; ++j)
      c.assemble("y", c.view(c.ref("iota"), {1}, {S("b") + j * 4}), {floordiv(S("b") - 3, 4) + j});
  });
  std::vector<double> io;
  for (int i = 0; i < 32; ++i) io.push_back(i);
  CHECK(values_of(run(c.p, {{"iota", tensor_of(DType::int32, {32}, io)}}).at("y")) ==
        std::vector<double>{3, 7, 11, 15, 19, 0});
}

TEST_CASE("nested loops bind both variables", "[eval][loops]") {
  // y[i, j] = 10 * i + j via views of an iota input.
  ProgramBuilder b;
  b.dyn_dim("I");
  b.input("iota", DType::int32, {100});
  b.output("y", DType::int32, {S("I"), 3});
  b.loop("i", S("I"), [&] {
    b.loop("j", 3, [&] {
      int v = b.reshape(b.view(b.ref("iota"), {1}, {S("i") * 10 + S("j")}), {1, 1});
      b.assemble("y", v, {S("i"), S("j")});
    });
  });
  std::vector<double> io;
  for (int i = 0; i < 100; ++i) io.push_back(i);
  CHECK(values_of(run(b.p, {{"iota", tensor_of(DType::int32, {100}, io)}}, {{"I", 3}}).at("y")) ==
        std::vector<double>{0, 1, 2, 10, 11, 12, 20, 21, 22});
}

TEST_CASE("loop-carried data through a workspace: a running sum", "[eval][loops]") {
  // acc += x[b] for every row, then y = acc: the sum of the rows.
  ProgramBuilder b;
  b.dyn_dim("B");
  b.input("x", DType::fp32, {S("B"), 4});
  b.workspace("acc", DType::fp32, {1, 4});
  b.output("y", DType::fp32, {1, 4});
  b.loop("b", 0, S("B"), 1, {3, 1}, "k", [&](int64_t k) {
    int rows = b.view(b.ref("x"), {k, 4}, {S("b"), 0});
    b.assemble("acc", b.bin(OpKind::Add, b.ref("acc"), b.reduce(OpKind::Sum, rows, 0, true)), {0, 0});
  });
  b.assemble("y", b.ref("acc"), {0, 0});
  std::vector<double> xs;
  for (int i = 0; i < 28; ++i) xs.push_back(i);
  CHECK(values_of(run(b.p, {{"x", tensor_of(DType::fp32, {7, 4}, xs)}}).at("y")) ==
        std::vector<double>{84, 91, 98, 105});
}

TEST_CASE("a value computed before a loop is used inside it", "[eval][loops]") {
  ProgramBuilder b;
  b.dyn_dim("B");
  b.input("x", DType::fp32, {S("B"), 2});
  b.input("w", DType::fp32, {1, 2});
  b.output("y", DType::fp32, {S("B"), 2});
  int scale = b.un(OpKind::Exp, b.ref("w"));  // top-level root, before the loop
  b.loop("b", S("B"), [&] {
    b.assemble("y", b.bin(OpKind::Mul, b.view(b.ref("x"), {1, 2}, {S("b"), 0}), scale), {S("b"), 0});
  });
  auto y = values_of(run(b.p, {{"x", tensor_of(DType::fp32, {2, 2}, {1, 2, 3, 4})},
                               {"w", tensor_of(DType::fp32, {1, 2}, {0, 0})}})
                         .at("y"));
  CHECK(y == std::vector<double>{1, 2, 3, 4});
  REQUIRE(b.p.body.size() == 2);  // a root, then the loop
  CHECK(b.p.body[0].kind == LoopNode::Kind::Root);
}

TEST_CASE("a loop without a gear that fits is an error naming the loop", "[eval][loops]") {
  ProgramBuilder b;
  b.output("g", DType::int32, {5});
  b.loop("b", 0, 5, 1, {2}, "k", [&](int64_t k) { b.assemble("g", b.full({k}, 1, DType::int32), {S("b")}); });
  CHECK_THROWS_WITH(run(b.p, {}), Catch::Contains("loop b has no unroll gear covering the remaining 1 iterations"));
  ProgramBuilder c;
  c.output("g", DType::int32, {5});
  c.loop("b", 0, 5, 0, {1}, "", [&](int64_t) { c.assemble("g", c.full({1}, 1, DType::int32), {S("b")}); });
  CHECK_THROWS_WITH(run(c.p, {}), Catch::Contains("loop b has step 0"));
}
