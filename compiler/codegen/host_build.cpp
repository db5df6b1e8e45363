#include "host_build.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY  // XXH64_state_t on the stack
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "run_process.h"

#ifndef PTOC_SOURCE_ROOT
#define PTOC_SOURCE_ROOT ""
#endif
#ifndef PTOC_KERNELS_INSTALL_DIR
#define PTOC_KERNELS_INSTALL_DIR ""
#endif

namespace fs = std::filesystem;

namespace ptoc::codegen {

namespace {

std::atomic<int64_t> g_invocations{0};

// Incremental xxhash64 over length-prefixed fields (so "ab"+"c" != "a"+"bc").
class Hasher {
 public:
  Hasher() { XXH64_reset(&st_, 0x70746f63ull); }
  Hasher& add(const std::string& s) {
    uint64_t n = s.size();
    XXH64_update(&st_, &n, sizeof n);
    XXH64_update(&st_, s.data(), s.size());
    return *this;
  }
  Hasher& add(uint64_t v) {
    XXH64_update(&st_, &v, sizeof v);
    return *this;
  }
  uint64_t digest() { return XXH64_digest(&st_); }

 private:
  XXH64_state_t st_;
};

std::string hex(uint64_t v) {
  char b[17];
  snprintf(b, sizeof b, "%016llx", (unsigned long long)v);
  return b;
}

bool read_file(const fs::path& p, std::string& out) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return bool(f) || f.eof();
}

bool write_file_atomic(const fs::path& p, const std::string& data) {
  static std::atomic<int> counter{0};
  fs::path tmp = p;
  tmp += ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) return false;
    f.write(data.data(), std::streamsize(data.size()));
    if (!f) return false;
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

// The identity of a compiler binary without running it: resolved path, size
// and modification time (an upgrade changes at least one).
std::string compiler_identity(const std::string& path) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  if (ec) real = path;
  struct stat st {};
  stat(real.c_str(), &st);
  return real.string() + "|" + std::to_string((long long)st.st_size) + "|" +
         std::to_string((long long)st.st_mtim.tv_sec) + "." + std::to_string((long long)st.st_mtim.tv_nsec);
}

std::string tail(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  return "...\n" + s.substr(s.size() - max);
}

// A kernel name is a C identifier: it becomes a symbol and a file name.
bool valid_symbol(const std::string& n) {
  if (n.empty() || !(isalpha((unsigned char)n[0]) || n[0] == '_')) return false;
  return std::all_of(n.begin(), n.end(), [](char c) { return isalnum((unsigned char)c) || c == '_'; });
}

struct TempDir {
  fs::path path;
  TempDir() {
    const char* t = getenv("TMPDIR");
    std::string templ = std::string(t && *t ? t : "/tmp") + "/ptoc-host-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back(0);
    if (mkdtemp(buf.data())) path = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

}  // namespace

std::vector<std::string> host_compile_flags(const std::string& compiler) {
  // -ffp-contract=off: no fused multiply-add, so the host twin computes the
  // same bits on every x86 machine (and as the scalar reference in the tests).
  // -fno-trapping-math: FP exceptions are not observed, so the fp16/bf16
  // conversions' selects vectorize (rounding is unchanged).
  std::vector<std::string> flags = {"-O2", "-fPIC", "-DPTO_HOST", "-std=c++20", "-ffp-contract=off",
                                    "-fno-trapping-math", "-fvisibility=hidden", "-fvisibility-inlines-hidden"};
  std::error_code ec;
  fs::path real = fs::canonical(compiler, ec);
  const std::string name = (ec ? fs::path(compiler) : real).filename().string();
  if (name.find("clang") == std::string::npos) flags.push_back("-fvect-cost-model=dynamic");
  return flags;
}

int64_t host_compiler_invocations() { return g_invocations.load(); }

std::optional<std::string> find_host_compiler(const std::string& explicit_cxx, const char* cxx_env,
                                              const std::string& path_env, std::string& tried) {
  if (!explicit_cxx.empty()) {
    if (auto p = find_executable(explicit_cxx, path_env)) return p;
    tried = "the compiler given (" + explicit_cxx + ") was not found or is not executable";
    return std::nullopt;
  }
  std::string what;
  if (cxx_env && *cxx_env) {
    // $CXX may carry arguments ("ccache g++"); the first word is the program.
    std::string first = cxx_env;
    first = first.substr(0, first.find_first_of(" \t"));
    if (auto p = find_executable(first, path_env)) return p;
    what = "$CXX (" + std::string(cxx_env) + ") was not found";
  } else {
    what = "$CXX is not set";
  }
  for (const char* c : {"c++", "g++", "clang++"})
    if (auto p = find_executable(c, path_env)) return p;
  tried = what + "; c++, g++ and clang++ are not on PATH";
  return std::nullopt;
}

std::optional<std::string> find_host_compiler(const std::string& explicit_cxx, std::string& tried) {
  const char* path = getenv("PATH");
  return find_host_compiler(explicit_cxx, getenv("CXX"), path ? path : "", tried);
}

std::string kernels_include_dir() {
  if (const char* e = getenv("PTOC_KERNELS_DIR"); e && *e) return e;
  std::error_code ec;
  std::string src = std::string(PTOC_SOURCE_ROOT) + "/kernels";
  if (*PTOC_SOURCE_ROOT && fs::exists(src + "/pto_tile.h", ec)) return src;
  std::string inst = PTOC_KERNELS_INSTALL_DIR;
  if (!inst.empty() && fs::exists(inst + "/pto_tile.h", ec)) return inst;
  return src;
}

std::vector<std::string> kernels_header_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string ext = it->path().extension().string();
    if (ext == ".h" || ext == ".hpp") out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string host_cache_dir() {
  // The XDG base directory spec: a relative XDG_CACHE_HOME is invalid and ignored (g++ runs in a
  // temporary folder, where a relative path would name another place).
  if (const char* x = getenv("XDG_CACHE_HOME"); x && *x == '/') return std::string(x) + "/ptoc";
  if (const char* h = getenv("HOME"); h && *h) return std::string(h) + "/.cache/ptoc";
  return "/tmp/ptoc-cache-" + std::to_string(getuid());
}

HostBuildResult build_host_twin(const std::vector<Kernel>& kernels, const HostBuildOptions& opts) {
  std::vector<KernelSource> ks;
  ks.reserve(kernels.size());
  for (const Kernel& k : kernels) ks.push_back({k.name, k.source});
  return build_host_twin(ks, opts);
}

HostBuildResult build_host_twin(const std::vector<KernelSource>& kernels_in, const HostBuildOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  HostBuildResult res;
  auto finish = [&]() -> HostBuildResult& {
    res.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  };

  // An empty kernel set still gives a loadable library.
  std::vector<KernelSource> kernels = kernels_in;
  if (kernels.empty()) kernels.push_back({"ptoc_host_twin_empty", "// no kernels\n"});
  res.stats.kernels = int(kernels_in.size());

  std::set<std::string> names;
  for (const KernelSource& k : kernels) {
    if (!valid_symbol(k.name)) {
      res.error = "host twin: kernel name '" + k.name + "' is not a C identifier";
      return finish();
    }
    if (!names.insert(k.name).second) {
      res.error = "host twin: two kernels are named '" + k.name + "'";
      return finish();
    }
  }

  std::string tried;
  auto cxx = find_host_compiler(opts.compiler, tried);
  if (!cxx) {
    res.error = "no host C++ compiler found: " + tried +
                ". Install g++ or clang++, or set CXX to the compiler to use.";
    return finish();
  }
  res.compiler = *cxx;

  const std::string kdir = opts.kernels_dir.empty() ? kernels_include_dir() : opts.kernels_dir;
  std::error_code ec;
  if (!fs::exists(fs::path(kdir) / "pto_tile.h", ec)) {
    res.error = "host twin: the tile library is not at " + kdir +
                " (no pto_tile.h there); set PTOC_KERNELS_DIR to the directory holding kernels/pto_tile.h";
    return finish();
  }
  const std::string kdir_abs = fs::absolute(kdir, ec).lexically_normal().string();

  std::vector<std::string> flags = host_compile_flags(*cxx);
  flags.insert(flags.end(), opts.extra_flags.begin(), opts.extra_flags.end());

  // Everything a compiled object depends on, except its own source.
  Hasher base;
  base.add(std::string("ptoc-host-twin-v1")).add(compiler_identity(*cxx));
  for (const std::string& f : flags) base.add(f);
  for (const std::string& h : kernels_header_files(kdir)) {
    std::string text;
    read_file(h, text);
    base.add(fs::relative(h, kdir, ec).string()).add(text);
  }
  const uint64_t base_key = base.digest();

  std::vector<uint64_t> obj_keys;
  Hasher lib;
  lib.add(base_key);
  for (const KernelSource& k : kernels) {
    obj_keys.push_back(Hasher().add(base_key).add(k.name).add(k.source).digest());
    lib.add(obj_keys.back());
  }
  res.key = lib.digest();

  // Where objects and the library live: the cache, or a temporary directory.
  TempDir work;
  if (work.path.empty()) {
    res.error = "host twin: cannot create a temporary directory (check TMPDIR)";
    return finish();
  }
  fs::path obj_dir, lib_dir;
  if (opts.use_cache) {
    fs::path cache = opts.cache_dir.empty() ? fs::path(host_cache_dir()) : fs::path(opts.cache_dir);
    obj_dir = cache / "obj";
    lib_dir = cache / "lib";
    fs::create_directories(obj_dir, ec);
    fs::create_directories(lib_dir, ec);
    if (ec) {
      res.error = "host twin: cannot create the cache directory " + cache.string() + ": " + ec.message() +
                  " (set XDG_CACHE_HOME to a writable directory)";
      return finish();
    }
  } else {
    obj_dir = lib_dir = work.path;
  }

  const fs::path lib_path = lib_dir / (hex(res.key) + ".so");
  if (opts.use_cache) {
    std::string bytes;
    if (fs::exists(lib_path, ec) && read_file(lib_path, bytes) && !bytes.empty()) {
      res.library.assign(bytes.begin(), bytes.end());
      res.stats.library_hit = true;
      res.stats.object_hits = int(kernels_in.size());
      res.ok = true;
      return finish();
    }
  }

  // Compile the kernels whose objects are missing, in parallel.
  std::vector<size_t> todo;
  std::vector<fs::path> obj_paths;
  for (size_t i = 0; i < kernels.size(); ++i) {
    obj_paths.push_back(obj_dir / (hex(obj_keys[i]) + ".o"));
    if (opts.use_cache && fs::exists(obj_paths.back(), ec)) {
      if (i < kernels_in.size()) ++res.stats.object_hits;
    } else {
      todo.push_back(i);
    }
  }
  int jobs = opts.jobs > 0 ? opts.jobs : int(std::max(1u, std::thread::hardware_concurrency()));
  jobs = std::min<int>(jobs, int(todo.size()));
  std::atomic<size_t> next{0};
  std::mutex err_mu;
  std::string first_error;
  auto worker = [&] {
    for (;;) {
      size_t t = next++;
      if (t >= todo.size()) return;
      {
        std::lock_guard<std::mutex> lk(err_mu);
        if (!first_error.empty()) return;
      }
      const KernelSource& k = kernels[todo[t]];
      const std::string src_name = k.name + ".cpp";
      if (!write_file_atomic(work.path / src_name, k.source)) {
        std::lock_guard<std::mutex> lk(err_mu);
        if (first_error.empty()) first_error = "host twin: cannot write " + (work.path / src_name).string();
        return;
      }
      // Compile in the work dir with a relative source name: the object then
      // does not depend on where the temporary directory was.
      fs::path out = obj_paths[todo[t]];
      fs::path tmp_out = out;
      tmp_out += ".tmp." + std::to_string(getpid()) + "." + std::to_string(t);
      std::vector<std::string> argv = {*cxx};
      argv.insert(argv.end(), flags.begin(), flags.end());
      argv.insert(argv.end(), {"-I" + kdir_abs, "-I" + fs::path(kdir_abs).parent_path().string(), "-c", src_name,
                               "-o", tmp_out.string()});
      ++g_invocations;
      ProcessResult pr = run_process(argv, work.path.string());
      if (!pr.ok()) {
        fs::remove(tmp_out, ec);
        std::lock_guard<std::mutex> lk(err_mu);
        if (first_error.empty())
          first_error = "host twin: compiling kernel " + k.name + " failed (" + join_command(argv) + "):\n" +
                        tail(pr.output, 8000);
        return;
      }
      fs::rename(tmp_out, out, ec);
      if (ec) {
        std::lock_guard<std::mutex> lk(err_mu);
        if (first_error.empty()) first_error = "host twin: cannot store " + out.string() + ": " + ec.message();
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < jobs; ++i) pool.emplace_back(worker);
  if (jobs > 0) worker();
  for (std::thread& th : pool) th.join();
  if (!first_error.empty()) {
    res.error = first_error;
    return finish();
  }
  for (size_t i : todo)
    if (i < kernels_in.size()) ++res.stats.compiled;

  // Link, then publish the library into the cache atomically.
  fs::path tmp_lib = lib_path;
  tmp_lib += ".tmp." + std::to_string(getpid());
  std::vector<std::string> argv = {*cxx, "-shared", "-fPIC", "-o", tmp_lib.string()};
  for (const fs::path& o : obj_paths) argv.push_back(o.string());
  ++g_invocations;
  ProcessResult pr = run_process(argv, work.path.string());
  if (!pr.ok()) {
    fs::remove(tmp_lib, ec);
    res.error = "host twin: linking failed (" + join_command(argv) + "):\n" + tail(pr.output, 8000);
    return finish();
  }
  res.stats.linked = true;
  std::string bytes;
  if (!read_file(tmp_lib, bytes) || bytes.empty()) {
    res.error = "host twin: cannot read the linked library " + tmp_lib.string();
    return finish();
  }
  if (opts.use_cache) fs::rename(tmp_lib, lib_path, ec);
  fs::remove(tmp_lib, ec);
  res.library.assign(bytes.begin(), bytes.end());
  res.ok = true;
  return finish();
}

}  // namespace ptoc::codegen
