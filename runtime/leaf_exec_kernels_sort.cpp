// --- sort --- TSORT / TSORT_IDX for the leaf-program executor: the host tile kernel of
// kernels/host/pto_host_sort.h, one instantiation per numeric element type (bool is not sorted).
#include "runtime/leaf_exec_kernels.h"

namespace ptoc::runtime::leafk {
namespace {

// shape = {R, C, K, LARGEST, OUT_INDEX, BASE} (the Int template parameters); ints = {vr, vc}.
template <typename T>
void run_tsort(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tsort<T>(s[0], s[1], s[2], s[3] != 0, s[4] != 0, s[5], p[0], static_cast<const T*>(p[1]), nullptr, v[0], v[1]);
}
template <typename T>
void run_tsort_idx(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tsort<T>(s[0], s[1], s[2], s[3] != 0, s[4] != 0, s[5], p[0], static_cast<const T*>(p[1]),
                      static_cast<const int32_t*>(p[2]), v[0], v[1]);
}

}  // namespace

LeafCallFn resolve_sort(leaf::Fn fn, const std::vector<leaf::TParam>& tp) {
  if ((fn != leaf::Fn::TSORT && fn != leaf::Fn::TSORT_IDX) || tp.size() != 8) return nullptr;
  if (tp[1].v == int64_t(leaf::ElemType::boolean)) return nullptr;
  return pick_type(tp[1].v, [&](auto T) -> LeafCallFn {
    if constexpr (std::is_same_v<LEAFK_T(T), pto_bool>) return nullptr;
    else return fn == leaf::Fn::TSORT ? &run_tsort<LEAFK_T(T)> : &run_tsort_idx<LEAFK_T(T)>;
  });
}

}  // namespace ptoc::runtime::leafk
