// Host twin, part 1: element types, fp16/bf16 conversions, the core's local
// memories as thread-local arrays, the kernel entry and the sync macros.
// Included by kernels/pto_tile.h when PTO_HOST is defined; never include it
// directly.
#pragma once

#include <stdint.h>
#include <string.h>

#include "pto_host_fp8.h"  // pto::f8e4m3 f8e5m2 f8e8m0 and their fp32 conversions

#define PTO_INLINE inline
#define PTO_GM_Q
#define PTO_UB_Q
#define PTO_L1_Q
#define PTO_L0A_Q
#define PTO_L0B_Q
#define PTO_L0C_Q

namespace pto {

// 16-bit floats and bool as distinct types holding raw bits, so that the
// templates can pick the right arithmetic and rounding.
struct f16 { uint16_t bits; };
struct bf16 { uint16_t bits; };
struct boolean { uint8_t v; };

inline float bits_to_float(uint32_t x) { float f; memcpy(&f, &x, 4); return f; }
inline uint32_t float_to_bits(float f) { uint32_t x; memcpy(&x, &f, 4); return x; }

// fp16 <-> fp32 and bf16 <-> fp32 with results identical to ptoc::float_to_half
// and friends in compiler/dtype.cpp (round to nearest even; NaN -> quiet NaN),
// written branch-light so loops over tiles vectorize.
inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t o = uint32_t(h & 0x7fffu) << 13;
  const uint32_t exp = o & 0x0f800000u;
  const uint32_t normal = o + ((127u - 15u) << 23);
  const uint32_t inf_nan = normal + ((128u - 16u) << 23);  // exponent all ones, mantissa kept
  // zero / subnormal: renormalised through an exact fp32 subtraction
  const uint32_t sub = float_to_bits(bits_to_float(normal + (1u << 23)) - bits_to_float(113u << 23));
  return bits_to_float((exp == 0x0f800000u ? inf_nan : exp == 0 ? sub : normal) | sign);
}

// Selects instead of branches (so tile loops vectorize); the subnormal range
// is rounded by one fp32 addition, which rounds to nearest even like the
// reference's integer code.
inline uint16_t float_to_half_bits(float f) {
  const uint32_t x = float_to_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t a = x & 0x7fffffffu;
  const uint32_t big = a > 0x7f800000u ? 0x7e00u : 0x7c00u;  // NaN -> quiet NaN; inf / overflow -> inf
  const uint32_t sub = float_to_bits(bits_to_float(a) + bits_to_float(126u << 23)) - (126u << 23);
  const uint32_t norm = (a + ((15u - 127u) << 23) + 0xfffu + ((a >> 13) & 1u)) >> 13;
  const uint32_t o = a >= (143u << 23) ? big : a < (113u << 23) ? sub : norm;
  return uint16_t(o | sign);
}

inline float bf16_bits_to_float(uint16_t b) { return bits_to_float(uint32_t(b) << 16); }

inline uint16_t float_to_bf16_bits(float f) {
  const uint32_t x = float_to_bits(f);
  const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  const bool nan = (x & 0x7fffffffu) > 0x7f800000u;
  return uint16_t(nan ? (x >> 16) | 0x40u : rounded);
}

namespace host {

// Sizes of the stand-in local memories: the largest of every platform.
inline constexpr int64_t kUbBytes = 256 * 1024;
inline constexpr int64_t kL1Bytes = 512 * 1024;
inline constexpr int64_t kL0aBytes = 64 * 1024;
inline constexpr int64_t kL0bBytes = 64 * 1024;
inline constexpr int64_t kL0cBytes = 256 * 1024;

// One set per host thread: each thread plays one core at a time.
struct alignas(64) LocalMemories {
  alignas(64) unsigned char ub[kUbBytes];
  alignas(64) unsigned char l1[kL1Bytes];
  alignas(64) unsigned char l0a[kL0aBytes];
  alignas(64) unsigned char l0b[kL0bBytes];
  alignas(64) unsigned char l0c[kL0cBytes];
};
// Allocated on a thread's first use (heap, not a 1 MiB TLS block).
inline LocalMemories& memories() {
  static thread_local LocalMemories* m = new LocalMemories();
  return *m;
}

// Observed GM accesses: while a recorder is installed on this thread (ptorun's
// dependency and bounds checks), every GM load and store reports the strided
// window it moves, so the runtime checks the bytes kernels really touch rather
// than what the compiler declared. One predictable branch per tile move.
// Empty moves are reported too: a load of 0 elements from a box another task
// writes is how a lost broadcast or a wrong valid extent shows.
enum GmTraceKind { kGmRead = 0, kGmWrite = 1, kGmAtomicAdd = 2 };
typedef void (*GmTraceFn)(void* ctx, const void* addr, int64_t rows, int64_t row_bytes, int64_t row_stride, int kind);
struct GmTrace {
  GmTraceFn fn;
  void* ctx;
};
inline GmTrace& gm_trace() {
  static thread_local GmTrace t{nullptr, nullptr};
  return t;
}
inline void trace_gm(const void* addr, int64_t rows, int64_t row_bytes, int64_t row_stride, int kind) {
  GmTrace& t = gm_trace();
  if (t.fn) t.fn(t.ctx, addr, rows > 0 ? rows : 0, row_bytes > 0 ? row_bytes : 0, row_stride, kind);
}

}  // namespace host
}  // namespace pto

#if defined(PTO_HOST_CHECK)
#include "pto_host_check.h"  // bounds of every tile access, pairing of set/wait flags
#endif

namespace pto {
namespace host {

// Runs the check at kernel exit (debug build) around the generated body.
struct KernelScope {
  const char* name;
#if defined(PTO_HOST_CHECK)
  explicit KernelScope(const char* n) : name(n) { check_kernel_begin(); }
  ~KernelScope() { check_kernel_end(name); }
#else
  explicit KernelScope(const char* n) : name(n) {}
#endif
};

}  // namespace host
}  // namespace pto

// Installs (fn non-null) or removes the GM access recorder of the calling thread.
// Emitted in every twin (used) and exported, so ptorun finds it with dlsym.
extern "C" __attribute__((visibility("default"), used)) inline void pto_host_set_gm_trace(pto::host::GmTraceFn fn,
                                                                                         void* ctx) {
  pto::host::gm_trace() = pto::host::GmTrace{fn, ctx};
}

typedef float pto_f32;
typedef pto::f16 pto_f16;
typedef pto::bf16 pto_bf16;
typedef int32_t pto_i32;
typedef int64_t pto_i64;
typedef int16_t pto_i16;
typedef uint16_t pto_u16;
typedef uint32_t pto_u32;
typedef uint64_t pto_u64;
typedef int8_t pto_i8;
typedef uint8_t pto_u8;
typedef pto::boolean pto_bool;
typedef pto::f8e4m3 pto_f8e4m3;
typedef pto::f8e5m2 pto_f8e5m2;
typedef pto::f8e8m0 pto_f8e8m0;

// Kernel entry: an extern "C" symbol with the PtoKernelArgs ABI around a
// static body, so the debug build can check state on the way out.
#define PTO_KERNEL(name)                                           \
  static void name##_pto_body(const PtoKernelArgs* pto_args);     \
  extern "C" __attribute__((visibility("default"))) void name(const PtoKernelArgs* pto_args) { \
    pto::host::KernelScope pto_scope_(#name);                      \
    name##_pto_body(pto_args);                                     \
  }                                                                \
  static void name##_pto_body(const PtoKernelArgs* pto_args)

#define PTO_GM(T, slot) (reinterpret_cast<T*>(pto_args->gm[(slot)]))
#define PTO_ARG(i) (pto_args->args[(i)])
#define PTO_WORKSPACE(T) (reinterpret_cast<T*>(pto_args->workspace))

#define PTO_UB(T, addr) (reinterpret_cast<T*>(pto::host::memories().ub + (addr)))
#define PTO_L1(T, addr) (reinterpret_cast<T*>(pto::host::memories().l1 + (addr)))
#define PTO_L0A(T, addr) (reinterpret_cast<T*>(pto::host::memories().l0a + (addr)))
#define PTO_L0B(T, addr) (reinterpret_cast<T*>(pto::host::memories().l0b + (addr)))
#define PTO_L0C(T, addr) (reinterpret_cast<T*>(pto::host::memories().l0c + (addr)))

// Pipe ids for the debug checker (the device's pipe_t values).
#define PTO_PIPE_ID_S 0
#define PTO_PIPE_ID_V 1
#define PTO_PIPE_ID_M 2
#define PTO_PIPE_ID_MTE1 3
#define PTO_PIPE_ID_MTE2 4
#define PTO_PIPE_ID_MTE3 5
#define PTO_PIPE_ID_ALL 6
#define PTO_PIPE_ID_FIX 10

#if defined(PTO_HOST_CHECK)
#define PTO_SET_FLAG(src, dst, id) pto::host::check_set_flag(PTO_PIPE_ID_##src, PTO_PIPE_ID_##dst, (id))
#define PTO_WAIT_FLAG(src, dst, id) pto::host::check_wait_flag(PTO_PIPE_ID_##src, PTO_PIPE_ID_##dst, (id))
#define PTO_PIPE_BARRIER(pipe) ((void)PTO_PIPE_ID_##pipe)
#else
#define PTO_SET_FLAG(src, dst, id) ((void)0)
#define PTO_WAIT_FLAG(src, dst, id) ((void)0)
#define PTO_PIPE_BARRIER(pipe) ((void)0)
#endif
#define PTO_MARK_STAMP(pipe, id) ((void)0)
#define PTO_NOPS(n) ((void)0)
