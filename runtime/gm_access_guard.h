// The GM access guard: every GM window a kernel call moves (the kernels' trace hook,
// kernels/host/pto_host.h) must lie inside one mapped block of the run's GM arena, checked before
// the bytes move. Task arguments are offsets the bundle carries; a crafted bundle (checksums
// recomputed) could point a load or store anywhere in the host's memory, so this is what makes
// running an untrusted bundle memory-safe: such a call is refused with a GmError naming the
// kernel, the task and the window, before it reads or writes a byte outside the arena.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/gm_arena.h"

namespace ptoc::runtime {

struct GmGuardContext {
  const GmArena* arena = nullptr;
  const std::string* kernel = nullptr;  // for the message
  uint32_t root_instance = 0, task = 0;
};

// Throws GmError when [addr + min(0, (rows-1)*stride), addr + max(0, (rows-1)*stride) + row_bytes)
// is not inside one mapped block of ctx->arena. Nothing moves when rows or row_bytes is 0.
void check_gm_window(const GmGuardContext& ctx, const void* addr, int64_t rows, int64_t row_bytes,
                     int64_t row_stride, int kind);

// The trace callback form (KernelRunner::GmTraceFn); ctx is a GmGuardContext.
void gm_guard_trace(void* ctx, const void* addr, int64_t rows, int64_t row_bytes, int64_t row_stride, int kind);

}  // namespace ptoc::runtime
