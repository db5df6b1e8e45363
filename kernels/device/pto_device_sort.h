// --- sort --- TSORT / TSORT_IDX on the device, on the scalar unit and without scratch UB: output p of a
// row is the best candidate strictly after output p - 1 in the total order of kernels/host/pto_host_sort.h
// (larger first for LARGEST, NaN above every number, equal values by the lower index, a negative carried
// index no candidate), so each of the K outputs is one pass over the row. PyPTO's device sort (VBS32 /
// VMS4 merge sort) is the fast path this stands in for; the cost model (compiler/passes/leaf_cost.cpp)
// prices that merge sort.
#pragma once

namespace pto_dev {
// The key a value is compared by: fp16 / bf16 widened to fp32 (exact), others as they are (integers exact).
template <typename T> struct SortKey { using type = T; };
template <> struct SortKey<half> { using type = float; };
template <> struct SortKey<bfloat16_t> { using type = float; };

// a before b in the sort's order (ties by index ia < ib); x != x only for a NaN.
template <typename V>
__aicore__ inline bool sort_before(V a, int32_t ia, V b, int32_t ib, bool largest) {
  const bool na = a != a, nb = b != b;
  if (na != nb) return largest ? na : nb;
  if (!na && a != b) return largest ? a > b : a < b;
  return ia < ib;
}

// What ranks last: -inf / +inf for floats, the lowest / highest value of an integer type.
template <typename T> __aicore__ inline T sort_pad(bool largest) {
  if constexpr (IsFloat<T>::value) {
    return (T)(largest ? -__builtin_inff() : __builtin_inff());
  } else if constexpr ((T)(-1) > (T)0) {  // unsigned
    return largest ? (T)0 : (T)~(T)0;
  } else {
    const T top = (T)((1ull << (sizeof(T) * 8 - 1)) - 1);
    return largest ? (T)(-top - 1) : top;
  }
}

template <typename TD, typename T, int C, int K, int LARGEST, int OUT_INDEX, int BASE>
__aicore__ inline void tsort(__ubuf__ TD* dst, const __ubuf__ T* src, const __ubuf__ int32_t* idx, int64_t vr,
                             int64_t vc) {
  using V = typename SortKey<T>::type;
  scalar_begin();
  const T pad = sort_pad<T>(LARGEST != 0);
  for (int64_t i = 0; i < vr; ++i) {
    bool have_prev = false;
    V pv = (V)0;
    int32_t pi = 0;
    for (int64_t p = 0; p < K; ++p) {
      int64_t best = -1;
      V bv = (V)0;
      int32_t bi = 0;
      for (int64_t j = 0; j < vc; ++j) {
        const int32_t t = idx ? idx[i * C + j] : (int32_t)(BASE + j);
        if (t < 0) continue;
        const V x = (V)src[i * C + j];
        if (have_prev && !sort_before<V>(pv, pi, x, t, LARGEST != 0)) continue;  // already output
        if (best < 0 || sort_before<V>(x, t, bv, bi, LARGEST != 0)) { best = j; bv = x; bi = t; }
      }
      if (OUT_INDEX) dst[i * K + p] = (TD)(best < 0 ? -1 : bi);
      else dst[i * K + p] = (TD)(best < 0 ? pad : src[i * C + best]);
      if (best < 0) {  // the candidates are exhausted: the rest of the row is padding
        for (int64_t q = p + 1; q < K; ++q) {
          if (OUT_INDEX) dst[i * K + q] = (TD)(-1);
          else dst[i * K + q] = (TD)pad;
        }
        break;
      }
      have_prev = true;
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
