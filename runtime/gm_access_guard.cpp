#include "runtime/gm_access_guard.h"

namespace ptoc::runtime {

void check_gm_window(const GmGuardContext& ctx, const void* addr, int64_t rows, int64_t row_bytes,
                     int64_t row_stride, int kind) {
  if (rows <= 0 || row_bytes <= 0) return;
  int64_t span = 0, lo = 0, hi = 0;
  bool bad = __builtin_mul_overflow(rows - 1, row_stride, &span);
  if (!bad) {
    lo = span < 0 ? span : 0;
    bad = __builtin_add_overflow(span > 0 ? span : 0, row_bytes, &hi);
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(addr);
  uintptr_t first = 0;
  if (!bad) {
    first = base + uintptr_t(lo);  // lo <= 0: wraps only when the window starts below address 0
    bad = lo < 0 && uintptr_t(-lo) > base;
  }
  uint64_t v = 0;
  if (!bad) {
    v = ctx.arena->virtual_of(reinterpret_cast<const void*>(first));
    bad = v == 0 || !ctx.arena->contains(v, uint64_t(hi - lo));
  }
  if (!bad) return;
  const char* what = kind == 0 ? "read" : kind == 2 ? "atomic add" : "write";
  throw GmError("kernel '" + (ctx.kernel ? *ctx.kernel : std::string("?")) + "' (task " + std::to_string(ctx.task) +
                " of root instance " + std::to_string(ctx.root_instance) + "): a GM " + what + " of " +
                std::to_string(rows) + " rows x " + std::to_string(row_bytes) + " bytes (row stride " +
                std::to_string(row_stride) +
                " bytes) lies outside every GM tensor of the run; its task arguments are corrupted, the bundle is "
                "refused (recompile the spec)");
}

void gm_guard_trace(void* ctx, const void* addr, int64_t rows, int64_t row_bytes, int64_t row_stride, int kind) {
  check_gm_window(*static_cast<const GmGuardContext*>(ctx), addr, rows, row_bytes, row_stride, kind);
}

}  // namespace ptoc::runtime
