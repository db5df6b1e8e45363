// GM geometry: boxes to strided accesses, the NZ layout, and the host arena.
#include <catch2/catch.hpp>

#include "runtime/gm_arena.h"

using namespace ptoc;
using namespace ptoc::runtime;

namespace {
std::vector<GmAccess> acc(const TensorGeometry& g, std::vector<int64_t> off, std::vector<int64_t> ext) {
  std::vector<GmAccess> v;
  region_accesses(g, 1000, off.data(), ext.data(), 7, true, v);
  return v;
}
}  // namespace

TEST_CASE("a box of a row-major tensor becomes strided windows") {
  auto g = make_geometry(DType::fp32, {8, 64}, Format::ND);
  CHECK(g.bytes == 8 * 64 * 4);
  auto a = acc(g, {2, 16}, {3, 32});
  REQUIRE(a.size() == 1);
  CHECK(a[0].addr == 1000 + (2 * 64 + 16) * 4);
  CHECK(a[0].rows == 3);
  CHECK(a[0].row_bytes == 128);
  CHECK(a[0].row_stride == 256);
  CHECK(a[0].tensor == 7);
  CHECK(a[0].write);
  // Whole rows collapse into one contiguous run.
  a = acc(g, {2, 0}, {3, 64});
  REQUIRE(a.size() == 1);
  CHECK(a[0].rows == 1);
  CHECK(a[0].row_bytes == 3 * 256);
  CHECK(a[0].addr == 1000 + 512);
  // Empty boxes touch nothing.
  CHECK(acc(g, {2, 0}, {0, 64}).empty());

  auto g3 = make_geometry(DType::fp32, {4, 8, 64}, Format::ND);
  // Axis 1 whole: rows of axes 0 and 1 are uniformly strided, one window.
  a = acc(g3, {1, 0, 0}, {2, 8, 32});
  REQUIRE(a.size() == 1);
  CHECK(a[0].addr == 1000 + 512 * 4);
  CHECK(a[0].rows == 16);
  CHECK(a[0].row_stride == 256);
  // Axis 1 partial: one window per index of axis 0.
  a = acc(g3, {1, 2, 8}, {2, 2, 32});
  REQUIRE(a.size() == 2);
  CHECK(a[0].addr == 1000 + (1 * 512 + 2 * 64 + 8) * 4);
  CHECK(a[1].addr == 1000 + (2 * 512 + 2 * 64 + 8) * 4);
  CHECK(a[1].rows == 2);
  CHECK(a[1].row_bytes == 128);
  // Every byte of the box is covered exactly once.
  uint64_t covered = 0;
  for (auto& x : a) covered += x.bytes();
  CHECK(covered == 2 * 2 * 32 * 4);
}

TEST_CASE("NZ layout: fractal blocks, padding and conversion") {
  auto g = make_geometry(DType::fp16, {32, 48}, Format::NZ);
  CHECK(g.nz_c0 == 16);
  CHECK(g.nz_rows == 32);
  CHECK(g.bytes == 32 * 48 * 2);
  auto a = acc(g, {16, 16}, {16, 32});
  REQUIRE(a.size() == 1);
  CHECK(a[0].rows == 2);              // two column blocks
  CHECK(a[0].row_bytes == 16 * 16 * 2);  // 16 rows of one block
  CHECK(a[0].row_stride == 32 * 16 * 2);
  CHECK(a[0].addr == 1000 + (1 * 32 * 16 + 16 * 16) * 2);

  auto gp = make_geometry(DType::fp16, {20, 10}, Format::NZ);
  CHECK(gp.nz_rows == 32);
  CHECK(gp.nz_cols == 16);
  CHECK(gp.bytes == 32 * 16 * 2);
  TensorData t = TensorData::zeros(DType::fp16, {20, 10});
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, double(i % 97) - 40);
  auto nz = to_gm_layout(gp, t);
  REQUIRE(nz.size() == gp.bytes);
  auto half_at = [&](int64_t idx) {
    uint16_t h;
    std::memcpy(&h, nz.data() + idx * 2, 2);
    return double(half_to_float(h));
  };
  CHECK(half_at(0) == t.get(0));
  CHECK(half_at(3 * 16 + 5) == t.get(3 * 10 + 5));     // row 3, col 5
  CHECK(half_at(19 * 16 + 9) == t.get(19 * 10 + 9));   // last element
  CHECK(half_at(20 * 16) == 0);                        // row padding is zero
  TensorData back = from_gm_layout(gp, nz.data());
  CHECK(back.bytes == t.bytes);

  auto f32 = make_geometry(DType::fp32, {2, 16, 8}, Format::NZ);
  CHECK(f32.nz_c0 == 8);
  CHECK(f32.bytes == 2 * 16 * 8 * 4);
}

TEST_CASE("the GM arena maps virtual addresses to host memory") {
  GmArena ar;
  ar.map(kGmBase, 1024);
  ar.map(kGmBase + 4096, 512);
  ar.map(kGmBase, 1024);  // same block again: no-op
  CHECK(ar.mapped_bytes() == 1536);
  CHECK(ar.host(kGmBase + 10) == ar.host(kGmBase) + 10);
  CHECK(*ar.host(kGmBase + 100) == 0);
  CHECK(ar.contains(kGmBase + 1000, 24));
  CHECK_FALSE(ar.contains(kGmBase + 1000, 25));
  CHECK_FALSE(ar.is_mapped(kGmBase + 2048));
  CHECK_THROWS_AS(ar.host(kGmBase + 2048), GmError);
  CHECK_THROWS_AS(ar.map(kGmBase, 2048), GmError);
}

TEST_CASE("a host pointer maps back to its virtual GM address") {
  GmArena a;
  a.map(kGmBase, 4096);
  a.map(kGmBase + 8192, 512);
  CHECK(a.virtual_of(a.host(kGmBase)) == kGmBase);
  CHECK(a.virtual_of(a.host(kGmBase + 100)) == kGmBase + 100);
  CHECK(a.virtual_of(a.host(kGmBase + 8192 + 511)) == kGmBase + 8192 + 511);
  int outside = 0;
  CHECK(a.virtual_of(&outside) == 0);
}
