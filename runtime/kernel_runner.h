// What the executor calls a kernel through: the compiled host twin (a dlopened
// shared object, runtime/host_twin.h) or the leaf-program executor (the same
// kernels/host function bodies compiled into ptorun, runtime/leaf_exec.h).
#pragma once
#include <cstdint>

#include "kernels/pto_abi.h"

namespace ptoc::runtime {

class KernelRunner {
 public:
  virtual ~KernelRunner() = default;
  // Runs kernel `index` (CompiledProgram::kernels order) on the calling thread.
  virtual void run(int index, const PtoKernelArgs* args) const = 0;
  // The GM access recorder of the calling thread (kernels/host/pto_host.h):
  // fn(ctx, host address, rows, row bytes, row stride bytes, kind 0 read / 1 write / 2 atomic add).
  using GmTraceFn = void (*)(void* ctx, const void* addr, int64_t rows, int64_t row_bytes, int64_t row_stride, int kind);
  // Installs (fn non-null) or removes the recorder; false when this runner cannot record.
  virtual bool can_trace_gm() const = 0;
  virtual void set_gm_trace(GmTraceFn fn, void* ctx) const = 0;
};

}  // namespace ptoc::runtime
