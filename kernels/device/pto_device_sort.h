// --- sort --- TSORT / TSORT_IDX on the device, on the scalar unit and without scratch UB: output p of a
// row is the best candidate strictly after output p - 1 in the total order of kernels/host/pto_host_sort.h
// (larger first for LARGEST, NaN above every number, equal values by the lower index, a negative carried
// index no candidate), so each of the K outputs is one pass over the row. PyPTO's device sort (VBS32 /
// VMS4 merge sort) is the fast path this stands in for; the cost model (compiler/passes/leaf_cost.cpp)
// prices that merge sort.
#pragma once

namespace pto_dev {
// a before b in the sort's order (ties by index ia < ib).
__aicore__ inline bool sort_before(float a, int32_t ia, float b, int32_t ib, bool largest) {
  const bool na = a != a, nb = b != b;
  if (na != nb) return largest ? na : nb;
  if (!na && a != b) return largest ? a > b : a < b;
  return ia < ib;
}
template <typename TD, typename T, int C, int K, int LARGEST, int OUT_INDEX, int BASE>
__aicore__ inline void tsort(__ubuf__ TD* dst, const __ubuf__ T* src, const __ubuf__ int32_t* idx, int64_t vr,
                             int64_t vc) {
  scalar_begin();
  const float pad = LARGEST ? -__builtin_inff() : __builtin_inff();
  for (int64_t i = 0; i < vr; ++i) {
    bool have_prev = false;
    float pv = 0.0f;
    int32_t pi = 0;
    for (int64_t p = 0; p < K; ++p) {
      int64_t best = -1;
      float bv = 0.0f;
      int32_t bi = 0;
      for (int64_t j = 0; j < vc; ++j) {
        const int32_t t = idx ? idx[i * C + j] : (int32_t)(BASE + j);
        if (t < 0) continue;
        const float x = (float)src[i * C + j];
        if (have_prev && !sort_before(pv, pi, x, t, LARGEST != 0)) continue;  // already output
        if (best < 0 || sort_before(x, t, bv, bi, LARGEST != 0)) { best = j; bv = x; bi = t; }
      }
      if (OUT_INDEX) dst[i * K + p] = (TD)(best < 0 ? -1 : bi);
      else dst[i * K + p] = best < 0 ? (TD)pad : (TD)src[i * C + best];
      have_prev = best >= 0;
      pv = bv;
      pi = bi;
    }
  }
  scalar_end();
}
}  // namespace pto_dev

template <typename TD, typename T, int R, int C, int K, int LARGEST, int OUT_INDEX, int BASE>
__aicore__ inline void TSORT(__ubuf__ TD* dst, const __ubuf__ T* src, int64_t vr, int64_t vc) {
  pto_dev::tsort<TD, T, C, K, LARGEST, OUT_INDEX, BASE>(dst, src, nullptr, vr, vc);
}
template <typename TD, typename T, int R, int C, int K, int LARGEST, int OUT_INDEX, int BASE>
__aicore__ inline void TSORT_IDX(__ubuf__ TD* dst, const __ubuf__ T* src, const __ubuf__ int32_t* idx, int64_t vr,
                                 int64_t vc) {
  pto_dev::tsort<TD, T, C, K, LARGEST, OUT_INDEX, BASE>(dst, src, idx, vr, vc);
}
