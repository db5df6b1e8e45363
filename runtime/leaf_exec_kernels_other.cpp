// The moves, unary ops, reductions, casts, copies and the cube path for the
// leaf-program executor, and the entry that picks a family.
#include "runtime/leaf_exec_kernels.h"

namespace ptoc::runtime {

namespace leafk {
namespace {

template <typename T, int PAD>
void run_tload(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tload<T, PAD>(s[0], s[1], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1], v[2], v[3]);
}
template <typename T, int ATOMIC>
void run_tstore(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tstore<T, ATOMIC>(s[0], s[1], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1], v[2], v[3]);
}
template <int OP, typename T>
void run_tunary(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tunary<OP, T>(s[0], s[1], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1]);
}
template <int OP, typename T, int AXIS>
void run_treduce(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::treduce<OP, T, AXIS>(s[0], s[1], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1]);
}
template <int OP, typename T, int AXIS>
void run_targreduce(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::targreduce<OP, T, AXIS>(s[0], s[1], static_cast<int32_t*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1]);
}
template <typename TD, typename TS>
void run_tcast(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tcast<TD, TS>(s[0], s[1], static_cast<TD*>(p[0]), static_cast<const TS*>(p[1]), v[0], v[1]);
}
template <typename T>
void run_ttranspose(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::ttranspose<T>(s[0], s[1], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1]);
}
template <typename T>
void run_tfill(const int64_t* s, void* const* p, const int64_t* v, double r) {
  pto::host::tfill<T>(s[0], s[1], static_cast<T*>(p[0]), r, v[0], v[1]);
}
template <typename T>
void run_tcopy(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tcopy<T>(s[0], s[1], s[2], s[3], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1], v[2], v[3]);
}
template <typename T>
void run_tcopy2d(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tcopy2d<T>(s[0], s[1], s[2], s[3], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1]);
}
template <typename T, int NZ>
void run_tload_l1(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tload_l1<T, NZ>(s[0], s[1], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1], v[2], v[3], v[4],
                             v[5]);
}
template <typename T, int TRANS>
void run_textract_l0a(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::textract_l0a<T, TRANS>(s[0], s[1], s[2], s[3], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1]);
}
template <typename T, int TRANS>
void run_textract_l0b(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::textract_l0b<T, TRANS>(s[0], s[1], s[2], s[3], static_cast<T*>(p[0]), static_cast<const T*>(p[1]), v[0], v[1]);
}
template <typename T>
void run_tmmad(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tmmad<T>(s[0], s[1], s[2], static_cast<float*>(p[0]), static_cast<const T*>(p[1]), static_cast<const T*>(p[2]),
                      v[0], v[1], v[2], int(v[3]));
}
template <typename TD, int ATOMIC>
void run_tfixpipe(const int64_t* s, void* const* p, const int64_t* v, double) {
  pto::host::tfixpipe<TD, ATOMIC>(s[0], s[1], static_cast<TD*>(p[0]), static_cast<const float*>(p[1]), v[0], v[1], v[2],
                                  v[3]);
}

LeafCallFn resolve_one(leaf::Fn fn, const std::vector<leaf::TParam>& tp) {
  using F = leaf::Fn;
  switch (fn) {
    case F::TLOAD:
      return pick_type8(tp[0].v, [&](auto T) {
        return pick<2>(tp[3].v, [&](auto PAD) -> LeafCallFn { return &run_tload<LEAFK_T(T), LEAFK_V(PAD)>; });
      });
    case F::TSTORE:
      return pick_type8(tp[0].v, [&](auto T) {
        return pick<2>(tp[3].v, [&](auto A) -> LeafCallFn { return &run_tstore<LEAFK_T(T), LEAFK_V(A)>; });
      });
    case F::TUNARY:
      return pick_type(tp[1].v, [&](auto T) {
        return pick<25>(tp[0].v, [&](auto OP) -> LeafCallFn { return &run_tunary<LEAFK_V(OP), LEAFK_T(T)>; });
      });
    case F::TREDUCE:
      return pick_type(tp[1].v, [&](auto T) {
        return pick<7>(tp[0].v, [&](auto OP) {
          return pick<2>(tp[4].v, [&](auto AX) -> LeafCallFn { return &run_treduce<LEAFK_V(OP), LEAFK_T(T), LEAFK_V(AX)>; });
        });
      });
    case F::TARGREDUCE:
      return pick_type(tp[1].v, [&](auto T) {
        return pick<7>(tp[0].v, [&](auto OP) {
          return pick<2>(tp[4].v,
                         [&](auto AX) -> LeafCallFn { return &run_targreduce<LEAFK_V(OP), LEAFK_T(T), LEAFK_V(AX)>; });
        });
      });
    case F::TCAST:
      return pick_type8(tp[0].v, [&](auto TD) {
        return pick_type8(tp[1].v, [&](auto TS) -> LeafCallFn { return &run_tcast<LEAFK_T(TD), LEAFK_T(TS)>; });
      });
    case F::TTRANSPOSE:
      return pick_type(tp[0].v, [&](auto T) -> LeafCallFn { return &run_ttranspose<LEAFK_T(T)>; });
    case F::TFILL: return pick_type(tp[0].v, [&](auto T) -> LeafCallFn { return &run_tfill<LEAFK_T(T)>; });
    case F::TCOPY: return pick_type(tp[0].v, [&](auto T) -> LeafCallFn { return &run_tcopy<LEAFK_T(T)>; });
    case F::TCOPY2D: return pick_type(tp[0].v, [&](auto T) -> LeafCallFn { return &run_tcopy2d<LEAFK_T(T)>; });
    case F::TLOAD_L1:
      return pick_type(tp[0].v, [&](auto T) {
        return pick<2>(tp[3].v, [&](auto NZ) -> LeafCallFn { return &run_tload_l1<LEAFK_T(T), LEAFK_V(NZ)>; });
      });
    case F::TEXTRACT_L0A:
      return pick_type(tp[0].v, [&](auto T) {
        return pick<2>(tp[5].v, [&](auto TR) -> LeafCallFn { return &run_textract_l0a<LEAFK_T(T), LEAFK_V(TR)>; });
      });
    case F::TEXTRACT_L0B:
      return pick_type(tp[0].v, [&](auto T) {
        return pick<2>(tp[5].v, [&](auto TR) -> LeafCallFn { return &run_textract_l0b<LEAFK_T(T), LEAFK_V(TR)>; });
      });
    case F::TMMAD:
      if (tp[0].v == 4) return &run_tmmad<int8_t>;  // int8 x int8 -> int32 L0C
      return pick_float(tp[0].v, [&](auto T) -> LeafCallFn { return &run_tmmad<LEAFK_T(T)>; });
    case F::TFIXPIPE:
      if (tp[0].v == 3)  // int32 out: an int8 matmul's int32 L0C
        return pick<2>(tp[3].v, [&](auto A) -> LeafCallFn { return &run_tfixpipe<int32_t, LEAFK_V(A)>; });
      return pick_float(tp[0].v, [&](auto T) {
        return pick<2>(tp[3].v, [&](auto A) -> LeafCallFn { return &run_tfixpipe<LEAFK_T(T), LEAFK_V(A)>; });
      });
    default: return nullptr;
  }
}

}  // namespace

LeafCallFn resolve_other(leaf::Fn fn, const std::vector<leaf::TParam>& tp) { return resolve_one(fn, tp); }

}  // namespace leafk

LeafCallFn resolve_leaf_call(leaf::Fn fn, const std::vector<leaf::TParam>& tp) {
  if (leafk::is_math_call(fn, tp)) return leafk::resolve_math(fn, tp);  // --- math ops ---
  if (fn == leaf::Fn::TRANDOM) return leafk::resolve_random(fn, tp);  // --- random ops ---
  if (fn == leaf::Fn::TBITCAST) return leafk::resolve_bitcast(fn, tp);  // --- pack / unpack ---
  if (fn == leaf::Fn::TSORT || fn == leaf::Fn::TSORT_IDX) return leafk::resolve_sort(fn, tp);  // --- sort ---
  if (LeafCallFn f = leafk::resolve_binary(fn, tp)) return f;
  if (LeafCallFn f = leafk::resolve_compare(fn, tp)) return f;
  return leafk::resolve_other(fn, tp);
}

void leaf_set_gm_trace(KernelRunner::GmTraceFn fn, void* ctx) { pto_host_set_gm_trace(fn, ctx); }

unsigned char* const* leaf_local_memories() {
  static thread_local unsigned char* m[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};
  if (!m[0]) {
    pto::host::LocalMemories& x = pto::host::memories();
    m[0] = x.ub;
    m[1] = x.l1;
    m[2] = x.l0a;
    m[3] = x.l0b;
    m[4] = x.l0c;
  }
  return m;
}

}  // namespace ptoc::runtime
