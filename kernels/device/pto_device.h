// Device mapping, part 1: element types, memory qualifiers, the kernel entry
// and the sync macros over CCE (bisheng -x cce). Included by
// kernels/pto_tile.h when PTO_HOST is not defined; never include it directly.
//
// This side cannot be compiled or run without a CANN toolkit; it follows the
// documented CCE intrinsics (copy_gm_to_ubuf, vadd, load_cbuf_to_ca, mmad,
// copy_matrix_cc_to_gm, set_flag, ...) and keeps every device detail here so
// that a fix on real hardware touches no other file.
#pragma once

#include <stdint.h>

#define PTO_INLINE __aicore__ inline
#define PTO_GM_Q __gm__
#define PTO_UB_Q __ubuf__
#define PTO_L1_Q __cbuf__
#define PTO_L0A_Q __ca__
#define PTO_L0B_Q __cb__
#define PTO_L0C_Q __cc__

typedef float pto_f32;
typedef half pto_f16;
typedef bfloat16_t pto_bf16;
typedef int32_t pto_i32;
typedef int64_t pto_i64;
typedef int16_t pto_i16;
typedef uint16_t pto_u16;
typedef uint32_t pto_u32;
typedef uint64_t pto_u64;
typedef int8_t pto_i8;
typedef uint8_t pto_u8;
typedef uint8_t pto_bool;  // 0 / 1 bytes; shares uint8_t's type on the device
// The 8-bit floats by the CANN names PyPTO's data_type.h gives them (Ascend 950 only).
typedef float8_e4m3_t pto_f8e4m3;
typedef float8_e5m2_t pto_f8e5m2;
typedef float8_e8m0_t pto_f8e8m0;

// The runtime passes the PtoKernelArgs block in GM.
#define PTO_KERNEL(name) \
  extern "C" __global__ __aicore__ void name(__gm__ const PtoKernelArgs* pto_args)

#define PTO_GM(T, slot) ((__gm__ T*)(pto_args->gm[(slot)]))
#define PTO_ARG(i) ((int64_t)(pto_args->args[(i)]))
#define PTO_WORKSPACE(T) ((__gm__ T*)(pto_args->workspace))

// Local memories are addressed from 0 in their own address spaces.
#define PTO_UB(T, addr) ((__ubuf__ T*)get_imm((uint64_t)(addr)))
#define PTO_L1(T, addr) ((__cbuf__ T*)get_imm((uint64_t)(addr)))
#define PTO_L0A(T, addr) ((__ca__ T*)get_imm((uint64_t)(addr)))
#define PTO_L0B(T, addr) ((__cb__ T*)get_imm((uint64_t)(addr)))
#define PTO_L0C(T, addr) ((__cc__ T*)get_imm((uint64_t)(addr)))

#define PTO_SET_FLAG(src, dst, id) set_flag(PIPE_##src, PIPE_##dst, EVENT_ID##id)
#define PTO_WAIT_FLAG(src, dst, id) wait_flag(PIPE_##src, PIPE_##dst, EVENT_ID##id)
#define PTO_PIPE_BARRIER(pipe) pipe_barrier(PIPE_##pipe)
// PMU trace (950): bisheng::cce::mark_stamp<PIPE, id>(), id < 4096.
#define PTO_MARK_STAMP(pipe, id) bisheng::cce::mark_stamp<PIPE_##pipe, (id)>()
#define PTO_NOPS(n)                                   \
  do {                                                \
    for (int pto_nop_i = 0; pto_nop_i < (n); ++pto_nop_i) __asm__ __volatile__("nop"); \
  } while (0)
