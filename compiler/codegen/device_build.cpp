#include "device_build.h"

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "host_build.h"
#include "run_process.h"

namespace fs = std::filesystem;

namespace ptoc::codegen {

CannToolkit find_cann_toolkit(const std::string& explicit_dir, const char* home_env, const char* toolkit_env) {
  CannToolkit tk;
  if (!explicit_dir.empty()) {
    tk.root = explicit_dir;
    tk.source = "--cann";
  } else if (home_env && *home_env) {
    tk.root = home_env;
    tk.source = "ASCEND_HOME_PATH";
  } else if (toolkit_env && *toolkit_env) {
    tk.root = toolkit_env;
    tk.source = "ASCEND_TOOLKIT_HOME";
  } else {
    tk.missing =
        "no CANN toolkit: ASCEND_HOME_PATH and ASCEND_TOOLKIT_HOME are not set and no --cann DIR was given "
        "(source the toolkit's set_env.sh, e.g. /usr/local/Ascend/ascend-toolkit/set_env.sh, or pass --cann DIR)";
    return tk;
  }
  std::error_code ec;
  if (!fs::is_directory(tk.root, ec)) {
    tk.missing = "the CANN toolkit directory " + tk.root + " (from " + tk.source + ") does not exist";
    return tk;
  }
  for (const char* sub : {"compiler/ccec_compiler/bin/bisheng", "bin/bisheng", "tools/ccec_compiler/bin/bisheng"}) {
    fs::path p = fs::path(tk.root) / sub;
    if (fs::exists(p, ec) && access(p.c_str(), X_OK) == 0) {
      tk.bisheng = p.string();
      tk.found = true;
      return tk;
    }
  }
  tk.missing = "the CANN toolkit at " + tk.root + " (from " + tk.source +
               ") has no bisheng (looked in compiler/ccec_compiler/bin, bin, tools/ccec_compiler/bin)";
  return tk;
}

CannToolkit find_cann_toolkit(const std::string& explicit_dir) {
  return find_cann_toolkit(explicit_dir, getenv("ASCEND_HOME_PATH"), getenv("ASCEND_TOOLKIT_HOME"));
}

std::vector<DeviceCommand> device_compile_commands(const std::vector<Kernel>& kernels, const Platform& platform,
                                                   const std::string& bisheng, const DeviceBuildOptions& opts) {
  const bool v310 = platform.is_950();
  const std::string kdir = opts.kernels_dir.empty() ? kernels_include_dir() : opts.kernels_dir;
  std::vector<DeviceCommand> out;
  for (const Kernel& k : kernels) {
    const bool cube = k.core == CoreType::AIC;
    DeviceCommand c;
    c.kernel = k.name;
    c.arch = cube ? platform.cce_arch_cube : platform.cce_arch_vec;
    c.source = (fs::path(opts.source_dir) / (k.name + ".cce")).string();
    c.output = (fs::path(opts.output_dir) / (k.name + ".o")).string();
    // PyPTO's AI Core compile (aicore_compiler.cpp), without -g: the objects
    // go into the bundle and debug info would only make it larger.
    c.argv = {bisheng, "-c", "-O3", "-x", "cce", "-std=c++17", "--cce-aicore-only", "--cce-aicore-arch=" + c.arch,
              "-mllvm", "-cce-aicore-stack-size=0x8000", "-mllvm", "-cce-aicore-function-stack-size=0x8000",
              "-mllvm", "-cce-aicore-record-overflow=false", "-mllvm", "-cce-aicore-addr-transform",
              cube ? "-D__AIC__" : "-D__AIV__"};
    if (v310) {
      c.argv.insert(c.argv.end(), {"-D__DAV_V310", "-DREGISTER_BASE"});
      if (!cube) c.argv.push_back("--cce-long-scbz=true");
    } else {
      c.argv.insert(c.argv.end(), {"-D__DAV_V220", "-DMEMORY_BASE"});
    }
    c.argv.insert(c.argv.end(), {"-I" + kdir, "-I" + fs::path(kdir).parent_path().string(), c.source, "-o", c.output});
    out.push_back(std::move(c));
  }
  return out;
}

std::string format_device_commands(const std::vector<DeviceCommand>& cmds) {
  std::string s;
  for (const DeviceCommand& c : cmds) s += join_command(c.argv) + "\n";
  return s;
}

std::string_view device_build_status_name(DeviceBuildStatus s) {
  switch (s) {
    case DeviceBuildStatus::Built: return "built";
    case DeviceBuildStatus::NoToolkit: return "no-toolkit";
    case DeviceBuildStatus::Failed: return "failed";
  }
  return "?";
}

DeviceBuildResult build_device_kernels(const std::vector<Kernel>& kernels, const Platform& platform,
                                       const CannToolkit& toolkit, int jobs) {
  DeviceBuildResult res;
  if (!toolkit.found) {
    res.status = DeviceBuildStatus::NoToolkit;
    res.message = toolkit.missing.empty() ? "no CANN toolkit" : toolkit.missing;
    return res;
  }
  const char* t = getenv("TMPDIR");
  std::string templ = std::string(t && *t ? t : "/tmp") + "/ptoc-device-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back(0);
  if (!mkdtemp(buf.data())) {
    res.status = DeviceBuildStatus::Failed;
    res.message = "cannot create a temporary directory for the device build (check TMPDIR)";
    return res;
  }
  const fs::path dir = buf.data();
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{dir};

  DeviceBuildOptions o;
  o.source_dir = o.output_dir = dir.string();
  std::vector<DeviceCommand> cmds = device_compile_commands(kernels, platform, toolkit.bisheng, o);
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::ofstream f(cmds[i].source, std::ios::binary);
    f << kernels[i].source;
    if (!f) {
      res.status = DeviceBuildStatus::Failed;
      res.message = "cannot write " + cmds[i].source;
      return res;
    }
  }
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::string error;
  auto worker = [&] {
    for (size_t i; (i = next++) < cmds.size();) {
      ProcessResult pr = run_process(cmds[i].argv);
      if (!pr.ok()) {
        std::lock_guard<std::mutex> lk(mu);
        if (error.empty())
          error = "bisheng failed on kernel " + cmds[i].kernel + " (" + join_command(cmds[i].argv) + "):\n" +
                  pr.output;
      }
    }
  };
  int n = jobs > 0 ? jobs : int(std::max(1u, std::thread::hardware_concurrency()));
  n = std::min<int>(n, int(cmds.size()));
  std::vector<std::thread> pool;
  for (int i = 1; i < n; ++i) pool.emplace_back(worker);
  if (n > 0) worker();
  for (std::thread& th : pool) th.join();
  if (!error.empty()) {
    res.status = DeviceBuildStatus::Failed;
    res.message = error;
    return res;
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::ifstream f(cmds[i].output, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    std::string b = ss.str();
    res.objects.push_back({kernels[i].name, kernels[i].core, cmds[i].arch, std::vector<uint8_t>(b.begin(), b.end())});
  }
  res.status = DeviceBuildStatus::Built;
  return res;
}

}  // namespace ptoc::codegen
