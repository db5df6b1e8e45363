// The low-peak order of a forced scope merge (low_peak_order.cpp): hc_pre's scope over a 16384-wide row
// reduction with PyPTO's [4, 4096] tile. In creation order all four squared chunks are live at the last
// partial sum (196640 bytes of 196608: the scope was refused); the subgraph now runs each chunk's load,
// square, partial sum and store before the next, so one chunk's bytes are live, and a scope that fits in
// creation order keeps that order.
#include "test/passes/tiling_test_util.h"

using namespace ptoc;
using namespace ptoc::test;

// x [rows, 16384] -> sq = x * x -> m = sum(sq, -1, keepdim) -> y; all in one scope.
static Program scope_split_reduce(int64_t rows, std::vector<int64_t> tile) {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {rows, 16384});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {rows, 1});
  b.scope = ScopeInfo{2, false, false};
  b.set_vec(std::move(tile));
  int xr = b.ref(x);
  int sq = b.binary(OpKind::Mul, xr, xr);
  int m = b.reduce(OpKind::Sum, sq, 1, true);
  b.scope = ScopeInfo{};
  b.assemble(m, y, {0, 0});
  return b.finish();
}

// UB bytes live at the busiest point of each subgraph, in the order it runs.
static int64_t max_ub_peak(const TileRoot& r) {
  int64_t peak = 0;
  std::array<int64_t, 6> align{};
  align.fill(32);
  for (const Subgraph& sg : r.subgraphs) peak = std::max(peak, peak_bytes(r, sg.ops.vec(), align)[size_t(MemKind::UB)]);
  return peak;
}

TEST_CASE("a scope over a split reduction runs chunk by chunk when creation order overflows", "[tiling][partition][scope]") {
  auto t = tile(scope_split_reduce(4, {4, 4096}));
  INFO(t.errors);
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  check_invariants(r);
  // One [4, 4096] fp32 chunk (65536 bytes, the square written over its load) and small partials: not four.
  CHECK(max_ub_peak(r) < 2 * 65536);
  // The square of each chunk is followed by its partial sum before the next chunk's load.
  for (const Subgraph& sg : r.subgraphs) {
    int squares_pending = 0, max_pending = 0;
    for (int o : sg.ops) {
      const TileOp& op = r.ops[size_t(o)];
      if (op.kind != TileOpKind::Vec) continue;
      if (op.vop == OpKind::Mul) ++squares_pending;
      if (op.vop == OpKind::Sum && squares_pending > 0) --squares_pending;
      max_pending = std::max(max_pending, squares_pending);
    }
    CHECK(max_pending <= 1);
  }
}

TEST_CASE("a scope that fits in creation order keeps it", "[tiling][partition][scope]") {
  // [2, 4096]: four chunks of 32 KiB fit, so nothing is reordered: squares first, then the sums.
  auto t = tile(scope_split_reduce(2, {2, 4096}));
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  bool squares_then_sums = false;
  for (const Subgraph& sg : r.subgraphs) {
    int squares = 0, squares_before_first_sum = -1;
    for (int o : sg.ops) {
      const TileOp& op = r.ops[size_t(o)];
      if (op.kind != TileOpKind::Vec) continue;
      if (op.vop == OpKind::Mul) ++squares;
      if (op.vop == OpKind::Sum && squares_before_first_sum < 0) squares_before_first_sum = squares;
    }
    squares_then_sums = squares_then_sums || squares_before_first_sum == 4;
  }
  CHECK(squares_then_sums);
}
