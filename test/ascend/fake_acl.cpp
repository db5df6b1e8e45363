// A stand-in for libascendcl.so with the aclrt* calls ptorun's ascend backend
// uses, implemented on the host: device memory is host memory, a "device
// binary" is a host shared object (the host twin) loaded with dlopen, a
// launch calls the kernel at once, and events read a steady clock. It lets the
// tests drive the real launcher code end to end without an NPU.
// FAKE_ACL_DEVICE_COUNT sets the number of devices (default 1); FAKE_ACL_FAIL
// names one call that fails with error 507000, to test error reporting.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {
thread_local std::string g_last_error;
int g_so_counter = 0;

int fail_if_asked(const char* call) {
  const char* f = std::getenv("FAKE_ACL_FAIL");
  if (f && std::strcmp(f, call) == 0) {
    g_last_error = std::string("EE9999: fake failure injected in ") + call;
    return 507000;
  }
  return 0;
}

struct Args {
  void* fn = nullptr;
  std::vector<uint8_t> bytes;
};
struct Event {
  std::chrono::steady_clock::time_point t;
};
}  // namespace

#define FAKE_CALL(name)                              \
  if (int e = fail_if_asked(#name); e != 0) return e

extern "C" {

int aclInit(const char*) { FAKE_CALL(aclInit); return 0; }
int aclFinalize() { return 0; }
const char* aclGetRecentErrMsg() { return g_last_error.c_str(); }
int aclrtSetDevice(int32_t) { FAKE_CALL(aclrtSetDevice); return 0; }
int aclrtResetDevice(int32_t) { return 0; }
int aclrtGetDeviceCount(uint32_t* n) {
  FAKE_CALL(aclrtGetDeviceCount);
  const char* c = std::getenv("FAKE_ACL_DEVICE_COUNT");
  *n = c ? uint32_t(std::atoi(c)) : 1u;
  return 0;
}
int aclrtCreateStream(void** s) { FAKE_CALL(aclrtCreateStream); *s = new int(0); return 0; }
int aclrtDestroyStream(void* s) { delete static_cast<int*>(s); return 0; }
int aclrtSynchronizeStream(void*) { FAKE_CALL(aclrtSynchronizeStream); return 0; }
int aclrtMalloc(void** p, size_t n, int) {
  FAKE_CALL(aclrtMalloc);
  *p = std::aligned_alloc(512, (n + 511) / 512 * 512);
  if (!*p) return 207001;
  std::memset(*p, 0, n);
  return 0;
}
int aclrtFree(void* p) { std::free(p); return 0; }
int aclrtMemcpy(void* d, size_t dmax, const void* s, size_t n, int) {
  FAKE_CALL(aclrtMemcpy);
  if (n > dmax) { g_last_error = "count exceeds destMax"; return 107000; }
  std::memcpy(d, s, n);
  return 0;
}
int aclrtBinaryLoadFromData(const void* data, size_t len, const void*, void** handle) {
  FAKE_CALL(aclrtBinaryLoadFromData);
  std::string path = "/tmp/fake_acl_" + std::to_string(getpid()) + "_" + std::to_string(g_so_counter++) + ".so";
  { std::ofstream(path, std::ios::binary).write(static_cast<const char*>(data), std::streamsize(len)); }
  *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  unlink(path.c_str());
  if (!*handle) { g_last_error = dlerror(); return 107001; }
  return 0;
}
int aclrtBinaryGetFunction(void* bin, const char* name, void** fn) {
  FAKE_CALL(aclrtBinaryGetFunction);
  *fn = dlsym(bin, name);
  if (!*fn) { g_last_error = std::string("kernel not found: ") + name; return 107002; }
  return 0;
}
int aclrtBinaryUnLoad(void* bin) { return bin ? dlclose(bin) : 0; }
int aclrtKernelArgsInit(void* fn, void** args) { auto* a = new Args; a->fn = fn; *args = a; return 0; }
int aclrtKernelArgsAppend(void* args, void* p, size_t n, void** ph) {
  auto* a = static_cast<Args*>(args);
  a->bytes.insert(a->bytes.end(), static_cast<uint8_t*>(p), static_cast<uint8_t*>(p) + n);
  *ph = nullptr;
  return 0;
}
int aclrtKernelArgsFinalize(void*) { return 0; }
int aclrtLaunchKernelWithConfig(void* fn, uint32_t, void*, void*, void* args, void*) {
  FAKE_CALL(aclrtLaunchKernelWithConfig);
  auto* a = static_cast<Args*>(args);
  if (a->bytes.size() != sizeof(void*)) { g_last_error = "expected one pointer argument"; delete a; return 107003; }
  void* block;
  std::memcpy(&block, a->bytes.data(), sizeof block);
  reinterpret_cast<void (*)(const void*)>(fn)(block);
  delete a;
  return 0;
}
int aclrtCreateEvent(void** e) { *e = new Event; return 0; }
int aclrtDestroyEvent(void* e) { delete static_cast<Event*>(e); return 0; }
int aclrtRecordEvent(void* e, void*) { static_cast<Event*>(e)->t = std::chrono::steady_clock::now(); return 0; }
int aclrtStreamWaitEvent(void*, void*) { FAKE_CALL(aclrtStreamWaitEvent); return 0; }
int aclrtEventElapsedTime(float* ms, void* a, void* b) {
  auto d = static_cast<Event*>(b)->t - static_cast<Event*>(a)->t;
  *ms = float(std::chrono::duration<double, std::milli>(d).count());
  return 0;
}

}  // extern "C"
