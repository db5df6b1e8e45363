// TRANDOM (PyPTO's uniform / normal; kernels/host/pto_host_random.h) against Random123's published
// Philox 4x32-10 known answers, PyPTO's documented example, and the evaluator's scalar meaning
// (compiler/ops_random.cpp, written separately): bit for bit, for fp32 / fp16 / bf16, with tails;
// padding is left alone; a region computed as one tile or as two gives the same bytes.
#include <catch2/catch.hpp>

#include <cstring>

#include "compiler/ops_random.h"
#include "tile_test_util.h"

using namespace tt;

namespace {

constexpr int R = 4, C = 16;

template <typename T> T* ub(int64_t addr) { return PTO_UB(T, addr); }

uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// One tile of R x C: idx[i][j] = base + i * C + j (a flat index), TRANDOM over vr x vc.
template <int MODE, typename T>
std::vector<T> run(uint64_t key, uint64_t ctr, int64_t base, int64_t vr, int64_t vc, T* d = nullptr) {
  int32_t* idx = ub<int32_t>(0);
  if (!d) d = ub<T>(8192);
  for (int i = 0; i < R * C; ++i) idx[i] = int32_t(base + i);
  for (int i = 0; i < R * C; ++i) d[i] = poison<T>();
  TRANDOM<T, R, C, MODE>(d, idx, vr, vc, int64_t(uint32_t(key)), int64_t(key >> 32), int64_t(uint32_t(ctr)),
                         int64_t(ctr >> 32));
  return std::vector<T>(d, d + R * C);
}

template <int MODE, typename T> void against_evaluator(uint64_t key, uint64_t ctr, int64_t base) {
  const ptoc::OpKind k = MODE == 0 ? ptoc::OpKind::Uniform : ptoc::OpKind::Normal;
  constexpr int64_t VR = 3, VC = 13;
  auto got = run<MODE, T>(key, ctr, base, VR, VC);
  int mismatches = 0;
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      const T g = got[size_t(i * C + j)];
      if (i >= VR || j >= VC) {
        if (!same_bits(g, poison<T>())) ++mismatches;  // padding untouched
        continue;
      }
      const double want = ptoc::random_value(k, dtype_of<T>(), ptoc::PhiloxArgs{key, ctr}, uint64_t(base + i * C + j));
      if (!same_bits(g, from_d<T>(want))) {
        ++mismatches;
        UNSCOPED_INFO("element " << base + i * C + j << ": got " << to_d(g) << ", evaluator " << want);
      }
    }
  CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("Philox 4x32-10 gives Random123's known answers", "[kernels][random6]") {
  uint32_t c[4] = {0, 0, 0, 0};
  pto::host::philox4x32_10(c, 0, 0);
  CHECK((c[0] == 0x6627e8d5u && c[1] == 0xe169c58du && c[2] == 0xbc57ac4cu && c[3] == 0x9b00dbd8u));
  uint32_t f[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
  pto::host::philox4x32_10(f, 0xffffffffu, 0xffffffffu);
  CHECK((f[0] == 0x408f276du && f[1] == 0x41c83b0eu && f[2] == 0xa20bc7c6u && f[3] == 0x6d5451fdu));
  uint32_t p[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
  pto::host::philox4x32_10(p, 0xa4093822u, 0x299f31d0u);
  CHECK((p[0] == 0xd16cfe09u && p[1] == 0x94fdccebu && p[2] == 0x5001e420u && p[3] == 0x24126ea1u));
}

TEST_CASE("uniform([4, 4], [1234], [0, 1]) is PyPTO's documented example, bit for bit", "[kernels][random6]") {
  // pypto-uniform.md: [[0.1689806 0.9725481 0.90036285 0.16582811] [0.1454581 ...] ...], as fp32 bits.
  const uint32_t want[16] = {0x3e2d0940, 0x3f78f8ea, 0x3f667e2e, 0x3e29ced8, 0x3e14f2f8, 0x3ef5e9cc,
                             0x3ccc7040, 0x3f7e0d5e, 0x3ce846c0, 0x3dda1a10, 0x3ee7d990, 0x3f5f62e0,
                             0x3f3010a2, 0x3e7e0d28, 0x3f757804, 0x3e762a18};
  auto got = run<0, float>(1234, 1, 0, 1, 16);
  for (int k = 0; k < 16; ++k) CHECK(bits_of(got[size_t(k)]) == want[k]);
  CHECK(std::fabs(got[0] - 0.1689806f) < 1e-7f);
  CHECK(std::fabs(got[15] - 0.24039495f) < 1e-7f);
}

TEST_CASE("normal([4, 4], [1234], [0, 1]) is within 2e-6 of PyPTO's documented device output", "[kernels][random6]") {
  // pypto-normal.md's output (the NPU's fp32 log / sin / cos); ptoc rounds each step correctly.
  const float doc[16] = {-0.32364845f, 1.8577391f,   0.39556974f, 0.2311697f,  0.24243996f, -1.9485782f,
                         -0.12983137f, 2.7137496f,   1.6558666f,  2.0938187f,  -0.90338254f, 0.8765667f,
                         0.86518306f,  0.01034508f, 0.2893259f,  0.01748212f};
  auto got = run<1, float>(1234, 1, 0, 1, 16);
  for (int k = 0; k < 16; ++k) CHECK(std::fabs(got[size_t(k)] - doc[k]) < 2e-6f * std::max(1.0f, std::fabs(doc[k])));
}

TEST_CASE("TRANDOM matches the evaluator's scalar meaning bit for bit, with tails", "[kernels][random6]") {
  for (uint64_t key : {uint64_t(0), uint64_t(1234), uint64_t(0x123456789abcdefULL)})
    for (uint64_t ctr : {uint64_t(0), uint64_t(1), uint64_t(0xfedcba9876543ULL)})
      for (int64_t base : {int64_t(0), int64_t(4093), int64_t(2147483647 - R * C)}) {
        INFO("key " << key << " counter " << ctr << " base " << base);
        against_evaluator<0, float>(key, ctr, base);
        against_evaluator<0, pto_f16>(key, ctr, base);
        against_evaluator<0, pto_bf16>(key, ctr, base);
        against_evaluator<1, float>(key, ctr, base);
        against_evaluator<1, pto_f16>(key, ctr, base);
        against_evaluator<1, pto_bf16>(key, ctr, base);
      }
}

TEST_CASE("uniform's fp16 / bf16 take the word's low 10 / 7 bits, exactly", "[kernels][random6]") {
  uint32_t w[4];
  pto::host::philox_block(0, 1234, 1, w);
  auto h = run<0, pto_f16>(1234, 1, 0, 1, 4);
  auto b = run<0, pto_bf16>(1234, 1, 0, 1, 4);
  for (int k = 0; k < 4; ++k) {
    CHECK(to_d(h[size_t(k)]) == double(w[k] & 0x3ffu) / 1024.0);
    CHECK(to_d(b[size_t(k)]) == double(w[k] & 0x7fu) / 128.0);
  }
}

TEST_CASE("a region as one tile or as two tiles gives the same bytes", "[kernels][random6]") {
  // 4 x 16 elements from index 100: once whole, once as rows 0-1 and rows 2-3 (their own idx bases).
  auto whole = run<1, float>(77, 5, 100, 4, 16);
  auto top = run<1, float>(77, 5, 100, 2, 16, ub<float>(16384));
  auto bottom = run<1, float>(77, 5, 100 + 2 * C, 2, 16, ub<float>(24576));
  CHECK(std::memcmp(whole.data(), top.data(), 2 * C * 4) == 0);
  CHECK(std::memcmp(whole.data() + 2 * C, bottom.data(), 2 * C * 4) == 0);
}
