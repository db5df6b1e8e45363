// TCMP, TCMP_S, TPRED and TSELECT instantiations for the leaf-program executor.
#include "runtime/leaf_exec_kernels.h"

namespace ptoc::runtime::leafk {
namespace {

template <int OP, typename T, int BA, int BB>
void run_tcmp(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tcmp<OP, T, BA, BB>(s[0], s[1], static_cast<pto_bool*>(p[0]), static_cast<const T*>(p[1]),
                                 static_cast<const T*>(p[2]), v[0], v[1]);
}
template <int OP, typename T, int SF>
void run_tcmp_s(const int64_t* s, void* const* p, const int64_t* v, double r) {
  pto::host::tcmp_s<OP, T, SF>(s[0], s[1], static_cast<pto_bool*>(p[0]), static_cast<const T*>(p[1]), r, v[0], v[1]);
}
template <int OP, typename T>
void run_tpred(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tpred<OP, T>(s[0], s[1], static_cast<pto_bool*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1]);
}
template <typename T, int BC, int BA, int BB>
void run_tselect(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tselect<T, BC, BA, BB>(s[0], s[1], static_cast<T*>(p[0]), static_cast<const pto_bool*>(p[1]),
                                    static_cast<const T*>(p[2]), static_cast<const T*>(p[3]), v[0], v[1]);
}

}  // namespace

LeafCallFn resolve_compare(leaf::Fn fn, const std::vector<leaf::TParam>& tp) {
  switch (fn) {
    case leaf::Fn::TCMP:
      return pick_type(tp[1].v, [&](auto T) {
        return pick<8>(tp[0].v, [&](auto OP) {
          return pick<4>(tp[4].v, [&](auto BA) {
            return pick<4>(tp[5].v, [&](auto BB) -> LeafCallFn {
              return &run_tcmp<LEAFK_V(OP), LEAFK_T(T), LEAFK_V(BA), LEAFK_V(BB)>;
            });
          });
        });
      });
    case leaf::Fn::TCMP_S:
      return pick_type(tp[1].v, [&](auto T) {
        return pick<8>(tp[0].v, [&](auto OP) {
          return pick<2>(tp[4].v, [&](auto SF) -> LeafCallFn { return &run_tcmp_s<LEAFK_V(OP), LEAFK_T(T), LEAFK_V(SF)>; });
        });
      });
    case leaf::Fn::TPRED:
      return pick_type(tp[1].v, [&](auto T) {
        return pick<2>(tp[0].v, [&](auto OP) -> LeafCallFn { return &run_tpred<LEAFK_V(OP), LEAFK_T(T)>; });
      });
    case leaf::Fn::TSELECT:
      return pick_type(tp[0].v, [&](auto T) {
        return pick<4>(tp[3].v, [&](auto BC) {
          return pick<4>(tp[4].v, [&](auto BA) {
            return pick<4>(tp[5].v, [&](auto BB) -> LeafCallFn {
              return &run_tselect<LEAFK_T(T), LEAFK_V(BC), LEAFK_V(BA), LEAFK_V(BB)>;
            });
          });
        });
      });
    default: return nullptr;
  }
}

}  // namespace ptoc::runtime::leafk
