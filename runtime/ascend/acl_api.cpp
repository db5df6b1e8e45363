#include "acl_api.h"

#include <cstdlib>
#include <dlfcn.h>
#include <fmt/format.h>
#include <mutex>
#include <vector>

namespace ptoc::ascend {

namespace {

std::vector<std::string> candidates() {
  std::vector<std::string> c;
  if (const char* e = std::getenv("PTORUN_ACL_LIBRARY"); e && *e) c.emplace_back(e);
  c.emplace_back("libascendcl.so");
  c.emplace_back("libacl_rt.so");
  for (const char* env : {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"})
    if (const char* root = std::getenv(env); root && *root)
      for (const char* sub : {"/lib64/libascendcl.so", "/runtime/lib64/libascendcl.so", "/lib64/libacl_rt.so"})
        c.push_back(std::string(root) + sub);
  return c;
}

template <typename F>
bool resolve(void* h, const char* name, F& slot, std::string& missing, bool required = true) {
  slot = reinterpret_cast<F>(dlsym(h, name));
  if (!slot && required) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return slot != nullptr;
}

AclApi load_once() {
  AclApi api;
  std::string tried, lacking;
  for (const auto& path : candidates()) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    std::string missing;
    resolve(h, "aclInit", api.aclInit, missing);
    resolve(h, "aclFinalize", api.aclFinalize, missing);
    resolve(h, "aclGetRecentErrMsg", api.aclGetRecentErrMsg, missing, false);
    resolve(h, "aclrtSetDevice", api.aclrtSetDevice, missing);
    resolve(h, "aclrtResetDevice", api.aclrtResetDevice, missing);
    resolve(h, "aclrtGetDeviceCount", api.aclrtGetDeviceCount, missing);
    resolve(h, "aclrtCreateStream", api.aclrtCreateStream, missing);
    resolve(h, "aclrtDestroyStream", api.aclrtDestroyStream, missing);
    resolve(h, "aclrtSynchronizeStream", api.aclrtSynchronizeStream, missing);
    resolve(h, "aclrtMalloc", api.aclrtMalloc, missing);
    resolve(h, "aclrtFree", api.aclrtFree, missing);
    resolve(h, "aclrtMemcpy", api.aclrtMemcpy, missing);
    resolve(h, "aclrtBinaryLoadFromData", api.aclrtBinaryLoadFromData, missing);
    resolve(h, "aclrtBinaryGetFunction", api.aclrtBinaryGetFunction, missing);
    resolve(h, "aclrtBinaryUnLoad", api.aclrtBinaryUnLoad, missing);
    resolve(h, "aclrtKernelArgsInit", api.aclrtKernelArgsInit, missing);
    resolve(h, "aclrtKernelArgsAppend", api.aclrtKernelArgsAppend, missing);
    resolve(h, "aclrtKernelArgsFinalize", api.aclrtKernelArgsFinalize, missing);
    resolve(h, "aclrtLaunchKernelWithConfig", api.aclrtLaunchKernelWithConfig, missing);
    resolve(h, "aclrtCreateEvent", api.aclrtCreateEvent, missing);
    resolve(h, "aclrtDestroyEvent", api.aclrtDestroyEvent, missing);
    resolve(h, "aclrtRecordEvent", api.aclrtRecordEvent, missing);
    resolve(h, "aclrtStreamWaitEvent", api.aclrtStreamWaitEvent, missing);
    resolve(h, "aclrtEventElapsedTime", api.aclrtEventElapsedTime, missing);
    if (!missing.empty()) {
      lacking += fmt::format("; {} lacks {} (CANN too old? ptorun needs the aclrtBinary*/KernelArgs* API)", path, missing);
      dlclose(h);
      api = AclApi{};
      continue;
    }
    api.library = path;
    api.handle = h;
    return api;
  }
  const char* home = std::getenv("ASCEND_HOME_PATH");
  throw AclUnavailable(fmt::format("no usable Ascend runtime (tried {}{}{}): source CANN's set_env.sh, or run with --backend sim",
                                   tried, lacking, home && *home ? "" : "; ASCEND_HOME_PATH is not set"));
}

}  // namespace

const AclApi& load_acl() {
  static std::once_flag once;
  static AclApi api;
  static std::string error;
  std::call_once(once, [] {
    try {
      api = load_once();
    } catch (const AclUnavailable& e) {
      error = e.what();
    }
  });
  if (!api.handle) throw AclUnavailable(error);
  return api;
}

void check_acl(const AclApi& api, aclError code, const char* call) {
  if (code == kAclSuccess) return;
  const char* msg = api.aclGetRecentErrMsg ? api.aclGetRecentErrMsg() : nullptr;
  throw AclCallError(fmt::format("{} failed with ACL error {}{}{}", call, code, msg && *msg ? ": " : "",
                                 msg && *msg ? msg : ""));
}

}  // namespace ptoc::ascend
