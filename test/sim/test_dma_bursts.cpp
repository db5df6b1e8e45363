// The DMA burst floor of the leaf copy costs (compiler/passes/leaf_cost.cpp, Platform::dma_burst_min_cycles):
// copies of short rows cost per row, long rows per byte, and the model reproduces the board measurements
// it was derived from and one it was not (CANN asc-devkit data_copy example, [ASC] in runtime/core/platform.cpp).
#include <catch2/catch.hpp>

#include <cmath>

#include "compiler/passes/backend.h"
#include "runtime/core/platform.h"

using namespace ptoc;

namespace {

// One root with a GM->dst copy of a rows x cols tile, and a FixOut of the same shape from L0C.
struct CopyLeaf {
  TileRoot root;
  int copy = -1, fix = -1;
  CopyLeaf(MemKind dst, DType dt, int64_t rows, int64_t cols) {
    auto add_tile = [&](MemKind m, DType t) {
      LocalTile lt;
      lt.id = int(root.tiles.size());
      lt.mem = m;
      lt.dtype = t;
      lt.shape = {rows, cols};
      lt.valid = {DimExpr(rows), DimExpr(cols)};
      root.tiles.push_back(lt);
      return lt.id;
    };
    int d = add_tile(dst, dt), c = add_tile(MemKind::L0C, DType::fp32);
    TileOp in;
    in.id = 0;
    in.kind = TileOpKind::CopyIn;
    in.dst = d;
    in.gm = {0, {DimExpr(0), DimExpr(0)}, {DimExpr(rows), DimExpr(cols)}};
    root.ops.push_back(in);
    TileOp fx;
    fx.id = 1;
    fx.kind = TileOpKind::FixOut;
    fx.srcs = {c};
    fx.dtype = dt;
    fx.gm = {1, {DimExpr(0), DimExpr(0)}, {DimExpr(rows), DimExpr(cols)}};
    root.ops.push_back(fx);
    copy = 0;
    fix = 1;
  }
  int64_t in_cycles(const Platform& p) const { return op_cycles(root, root.ops[copy], p); }
  int64_t fix_cycles(const Platform& p) const { return op_cycles(root, root.ops[fix], p); }
};

const Platform& plat(const char* name) {
  const Platform* p = find_platform(name);
  REQUIRE(p != nullptr);
  return *p;
}

}  // namespace

TEST_CASE("dma bursts: short rows cost the burst floor per row, long rows their bytes", "[sim][dma]") {
  const Platform& p = plat("ascend910b1");
  const int64_t floor128 = int64_t(std::ceil(128 * p.dma_burst_min_cycles));
  // The skinny matmul's operand: 128 rows of 16 fp16 = 32 B each. By bytes 4096 / 32 = 128 cycles; the
  // DMA issues 128 bursts, each at least the floor.
  CopyLeaf skinny(MemKind::L1, DType::fp16, 128, 16);
  CHECK(skinny.in_cycles(p) == p.l1_dma_startup_cycles + floor128);
  CHECK(skinny.fix_cycles(p) == p.l1_dma_startup_cycles + floor128);
  // Its reshaped form, 128 rows of 64 fp16 (128 B): four times the bytes in the same time.
  CopyLeaf wide(MemKind::L1, DType::fp16, 128, 64);
  CHECK(wide.in_cycles(p) == skinny.in_cycles(p));
  // 512 B rows: the byte rate binds, the floor does not.
  CopyLeaf rows512(MemKind::L1, DType::fp16, 128, 256);
  CHECK(rows512.in_cycles(p) == p.l1_dma_startup_cycles + 128 * 512 / int64_t(p.gm_read_bpc));
  // The UB path has the same floor (same DMA engine), after its own start-up.
  CopyLeaf ub(MemKind::UB, DType::fp16, 128, 16);
  CHECK(ub.in_cycles(p) == p.dma_startup_cycles + floor128);
  // A platform without the floor costs by bytes only (the compiler's former model).
  Platform nofloor = p;
  nofloor.dma_burst_min_cycles = 0;
  CHECK(skinny.in_cycles(nofloor) == p.l1_dma_startup_cycles + 4096 / int64_t(p.gm_read_bpc));
}

TEST_CASE("dma bursts: the asc-devkit GM->L1 ND2NZ board figures", "[sim][dma]") {
  // 12288 x 12288 fp16 (302 MB) copied GM->L1 in 64-row tiles, split over all AICs; per core the copies
  // run back to back, so the MTE2 time is the sum of the transfers without their start-ups.
  const double total = 12288.0 * 12288 * 2;
  auto mte2_us = [&](const Platform& p, int64_t cols) {
    CopyLeaf tile(MemKind::L1, DType::fp16, 64, cols);
    const double per_tile = double(tile.in_cycles(p) - p.l1_dma_startup_cycles);
    const double tiles = total / p.aic / (64.0 * cols * 2);
    return tiles * per_tile / p.core_mhz;
  };
  // 910B1: [64,64] (128 B rows) measured 283.5 us: the figure the floor was derived from.
  CHECK(mte2_us(plat("ascend910b1"), 64) == Approx(283.5).epsilon(0.01));
  // [64,256] (512 B rows) measured 214.5 us: not fitted, the ini's 32 B/cycle per core alone gives it.
  CHECK(mte2_us(plat("ascend910b1"), 256) == Approx(214.5).epsilon(0.02));
  // 950PR: [64,64] measured 241.6 us (fitted); [64,256] measured 187.2 us from the ini's 31 B/cycle.
  CHECK(mte2_us(plat("ascend950pr"), 64) == Approx(241.6).epsilon(0.01));
  CHECK(mte2_us(plat("ascend950pr"), 256) == Approx(187.2).epsilon(0.02));
}
