// Host twin, the matmul engine behind TMMAD: C (=|+=) A * B in fp32 on
// operands already converted to fp32 (A row-major, B in panels of kGemmNr
// columns). Register-blocked micro-kernels for AVX-512, AVX and plain SSE2,
// picked at run time, so the one host-twin object stays portable across x86
// machines and still runs near the machine's speed.
//
// Every C element is computed as acc = (init ? 0 : c); acc = acc + a[k] * b[k]
// for k in order, without fused multiply-add, in every kernel: results are
// bit-identical whichever kernel runs, and equal to that scalar loop.
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#define PTO_NO_CONTRACT _Pragma("clang fp contract(off)")
#else
#define PTO_NO_CONTRACT
#endif

namespace pto {
namespace host {

inline constexpr int64_t kGemmNr = 32;  // panel width of packed B (floats)
inline constexpr int64_t kGemmMr = 6;   // rows per micro-kernel call

// Per-thread scratch for the converted operands, grown on demand.
struct GemmScratch {
  float* abuf = nullptr;
  int64_t acap = 0;
  float* bbuf = nullptr;
  int64_t bcap = 0;
  static float* grow(float*& p, int64_t& cap, int64_t n) {
    if (n > cap) {
      free(p);
      cap = n + n / 2 + 64;
      p = static_cast<float*>(aligned_alloc(64, size_t((cap * 4 + 63) / 64 * 64)));
    }
    return p;
  }
  // A gets kGemmMr spare zero rows so the last row block can read past vm.
  float* a(int64_t n) { return grow(abuf, acap, n); }
  float* b(int64_t n) { return grow(bbuf, bcap, n); }
  ~GemmScratch() { free(abuf); free(bbuf); }
};
inline GemmScratch& gemm_scratch() {
  static thread_local GemmScratch s;
  return s;
}

// One micro-kernel: MR rows x (NV vectors of VW floats) of C, over k.
// `a` rows are lda apart; `bp` rows are kGemmNr apart; `c` rows ldc apart.
#define PTO_GEMM_UKERNEL(NAME, TARGET, VW, MR, NV)                                                     \
  TARGET static void NAME(const float* a, int64_t lda, const float* bp, int64_t k, float* c, int64_t ldc, \
                          bool init) {                                                                 \
    PTO_NO_CONTRACT                                                                                    \
    typedef float V __attribute__((vector_size(VW * 4)));                                              \
    V acc[MR][NV];                                                                                     \
    _Pragma("GCC unroll 8") for (int r = 0; r < MR; ++r)                                               \
    _Pragma("GCC unroll 8") for (int v = 0; v < NV; ++v) {                                             \
      if (init) acc[r][v] = V{} ;                                                                      \
      else memcpy(&acc[r][v], c + r * ldc + v * VW, sizeof(V));                                        \
    }                                                                                                  \
    for (int64_t p = 0; p < k; ++p) {                                                                  \
      V b[NV];                                                                                         \
      _Pragma("GCC unroll 8") for (int v = 0; v < NV; ++v) memcpy(&b[v], bp + p * kGemmNr + v * VW, sizeof(V)); \
      _Pragma("GCC unroll 8") for (int r = 0; r < MR; ++r) {                                           \
        const float x = a[r * lda + p];                                                                \
        _Pragma("GCC unroll 8") for (int v = 0; v < NV; ++v) acc[r][v] = acc[r][v] + x * b[v];         \
      }                                                                                                \
    }                                                                                                  \
    _Pragma("GCC unroll 8") for (int r = 0; r < MR; ++r)                                               \
    _Pragma("GCC unroll 8") for (int v = 0; v < NV; ++v) memcpy(c + r * ldc + v * VW, &acc[r][v], sizeof(V)); \
  }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PTO_GEMM_X86 1
// AVX-512: 6 x 32 (12 zmm accumulators). AVX: two 6 x 16 halves (12 ymm).
PTO_GEMM_UKERNEL(ukernel_avx512, __attribute__((target("avx512f"))), 16, 6, 2)
PTO_GEMM_UKERNEL(ukernel_avx, __attribute__((target("avx"))), 8, 6, 2)
#endif
// Baseline (SSE2 on x86-64; 128-bit vectors elsewhere): 6 x 8 per call, four
// calls per panel, small enough to stay in 16 registers.
PTO_GEMM_UKERNEL(ukernel_base, , 4, 6, 2)

enum class GemmIsa { base, avx, avx512 };
inline GemmIsa gemm_isa() {
#if defined(PTO_GEMM_X86)
  static const GemmIsa isa = __builtin_cpu_supports("avx512f") ? GemmIsa::avx512
                             : __builtin_cpu_supports("avx")   ? GemmIsa::avx
                                                               : GemmIsa::base;
  return isa;
#else
  return GemmIsa::base;
#endif
}

// A full 6 x 32 block of C through whichever kernel this machine has.
inline void gemm_block(GemmIsa isa, const float* a, int64_t lda, const float* bp, int64_t k, float* c, int64_t ldc,
                       bool init) {
  switch (isa) {
#if defined(PTO_GEMM_X86)
    case GemmIsa::avx512:
      ukernel_avx512(a, lda, bp, k, c, ldc, init);
      return;
    case GemmIsa::avx:
      ukernel_avx(a, lda, bp, k, c, ldc, init);
      ukernel_avx(a, lda, bp + 16, k, c + 16, ldc, init);
      return;
#endif
    default:
      for (int h = 0; h < 4; ++h) ukernel_base(a, lda, bp + 8 * h, k, c + 8 * h, ldc, init);
      return;
  }
}

// c[vm x vn] (ldc) (=|+=) a[vm x vk] (row-major, lda = vk; at least kGemmMr
// readable rows past vm) * B (panels of kGemmNr columns, vk rows each).
inline void gemm_f32(float* a, const float* bp, float* c, int64_t ldc, int64_t vm, int64_t vn, int64_t vk,
                     bool init) {
  if (vm <= 0 || vn <= 0) return;
  const GemmIsa isa = gemm_isa();
  const int64_t lda = vk;
  memset(a + vm * lda, 0, size_t(kGemmMr * lda) * sizeof(float));  // rows the last block may read
  const int64_t np = (vn + kGemmNr - 1) / kGemmNr;
  alignas(64) float edge[kGemmMr * kGemmNr];
  for (int64_t i0 = 0; i0 < vm; i0 += kGemmMr) {
    const int64_t mr = vm - i0 < kGemmMr ? vm - i0 : kGemmMr;
    for (int64_t p = 0; p < np; ++p) {
      const int64_t j0 = p * kGemmNr;
      const int64_t nr = vn - j0 < kGemmNr ? vn - j0 : kGemmNr;
      const float* ap = a + i0 * lda;
      const float* panel = bp + p * vk * kGemmNr;
      float* cp = c + i0 * ldc + j0;
      if (mr == kGemmMr && nr == kGemmNr) {
        gemm_block(isa, ap, lda, panel, vk, cp, ldc, init);
      } else {  // edge block: through a full-size scratch block, only the valid part written back
        if (!init)
          for (int64_t r = 0; r < mr; ++r) memcpy(edge + r * kGemmNr, cp + r * ldc, size_t(nr) * sizeof(float));
        gemm_block(isa, ap, lda, panel, vk, edge, kGemmNr, init);
        for (int64_t r = 0; r < mr; ++r) memcpy(cp + r * ldc, edge + r * kGemmNr, size_t(nr) * sizeof(float));
      }
    }
  }
}

// --- quant: int8 x int8 -> int32 -------------------------------------------------
// c[vm x vn] (row stride N, int32) (=|+=) a[vm x vk] (row stride K) * b[vk x vn]
// (row stride N), exact: every product and partial sum fits int32 for
// K <= 131072 (|a * b| <= 2^14). The inner j loop vectorises (int16 products
// widened to int32); a row of c stays in cache across the k loop.
inline void tmmad_i8(int64_t M, int64_t K, int64_t N, int32_t* c, const int8_t* a, const int8_t* b, int64_t vm,
                     int64_t vk, int64_t vn, int init) {
  (void)M;
  for (int64_t i = 0; i < vm; ++i) {
    int32_t* ci = c + i * N;
    if (init) memset(ci, 0, size_t(vn) * sizeof(int32_t));
    const int8_t* ai = a + i * K;
    for (int64_t k = 0; k < vk; ++k) {
      const int32_t x = ai[k];
      if (x == 0) continue;
      const int8_t* bk = b + k * N;
      for (int64_t j = 0; j < vn; ++j) ci[j] += x * int32_t(bk[j]);
    }
  }
}

}  // namespace host
}  // namespace pto
