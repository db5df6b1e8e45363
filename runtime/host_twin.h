// The host twin: the bundle's shared object, loaded with dlopen, one function
// pointer per kernel (CompiledProgram::kernels order).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "kernels/pto_abi.h"
#include "runtime/kernel_runner.h"

namespace ptoc::runtime {

struct HostTwinError : std::runtime_error {
  using std::runtime_error::runtime_error;  // what could not be loaded, and why
};

class HostTwin : public KernelRunner {
 public:
  // Writes `so_bytes` to a content-addressed file under $XDG_CACHE_HOME/ptoc/twin (or
  // ~/.cache, or the temp directory), dlopens it and resolves every kernel by name.
  HostTwin(const std::vector<uint8_t>& so_bytes, const std::vector<Kernel>& kernels);
  // Loads an existing shared object file (tests, and twins built outside a bundle).
  HostTwin(const std::string& so_path, const std::vector<Kernel>& kernels);
  ~HostTwin();
  HostTwin(const HostTwin&) = delete;
  HostTwin& operator=(const HostTwin&) = delete;

  PtoKernelFn kernel(int index) const { return fns_.at(size_t(index)); }
  void run(int index, const PtoKernelArgs* args) const override { fns_.at(size_t(index))(args); }
  bool can_trace_gm() const override { return set_gm_trace_ != nullptr; }
  void set_gm_trace(GmTraceFn fn, void* ctx) const override { if (set_gm_trace_) set_gm_trace_(fn, ctx); }
  // The twin's GM access recorder switch (kernels/host/pto_host.h), or null for a twin built
  // before it existed. fn(ctx, host address, rows, row bytes, row stride bytes, kind 0 read / 1 write / 2 atomic add).
  using SetGmTraceFn = void (*)(GmTraceFn fn, void* ctx);
  SetGmTraceFn gm_trace_switch() const { return set_gm_trace_; }
  const std::string& path() const { return path_; }

 private:
  void open(const std::vector<Kernel>& kernels);
  std::string path_;
  void* handle_ = nullptr;
  std::vector<PtoKernelFn> fns_;
  SetGmTraceFn set_gm_trace_ = nullptr;
};

}  // namespace ptoc::runtime
