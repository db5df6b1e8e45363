// Dispatch helpers of the precompiled tile kernels (runtime/leaf_exec_kernels_*.cpp):
// a run-time op / dtype / flag picks one instantiation of a kernels/host function.
// Compiled with PTO_HOST and the host twin's FP flags (runtime/meson.build).
#pragma once
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/pto_tile.h"
#include "runtime/leaf_exec.h"

namespace ptoc::runtime::leafk {

template <typename T> struct Type { using type = T; };

template <typename F, int... I>
LeafCallFn pick_impl(int64_t v, F&& f, std::integer_sequence<int, I...>) {
  LeafCallFn r = nullptr;
  ((v == I ? (r = f(std::integral_constant<int, I>{}), 0) : 0), ...);
  return r;
}
// f(std::integral_constant<int, v>) for v in [0, N).
template <int N, typename F> LeafCallFn pick(int64_t v, F&& f) {
  return pick_impl(v, std::forward<F>(f), std::make_integer_sequence<int, N>{});
}
// f(Type<T>) for the element type numbered t (leaf::ElemType order).
template <typename F> LeafCallFn pick_type(int64_t t, F&& f) {
  switch (t) {
    case 0: return f(Type<float>{});
    case 1: return f(Type<pto_f16>{});
    case 2: return f(Type<pto_bf16>{});
    case 3: return f(Type<int32_t>{});
    case 4: return f(Type<int8_t>{});
    case 5: return f(Type<uint8_t>{});
    case 6: return f(Type<pto_bool>{});
    case 7: return f(Type<int64_t>{});
    case 8: return f(Type<int16_t>{});
    case 9: return f(Type<uint16_t>{});
    case 10: return f(Type<uint32_t>{});
    case 11: return f(Type<uint64_t>{});
    default: return nullptr;
  }
}
// pick_type and the 8-bit floats (numbered 12 13 14): for the kernels that take them (moves and TCAST).
template <typename F> LeafCallFn pick_type8(int64_t t, F&& f) {
  switch (t) {
    case 12: return f(Type<pto_f8e4m3>{});
    case 13: return f(Type<pto_f8e5m2>{});
    case 14: return f(Type<pto_f8e8m0>{});
    default: return pick_type(t, std::forward<F>(f));
  }
}
template <typename F> LeafCallFn pick_float(int64_t t, F&& f) {
  switch (t) {
    case 0: return f(Type<float>{});
    case 1: return f(Type<pto_f16>{});
    case 2: return f(Type<pto_bf16>{});
    default: return nullptr;
  }
}

#define LEAFK_V(x) decltype(x)::value
#define LEAFK_T(x) typename decltype(x)::type

// Per family (one file each, so they compile in parallel).
LeafCallFn resolve_binary(leaf::Fn fn, const std::vector<leaf::TParam>& tp);
LeafCallFn resolve_compare(leaf::Fn fn, const std::vector<leaf::TParam>& tp);
LeafCallFn resolve_other(leaf::Fn fn, const std::vector<leaf::TParam>& tp);
// --- math ops --- (leaf_exec_kernels_math.cpp): the op codes appended to the enums.
bool is_math_call(leaf::Fn fn, const std::vector<leaf::TParam>& tp);
LeafCallFn resolve_math(leaf::Fn fn, const std::vector<leaf::TParam>& tp);
// --- random ops --- (leaf_exec_kernels_random.cpp): TRANDOM, PyPTO's uniform / normal.
LeafCallFn resolve_random(leaf::Fn fn, const std::vector<leaf::TParam>& tp);
LeafCallFn resolve_bitcast(leaf::Fn fn, const std::vector<leaf::TParam>& tp);  // --- pack / unpack ---
LeafCallFn resolve_sort(leaf::Fn fn, const std::vector<leaf::TParam>& tp);     // --- sort ---

}  // namespace ptoc::runtime::leafk
