#include "runtime/host_twin.h"

#include <dlfcn.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ptoc::runtime {

namespace fs = std::filesystem;

namespace {

fs::path cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "ptoc" / "twin";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "ptoc" / "twin";
  return fs::temp_directory_path() / "ptoc-twin";
}

bool same_bytes(const fs::path& p, const std::vector<uint8_t>& b) {
  std::error_code ec;
  if (fs::file_size(p, ec) != b.size() || ec) return false;
  std::ifstream f(p, std::ios::binary);
  std::vector<uint8_t> got((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return got == b;
}

// Writes the object once per content; concurrent ptoruns race harmlessly (rename is atomic).
fs::path materialise(const std::vector<uint8_t>& bytes) {
  char name[64];
  std::snprintf(name, sizeof name, "twin-%016llx.so", (unsigned long long)XXH64(bytes.data(), bytes.size(), 0));
  std::error_code ec;
  for (fs::path dir : {cache_dir(), fs::temp_directory_path() / "ptoc-twin"}) {
    fs::create_directories(dir, ec);
    fs::path target = dir / name;
    if (same_bytes(target, bytes)) return target;
    fs::path tmp = target;
    tmp += ".tmp." + std::to_string(::getpid());
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      if (!f) continue;
      f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
      if (!f) continue;
    }
    fs::rename(tmp, target, ec);
    if (!ec) return target;
    fs::remove(tmp, ec);
  }
  throw HostTwinError("cannot write the host twin to " + cache_dir().string() +
                      " or the temp directory: set XDG_CACHE_HOME to a writable folder");
}

}  // namespace

HostTwin::HostTwin(const std::vector<uint8_t>& so_bytes, const std::vector<Kernel>& kernels) {
  if (so_bytes.empty())
    throw HostTwinError("the bundle has no compiled host twin: recompile it with ptoc --host-twin=cce "
                        "(needs g++ or clang++), or run its leaf programs (the default, without --twin=cce)");
  path_ = materialise(so_bytes).string();
  open(kernels);
}

HostTwin::HostTwin(const std::string& so_path, const std::vector<Kernel>& kernels) : path_(so_path) { open(kernels); }

void HostTwin::open(const std::vector<Kernel>& kernels) {
  handle_ = ::dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* e = ::dlerror();
    throw HostTwinError("cannot load the host twin " + path_ + ": " + (e ? e : "unknown error") +
                        " (was the bundle built for another host architecture or C library?)");
  }
  for (auto& k : kernels) {
    ::dlerror();
    void* sym = ::dlsym(handle_, k.name.c_str());
    if (!sym) {
      ::dlclose(handle_);
      handle_ = nullptr;
      throw HostTwinError("the host twin " + path_ + " has no kernel '" + k.name +
                          "': the bundle is inconsistent, recompile it with ptoc");
    }
    fns_.push_back(reinterpret_cast<PtoKernelFn>(sym));
  }
  ::dlerror();
  set_gm_trace_ = reinterpret_cast<SetGmTraceFn>(::dlsym(handle_, "pto_host_set_gm_trace"));
}

HostTwin::~HostTwin() {
  if (handle_) ::dlclose(handle_);
}

}  // namespace ptoc::runtime
