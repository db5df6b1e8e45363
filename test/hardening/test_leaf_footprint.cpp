// The local-memory footprints of leaf calls (runtime/program/leaf_footprint.h) against the host
// kernels themselves (kernels/host/pto_host_ops.h): each kernel runs on an arena of canary values,
// and every element it writes must lie inside the footprint computed for that operand, the last
// element of the footprint written too (the footprint is what the kernel reaches, not a guess).
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "kernels/pto_tile.h"
#include "runtime/program/leaf_footprint.h"

using namespace ptoc;
using leaf::Fn;

namespace {

constexpr float kCanary = -12345.5f;

// A call of `fn` with these template parameters and integer operands (Buf operands at offset 0).
struct Call {
  leaf::Instr in;
  std::vector<int64_t> vals;
  Call(Fn fn, std::vector<int64_t> tps, std::vector<leaf::OperandKind> kinds, std::vector<int64_t> ints) {
    in.kind = leaf::InstrKind::Call;
    in.fn = fn;
    for (int64_t v : tps) in.tparams.push_back(leaf::TParam{leaf::TParamKind::Int, v});
    for (auto k : kinds) {
      leaf::Operand o;
      o.kind = k;
      in.operands.push_back(o);
    }
    vals.assign(in.operands.size(), 0);
    size_t next = 0;
    for (size_t k = 0; k < in.operands.size() && next < ints.size(); ++k)
      if (kinds[k] == leaf::OperandKind::Int) vals[k] = ints[next++];
  }
  // Operand k's footprint, as [lo, hi) in elements.
  std::pair<int64_t, int64_t> of(int operand) const {
    leaf::Footprint fp[leaf::kMaxFootprints];
    const int n = leaf::call_footprints(in, vals.data(), fp);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < n; ++i)
      if (fp[i].operand == operand && fp[i].hi > fp[i].lo) {
        lo = std::min<int64_t>(lo, int64_t(fp[i].lo));
        hi = std::max<int64_t>(hi, int64_t(fp[i].hi));
      }
    return {lo, hi};
  }
};

// The elements of `arena` (pointer at `base`) the kernel changed, as [first, last + 1) from base.
template <class T>
std::pair<int64_t, int64_t> written(const std::vector<T>& arena, size_t base, T canary) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t i = 0; i < arena.size(); ++i)
    if (std::memcmp(&arena[i], &canary, sizeof(T)) != 0) {
      lo = std::min<int64_t>(lo, int64_t(i) - int64_t(base));
      hi = std::max<int64_t>(hi, int64_t(i) - int64_t(base) + 1);
    }
  return {lo, hi};
}

using O = leaf::OperandKind;
constexpr size_t kBase = 4096;  // the operand's pointer inside its arena: room on both sides

template <class F>
std::pair<int64_t, int64_t> run_on_dst(size_t elems, F kernel) {
  std::vector<float> dst(elems + 2 * kBase, kCanary);
  kernel(dst.data() + kBase);
  return written(dst, kBase, kCanary);
}

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(i % 97) * 0.25f;
  return v;
}

}  // namespace

TEST_CASE("leaf footprint: reductions, both axes, valid extents inside and past the tile") {
  const auto src = ramp(1 << 16);
  for (int64_t axis : {0, 1})
    for (auto [vr, vc] : std::vector<std::pair<int64_t, int64_t>>{{8, 64}, {3, 17}, {40, 64}, {8, 300}}) {
      INFO("axis " << axis << " vr " << vr << " vc " << vc);
      const Call c(Fn::TREDUCE, {PTO_RSUM, 0, 8, 64, axis}, {O::Buf, O::Buf, O::Int, O::Int}, {vr, vc});
      const auto w = run_on_dst(4096, [&](float* d) {
        if (axis == 1) pto::host::treduce<PTO_RSUM, float, 1>(8, 64, d, src.data(), vr, vc);
        else pto::host::treduce<PTO_RSUM, float, 0>(8, 64, d, src.data(), vr, vc);
      });
      CHECK(w == c.of(0));
      // The source rows it reads: vr rows of vc at a pitch of 64.
      CHECK(c.of(1) == std::pair<int64_t, int64_t>{0, (vr - 1) * 64 + vc});
    }
}

TEST_CASE("leaf footprint: transpose, copies, extracts, matmul, fill and binary writes") {
  const auto src = ramp(1 << 16);
  SECTION("transpose") {
    for (auto [vr, vc] : std::vector<std::pair<int64_t, int64_t>>{{16, 32}, {5, 7}, {16, 100}}) {
      const Call c(Fn::TTRANSPOSE, {0, 16, 32}, {O::Buf, O::Buf, O::Int, O::Int}, {vr, vc});
      CHECK(run_on_dst(4096, [&](float* d) { pto::host::ttranspose<float>(16, 32, d, src.data(), vr, vc); }) == c.of(0));
    }
  }
  SECTION("copy into a window, offsets negative and past the end") {
    for (auto [ro, co] : std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {2, 5}, {-3, 1}, {30, 40}}) {
      const Call c(Fn::TCOPY, {0, 8, 16, 16, 32}, {O::Buf, O::Buf, O::Int, O::Int, O::Int, O::Int}, {6, 10, ro, co});
      CHECK(run_on_dst(4096, [&](float* d) {
              pto::host::tcopy<float>(8, 16, 16, 32, d, src.data(), 6, 10, ro, co);
            }) == c.of(0));
    }
  }
  SECTION("strided copy, negative strides too") {
    for (auto [s0, s1] : std::vector<std::pair<int64_t, int64_t>>{{32, 1}, {1, 32}, {-32, 1}, {5, -2}}) {
      const Call c(Fn::TCOPY2D, {0, s0, s1, 16, 1}, {O::Buf, O::Buf, O::Int, O::Int}, {6, 9});
      CHECK(run_on_dst(4096, [&](float* d) { pto::host::tcopy2d<float>(s0, s1, 16, 1, d, src.data(), 6, 9); }) ==
            c.of(0));
    }
  }
  SECTION("L0 extracts read a window of their L1 tile") {
    for (int64_t trans : {0, 1}) {
      const Call a(Fn::TEXTRACT_L0A, {0, 64, 128, 16, 32, trans}, {O::Buf, O::Buf, O::Int, O::Int}, {3, 40});
      CHECK(run_on_dst(4096, [&](float* d) {
              if (trans) pto::host::textract_l0a<float, 1>(64, 128, 16, 32, d, src.data(), 3, 40);
              else pto::host::textract_l0a<float, 0>(64, 128, 16, 32, d, src.data(), 3, 40);
            }) == a.of(0));
      // Read side: the kernel reads (ro + i) * CL1 + co + [0, cols): the same range computed by hand.
      const int64_t nrows = trans ? 32 : 16, ncols = trans ? 16 : 32;
      CHECK(a.of(1) == std::pair<int64_t, int64_t>{3 * 128 + 40, (3 + nrows - 1) * 128 + 40 + ncols});
      const Call b(Fn::TEXTRACT_L0B, {0, 64, 128, 32, 16, trans}, {O::Buf, O::Buf, O::Int, O::Int}, {1, 8});
      CHECK(run_on_dst(4096, [&](float* d) {
              if (trans) pto::host::textract_l0b<float, 1>(64, 128, 32, 16, d, src.data(), 1, 8);
              else pto::host::textract_l0b<float, 0>(64, 128, 32, 16, d, src.data(), 1, 8);
            }) == b.of(0));
    }
  }
  SECTION("matmul accumulator") {
    for (auto [vm, vn] : std::vector<std::pair<int64_t, int64_t>>{{16, 32}, {5, 9}, {20, 40}}) {
      const Call c(Fn::TMMAD, {0, 16, 8, 32}, {O::Buf, O::Buf, O::Buf, O::Int, O::Int, O::Int, O::Int}, {vm, 8, vn, 1});
      CHECK(run_on_dst(4096, [&](float* d) {
              pto::host::tmmad<float>(16, 8, 32, d, src.data(), src.data(), vm, 8, vn, 1);
            }) == c.of(0));
    }
  }
  SECTION("fill and binary: vr rows of vc at the tile's pitch") {
    const Call f(Fn::TFILL, {0, 8, 32}, {O::Buf, O::Real, O::Int, O::Int}, {10, 20});
    CHECK(run_on_dst(4096, [&](float* d) { pto::host::tfill<float>(8, 32, d, 1.5, 10, 20); }) == f.of(0));
    const Call b(Fn::TBINARY, {PTO_ADD, 0, 8, 32, PTO_BC_NONE, PTO_BC_COL}, {O::Buf, O::Buf, O::Buf, O::Int, O::Int},
                 {6, 20});
    CHECK(run_on_dst(4096, [&](float* d) {
            pto::host::tbinary<PTO_ADD, float, PTO_BC_NONE, PTO_BC_COL>(8, 32, d, src.data(), src.data(), 6, 20);
          }) == b.of(0));
    // A column-broadcast operand is read one element per row, a row-broadcast one per column.
    CHECK(b.of(2) == std::pair<int64_t, int64_t>{0, 6});
    CHECK(b.of(1) == std::pair<int64_t, int64_t>{0, 5 * 32 + 20});
  }
}
