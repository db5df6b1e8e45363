// The Ascend runtime (ACL) loaded at run time with dlopen: no link-time
// dependency on CANN. Only the documented aclrt* calls the launcher needs
// (reference/ascend-platform.md §1.2), resolved by name.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ptoc::ascend {

using aclError = int;
using aclrtStream = void*;
using aclrtEvent = void*;
using aclrtBinHandle = void*;
using aclrtFuncHandle = void*;
using aclrtArgsHandle = void*;
using aclrtParamHandle = void*;

inline constexpr aclError kAclSuccess = 0;
inline constexpr aclError kAclRepeatInitialize = 100002;  // treated as success, as PyPTO does
inline constexpr int kMemcpyHostToDevice = 1, kMemcpyDeviceToHost = 2;
inline constexpr int kMallocHugeFirst = 0;

struct AclApi {
  aclError (*aclInit)(const char*) = nullptr;
  aclError (*aclFinalize)() = nullptr;
  const char* (*aclGetRecentErrMsg)() = nullptr;  // optional
  aclError (*aclrtSetDevice)(int32_t) = nullptr;
  aclError (*aclrtResetDevice)(int32_t) = nullptr;
  aclError (*aclrtGetDeviceCount)(uint32_t*) = nullptr;
  aclError (*aclrtCreateStream)(aclrtStream*) = nullptr;
  aclError (*aclrtDestroyStream)(aclrtStream) = nullptr;
  aclError (*aclrtSynchronizeStream)(aclrtStream) = nullptr;
  aclError (*aclrtMalloc)(void**, size_t, int) = nullptr;
  aclError (*aclrtFree)(void*) = nullptr;
  aclError (*aclrtMemcpy)(void*, size_t, const void*, size_t, int) = nullptr;
  aclError (*aclrtBinaryLoadFromData)(const void*, size_t, const void*, aclrtBinHandle*) = nullptr;
  aclError (*aclrtBinaryGetFunction)(aclrtBinHandle, const char*, aclrtFuncHandle*) = nullptr;
  aclError (*aclrtBinaryUnLoad)(aclrtBinHandle) = nullptr;
  aclError (*aclrtKernelArgsInit)(aclrtFuncHandle, aclrtArgsHandle*) = nullptr;
  aclError (*aclrtKernelArgsAppend)(aclrtArgsHandle, void*, size_t, aclrtParamHandle*) = nullptr;
  aclError (*aclrtKernelArgsFinalize)(aclrtArgsHandle) = nullptr;
  aclError (*aclrtLaunchKernelWithConfig)(aclrtFuncHandle, uint32_t, aclrtStream, void*, aclrtArgsHandle, void*) = nullptr;
  aclError (*aclrtCreateEvent)(aclrtEvent*) = nullptr;
  aclError (*aclrtDestroyEvent)(aclrtEvent) = nullptr;
  aclError (*aclrtRecordEvent)(aclrtEvent, aclrtStream) = nullptr;
  aclError (*aclrtStreamWaitEvent)(aclrtStream, aclrtEvent) = nullptr;
  aclError (*aclrtEventElapsedTime)(float*, aclrtEvent, aclrtEvent) = nullptr;

  std::string library;  // the file that was loaded
  void* handle = nullptr;
};

// The environment lacks what the backend needs (no library, no device, no device binaries).
struct AclUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// An ACL call failed: the message names the call, its code and aclGetRecentErrMsg().
struct AclCallError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Tries $PTORUN_ACL_LIBRARY, then libascendcl.so and libacl_rt.so on the loader path, then under
// $ASCEND_HOME_PATH / $ASCEND_TOOLKIT_HOME (lib64, runtime/lib64). Throws AclUnavailable saying what
// was tried and how to fix it.
const AclApi& load_acl();

// Throws AclCallError("<call> failed with ACL error <code>: <recent message>") when `code` is not success.
void check_acl(const AclApi& api, aclError code, const char* call);

}  // namespace ptoc::ascend
