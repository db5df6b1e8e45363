// TBINARY and TBINARY_S instantiations for the leaf-program executor.
#include "runtime/leaf_exec_kernels.h"

namespace ptoc::runtime::leafk {
namespace {

template <int OP, typename T, int BA, int BB>
void run_tbinary(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tbinary<OP, T, BA, BB>(s[0], s[1], static_cast<T*>(p[0]), static_cast<const T*>(p[1]),
                                    static_cast<const T*>(p[2]), v[0], v[1]);
}
template <int OP, typename T, int SF>
void run_tbinary_s(const int64_t* s, void* const* p, const int64_t* v, double r) {
  pto::host::tbinary_s<OP, T, SF>(s[0], s[1], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), r, v[0], v[1]);
}

}  // namespace

LeafCallFn resolve_binary(leaf::Fn fn, const std::vector<leaf::TParam>& tp) {
  if (fn == leaf::Fn::TBINARY)
    return pick_type(tp[1].v, [&](auto T) {
      return pick<10>(tp[0].v, [&](auto OP) {
        return pick<4>(tp[4].v, [&](auto BA) {
          return pick<4>(tp[5].v, [&](auto BB) -> LeafCallFn {
            return &run_tbinary<LEAFK_V(OP), LEAFK_T(T), LEAFK_V(BA), LEAFK_V(BB)>;
          });
        });
      });
    });
  if (fn == leaf::Fn::TBINARY_S)
    return pick_type(tp[1].v, [&](auto T) {
      return pick<10>(tp[0].v, [&](auto OP) {
        return pick<2>(tp[4].v, [&](auto SF) -> LeafCallFn { return &run_tbinary_s<LEAFK_V(OP), LEAFK_T(T), LEAFK_V(SF)>; });
      });
    });
  return nullptr;
}

}  // namespace ptoc::runtime::leafk
