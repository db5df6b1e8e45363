// The tile-operation library that generated kernels call: one header, two
// implementations. Every kernel ptoc generates includes only this file and
// compiles twice from the very same text:
//   - for the device with bisheng (`-x cce`): the calls map to CCE intrinsics
//     (kernels/device/pto_device.h, best effort, untested without a toolkit);
//   - for the host with `-DPTO_HOST`: the calls map to plain C++ over
//     thread-local arrays standing in for the core's local memories
//     (kernels/host/pto_host.h). This is the "host twin" ptorun executes.
//
// ---------------------------------------------------------------------------
// Conventions (the contract between codegen and this library)
// ---------------------------------------------------------------------------
// * Element types. Codegen spells tensor dtypes with these names:
//     fp32 -> pto_f32   fp16 -> pto_f16   bf16 -> pto_bf16   int32 -> pto_i32
//     int8 -> pto_i8    uint8 -> pto_u8   bool -> pto_bool  int64 -> pto_i64
//     int16 -> pto_i16  uint16 -> pto_u16 uint32 -> pto_u32 uint64 -> pto_u64
//     fp8e4m3 -> pto_f8e4m3  fp8e5m2 -> pto_f8e5m2  fp8e8m0 -> pto_f8e8m0 (one-byte structs on the host)
//   On the host pto_f16 / pto_bf16 / pto_bool are 16-/16-/8-bit structs holding
//   the raw bits (so templates can tell them apart from integers); on the
//   device they are half / bfloat16_t / uint8_t.
//
// * Kernel entry. A kernel is written
//       PTO_KERNEL(my_kernel_3) { ...body... }
//   which defines `extern "C" void my_kernel_3(const PtoKernelArgs*)` (the ABI
//   of kernels/pto_abi.h; `__global__ __aicore__` on the device). Inside the
//   body: PTO_GM(T, slot) is the typed GM base pointer of argument slot `slot`
//   (already offset to the tensor's start), PTO_ARG(i) the i-th int64 argument
//   (dynamic dims, offsets and valid extents evaluated by the runtime), and
//   PTO_WORKSPACE(T) the scratch GM (may be null).
//
// * Local buffers are raw addresses in the core's memories, bound at the
//   addresses the buffer planner chose:
//       PTO_UB(T, addr)  PTO_L1(T, addr)  PTO_L0A(T, addr)  PTO_L0B(T, addr)  PTO_L0C(T, addr)
//   give a typed pointer (`addr` in bytes from the memory's base). On the host
//   these index thread-local byte arrays sized for the largest platform
//   (UB 256 KiB, L1 512 KiB, L0A 64 KiB, L0B 64 KiB, L0C 256 KiB); a debug host
//   build (-DPTO_HOST_CHECK) checks every tile access stays inside its memory.
//
// * Tiles are 2-D. A tile has a STATIC shape R x C (template parameters; the
//   buffer holds R*C elements, row-major, row stride C) and a DYNAMIC valid
//   extent vr x vc (runtime int64, 0 <= vr <= R, 0 <= vc <= C) for tails. Ops
//   compute the valid region; what lies outside it is padding with unspecified
//   content unless an op says otherwise. Higher-rank tensors are the
//   compiler's business: it folds leading axes into the row axis (a
//   [B, S, H] tile becomes a (B*S) x H tile), and addresses GM boxes with a
//   flat element offset plus a row stride; when a fold is not a plain row
//   stride (a tail on a folded axis), the batched forms TLOAD_B / TSTORE_B
//   take an extra leading batch axis with its own stride.
//   For the device, keep UB tile rows a multiple of 32 bytes (C * sizeof(T))
//   and cube tiles (M, K, N and L1 tiles) multiples of 16; the host twin does
//   not need either.
//
// * Broadcast operands of binary ops are small tiles:
//     PTO_BC_NONE  : an R x C tile like dst, element (i, j) at p[i*C + j]
//     PTO_BC_ROW   : a 1 x C tile (one row repeated down the rows), p[j]
//     PTO_BC_COL   : an R x 1 tile (one value per row, contiguous), p[i]
//     PTO_BC_SCALAR: a 1 x 1 tile, p[0]
//   Reductions along the last axis produce exactly a PTO_BC_COL-shaped tile
//   and reductions along the first axis a PTO_BC_ROW-shaped tile, so
//   softmax-like chains need no reshaping.
//
// * Rounding: every op rounds its result to the element type of its
//   destination (fp16/bf16 round to nearest even from fp32; integer results
//   truncate toward zero and wrap to the type width, except a float ->
//   integer TCAST, which rounds half to even first; bool is x != 0), exactly
//   as ptoc::round_to_dtype in compiler/dtype.h. Float arithmetic is done in
//   fp32; integer arithmetic in double (like the reference evaluator).
//   Matmul accumulates in fp32 in L0C.
//
// * Cube path: GM -> L1 (TLOAD_L1, ND or NZ source, zero padding), L1 -> L0A /
//   L0B sub-tile (TEXTRACT_L0A / TEXTRACT_L0B, optional transpose),
//   L0A x L0B -> L0C fp32 (TMMAD, init or accumulate), L0C -> GM with cast
//   (TFIXPIPE, optional atomic add for split_k). The layout of data inside L1
//   and L0 is implementation-defined (NZ fractals on the device, row-major on
//   the host); a tile of R x C elements of T needs
//   pto_cube_tile_bytes<T>(R, C) bytes there (R and C rounded up to the
//   fractal: 16 rows x 32 bytes).
//
// * Pipes and sync: PTO_SET_FLAG(SRC, DST, ID) / PTO_WAIT_FLAG(SRC, DST, ID)
//   with pipe names MTE1 MTE2 MTE3 M V FIX S and event ids 0..7;
//   PTO_PIPE_BARRIER(PIPE) with PIPE one of those or ALL. On the host the ops
//   run in program order so these are no-ops, except in a -DPTO_HOST_CHECK
//   build where every wait must match an earlier set of the same
//   (SRC, DST, ID) and no flag may stay set when the kernel returns.
//   PTO_MARK_STAMP(PIPE, ID) (PMU trace, id < 4096) and PTO_NOPS(N) emit the
//   950 trace markers on the device and nothing on the host.
#pragma once

#include <stdint.h>

#include "pto_abi.h"

// Operation codes of the generic elementwise and reduction templates.
enum PtoBinOp {
  PTO_ADD, PTO_SUB, PTO_MUL, PTO_DIV, PTO_MAX, PTO_MIN, PTO_POW, PTO_BAND, PTO_BOR, PTO_BXOR,
  // --- math ops ---
  PTO_ATAN2, PTO_FMOD, PTO_REMAINDER, PTO_FLOORDIV, PTO_CEILDIV, PTO_GCD, PTO_SHL, PTO_SHR,
};
enum PtoUnOp {
  PTO_EXP, PTO_LOG, PTO_SQRT, PTO_RSQRT, PTO_ABS, PTO_NEG, PTO_RECIPROCAL,
  PTO_RELU, PTO_SIGMOID, PTO_TANH, PTO_GELU, PTO_SILU,
  PTO_EXP2, PTO_LOG2, PTO_LOG1P, PTO_EXPM1, PTO_SIN, PTO_COS, PTO_ERF,
  PTO_ROUND, PTO_FLOOR, PTO_CEIL, PTO_TRUNC, PTO_SIGN, PTO_BNOT,
  // --- math ops ---
  PTO_ACOS, PTO_ASIN, PTO_ATAN, PTO_ACOSH, PTO_ASINH, PTO_ATANH, PTO_SINH, PTO_COSH, PTO_TAN, PTO_CBRT, PTO_ERFC,
};
enum PtoReduceOp { PTO_RSUM, PTO_RMAX, PTO_RMIN, PTO_RMEAN, PTO_RPROD, PTO_RARGMAX, PTO_RARGMIN };
// Ops with a bool result: comparisons and logical ops of two operands (TCMP), predicates of one (TPRED).
enum PtoCmpOp { PTO_EQ, PTO_NE, PTO_LT, PTO_LE, PTO_GT, PTO_GE, PTO_LAND, PTO_LOR };
enum PtoPredOp {
  PTO_ISFINITE, PTO_LNOT,
  // --- math ops ---
  PTO_SIGNBIT,
};
// The math ops' rules (the evaluator and NumPy references follow them):
// integer PTO_FLOORDIV / PTO_CEILDIV / PTO_REMAINDER by 0 give 0; PTO_REMAINDER
// has the divisor's sign (a - b * floor(a / b)); float PTO_FLOORDIV floors the
// fp32 quotient; PTO_GCD is non-negative (gcd(0, 0) = 0); PTO_SHL by a count
// outside [0, 32) gives 0, PTO_SHR by a count outside [0, 64) gives the sign
// fill (-1 or 0), as NumPy; PTO_SIGNBIT is false for NaN (PyPTO's rule).
enum PtoBroadcast { PTO_BC_NONE, PTO_BC_ROW, PTO_BC_COL, PTO_BC_SCALAR };
enum PtoPad { PTO_PAD_LEAVE, PTO_PAD_ZERO };

#if defined(PTO_HOST)
#include "host/pto_host.h"      // element types, memories, qualifiers, PTO_KERNEL, sync macros
#else
#include "device/pto_device.h"  // the same names over CCE
#endif

// Qualified pointer spellings used below (empty qualifiers on the host).
#define PTO_GM_PTR(T) PTO_GM_Q T*
#define PTO_UB_PTR(T) PTO_UB_Q T*
#define PTO_L1_PTR(T) PTO_L1_Q T*
#define PTO_L0A_PTR(T) PTO_L0A_Q T*
#define PTO_L0B_PTR(T) PTO_L0B_Q T*
#define PTO_L0C_PTR(T) PTO_L0C_Q T*

// Bytes a R x C tile of T occupies in L1 / L0A / L0B (fractal-rounded).
template <typename T>
PTO_INLINE constexpr int64_t pto_cube_tile_bytes(int64_t rows, int64_t cols) {
  return ((rows + 15) / 16 * 16) * ((cols * (int64_t)sizeof(T) + 31) / 32 * 32);
}

// ---------------------------------------------------------------------------
// Vector path: GM <-> UB
// ---------------------------------------------------------------------------

// GM -> UB (pipe MTE2). Loads the vr x vc box whose first element is
// gm[offset] and whose rows are `row_stride` elements apart into the R x C
// tile `dst`. PTO_PAD_ZERO zero-fills the rest of the tile (needed when a
// later op reads padding, e.g. a reduction over the static extent);
// PTO_PAD_LEAVE leaves it untouched.
template <typename T, int R, int C, int PAD = PTO_PAD_LEAVE>
PTO_INLINE void TLOAD(PTO_UB_PTR(T) dst, const PTO_GM_PTR(T) gm, int64_t offset, int64_t row_stride,
                      int64_t vr, int64_t vc);

// Batched GM -> UB: a B x R x C tile (B row-major R x C tiles back to back);
// the vb x vr x vc box starts at gm[offset], batches are `batch_stride`
// elements apart and rows `row_stride` apart.
template <typename T, int B, int R, int C, int PAD = PTO_PAD_LEAVE>
PTO_INLINE void TLOAD_B(PTO_UB_PTR(T) dst, const PTO_GM_PTR(T) gm, int64_t offset, int64_t batch_stride,
                        int64_t row_stride, int64_t vb, int64_t vr, int64_t vc);

// UB -> GM (pipe MTE3). Stores only the valid vr x vc region of `src` to the
// box at gm[offset] with row stride `row_stride`. ATOMIC != 0 adds into GM
// instead of overwriting (atomically with respect to other cores; split_k).
template <typename T, int R, int C, int ATOMIC = 0>
PTO_INLINE void TSTORE(PTO_GM_PTR(T) gm, const PTO_UB_PTR(T) src, int64_t offset, int64_t row_stride,
                       int64_t vr, int64_t vc);

// Batched UB -> GM, the inverse of TLOAD_B.
template <typename T, int B, int R, int C, int ATOMIC = 0>
PTO_INLINE void TSTORE_B(PTO_GM_PTR(T) gm, const PTO_UB_PTR(T) src, int64_t offset, int64_t batch_stride,
                         int64_t row_stride, int64_t vb, int64_t vr, int64_t vc);

// ---------------------------------------------------------------------------
// Vector path: UB -> UB (pipe V). dst may alias a source of the same shape.
// ---------------------------------------------------------------------------

// dst = a OP b over the vr x vc valid region of the R x C tile dst; BA / BB
// say how a and b are broadcast (PTO_BC_*).
template <int OP, typename T, int R, int C, int BA = PTO_BC_NONE, int BB = PTO_BC_NONE>
PTO_INLINE void TBINARY(PTO_UB_PTR(T) dst, const PTO_UB_PTR(T) a, const PTO_UB_PTR(T) b, int64_t vr, int64_t vc);

// dst = a OP s (SCALAR_FIRST = 0) or s OP a (SCALAR_FIRST = 1); the scalar is
// first rounded to T, as the spec says a literal takes the tensor's dtype.
template <int OP, typename T, int R, int C, int SCALAR_FIRST = 0>
PTO_INLINE void TBINARY_S(PTO_UB_PTR(T) dst, const PTO_UB_PTR(T) a, double s, int64_t vr, int64_t vc);

// dst = OP(src). gelu is the tanh form:
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); sigmoid 1 / (1 + exp(-x));
// silu x * sigmoid(x); relu max(x, 0); rsqrt 1 / sqrt(x).
// GELU and SILU need dst != src (the device composes them from a sigmoid
// computed in dst and reads the input again); every other op may alias.
template <int OP, typename T, int R, int C>
PTO_INLINE void TUNARY(PTO_UB_PTR(T) dst, const PTO_UB_PTR(T) src, int64_t vr, int64_t vc);

// Reduction of the vr x vc valid region of an R x C tile along AXIS (1: the
// last axis, dst is an R x 1 tile holding vr values; 0: the first axis, dst is
// a 1 x C tile holding vc values). Padding never enters the result; mean
// divides by the valid count. Floats accumulate in fp32, integers exactly.
template <int OP, typename T, int R, int C, int AXIS>
PTO_INLINE void TREDUCE(PTO_UB_PTR(T) dst, const PTO_UB_PTR(T) src, int64_t vr, int64_t vc);

// Elementwise cast of the valid region: float -> float rounds to nearest
// even; float -> integer rounds to the nearest integer, half to even
// (-155.5 -> -156, 2.5 -> 2), then wraps to the type width (127.5 -> int8
// -128; non-finite -> 0), like NumPy's np.round then astype and the spec's
// `cast`; anything -> bool is x != 0; bool -> number is 0 / 1. (Integer
// arithmetic results, e.g. '/', still truncate toward zero: see Rounding.)
template <typename TD, typename TS, int R, int C>
PTO_INLINE void TCAST(PTO_UB_PTR(TD) dst, const PTO_UB_PTR(TS) src, int64_t vr, int64_t vc);

// 2-D transpose: src is an R x C tile with valid vr x vc; dst is a C x R tile
// (row stride R) and receives the vc x vr transposed region. dst must not
// alias src.
template <typename T, int R, int C>
PTO_INLINE void TTRANSPOSE(PTO_UB_PTR(T) dst, const PTO_UB_PTR(T) src, int64_t vr, int64_t vc);

// dst = a OP b as bool (1 / 0): the comparisons (NaN compares unequal) and
// logical_and / logical_or (operands tested != 0); broadcasts as TBINARY.
template <int OP, typename T, int R, int C, int BA = PTO_BC_NONE, int BB = PTO_BC_NONE>
PTO_INLINE void TCMP(PTO_UB_PTR(pto_bool) dst, const PTO_UB_PTR(T) a, const PTO_UB_PTR(T) b, int64_t vr, int64_t vc);
// dst = a OP s or s OP a as bool; the scalar is first rounded to T.
template <int OP, typename T, int R, int C, int SCALAR_FIRST = 0>
PTO_INLINE void TCMP_S(PTO_UB_PTR(pto_bool) dst, const PTO_UB_PTR(T) a, double s, int64_t vr, int64_t vc);
// dst = OP(src) as bool: isfinite, logical_not (src == 0).
template <int OP, typename T, int R, int C>
PTO_INLINE void TPRED(PTO_UB_PTR(pto_bool) dst, const PTO_UB_PTR(T) src, int64_t vr, int64_t vc);
// dst = cond ? a : b (`where`); BC / BA / BB broadcast cond, a and b as TBINARY's operands.
template <typename T, int R, int C, int BC = PTO_BC_NONE, int BA = PTO_BC_NONE, int BB = PTO_BC_NONE>
PTO_INLINE void TSELECT(PTO_UB_PTR(T) dst, const PTO_UB_PTR(pto_bool) cond, const PTO_UB_PTR(T) a,
                        const PTO_UB_PTR(T) b, int64_t vr, int64_t vc);
// Index reduction (argmax / argmin) of the valid region along AXIS, as TREDUCE,
// into int32 indices: the first index of the extreme; a NaN wins at its first place.
template <int OP, typename T, int R, int C, int AXIS>
PTO_INLINE void TARGREDUCE(PTO_UB_PTR(int32_t) dst, const PTO_UB_PTR(T) src, int64_t vr, int64_t vc);

// Fill the vr x vc region of an R x C tile with `value` rounded to T (`full`).
template <typename T, int R, int C>
PTO_INLINE void TFILL(PTO_UB_PTR(T) dst, double value, int64_t vr, int64_t vc);

// Copy the vr x vc valid region of the RS x CS tile src into the RD x CD tile
// dst at (row_off, col_off) (concat, and any UB -> UB move).
template <typename T, int RS, int CS, int RD, int CD>
PTO_INLINE void TCOPY(PTO_UB_PTR(T) dst, const PTO_UB_PTR(T) src, int64_t vr, int64_t vc, int64_t row_off,
                      int64_t col_off);

// Strided 2-D copy: dst[i * DS0 + j * DS1] = src[i * SS0 + j * SS1] for
// i < n0, j < n1 (element strides; dst must not alias src). The codegen
// writes a transpose of any two axes of a higher-rank tile as loops over the
// other axes around this copy (a plane of the tile to its permuted place);
// DS1 == SS1 == 1 is a row copy, DS1 != 1 a 2-D transpose inside the plane.
template <typename T, int DS0, int DS1, int SS0, int SS1>
PTO_INLINE void TCOPY2D(PTO_UB_PTR(T) dst, const PTO_UB_PTR(T) src, int64_t n0, int64_t n1);

// ---------------------------------------------------------------------------
// Cube path
// ---------------------------------------------------------------------------

// GM -> L1 (pipe MTE2), for matmul operands. Loads the vr x vc box of a
// matrix into the R x C L1 tile and zero-fills the rest of the tile. The
// matrix starts at gm[offset]; the box's top-left element is (row0, col0).
//   SRC_NZ = 0: the matrix is ND (row-major, `ld` elements per row).
//   SRC_NZ = 1: the matrix is stored FRACTAL_NZ: 16 x C0 fractals (C0 = 32 /
//     sizeof(T)), row-major inside a fractal, fractals column-major, `ld` =
//     the matrix row count rounded up to 16: element (r, c) is at
//     (c / C0) * ld * C0 + r * C0 + c % C0.
template <typename T, int R, int C, int SRC_NZ = 0>
PTO_INLINE void TLOAD_L1(PTO_L1_PTR(T) dst, const PTO_GM_PTR(T) gm, int64_t offset, int64_t row0, int64_t col0,
                         int64_t ld, int64_t vr, int64_t vc);

// L1 -> L0A (pipe MTE1): the M x K left operand taken from the RL1 x CL1 L1
// tile. TRANS = 0: element (i, k) is L1 element (row_off + i, col_off + k).
// TRANS = 1 (the L1 tile holds A transposed, K x M): element (i, k) is L1
// element (row_off + k, col_off + i).
template <typename T, int RL1, int CL1, int M, int K, int TRANS = 0>
PTO_INLINE void TEXTRACT_L0A(PTO_L0A_PTR(T) dst, const PTO_L1_PTR(T) src, int64_t row_off, int64_t col_off);

// L1 -> L0B (pipe MTE1): the K x N right operand. TRANS = 0: element (k, j)
// is L1 element (row_off + k, col_off + j); TRANS = 1 (the L1 tile holds B
// transposed, N x K): element (k, j) is L1 element (row_off + j, col_off + k).
template <typename T, int RL1, int CL1, int K, int N, int TRANS = 0>
PTO_INLINE void TEXTRACT_L0B(PTO_L0B_PTR(T) dst, const PTO_L1_PTR(T) src, int64_t row_off, int64_t col_off);

// L0A x L0B -> L0C (pipe M): c[vm x vn] (=|+=) a[vm x vk] * b[vk x vn], fp32
// accumulation, for T in fp16 / bf16 / fp32 (products exact in fp32 for the
// 16-bit types, summed in fp32). INIT != 0 overwrites c (first k step),
// INIT == 0 accumulates. c is an M x N fp32 tile.
// TC is float, or int32_t for int8 operands (int8 x int8 accumulates exactly in int32).
template <typename T, int M, int K, int N, typename TC>
PTO_INLINE void TMMAD(PTO_L0C_PTR(TC) c, const PTO_L0A_PTR(T) a, const PTO_L0B_PTR(T) b, int64_t vm,
                      int64_t vk, int64_t vn, int init);

// L0C -> GM (pipe FIX): writes the vm x vn valid region of the M x N fp32 L0C
// tile to the box at gm[offset] (row stride `row_stride`), cast to TD (fp32,
// fp16 or bf16, round to nearest even). ATOMIC != 0 adds into GM (split_k
// partial sums, fp32 only).
// TC as for TMMAD; TD is int32 exactly when TC is (an int8 matmul's result moves out as it is).
template <typename TD, int M, int N, int ATOMIC = 0, typename TC = float>
PTO_INLINE void TFIXPIPE(PTO_GM_PTR(TD) gm, const PTO_L0C_PTR(TC) c, int64_t offset, int64_t row_stride,
                         int64_t vm, int64_t vn);

// --- random ops --- PyPTO's uniform (MODE 0) / normal (MODE 1): Philox 4x32-10 under the 64-bit key
// (key_hi:key_lo), counter (index / 4, 0, ctr_hi:ctr_lo) as TensorFlow lays it out; each element of the
// vr x vc valid region from its global element index in idx (int32), so tiling never changes a value.
// TD is fp32, fp16 or bf16 (kernels/host/pto_host_random.h says the float conversion).
template <typename TD, int R, int C, int MODE>
PTO_INLINE void TRANDOM(PTO_UB_PTR(TD) dst, const PTO_UB_PTR(int32_t) idx, int64_t vr, int64_t vc, int64_t key_lo,
                        int64_t key_hi, int64_t ctr_lo, int64_t ctr_hi);

// --- pack / unpack --- the vr rows of src read as TD: CS * sizeof(TS) == CD * sizeof(TD) bytes a row,
// vc source elements of each copied bit for bit (PyPTO's pack / unpack).
template <typename TD, typename TS, int R, int CD, int CS>
PTO_INLINE void TBITCAST(PTO_UB_PTR(TD) dst, const PTO_UB_PTR(TS) src, int64_t vr, int64_t vc);

// --- sort --- per valid row, the first K of a sort of the vc valid elements (larger first when LARGEST,
// NaN above every number, equal values by the lower index) as values (OUT_INDEX 0, TD = T) or int32
// indices (OUT_INDEX 1, TD = int32); rows with fewer than K candidates padded with the lowest (highest)
// value of T and index -1. TSORT_IDX merges candidates carrying their original index in idx (negative:
// a pad, not a candidate); TSORT reports column j as BASE + j. dst is R x K (row stride K). PyPTO's topk / argsort (MERGE_SORT).
template <typename TD, typename T, int R, int C, int K, int LARGEST, int OUT_INDEX, int BASE>
PTO_INLINE void TSORT(PTO_UB_PTR(TD) dst, const PTO_UB_PTR(T) src, int64_t vr, int64_t vc);
template <typename TD, typename T, int R, int C, int K, int LARGEST, int OUT_INDEX, int BASE>
PTO_INLINE void TSORT_IDX(PTO_UB_PTR(TD) dst, const PTO_UB_PTR(T) src, const PTO_UB_PTR(int32_t) idx, int64_t vr,
                          int64_t vc);

#if defined(PTO_HOST)
#include "host/pto_host_ops.h"
#else
#include "device/pto_device_ops.h"
#endif
#if defined(PTO_HOST)
#include "host/pto_host_random.h"  // --- random ops ---
#include "host/pto_host_bitcast.h"  // --- pack / unpack ---
#include "host/pto_host_sort.h"  // --- sort ---
#else
#include "device/pto_device_random.h"  // --- random ops ---
#include "device/pto_device_bitcast.h"  // --- pack / unpack ---
#include "device/pto_device_sort.h"  // --- sort ---
#endif
