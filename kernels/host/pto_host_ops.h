// Host twin, part 2: the tile ops of kernels/pto_tile.h in plain C++.
// Loops run over the valid region only, with unit-stride inner loops the
// compiler vectorizes; fp16/bf16 are converted through fp32 and rounded back
// after every op: a chunk of each operand row is converted into an fp32
// scratch (pto_host_cvt.h: F16C / AVX2 when the CPU has them), computed in
// fp32 and the result converted back, one pass each. The matmul converts its
// operands to fp32 once per call and runs a register-blocked kernel
// (pto_host_gemm.h).
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "pto_host_cvt.h"
#include "pto_host_gemm.h"

namespace pto {
namespace host {

// Element traits: the type arithmetic runs in and the rounding on store.
template <typename T> struct Elem;
// Float types also convert whole rows (load_row / store_row) and say whether
// they are 16-bit (`narrow`: elementwise ops go through an fp32 scratch row)
// and whether a load is cheap enough to stay inline in a reduction
// (`inline_load`: bf16 -> fp32 is a shift, fp16 -> fp32 is not).
template <> struct Elem<float> {
  using C = float;
  static inline float load(float x) { return x; }
  static inline float store(float v) { return v; }
  static inline void load_row(const float* x, float* out, int64_t n) { memmove(out, x, size_t(n) * 4); }
  static inline void store_row(const float* v, float* out, int64_t n) { memmove(out, v, size_t(n) * 4); }
  static constexpr bool is_float = true;
  static constexpr bool is_int = false;
  static constexpr bool narrow = false;
  static constexpr bool inline_load = true;
};
// The 16-bit structs hold only their bits, so a row of them is a row of uint16_t.
static_assert(sizeof(f16) == 2 && sizeof(bf16) == 2, "16-bit float structs are bare bits");
template <> struct Elem<f16> {
  using C = float;
  static inline float load(f16 x) { return half_bits_to_float(x.bits); }
  static inline f16 store(float v) { return f16{float_to_half_bits(v)}; }
  static inline void load_row(const f16* x, float* out, int64_t n) {
    half_to_float_row(reinterpret_cast<const uint16_t*>(x), out, n);
  }
  static inline void store_row(const float* v, f16* out, int64_t n) {
    float_to_half_row(v, reinterpret_cast<uint16_t*>(out), n);
  }
  static constexpr bool is_float = true;
  static constexpr bool is_int = false;
  static constexpr bool narrow = true;
  static constexpr bool inline_load = false;
};
template <> struct Elem<bf16> {
  using C = float;
  static inline float load(bf16 x) { return bf16_bits_to_float(x.bits); }
  static inline bf16 store(float v) { return bf16{float_to_bf16_bits(v)}; }
  static inline void load_row(const bf16* x, float* out, int64_t n) {
    bf16_to_float_row(reinterpret_cast<const uint16_t*>(x), out, n);
  }
  static inline void store_row(const float* v, bf16* out, int64_t n) {
    float_to_bf16_row(v, reinterpret_cast<uint16_t*>(out), n);
  }
  static constexpr bool is_float = true;
  static constexpr bool is_int = false;
  static constexpr bool narrow = true;
  static constexpr bool inline_load = true;
};
// Integers: arithmetic in double, store truncates toward zero and wraps
// (non-finite -> 0), as ptoc::round_to_dtype (integer '/' truncates). A
// float -> integer TCAST rounds half to even before this store.
template <typename I> struct IntElem {
  using C = double;
  static constexpr bool narrow = false;
  static constexpr bool inline_load = true;
  static inline double load(I x) { return double(x); }
  static inline I store(double v) { return isfinite(v) ? I(int64_t(trunc(v))) : I(0); }
  static constexpr bool is_float = false;
  static constexpr bool is_int = true;
};
template <> struct Elem<int32_t> : IntElem<int32_t> {};
template <> struct Elem<int8_t> : IntElem<int8_t> {};
template <> struct Elem<uint8_t> : IntElem<uint8_t> {};
template <> struct Elem<int16_t> : IntElem<int16_t> {};
template <> struct Elem<uint16_t> : IntElem<uint16_t> {};
template <> struct Elem<uint32_t> : IntElem<uint32_t> {};
// uint64 (PyPTO's DT_UINT64): [0, 2^64) exact, saturating past the top, (-2^63, 0) wrapping modulo 2^64,
// as ptoc::round_to_dtype. Its arithmetic never goes through double (kWideInt below).
template <> struct Elem<uint64_t> : IntElem<uint64_t> {
  static inline double load(uint64_t x) { return double(x); }
  static inline uint64_t store(double v) {
    if (!isfinite(v)) return 0;
    const double r = trunc(v);
    if (r >= 18446744073709551616.0) return UINT64_MAX;
    if (r >= 0) return uint64_t(r);
    if (r <= -9223372036854775808.0) return 0;
    return uint64_t(int64_t(r));
  }
};
// int64 (PyPTO's DT_INT64 index tensors): exact while |v| <= 2^53; saturates at +-2^63, as round_to_dtype.
template <> struct Elem<int64_t> : IntElem<int64_t> {
  static inline int64_t store(double v) {
    return !isfinite(v) ? 0 : v >= 9223372036854775807.0 ? INT64_MAX : v <= -9223372036854775808.0 ? INT64_MIN
                                                                                                       : int64_t(trunc(v));
  }
};
template <> struct Elem<boolean> {
  using C = double;
  static constexpr bool narrow = false;
  static constexpr bool inline_load = true;
  static inline double load(boolean x) { return x.v ? 1.0 : 0.0; }
  static inline boolean store(double v) { return boolean{uint8_t(v != 0.0 ? 1 : 0)}; }
  static constexpr bool is_float = false;
  static constexpr bool is_int = false;  // -> bool is x != 0, never rounded
};
// The 8-bit floats (pto_host_fp8.h): narrow floats whose loads and stores convert through fp32. Only
// the moves and TCAST are instantiated for them (leaf_exec_kernels.h pick_type8); nothing computes in them.
template <typename T, float (*Load)(uint8_t), uint8_t (*Store)(float)> struct Fp8Elem {
  using C = float;
  static inline float load(T x) { return Load(x.bits); }
  static inline T store(float v) { return T{Store(v)}; }
  static inline void load_row(const T* x, float* out, int64_t n) {
    for (int64_t j = 0; j < n; ++j) out[j] = Load(x[j].bits);
  }
  static inline void store_row(const float* v, T* out, int64_t n) {
    for (int64_t j = 0; j < n; ++j) out[j].bits = Store(v[j]);
  }
  static constexpr bool is_float = true;
  static constexpr bool is_int = false;
  static constexpr bool narrow = true;
  static constexpr bool inline_load = false;
};
template <> struct Elem<f8e4m3> : Fp8Elem<f8e4m3, e4m3_bits_to_f32, f32_to_e4m3_bits> {};
template <> struct Elem<f8e5m2> : Fp8Elem<f8e5m2, e5m2_bits_to_f32, f32_to_e5m2_bits> {};
template <> struct Elem<f8e8m0> : Fp8Elem<f8e8m0, e8m0_bits_to_f32, f32_to_e8m0_bits> {};

// --- math ops --- (kernels/pto_tile.h states their rules). C is float for
// the float types and double for the integer types (exact integers there).
template <typename C> constexpr bool kIntArith = std::is_same_v<C, double>;
inline int64_t floor_div_i64(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return int64_t(0) - a;  // no INT64_MIN / -1 trap (operands are at most 32-bit)
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <int OP, typename C> inline C binop_math(C a, C b) {
  if constexpr (OP == PTO_ATAN2) return atan2(a, b);
  else if constexpr (OP == PTO_FMOD) return fmod(a, b);
  else if constexpr (OP == PTO_REMAINDER) {
    if constexpr (kIntArith<C>) {
      const int64_t x = int64_t(a), y = int64_t(b);
      return y == 0 ? C(0) : C(x - y * floor_div_i64(x, y));
    } else {
      C r = fmod(a, b);
      if (r != C(0)) {
        if ((r < C(0)) != (b < C(0))) r += b;
      } else {
        r = copysign(C(0), b);
      }
      return r;
    }
  } else if constexpr (OP == PTO_FLOORDIV) {
    if constexpr (kIntArith<C>) return C(floor_div_i64(int64_t(a), int64_t(b)));
    else return floor(a / b);
  } else if constexpr (OP == PTO_CEILDIV) {
    if constexpr (kIntArith<C>) {
      const int64_t x = int64_t(a), y = int64_t(b);
      return y == 0 ? C(0) : C(-floor_div_i64(-x, y));
    } else {
      return ceil(a / b);
    }
  } else if constexpr (OP == PTO_GCD) {  // integer types only (the front end rejects floats)
    uint64_t x = uint64_t(a < C(0) ? -int64_t(a) : int64_t(a)), y = uint64_t(b < C(0) ? -int64_t(b) : int64_t(b));
    while (y != 0) {
      const uint64_t t = x % y;
      x = y;
      y = t;
    }
    return C(int64_t(x));
  } else if constexpr (OP == PTO_SHL) {  // integer types only; the low 32 bits, which the store wraps further
    const int64_t n = int64_t(b);
    return n < 0 || n >= 32 ? C(0) : C(int32_t(uint32_t(uint64_t(int64_t(a)) << n)));
  } else {
    static_assert(OP == PTO_SHR, "binop_math: not a math op");
    // arithmetic (uint8 values are non-negative, so logical there)
    const int64_t x = int64_t(a), n = int64_t(b);
    return n < 0 || n >= 64 ? C(x < 0 ? -1 : 0) : C(x >> n);
  }
}

// 64-bit integers (int64, uint64): elementwise ops, compares and reductions in T itself (through double a
// value past 2^53 would lose its low bits; uint64 orders unsigned).
template <typename T> constexpr bool kWideInt = std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>;
// The ops kWideInt types compute exactly (the front end refuses the others for uint64).
template <int OP> constexpr bool kWideExactOp = OP == PTO_ADD || OP == PTO_SUB || OP == PTO_MUL || OP == PTO_MAX ||
                                                OP == PTO_MIN || OP == PTO_BAND || OP == PTO_BOR || OP == PTO_BXOR;
template <int OP, typename T> inline T wide_binop(T a, T b) {
  using U = uint64_t;  // wrapping arithmetic
  if constexpr (OP == PTO_ADD) return T(U(a) + U(b));
  else if constexpr (OP == PTO_SUB) return T(U(a) - U(b));
  else if constexpr (OP == PTO_MUL) return T(U(a) * U(b));
  else if constexpr (OP == PTO_MAX) return a > b ? a : b;
  else if constexpr (OP == PTO_MIN) return a < b ? a : b;
  else if constexpr (OP == PTO_BAND) return T(a & b);
  else if constexpr (OP == PTO_BOR) return T(a | b);
  else return T(a ^ b);
}

// Integer multiply, exact and wrapping to T as NumPy's (through double an int32 product past 2^53 would lose
// its low bits before the store wraps).
template <int OP, typename T> constexpr bool kExactIntMul = OP == PTO_MUL && Elem<T>::is_int;
template <typename T> inline T int_mul_wrap(T a, T b) { return T(uint64_t(int64_t(a)) * uint64_t(int64_t(b))); }

template <int OP, typename C> inline C binop(C a, C b) {
  if constexpr (OP == PTO_ADD) return a + b;
  else if constexpr (OP == PTO_SUB) return a - b;
  else if constexpr (OP == PTO_MUL) return a * b;
  else if constexpr (OP == PTO_DIV) return a / b;
  // max / min propagate a NaN operand (NumPy's maximum / minimum and the evaluator): `a > b ? a : b`
  // alone would drop a NaN `a`.
  else if constexpr (OP == PTO_MAX) return a != a ? a : b != b ? b : a > b ? a : b;
  else if constexpr (OP == PTO_POW) {
    // In double, as the evaluator. The exponent is hidden from the optimiser: in the compiled twin it is
    // a literal and g++ folds pow(x, 2) to x * x and pow(x, -1) to 1 / x, which the leaf programs (the
    // exponent read at run time) would not, and the two paths' bytes would differ.
    volatile double e = double(b);
    return C(pow(double(a), e));
  }
  else if constexpr (OP == PTO_BAND) return C(int64_t(a) & int64_t(b));  // integer types only (C is double)
  else if constexpr (OP == PTO_BOR) return C(int64_t(a) | int64_t(b));
  else if constexpr (OP == PTO_BXOR) return C(int64_t(a) ^ int64_t(b));
  else if constexpr (OP >= PTO_ATAN2 && OP <= PTO_SHR) return binop_math<OP>(a, b);
  else return a != a ? a : b != b ? b : a < b ? a : b;  // PTO_MIN
}

// Comparisons and logical ops of TCMP, in the arithmetic type; NaN compares unequal.
template <int OP, typename C> inline bool cmpop(C a, C b) {
  if constexpr (OP == PTO_EQ) return a == b;
  else if constexpr (OP == PTO_NE) return a != b;
  else if constexpr (OP == PTO_LT) return a < b;
  else if constexpr (OP == PTO_LE) return a <= b;
  else if constexpr (OP == PTO_GT) return a > b;
  else if constexpr (OP == PTO_GE) return a >= b;
  else if constexpr (OP == PTO_LAND) return a != C(0) && b != C(0);
  else return a != C(0) || b != C(0);
}

template <typename C> inline C sigmoid(C x) { return C(1) / (C(1) + exp(-x)); }

template <int OP, typename C> inline C unop(C x) {
  if constexpr (OP == PTO_EXP) return exp(x);
  else if constexpr (OP == PTO_LOG) return log(x);
  else if constexpr (OP == PTO_SQRT) return sqrt(x);
  else if constexpr (OP == PTO_RSQRT) return C(1) / sqrt(x);
  else if constexpr (OP == PTO_ABS) return x < C(0) ? -x : x;
  else if constexpr (OP == PTO_NEG) return -x;
  else if constexpr (OP == PTO_RECIPROCAL) return C(1) / x;
  else if constexpr (OP == PTO_RELU) return x <= C(0) ? C(0) : x;  // NaN stays NaN, as torch's relu
  else if constexpr (OP == PTO_SIGMOID) return sigmoid(x);
  else if constexpr (OP == PTO_TANH) return tanh(x);
  else if constexpr (OP == PTO_GELU) {
    const C k = C(0.7978845608028654);  // sqrt(2 / pi)
    return C(0.5) * x * (C(1) + tanh(k * (x + C(0.044715) * x * x * x)));
  } else if constexpr (OP == PTO_EXP2) return exp2(x);
  else if constexpr (OP == PTO_LOG2) return log2(x);
  else if constexpr (OP == PTO_LOG1P) return log1p(x);
  else if constexpr (OP == PTO_EXPM1) return expm1(x);
  else if constexpr (OP == PTO_SIN) return sin(x);
  else if constexpr (OP == PTO_COS) return cos(x);
  else if constexpr (OP == PTO_ERF) return erf(x);
  else if constexpr (OP == PTO_ROUND) return nearbyint(x);  // half to even under FE_TONEAREST
  else if constexpr (OP == PTO_FLOOR) return floor(x);
  else if constexpr (OP == PTO_CEIL) return ceil(x);
  else if constexpr (OP == PTO_TRUNC) return trunc(x);
  else if constexpr (OP == PTO_SIGN) return x > C(0) ? C(1) : x < C(0) ? C(-1) : x;  // 0 and NaN stay
  else if constexpr (OP == PTO_BNOT) return C(~int64_t(x));  // integer types only
  // --- math ops ---
  else if constexpr (OP == PTO_ACOS) return acos(x);
  else if constexpr (OP == PTO_ASIN) return asin(x);
  else if constexpr (OP == PTO_ATAN) return atan(x);
  else if constexpr (OP == PTO_ACOSH) return acosh(x);
  else if constexpr (OP == PTO_ASINH) return asinh(x);
  else if constexpr (OP == PTO_ATANH) return atanh(x);
  else if constexpr (OP == PTO_SINH) return sinh(x);
  else if constexpr (OP == PTO_COSH) return cosh(x);
  else if constexpr (OP == PTO_TAN) return tan(x);
  else if constexpr (OP == PTO_CBRT) return cbrt(x);
  else if constexpr (OP == PTO_ERFC) return erfc(x);
  else {
    return x * sigmoid(x);
  }
}

// Index of element (i, j) of a broadcast operand of an R x C op.
template <int BC> inline int64_t bc_index(int64_t C, int64_t i, int64_t j) {
  if constexpr (BC == PTO_BC_NONE) return i * C + j;
  else if constexpr (BC == PTO_BC_ROW) return j;
  else if constexpr (BC == PTO_BC_COL) return i;
  else return 0;
}

template <typename T> inline void check_tile(const void* p, int64_t elems, const char* op) {
#if defined(PTO_HOST_CHECK)
  check_range(p, elems * int64_t(sizeof(T)), op);
#else
  (void)p; (void)elems; (void)op;
#endif
}

template <int BC> inline int64_t bc_elems(int64_t R, int64_t C) {
  return BC == PTO_BC_NONE ? int64_t(R) * C : BC == PTO_BC_ROW ? C : BC == PTO_BC_COL ? R : 1;
}

// Elements [j0, j0 + n) of row i of a broadcast operand of an R x C op, as
// fp32 in `buf` (a converted row chunk, or the broadcast value repeated).
template <typename T, int BC>
inline void operand_chunk(int64_t C, const T* p, int64_t i, int64_t j0, int64_t n, float* buf) {
  using E = Elem<T>;
  if constexpr (BC == PTO_BC_NONE) {
    E::load_row(p + i * C + j0, buf, n);
  } else if constexpr (BC == PTO_BC_ROW) {
    E::load_row(p + j0, buf, n);
  } else {
    const float v = E::load(p[BC == PTO_BC_COL ? i : 0]);
    for (int64_t j = 0; j < n; ++j) buf[j] = v;
  }
}

// Folds x[j..n) into 8 interleaved partial results, element k into acc[k % 8]
// (j and every earlier chunk length a multiple of 8): the order TREDUCE uses
// along a row, so a row reduced in chunks gives the bits of the whole row.
template <int BOP> inline void fold8(float* acc, const float* x, int64_t j, int64_t n) {
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l) acc[l] = binop<BOP>(acc[l], x[j + l]);
  for (int l = 0; j + l < n; ++l) acc[l] = binop<BOP>(acc[l], x[j + l]);
}

// GM accumulation for split_k and atomic stores: a compare-and-swap loop on
// the element, so cores running on other host threads never lose an update.
template <typename T> inline void atomic_add(T* p, T v) {
  using E = Elem<T>;
  T old;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  for (;;) {
    T n = E::store(E::load(old) + E::load(v));
    if (__atomic_compare_exchange(p, &old, &n, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
  }
}

}  // namespace host
}  // namespace pto

// ---------------------------------------------------------------------------
// Vector path: GM <-> UB
// ---------------------------------------------------------------------------

namespace pto {
namespace host {
template <typename T, int PAD>
inline void tload(int64_t R, int64_t C, T* dst, const T* gm, int64_t offset, int64_t row_stride, int64_t vr, int64_t vc) {
  pto::host::check_tile<T>(dst, int64_t(R) * C, "TLOAD");
  const T* src = gm + offset;
  pto::host::trace_gm(src, vr, vc * int64_t(sizeof(T)), row_stride * int64_t(sizeof(T)), pto::host::kGmRead);
  for (int64_t i = 0; i < vr; ++i) {
    memcpy(dst + i * C, src + i * row_stride, size_t(vc) * sizeof(T));
    if (PAD == PTO_PAD_ZERO && vc < C) memset(dst + i * C + vc, 0, size_t(C - vc) * sizeof(T));
  }
  if (PAD == PTO_PAD_ZERO && vr < R) memset(dst + vr * C, 0, size_t(R - vr) * C * sizeof(T));
}
}  // namespace host
}  // namespace pto
template <typename T, int R, int C, int PAD>
inline void TLOAD(T* dst, const T* gm, int64_t offset, int64_t row_stride, int64_t vr, int64_t vc) {
  pto::host::tload<T, PAD>(R, C, dst, gm, offset, row_stride, vr, vc);
}

template <typename T, int B, int R, int C, int PAD>
inline void TLOAD_B(T* dst, const T* gm, int64_t offset, int64_t batch_stride, int64_t row_stride, int64_t vb,
                    int64_t vr, int64_t vc) {
  pto::host::check_tile<T>(dst, int64_t(B) * R * C, "TLOAD_B");
  for (int64_t b = 0; b < vb; ++b)
    TLOAD<T, R, C, PAD>(dst + b * R * C, gm, offset + b * batch_stride, row_stride, vr, vc);
  if (PAD == PTO_PAD_ZERO && vb < B) memset(dst + vb * R * C, 0, size_t(B - vb) * R * C * sizeof(T));
}

namespace pto {
namespace host {
template <typename T, int ATOMIC>
inline void tstore(int64_t R, int64_t C, T* gm, const T* src, int64_t offset, int64_t row_stride, int64_t vr, int64_t vc) {
  pto::host::check_tile<T>(src, int64_t(R) * C, "TSTORE");
  T* d = gm + offset;
  pto::host::trace_gm(d, vr, vc * int64_t(sizeof(T)), row_stride * int64_t(sizeof(T)),
                      ATOMIC ? pto::host::kGmAtomicAdd : pto::host::kGmWrite);
  for (int64_t i = 0; i < vr; ++i) {
    if constexpr (ATOMIC) {
      for (int64_t j = 0; j < vc; ++j) pto::host::atomic_add(d + i * row_stride + j, src[i * C + j]);
    } else {
      memcpy(d + i * row_stride, src + i * C, size_t(vc) * sizeof(T));
    }
  }
}
}  // namespace host
}  // namespace pto
template <typename T, int R, int C, int ATOMIC>
inline void TSTORE(T* gm, const T* src, int64_t offset, int64_t row_stride, int64_t vr, int64_t vc) {
  pto::host::tstore<T, ATOMIC>(R, C, gm, src, offset, row_stride, vr, vc);
}

template <typename T, int B, int R, int C, int ATOMIC>
inline void TSTORE_B(T* gm, const T* src, int64_t offset, int64_t batch_stride, int64_t row_stride, int64_t vb,
                     int64_t vr, int64_t vc) {
  for (int64_t b = 0; b < vb; ++b)
    TSTORE<T, R, C, ATOMIC>(gm, src + b * R * C, offset + b * batch_stride, row_stride, vr, vc);
}

// ---------------------------------------------------------------------------
// Vector path: UB -> UB
// ---------------------------------------------------------------------------

namespace pto {
namespace host {
template <int OP, typename T, int BA, int BB>
inline void tbinary(int64_t R, int64_t C, T* dst, const T* a, const T* b, int64_t vr, int64_t vc) {
  using E = pto::host::Elem<T>;
  using pto::host::bc_index;
  pto::host::check_tile<T>(dst, int64_t(R) * C, "TBINARY dst");
  pto::host::check_tile<T>(a, pto::host::bc_elems<BA>(R, C), "TBINARY a");
  pto::host::check_tile<T>(b, pto::host::bc_elems<BB>(R, C), "TBINARY b");
#if PTO_HOST_HAVE_F16C_PATH
  // fp16 rows against fp16 rows (or a broadcast row): fused in registers.
  // Only the ops binary_half_row_f16c computes (add sub mul div max min); pow and later ops take the rows below.
  if constexpr (sizeof(T) == 2 && !E::inline_load && OP <= PTO_MIN && (BA == PTO_BC_NONE || BA == PTO_BC_ROW) &&
                (BB == PTO_BC_NONE || BB == PTO_BC_ROW)) {
    if (vc >= 8 && pto::host::f16c_rows_enabled()) {
      const uint16_t* ab = reinterpret_cast<const uint16_t*>(a);
      const uint16_t* bb = reinterpret_cast<const uint16_t*>(b);
      for (int64_t i = 0; i < vr; ++i)
        pto::host::binary_half_row_f16c<OP>(ab + (BA == PTO_BC_NONE ? i * C : 0), bb + (BB == PTO_BC_NONE ? i * C : 0),
                                            reinterpret_cast<uint16_t*>(dst + i * C), vc);
      return;
    }
  }
#endif
  if constexpr (E::narrow) {
    constexpr int64_t K = pto::host::kRowChunk;
    float fa[K], fb[K];
    for (int64_t i = 0; i < vr; ++i)
      for (int64_t j0 = 0; j0 < vc; j0 += K) {
        const int64_t n = vc - j0 < K ? vc - j0 : K;
        pto::host::operand_chunk<T, BA>(C, a, i, j0, n, fa);
        pto::host::operand_chunk<T, BB>(C, b, i, j0, n, fb);
        for (int64_t j = 0; j < n; ++j) fa[j] = pto::host::binop<OP>(fa[j], fb[j]);
        E::store_row(fa, dst + i * C + j0, n);
      }
    return;
  }
  if constexpr (pto::host::kWideInt<T> && pto::host::kWideExactOp<OP>) {
    for (int64_t i = 0; i < vr; ++i)
      for (int64_t j = 0; j < vc; ++j)
        dst[i * C + j] = pto::host::wide_binop<OP, T>(a[bc_index<BA>(C, i, j)], b[bc_index<BB>(C, i, j)]);
    return;
  }
  for (int64_t i = 0; i < vr; ++i) {
    T* d = dst + i * C;
    if constexpr (pto::host::kExactIntMul<OP, T>)
      for (int64_t j = 0; j < vc; ++j) d[j] = pto::host::int_mul_wrap(a[bc_index<BA>(C, i, j)], b[bc_index<BB>(C, i, j)]);
    else
      for (int64_t j = 0; j < vc; ++j)
        d[j] = E::store(pto::host::binop<OP>(E::load(a[bc_index<BA>(C, i, j)]), E::load(b[bc_index<BB>(C, i, j)])));
  }
}
}  // namespace host
}  // namespace pto
template <int OP, typename T, int R, int C, int BA, int BB>
inline void TBINARY(T* dst, const T* a, const T* b, int64_t vr, int64_t vc) {
  pto::host::tbinary<OP, T, BA, BB>(R, C, dst, a, b, vr, vc);
}

namespace pto {
namespace host {
template <int OP, typename T, int SCALAR_FIRST>
inline void tbinary_s(int64_t R, int64_t C, T* dst, const T* a, double s, int64_t vr, int64_t vc) {
  using E = pto::host::Elem<T>;
  using CT = typename E::C;
  pto::host::check_tile<T>(dst, int64_t(R) * C, "TBINARY_S dst");
  pto::host::check_tile<T>(a, int64_t(R) * C, "TBINARY_S a");
  const CT sv = E::load(E::store(CT(s)));  // the literal takes the tensor's dtype
  if constexpr (E::narrow) {
    constexpr int64_t K = pto::host::kRowChunk;
    float f[K];
    for (int64_t i = 0; i < vr; ++i)
      for (int64_t j0 = 0; j0 < vc; j0 += K) {
        const int64_t n = vc - j0 < K ? vc - j0 : K;
        E::load_row(a + i * C + j0, f, n);
        for (int64_t j = 0; j < n; ++j)
          f[j] = SCALAR_FIRST ? pto::host::binop<OP>(sv, f[j]) : pto::host::binop<OP>(f[j], sv);
        E::store_row(f, dst + i * C + j0, n);
      }
    return;
  }
  if constexpr (pto::host::kWideInt<T> && pto::host::kWideExactOp<OP>) {
    const T st = E::store(sv);  // the literal in T (a double: exact up to 2^53 and at powers of two)
    for (int64_t i = 0; i < vr; ++i)
      for (int64_t j = 0; j < vc; ++j) {
        const T x = a[i * C + j];
        dst[i * C + j] = SCALAR_FIRST ? pto::host::wide_binop<OP, T>(st, x) : pto::host::wide_binop<OP, T>(x, st);
      }
    return;
  }
  for (int64_t i = 0; i < vr; ++i) {
    T* d = dst + i * C;
    const T* x = a + i * C;
    if constexpr (pto::host::kExactIntMul<OP, T>) {
      const T st = E::store(sv);
      for (int64_t j = 0; j < vc; ++j) d[j] = pto::host::int_mul_wrap(x[j], st);
    } else {
      for (int64_t j = 0; j < vc; ++j) {
        CT v = E::load(x[j]);
        d[j] = E::store(SCALAR_FIRST ? pto::host::binop<OP>(sv, v) : pto::host::binop<OP>(v, sv));
      }
    }
  }
}
}  // namespace host
}  // namespace pto
template <int OP, typename T, int R, int C, int SCALAR_FIRST>
inline void TBINARY_S(T* dst, const T* a, double s, int64_t vr, int64_t vc) {
  pto::host::tbinary_s<OP, T, SCALAR_FIRST>(R, C, dst, a, s, vr, vc);
}

namespace pto {
namespace host {
template <int OP, typename T>
inline void tunary(int64_t R, int64_t C, T* dst, const T* src, int64_t vr, int64_t vc) {
  using E = pto::host::Elem<T>;
  pto::host::check_tile<T>(dst, int64_t(R) * C, "TUNARY dst");
  pto::host::check_tile<T>(src, int64_t(R) * C, "TUNARY src");
  if constexpr (E::narrow) {
    constexpr int64_t K = pto::host::kRowChunk;
    float f[K];
    for (int64_t i = 0; i < vr; ++i)
      for (int64_t j0 = 0; j0 < vc; j0 += K) {
        const int64_t n = vc - j0 < K ? vc - j0 : K;
        E::load_row(src + i * C + j0, f, n);
        for (int64_t j = 0; j < n; ++j) f[j] = pto::host::unop<OP>(f[j]);
        E::store_row(f, dst + i * C + j0, n);
      }
    return;
  }
  if constexpr (pto::host::kWideInt<T> && OP == PTO_BNOT) {  // exact in T
    for (int64_t i = 0; i < vr; ++i)
      for (int64_t j = 0; j < vc; ++j) dst[i * C + j] = T(~src[i * C + j]);
    return;
  }
  for (int64_t i = 0; i < vr; ++i) {
    T* d = dst + i * C;
    const T* x = src + i * C;
    for (int64_t j = 0; j < vc; ++j) d[j] = E::store(pto::host::unop<OP>(E::load(x[j])));
  }
}
}  // namespace host
}  // namespace pto
template <int OP, typename T, int R, int C>
inline void TUNARY(T* dst, const T* src, int64_t vr, int64_t vc) {
  pto::host::tunary<OP, T>(R, C, dst, src, vr, vc);
}

namespace pto {
namespace host {
template <int OP, typename T, int AXIS>
inline void treduce(int64_t R, int64_t C, T* dst, const T* src, int64_t vr, int64_t vc) {
  using E = pto::host::Elem<T>;
  using CT = typename E::C;
  using pto::host::binop;
  pto::host::check_tile<T>(src, int64_t(R) * C, "TREDUCE src");
  pto::host::check_tile<T>(dst, AXIS == 1 ? R : C, "TREDUCE dst");
  constexpr int BOP = OP == PTO_RMAX ? PTO_MAX : OP == PTO_RMIN ? PTO_MIN : OP == PTO_RPROD ? PTO_MUL : PTO_ADD;
  if constexpr (E::is_int && OP != PTO_RMEAN) {
    // Integers: exact int64 arithmetic wrapping to T, as NumPy's (through double an int64 past 2^53, or an
    // int32 product, would round); integer add / mul / max / min give the same bits in any order.
    auto fold = [](int64_t a, int64_t b) -> int64_t {
      if constexpr (BOP == PTO_MAX) return T(a) > T(b) ? a : b;  // in T: uint64 orders unsigned
      else if constexpr (BOP == PTO_MIN) return T(a) < T(b) ? a : b;
      else if constexpr (BOP == PTO_MUL) return int64_t(uint64_t(a) * uint64_t(b));
      else return int64_t(uint64_t(a) + uint64_t(b));
    };
    if constexpr (AXIS == 1) {
      for (int64_t i = 0; i < vr; ++i) {
        const T* x = src + i * C;
        int64_t r = vc > 0 ? int64_t(x[0]) : 0;
        for (int64_t j = 1; j < vc; ++j) r = fold(r, int64_t(x[j]));
        dst[i] = T(r);
      }
    } else {
      for (int64_t j = 0; j < vc; ++j) {
        int64_t r = vr > 0 ? int64_t(src[j]) : 0;
        for (int64_t i = 1; i < vr; ++i) r = fold(r, int64_t(src[i * C + j]));
        dst[j] = T(r);
      }
    }
    return;
  } else if constexpr (!E::inline_load) {
    // fp16: the fp32 algorithm below over converted row chunks, in the same
    // order (same bits as converting element by element).
    constexpr int64_t K = pto::host::kRowChunk;
    float buf[K];
    if constexpr (AXIS == 1) {
      for (int64_t i = 0; i < vr; ++i) {
        const T* x = src + i * C;
        float r = 0.0f;
        int64_t n = vc < K ? vc : K;
        E::load_row(x, buf, n);
        if (vc >= 8) {
          float acc[8];
          for (int l = 0; l < 8; ++l) acc[l] = buf[l];
          pto::host::fold8<BOP>(acc, buf, 8, n);
          for (int64_t j0 = n; j0 < vc; j0 += K) {
            n = vc - j0 < K ? vc - j0 : K;
            E::load_row(x + j0, buf, n);
            pto::host::fold8<BOP>(acc, buf, 0, n);
          }
          for (int w = 4; w >= 1; w /= 2)
            for (int l = 0; l < w; ++l) acc[l] = binop<BOP>(acc[l], acc[l + w]);
          r = acc[0];
        } else if (vc > 0) {
          r = buf[0];
          for (int64_t j = 1; j < vc; ++j) r = binop<BOP>(r, buf[j]);
        }
        if constexpr (OP == PTO_RMEAN) r = vc > 0 ? r / float(vc) : float(NAN);
        dst[i] = E::store(r);
      }
    } else {
      float acc[K];
      for (int64_t j0 = 0; j0 < vc; j0 += K) {
        const int64_t n = vc - j0 < K ? vc - j0 : K;
        if (vr > 0) E::load_row(src + j0, acc, n);
        else for (int64_t j = 0; j < n; ++j) acc[j] = 0.0f;
        for (int64_t i = 1; i < vr; ++i) {
          E::load_row(src + i * C + j0, buf, n);
          for (int64_t j = 0; j < n; ++j) acc[j] = binop<BOP>(acc[j], buf[j]);
        }
        if constexpr (OP == PTO_RMEAN)
          for (int64_t j = 0; j < n; ++j) acc[j] = vr > 0 ? acc[j] / float(vr) : float(NAN);
        E::store_row(acc, dst + j0, n);
      }
    }
    return;
  }
  if constexpr (AXIS == 1) {
    // Along a row: 8 interleaved partial results combined pairwise, so the
    // loop vectorizes without reassociation flags (a fixed, deterministic order).
    for (int64_t i = 0; i < vr; ++i) {
      const T* x = src + i * C;
      CT r;
      if (vc >= 8) {
        CT acc[8];
        for (int l = 0; l < 8; ++l) acc[l] = E::load(x[l]);
        int64_t j = 8;
        for (; j + 8 <= vc; j += 8)
          for (int l = 0; l < 8; ++l) acc[l] = binop<BOP>(acc[l], E::load(x[j + l]));
        for (int l = 0; j + l < vc; ++l) acc[l] = binop<BOP>(acc[l], E::load(x[j + l]));
        for (int w = 4; w >= 1; w /= 2)
          for (int l = 0; l < w; ++l) acc[l] = binop<BOP>(acc[l], acc[l + w]);
        r = acc[0];
      } else if (vc > 0) {
        r = E::load(x[0]);
        for (int64_t j = 1; j < vc; ++j) r = binop<BOP>(r, E::load(x[j]));
      } else {
        r = CT(0);
      }
      if constexpr (OP == PTO_RMEAN) r = vc > 0 ? r / CT(vc) : CT(NAN);
      dst[i] = E::store(r);
    }
  } else {
    // Column chunks: each column still folds its rows in order (same bits).
    constexpr int64_t K = pto::host::kRowChunk;
    CT acc[K];
    for (int64_t j0 = 0; j0 < vc; j0 += K) {
      const int64_t n = vc - j0 < K ? vc - j0 : K;
      for (int64_t j = 0; j < n; ++j) acc[j] = vr > 0 ? E::load(src[j0 + j]) : CT(0);
      for (int64_t i = 1; i < vr; ++i) {
        const T* x = src + i * C + j0;
        for (int64_t j = 0; j < n; ++j) acc[j] = binop<BOP>(acc[j], E::load(x[j]));
      }
      for (int64_t j = 0; j < n; ++j) {
        CT r = acc[j];
        if constexpr (OP == PTO_RMEAN) r = vr > 0 ? r / CT(vr) : CT(NAN);
        dst[j0 + j] = E::store(r);
      }
    }
  }
}
}  // namespace host
}  // namespace pto
template <int OP, typename T, int R, int C, int AXIS>
inline void TREDUCE(T* dst, const T* src, int64_t vr, int64_t vc) {
  pto::host::treduce<OP, T, AXIS>(R, C, dst, src, vr, vc);
}

namespace pto {
namespace host {
template <int OP, typename T, int BA, int BB>
inline void tcmp(int64_t R, int64_t C, pto_bool* dst, const T* a, const T* b, int64_t vr, int64_t vc) {
  using E = pto::host::Elem<T>;
  using pto::host::bc_index;
  pto::host::check_tile<pto_bool>(dst, int64_t(R) * C, "TCMP dst");
  pto::host::check_tile<T>(a, pto::host::bc_elems<BA>(R, C), "TCMP a");
  pto::host::check_tile<T>(b, pto::host::bc_elems<BB>(R, C), "TCMP b");
  if constexpr (pto::host::kWideInt<T>) {  // exact, in T
    for (int64_t i = 0; i < vr; ++i)
      for (int64_t j = 0; j < vc; ++j)
        dst[i * C + j].v = pto::host::cmpop<OP>(a[bc_index<BA>(C, i, j)], b[bc_index<BB>(C, i, j)]) ? 1 : 0;
    return;
  }
  for (int64_t i = 0; i < vr; ++i)
    for (int64_t j = 0; j < vc; ++j)
      dst[i * C + j].v = pto::host::cmpop<OP>(E::load(a[bc_index<BA>(C, i, j)]), E::load(b[bc_index<BB>(C, i, j)])) ? 1 : 0;
}
}  // namespace host
}  // namespace pto
template <int OP, typename T, int R, int C, int BA, int BB>
inline void TCMP(pto_bool* dst, const T* a, const T* b, int64_t vr, int64_t vc) {
  pto::host::tcmp<OP, T, BA, BB>(R, C, dst, a, b, vr, vc);
}

namespace pto {
namespace host {
template <int OP, typename T, int SCALAR_FIRST>
inline void tcmp_s(int64_t R, int64_t C, pto_bool* dst, const T* a, double s, int64_t vr, int64_t vc) {
  using E = pto::host::Elem<T>;
  using CT = typename E::C;
  pto::host::check_tile<pto_bool>(dst, int64_t(R) * C, "TCMP_S dst");
  pto::host::check_tile<T>(a, int64_t(R) * C, "TCMP_S a");
  if constexpr (pto::host::kWideInt<T>) {  // exact, in T
    const T st = E::store(CT(s));
    for (int64_t i = 0; i < vr; ++i)
      for (int64_t j = 0; j < vc; ++j) {
        const T x = a[i * C + j];
        dst[i * C + j].v = (SCALAR_FIRST ? pto::host::cmpop<OP>(st, x) : pto::host::cmpop<OP>(x, st)) ? 1 : 0;
      }
    return;
  }
  const CT sv = E::load(E::store(CT(s)));
  for (int64_t i = 0; i < vr; ++i)
    for (int64_t j = 0; j < vc; ++j) {
      const CT x = E::load(a[i * C + j]);
      dst[i * C + j].v = (SCALAR_FIRST ? pto::host::cmpop<OP>(sv, x) : pto::host::cmpop<OP>(x, sv)) ? 1 : 0;
    }
}
}  // namespace host
}  // namespace pto
template <int OP, typename T, int R, int C, int SCALAR_FIRST>
inline void TCMP_S(pto_bool* dst, const T* a, double s, int64_t vr, int64_t vc) {
  pto::host::tcmp_s<OP, T, SCALAR_FIRST>(R, C, dst, a, s, vr, vc);
}

namespace pto {
namespace host {
template <int OP, typename T>
inline void tpred(int64_t R, int64_t C, pto_bool* dst, const T* src, int64_t vr, int64_t vc) {
  using E = pto::host::Elem<T>;
  pto::host::check_tile<pto_bool>(dst, int64_t(R) * C, "TPRED dst");
  pto::host::check_tile<T>(src, int64_t(R) * C, "TPRED src");
  for (int64_t i = 0; i < vr; ++i)
    for (int64_t j = 0; j < vc; ++j) {
      const auto x = E::load(src[i * C + j]);
      dst[i * C + j].v = (OP == PTO_ISFINITE ? bool(isfinite(double(x)))
                          : OP == PTO_SIGNBIT ? bool(signbit(double(x))) && !isnan(double(x))  // PyPTO: NaN is false
                                              : x == 0)
                             ? 1
                             : 0;
    }
}
}  // namespace host
}  // namespace pto
template <int OP, typename T, int R, int C>
inline void TPRED(pto_bool* dst, const T* src, int64_t vr, int64_t vc) {
  pto::host::tpred<OP, T>(R, C, dst, src, vr, vc);
}

namespace pto {
namespace host {
template <typename T, int BC, int BA, int BB>
inline void tselect(int64_t R, int64_t C, T* dst, const pto_bool* cond, const T* a, const T* b, int64_t vr, int64_t vc) {
  using pto::host::bc_index;
  pto::host::check_tile<T>(dst, int64_t(R) * C, "TSELECT dst");
  pto::host::check_tile<pto_bool>(cond, pto::host::bc_elems<BC>(R, C), "TSELECT cond");
  pto::host::check_tile<T>(a, pto::host::bc_elems<BA>(R, C), "TSELECT a");
  pto::host::check_tile<T>(b, pto::host::bc_elems<BB>(R, C), "TSELECT b");
  for (int64_t i = 0; i < vr; ++i)
    for (int64_t j = 0; j < vc; ++j)
      dst[i * C + j] = cond[bc_index<BC>(C, i, j)].v ? a[bc_index<BA>(C, i, j)] : b[bc_index<BB>(C, i, j)];
}
}  // namespace host
}  // namespace pto
template <typename T, int R, int C, int BC, int BA, int BB>
inline void TSELECT(T* dst, const pto_bool* cond, const T* a, const T* b, int64_t vr, int64_t vc) {
  pto::host::tselect<T, BC, BA, BB>(R, C, dst, cond, a, b, vr, vc);
}

namespace pto {
namespace host {
template <int OP, typename T, int AXIS>
inline void targreduce(int64_t R, int64_t C, int32_t* dst, const T* src, int64_t vr, int64_t vc) {
  using E = pto::host::Elem<T>;
  pto::host::check_tile<T>(src, int64_t(R) * C, "TARGREDUCE src");
  pto::host::check_tile<int32_t>(dst, AXIS == 1 ? R : C, "TARGREDUCE dst");
  // Along the reduced axis of length n at stride s: the first extreme; a NaN wins at its first place.
  auto scan = [](const T* p, int64_t n, int64_t s) -> int32_t {
    if (n <= 0) return 0;
    int32_t best = 0;
    if constexpr (E::is_int) {  // exact, in T (uint64 unsigned)
      T bv = p[0];
      for (int64_t j = 1; j < n; ++j)
        if (OP == PTO_RARGMAX ? p[j * s] > bv : p[j * s] < bv) {
          best = int32_t(j);
          bv = p[j * s];
        }
      return best;
    }
    double bv = double(E::load(p[0]));
    for (int64_t j = 1; j < n && !isnan(bv); ++j) {
      const double x = double(E::load(p[j * s]));
      if (isnan(x) || (OP == PTO_RARGMAX ? x > bv : x < bv)) {
        best = int32_t(j);
        bv = x;
      }
    }
    return best;
  };
  if constexpr (AXIS == 1) {
    for (int64_t i = 0; i < vr; ++i) dst[i] = scan(src + i * C, vc, 1);
  } else {
    for (int64_t j = 0; j < vc; ++j) dst[j] = scan(src + j, vr, C);
  }
}
}  // namespace host
}  // namespace pto
template <int OP, typename T, int R, int C, int AXIS>
inline void TARGREDUCE(int32_t* dst, const T* src, int64_t vr, int64_t vc) {
  pto::host::targreduce<OP, T, AXIS>(R, C, dst, src, vr, vc);
}

namespace pto {
namespace host {
template <typename TD, typename TS>
inline void tcast(int64_t R, int64_t C, TD* dst, const TS* src, int64_t vr, int64_t vc) {
  using ED = pto::host::Elem<TD>;
  using ES = pto::host::Elem<TS>;
  using CD = typename ED::C;
  pto::host::check_tile<TD>(dst, int64_t(R) * C, "TCAST dst");
  pto::host::check_tile<TS>(src, int64_t(R) * C, "TCAST src");
  for (int64_t i = 0; i < vr; ++i) {
    TD* d = dst + i * C;
    const TS* x = src + i * C;
    if constexpr (sizeof(TD) == sizeof(TS) && ED::is_float == ES::is_float && sizeof(TD) == 4) {
      memcpy(d, x, size_t(vc) * 4);  // fp32 -> fp32 and int32 -> int32
    } else if constexpr (ED::is_float && ES::is_float && !ED::narrow) {
      ES::load_row(x, d, vc);  // fp16 / bf16 -> fp32: exact
    } else if constexpr (ED::is_float && ES::is_float && !ES::narrow) {
      ED::store_row(x, d, vc);  // fp32 -> fp16 / bf16: round to nearest even
    } else if constexpr (ED::is_float && ES::is_float) {
      // between the 16-bit types (and fp16 -> fp16) through an fp32 chunk
      constexpr int64_t K = pto::host::kRowChunk;
      float f[K];
      for (int64_t j0 = 0; j0 < vc; j0 += K) {
        const int64_t n = vc - j0 < K ? vc - j0 : K;
        ES::load_row(x + j0, f, n);
        ED::store_row(f, d + j0, n);
      }
    } else if constexpr (ED::is_int && ES::is_int) {
      // integer -> integer: exact, wrapping to the destination's width (through double an int64 past 2^53
      // would lose its low bits; NumPy's astype wraps)
      for (int64_t j = 0; j < vc; ++j) d[j] = TD(x[j]);
    } else {
      // Through double so the rounding sees the exact value. float -> int
      // rounds half to even first (nearbyint under the default FE_TONEAREST,
      // as the evaluator and NumPy), then wraps in ED::store; -> bool stays
      // x != 0, and integer sources are already integral.
      for (int64_t j = 0; j < vc; ++j) {
        double v = double(ES::load(x[j]));
        if constexpr (ES::is_float && ED::is_int) v = nearbyint(v);
        d[j] = ED::store(CD(v));
      }
    }
  }
}
}  // namespace host
}  // namespace pto
template <typename TD, typename TS, int R, int C>
inline void TCAST(TD* dst, const TS* src, int64_t vr, int64_t vc) {
  pto::host::tcast<TD, TS>(R, C, dst, src, vr, vc);
}

namespace pto {
namespace host {
template <typename T>
inline void ttranspose(int64_t R, int64_t C, T* dst, const T* src, int64_t vr, int64_t vc) {
  pto::host::check_tile<T>(dst, int64_t(R) * C, "TTRANSPOSE dst");
  pto::host::check_tile<T>(src, int64_t(R) * C, "TTRANSPOSE src");
  constexpr int64_t kB = 16;  // blocked so both sides stay in cache lines
  for (int64_t i0 = 0; i0 < vr; i0 += kB)
    for (int64_t j0 = 0; j0 < vc; j0 += kB) {
      int64_t i1 = i0 + kB < vr ? i0 + kB : vr, j1 = j0 + kB < vc ? j0 + kB : vc;
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i) dst[j * R + i] = src[i * C + j];
    }
}
}  // namespace host
}  // namespace pto
template <typename T, int R, int C>
inline void TTRANSPOSE(T* dst, const T* src, int64_t vr, int64_t vc) {
  pto::host::ttranspose<T>(R, C, dst, src, vr, vc);
}

namespace pto {
namespace host {
template <typename T>
inline void tfill(int64_t R, int64_t C, T* dst, double value, int64_t vr, int64_t vc) {
  using E = pto::host::Elem<T>;
  pto::host::check_tile<T>(dst, int64_t(R) * C, "TFILL");
  const T v = E::store(typename E::C(value));
  for (int64_t i = 0; i < vr; ++i)
    for (int64_t j = 0; j < vc; ++j) dst[i * C + j] = v;
}
}  // namespace host
}  // namespace pto
template <typename T, int R, int C>
inline void TFILL(T* dst, double value, int64_t vr, int64_t vc) {
  pto::host::tfill<T>(R, C, dst, value, vr, vc);
}

namespace pto {
namespace host {
template <typename T>
inline void tcopy(int64_t RS, int64_t CS, int64_t RD, int64_t CD, T* dst, const T* src, int64_t vr, int64_t vc, int64_t row_off, int64_t col_off) {
  pto::host::check_tile<T>(dst, int64_t(RD) * CD, "TCOPY dst");
  pto::host::check_tile<T>(src, int64_t(RS) * CS, "TCOPY src");
  for (int64_t i = 0; i < vr; ++i) memmove(dst + (row_off + i) * CD + col_off, src + i * CS, size_t(vc) * sizeof(T));
}
}  // namespace host
}  // namespace pto
template <typename T, int RS, int CS, int RD, int CD>
inline void TCOPY(T* dst, const T* src, int64_t vr, int64_t vc, int64_t row_off, int64_t col_off) {
  pto::host::tcopy<T>(RS, CS, RD, CD, dst, src, vr, vc, row_off, col_off);
}

namespace pto {
namespace host {
template <typename T>
inline void tcopy2d(int64_t DS0, int64_t DS1, int64_t SS0, int64_t SS1, T* dst, const T* src, int64_t n0, int64_t n1) {
  if (n0 <= 0 || n1 <= 0) return;
  // The span each side touches: from the first to the last element copied.
  pto::host::check_tile<T>(dst, (n0 - 1) * DS0 + (n1 - 1) * DS1 + 1, "TCOPY2D dst");
  pto::host::check_tile<T>(src, (n0 - 1) * SS0 + (n1 - 1) * SS1 + 1, "TCOPY2D src");
  if (DS1 == 1 && SS1 == 1) {
    for (int64_t i = 0; i < n0; ++i) memcpy(dst + i * DS0, src + i * SS0, size_t(n1) * sizeof(T));
  } else {
    constexpr int64_t kB = 16;  // blocked like TTRANSPOSE: both sides stay in cache lines
    for (int64_t i0 = 0; i0 < n0; i0 += kB)
      for (int64_t j0 = 0; j0 < n1; j0 += kB) {
        const int64_t i1 = i0 + kB < n0 ? i0 + kB : n0, j1 = j0 + kB < n1 ? j0 + kB : n1;
        for (int64_t j = j0; j < j1; ++j)
          for (int64_t i = i0; i < i1; ++i) dst[i * DS0 + j * DS1] = src[i * SS0 + j * SS1];
      }
  }
}
}  // namespace host
}  // namespace pto
template <typename T, int DS0, int DS1, int SS0, int SS1>
inline void TCOPY2D(T* dst, const T* src, int64_t n0, int64_t n1) {
  pto::host::tcopy2d<T>(DS0, DS1, SS0, SS1, dst, src, n0, n1);
}

// ---------------------------------------------------------------------------
// Cube path. Host layouts: L1, L0A and L0B tiles are row-major in T; L0C is
// row-major fp32.
// ---------------------------------------------------------------------------

namespace pto {
namespace host {
template <typename T, int SRC_NZ>
inline void tload_l1(int64_t R, int64_t C, T* dst, const T* gm, int64_t offset, int64_t row0, int64_t col0, int64_t ld, int64_t vr, int64_t vc) {
  pto::host::check_tile<T>(dst, int64_t(R) * C, "TLOAD_L1");
  const T* m = gm + offset;
  if constexpr (!SRC_NZ) {
    pto::host::trace_gm(m + row0 * ld + col0, vr, vc * int64_t(sizeof(T)), ld * int64_t(sizeof(T)), pto::host::kGmRead);
    for (int64_t i = 0; i < vr; ++i) {
      memcpy(dst + i * C, m + (row0 + i) * ld + col0, size_t(vc) * sizeof(T));
      if (vc < C) memset(dst + i * C + vc, 0, size_t(C - vc) * sizeof(T));
    }
  } else {
    constexpr int64_t C0 = 32 / int64_t(sizeof(T));
    // One window per fractal column block: vr rows of C0 elements, the columns of [col0, col0 + vc) in it.
    for (int64_t c = col0; c < col0 + vc;) {
      const int64_t stop = (c / C0 + 1) * C0 < col0 + vc ? (c / C0 + 1) * C0 : col0 + vc;
      pto::host::trace_gm(m + (c / C0) * ld * C0 + row0 * C0 + c % C0, vr, (stop - c) * int64_t(sizeof(T)),
                          C0 * int64_t(sizeof(T)), pto::host::kGmRead);
      c = stop;
    }
    for (int64_t i = 0; i < vr; ++i) {
      const int64_t r = row0 + i;
      int64_t j = 0;
      while (j < vc) {  // contiguous runs inside one fractal row
        const int64_t c = col0 + j;
        const int64_t run = (C0 - c % C0) < (vc - j) ? (C0 - c % C0) : (vc - j);
        memcpy(dst + i * C + j, m + (c / C0) * ld * C0 + r * C0 + c % C0, size_t(run) * sizeof(T));
        j += run;
      }
      if (vc < C) memset(dst + i * C + vc, 0, size_t(C - vc) * sizeof(T));
    }
  }
  if (vr < R) memset(dst + vr * C, 0, size_t(R - vr) * C * sizeof(T));
}
}  // namespace host
}  // namespace pto
template <typename T, int R, int C, int SRC_NZ>
inline void TLOAD_L1(T* dst, const T* gm, int64_t offset, int64_t row0, int64_t col0, int64_t ld, int64_t vr, int64_t vc) {
  pto::host::tload_l1<T, SRC_NZ>(R, C, dst, gm, offset, row0, col0, ld, vr, vc);
}

namespace pto {
namespace host {
template <typename T, int TRANS>
inline void textract_l0a(int64_t RL1, int64_t CL1, int64_t M, int64_t K, T* dst, const T* src, int64_t row_off, int64_t col_off) {
  pto::host::check_tile<T>(dst, int64_t(M) * K, "TEXTRACT_L0A dst");
  pto::host::check_tile<T>(src, int64_t(RL1) * CL1, "TEXTRACT_L0A src");
  if constexpr (!TRANS) {
    for (int64_t i = 0; i < M; ++i) memcpy(dst + i * K, src + (row_off + i) * CL1 + col_off, size_t(K) * sizeof(T));
  } else {
    for (int64_t k = 0; k < K; ++k)
      for (int64_t i = 0; i < M; ++i) dst[i * K + k] = src[(row_off + k) * CL1 + col_off + i];
  }
}
}  // namespace host
}  // namespace pto
template <typename T, int RL1, int CL1, int M, int K, int TRANS>
inline void TEXTRACT_L0A(T* dst, const T* src, int64_t row_off, int64_t col_off) {
  pto::host::textract_l0a<T, TRANS>(RL1, CL1, M, K, dst, src, row_off, col_off);
}

namespace pto {
namespace host {
template <typename T, int TRANS>
inline void textract_l0b(int64_t RL1, int64_t CL1, int64_t K, int64_t N, T* dst, const T* src, int64_t row_off, int64_t col_off) {
  pto::host::check_tile<T>(dst, int64_t(K) * N, "TEXTRACT_L0B dst");
  pto::host::check_tile<T>(src, int64_t(RL1) * CL1, "TEXTRACT_L0B src");
  if constexpr (!TRANS) {
    for (int64_t k = 0; k < K; ++k) memcpy(dst + k * N, src + (row_off + k) * CL1 + col_off, size_t(N) * sizeof(T));
  } else {
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k) dst[k * N + j] = src[(row_off + j) * CL1 + col_off + k];
  }
}
}  // namespace host
}  // namespace pto
template <typename T, int RL1, int CL1, int K, int N, int TRANS>
inline void TEXTRACT_L0B(T* dst, const T* src, int64_t row_off, int64_t col_off) {
  pto::host::textract_l0b<T, TRANS>(RL1, CL1, K, N, dst, src, row_off, col_off);
}

namespace pto {
namespace host {
template <typename T>
inline void tmmad(int64_t M, int64_t K, int64_t N, float* c, const T* a, const T* b, int64_t vm, int64_t vk, int64_t vn, int init) {
  using E = pto::host::Elem<T>;
  if constexpr (std::is_same_v<T, int8_t>) {
    // int8 x int8: L0C holds int32 (the cube's exact accumulation), in the same 4-byte cells.
    pto::host::tmmad_i8(M, K, N, reinterpret_cast<int32_t*>(c), a, b, vm, vk, vn, init);
    return;
  } else {
  static_assert(E::is_float, "TMMAD takes fp16, bf16, fp32 or int8 operands");
  pto::host::check_tile<float>(c, int64_t(M) * N, "TMMAD c");
  pto::host::check_tile<T>(a, int64_t(M) * K, "TMMAD a");
  pto::host::check_tile<T>(b, int64_t(K) * N, "TMMAD b");
  pto::host::GemmScratch& s = pto::host::gemm_scratch();
  // Operands converted to fp32 once per call: A row-major vm x vk, B packed
  // into panels of kGemmNr columns (zero-padded), as the kernel reads them.
  float* af = s.a((vm + pto::host::kGemmMr) * vk);
  for (int64_t i = 0; i < vm; ++i) E::load_row(a + i * K, af + i * vk, vk);
  const int64_t np = (vn + pto::host::kGemmNr - 1) / pto::host::kGemmNr;
  float* bp = s.b(np * vk * pto::host::kGemmNr);
  for (int64_t p = 0; p < np; ++p) {
    float* panel = bp + p * vk * pto::host::kGemmNr;
    const int64_t j0 = p * pto::host::kGemmNr;
    const int64_t w = vn - j0 < pto::host::kGemmNr ? vn - j0 : pto::host::kGemmNr;
    for (int64_t k = 0; k < vk; ++k) {
      float* row = panel + k * pto::host::kGemmNr;
      const T* src = b + k * N + j0;
      E::load_row(src, row, w);
      for (int64_t j = w; j < pto::host::kGemmNr; ++j) row[j] = 0.0f;
    }
  }
  pto::host::gemm_f32(af, bp, c, N, vm, vn, vk, init != 0);
  }
}
}  // namespace host
}  // namespace pto
// TC: float, or int32_t for int8 operands (L0C holds what the cube accumulates).
template <typename T, int M, int K, int N, typename TC>
inline void TMMAD(TC* c, const T* a, const T* b, int64_t vm, int64_t vk, int64_t vn, int init) {
  pto::host::tmmad<T>(M, K, N, reinterpret_cast<float*>(c), a, b, vm, vk, vn, init);
}

namespace pto {
namespace host {
template <typename TD, int ATOMIC>
inline void tfixpipe(int64_t M, int64_t N, TD* gm, const float* c, int64_t offset, int64_t row_stride, int64_t vm, int64_t vn) {
  using E = pto::host::Elem<TD>;
  pto::host::check_tile<float>(c, int64_t(M) * N, "TFIXPIPE");
  TD* d = gm + offset;
  pto::host::trace_gm(d, vm, vn * int64_t(sizeof(TD)), row_stride * int64_t(sizeof(TD)),
                      ATOMIC ? pto::host::kGmAtomicAdd : pto::host::kGmWrite);
  if constexpr (std::is_same_v<TD, int32_t>) {
    // Only an int8 matmul gives int32: L0C holds int32 already, moved as it is.
    const int32_t* ci = reinterpret_cast<const int32_t*>(c);
    for (int64_t i = 0; i < vm; ++i) {
      if constexpr (ATOMIC) {
        for (int64_t j = 0; j < vn; ++j) pto::host::atomic_add(d + i * row_stride + j, ci[i * N + j]);
      } else {
        memcpy(d + i * row_stride, ci + i * N, size_t(vn) * sizeof(int32_t));
      }
    }
    return;
  } else {
  for (int64_t i = 0; i < vm; ++i) {
    const float* x = c + i * N;
    TD* o = d + i * row_stride;
    if constexpr (ATOMIC) {
      for (int64_t j = 0; j < vn; ++j) pto::host::atomic_add(o + j, E::store(x[j]));
    } else {
      E::store_row(x, o, vn);
    }
  }
  }
}
}  // namespace host
}  // namespace pto
template <typename TD, int M, int N, int ATOMIC, typename TC>
inline void TFIXPIPE(TD* gm, const TC* c, int64_t offset, int64_t row_stride, int64_t vm, int64_t vn) {
  pto::host::tfixpipe<TD, ATOMIC>(M, N, gm, reinterpret_cast<const float*>(c), offset, row_stride, vm, vn);
}
