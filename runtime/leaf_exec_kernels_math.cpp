// TBINARY / TBINARY_S / TUNARY / TPRED instantiations of the math ops for the
// leaf-program executor (the op codes after the first ones of each enum of
// kernels/pto_tile.h), in a file of their own so they compile in parallel.
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
template <int OP, typename T>
void run_tunary(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tunary<OP, T>(s[0], s[1], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1]);
}
template <int OP, typename T>
void run_tpred(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tpred<OP, T>(s[0], s[1], static_cast<pto_bool*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1]);
}

constexpr int kBin0 = PTO_ATAN2, kBinN = PTO_SHR + 1 - PTO_ATAN2;
constexpr int kUn0 = PTO_ACOS, kUnN = PTO_ERFC + 1 - PTO_ACOS;
constexpr int kPred0 = PTO_SIGNBIT, kPredN = 1;

}  // namespace

bool is_math_call(leaf::Fn fn, const std::vector<leaf::TParam>& tp) {
  switch (fn) {
    case leaf::Fn::TBINARY: case leaf::Fn::TBINARY_S: return tp[0].v >= kBin0 && tp[0].v < kBin0 + kBinN;
    case leaf::Fn::TUNARY: return tp[0].v >= kUn0 && tp[0].v < kUn0 + kUnN;
    case leaf::Fn::TPRED: return tp[0].v >= kPred0 && tp[0].v < kPred0 + kPredN;
    default: return false;
  }
}

LeafCallFn resolve_math(leaf::Fn fn, const std::vector<leaf::TParam>& tp) {
  if (!is_math_call(fn, tp)) return nullptr;
  switch (fn) {
    case leaf::Fn::TBINARY:
      return pick_type(tp[1].v, [&](auto T) {
        return pick<kBinN>(tp[0].v - kBin0, [&](auto OP) {
          return pick<4>(tp[4].v, [&](auto BA) {
            return pick<4>(tp[5].v, [&](auto BB) -> LeafCallFn {
              return &run_tbinary<kBin0 + LEAFK_V(OP), LEAFK_T(T), LEAFK_V(BA), LEAFK_V(BB)>;
            });
          });
        });
      });
    case leaf::Fn::TBINARY_S:
      return pick_type(tp[1].v, [&](auto T) {
        return pick<kBinN>(tp[0].v - kBin0, [&](auto OP) {
          return pick<2>(tp[4].v, [&](auto SF) -> LeafCallFn {
            return &run_tbinary_s<kBin0 + LEAFK_V(OP), LEAFK_T(T), LEAFK_V(SF)>;
          });
        });
      });
    case leaf::Fn::TUNARY:
      return pick_type(tp[1].v, [&](auto T) {
        return pick<kUnN>(tp[0].v - kUn0, [&](auto OP) -> LeafCallFn { return &run_tunary<kUn0 + LEAFK_V(OP), LEAFK_T(T)>; });
      });
    case leaf::Fn::TPRED:
      return pick_type(tp[1].v, [&](auto T) {
        return pick<kPredN>(tp[0].v - kPred0, [&](auto OP) -> LeafCallFn { return &run_tpred<kPred0 + LEAFK_V(OP), LEAFK_T(T)>; });
      });
    default: return nullptr;
  }
}


}  // namespace ptoc::runtime::leafk
