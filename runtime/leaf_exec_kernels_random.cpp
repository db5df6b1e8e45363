// TRANDOM (PyPTO's uniform / normal) for the leaf-program executor: the host tile kernel of
// kernels/host/pto_host_random.h, one instantiation per mode and output float type.
#include "runtime/leaf_exec_kernels.h"

namespace ptoc::runtime::leafk {
namespace {

// shape = {R, C, MODE} (the Int template parameters); ints = {vr, vc, key_lo, key_hi, ctr_lo, ctr_hi}.
template <int MODE, typename T>
void run_trandom(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::trandom<MODE, T>(s[0], s[1], static_cast<T*>(p[0]), static_cast<const int32_t*>(p[1]), v[0], v[1], v[2],
                              v[3], v[4], v[5]);
}

}  // namespace

LeafCallFn resolve_random(leaf::Fn fn, const std::vector<leaf::TParam>& tp) {
  if (fn != leaf::Fn::TRANDOM || tp.size() != 4) return nullptr;
  return pick_float(tp[0].v, [&](auto T) {
    return pick<2>(tp[3].v, [&](auto MODE) -> LeafCallFn { return &run_trandom<LEAFK_V(MODE), LEAFK_T(T)>; });
  });
}

}  // namespace ptoc::runtime::leafk
