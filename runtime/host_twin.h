// The host twin: the bundle's shared object, loaded with dlopen, one function
// pointer per kernel (CompiledProgram::kernels order).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "kernels/pto_abi.h"

namespace ptoc::runtime {

struct HostTwinError : std::runtime_error {
  using std::runtime_error::runtime_error;  // what could not be loaded, and why
};

class HostTwin {
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
  const std::string& path() const { return path_; }

 private:
  void open(const std::vector<Kernel>& kernels);
  std::string path_;
  void* handle_ = nullptr;
  std::vector<PtoKernelFn> fns_;
};

}  // namespace ptoc::runtime
