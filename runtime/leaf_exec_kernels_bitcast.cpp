// --- pack / unpack --- TBITCAST for the leaf-program executor: the host tile kernel of
// kernels/host/pto_host_bitcast.h, one instantiation per (dst, src) element type pair.
#include "runtime/leaf_exec_kernels.h"

namespace ptoc::runtime::leafk {
namespace {

// shape = {R, CD, CS} (the Int template parameters); ints = {vr, vc}.
template <typename TD, typename TS>
void run_tbitcast(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tbitcast<TD, TS>(s[0], s[1], s[2], static_cast<TD*>(p[0]), static_cast<const TS*>(p[1]), v[0], v[1]);
}

}  // namespace

LeafCallFn resolve_bitcast(leaf::Fn fn, const std::vector<leaf::TParam>& tp) {
  if (fn != leaf::Fn::TBITCAST || tp.size() != 5) return nullptr;
  return pick_type(tp[0].v, [&](auto TD) {
    return pick_type(tp[1].v, [&](auto TS) -> LeafCallFn { return &run_tbitcast<LEAFK_T(TD), LEAFK_T(TS)>; });
  });
}

}  // namespace ptoc::runtime::leafk
