// The host twin build: the generated CCE kernels compiled with the host C++
// compiler against kernels/ (with -DPTO_HOST) into ONE shared object whose
// bytes go into the bundle; ptorun dlopens it and calls each kernel by name.
//
// Content-hash cache in $XDG_CACHE_HOME/ptoc (default ~/.cache/ptoc): one
// object file per kernel (key: compiler identity, flags, kernels/ headers,
// kernel name and source) and one shared object per kernel set, so an edit
// recompiles only the kernels that changed and an unchanged rebuild runs no
// compiler at all. Kernels compile in parallel.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"

namespace ptoc::codegen {

struct KernelSource {
  std::string name;    // the extern "C" symbol the source defines (also its file name)
  std::string source;  // CCE text including kernels/pto_tile.h
};

struct HostBuildOptions {
  int jobs = 0;                            // parallel compiles; 0 = all cores
  std::string compiler;                    // empty: $CXX, else c++, g++, clang++ on PATH
  std::string kernels_dir;                 // empty: kernels_include_dir()
  std::string cache_dir;                   // empty: host_cache_dir()
  bool use_cache = true;                   // false: build in a temporary directory, keep nothing
  std::vector<std::string> extra_flags;    // appended to the compile flags (part of the cache key)
};

struct HostBuildStats {
  int kernels = 0;
  int compiled = 0;          // kernels compiled by this build
  int object_hits = 0;       // kernels whose object came from the cache
  bool library_hit = false;  // the shared object came from the cache (no compile, no link)
  bool linked = false;
  double seconds = 0;
};

struct HostBuildResult {
  bool ok = false;
  std::string error;               // what failed, with the compiler's output
  std::vector<uint8_t> library;    // the shared object's bytes
  std::string compiler;            // the compiler used (full path)
  uint64_t key = 0;                // content hash of the shared object
  HostBuildStats stats;
};

// Builds the host twin of `kernels`. Never throws for user or environment
// problems: `ok` is false and `error` says what happened and how to fix it.
HostBuildResult build_host_twin(const std::vector<KernelSource>& kernels, const HostBuildOptions& opts = {});
HostBuildResult build_host_twin(const std::vector<Kernel>& kernels, const HostBuildOptions& opts = {});

// The host C++ compiler: `explicit_cxx` if given, else $CXX, else c++, g++,
// clang++ on PATH. On failure returns nullopt and sets `tried` to a sentence
// naming what was tried ("$CXX is not set; c++, g++, clang++ are not on PATH").
std::optional<std::string> find_host_compiler(const std::string& explicit_cxx, std::string& tried);
std::optional<std::string> find_host_compiler(const std::string& explicit_cxx, const char* cxx_env,
                                              const std::string& path_env, std::string& tried);

// The directory holding pto_tile.h: $PTOC_KERNELS_DIR, else the source tree's
// kernels/ (PTOC_SOURCE_ROOT) when it exists, else the installed include dir.
std::string kernels_include_dir();
// Every header under a kernels dir, sorted (for cache keys and depfiles).
std::vector<std::string> kernels_header_files(const std::string& kernels_dir);

// $XDG_CACHE_HOME/ptoc, else $HOME/.cache/ptoc.
std::string host_cache_dir();

// Compiler invocations (compiles and links) by this process so far: tests
// assert that a cached rebuild adds none.
int64_t host_compiler_invocations();

// The flags of every host-twin compile with `compiler` (GCC gets
// -fvect-cost-model=dynamic: its -O2 default does not vectorize loops with a
// run-time trip count, which is every tile loop over a valid extent).
std::vector<std::string> host_compile_flags(const std::string& compiler);

}  // namespace ptoc::codegen
