// --- sort --- TSORT / TSORT_IDX on the host: per valid row of an R x C tile, the first K entries of a
// sort of its vc valid elements (PyPTO's MERGE_SORT topk: one tile's row sorted, K kept), as values
// (OUT_INDEX 0, dst T) or int32 indices (OUT_INDEX 1). The order is total and shared with the
// evaluator (compiler/eval/eval_sort.cpp) and the device (kernels/device/pto_device_sort.h): larger
// first (LARGEST 1) or smaller first, NaN above every number, equal values by the lower index.
// TSORT_IDX sorts candidates that carry their original int32 index in `idx` (a merge of per-tile
// candidates): that index is the tie-break and the index written, and a negative one (a pad) is no
// candidate. TSORT reports column j as BASE + j (a tile's offset in the sorted axis). A row with fewer than K candidates is padded: the lowest (LARGEST) or highest value of T
// (-inf / +inf for floats) and index -1.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace pto {
namespace host {
template <typename T>
inline void tsort(int64_t R, int64_t C, int64_t K, bool largest, bool out_index, int64_t base, void* dst,
                  const T* src, const int32_t* idx, int64_t vr, int64_t vc) {
  using E = pto::host::Elem<T>;
  pto::host::check_tile<T>(src, R * C, "TSORT src");
  if (idx) pto::host::check_tile<int32_t>(idx, R * C, "TSORT_IDX idx");
  if (out_index)
    pto::host::check_tile<int32_t>(static_cast<int32_t*>(dst), R * K, "TSORT dst");
  else
    pto::host::check_tile<T>(static_cast<T*>(dst), R * K, "TSORT dst");
  using Key = std::conditional_t<E::is_int, T, float>;  // integers compared exactly, in T
  struct Cand {
    Key v;
    bool nan;
    int32_t at;   // the element's column
    int32_t tie;  // the index it reports (the carried one for TSORT_IDX)
  };
  auto before = [largest](const Cand& a, const Cand& b) {
    if (a.nan != b.nan) return largest ? a.nan : b.nan;  // NaN ranks above every number
    if (!a.nan && a.v != b.v) return largest ? a.v > b.v : a.v < b.v;
    return a.tie < b.tie;
  };
  const T pad = [&] {
    if constexpr (E::is_int) return largest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    else return E::store(largest ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity());
  }();
  std::vector<Cand> row;
  row.reserve(size_t(std::max<int64_t>(vc, 0)));
  for (int64_t i = 0; i < vr; ++i) {
    row.clear();
    for (int64_t j = 0; j < vc; ++j) {
      const int32_t tie = idx ? idx[i * C + j] : int32_t(base + j);
      if (tie < 0) continue;
      Key v;
      if constexpr (E::is_int) v = src[i * C + j];
      else v = E::load(src[i * C + j]);
      row.push_back(Cand{v, v != v, int32_t(j), tie});
    }
    const size_t take = std::min(size_t(K), row.size());
    std::partial_sort(row.begin(), row.begin() + std::ptrdiff_t(take), row.end(), before);
    for (int64_t p = 0; p < K; ++p) {
      const bool real = size_t(p) < take;
      if (out_index)
        static_cast<int32_t*>(dst)[i * K + p] = real ? row[size_t(p)].tie : -1;
      else
        static_cast<T*>(dst)[i * K + p] = real ? src[i * C + row[size_t(p)].at] : pad;
    }
  }
}
}  // namespace host
}  // namespace pto
template <typename TD, typename T, int R, int C, int K, int LARGEST, int OUT_INDEX, int BASE>
inline void TSORT(TD* dst, const T* src, int64_t vr, int64_t vc) {
  pto::host::tsort<T>(R, C, K, LARGEST != 0, OUT_INDEX != 0, BASE, dst, src, nullptr, vr, vc);
}
template <typename TD, typename T, int R, int C, int K, int LARGEST, int OUT_INDEX, int BASE>
inline void TSORT_IDX(TD* dst, const T* src, const int32_t* idx, int64_t vr, int64_t vc) {
  pto::host::tsort<T>(R, C, K, LARGEST != 0, OUT_INDEX != 0, BASE, dst, src, idx, vr, vc);
}
