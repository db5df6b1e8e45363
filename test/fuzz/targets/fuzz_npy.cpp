// libFuzzer target: bytes -> the .npy reader for every tensor dtype, as `ptorun --input` and
// `ptoc eval --input` read a file. A bad file must be an NpyError, nothing else.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "runtime/core/tensor_data.h"

namespace {

// The reader takes a path, so each input is written to a file the reader then opens, stats and
// reads as `ptorun --input` would. The file is a memfd (tmpfs, opened as /proc/self/fd/N): a
// scratch file on /tmp's ext4 cost a truncate, a writeback and a discard per input (2/3 of the
// target's wall time, waiting on the disk). Without memfd, a file in /dev/shm, then /tmp.
struct ScratchFile {
  int fd = -1;
  std::string path;
  ScratchFile() {
    fd = ::memfd_create("ptoc-fuzz-npy", MFD_CLOEXEC);
    if (fd >= 0) {
      path = "/proc/self/fd/" + std::to_string(fd);
      return;
    }
    for (const char* dir : {"/dev/shm", "/tmp"}) {
      std::string tmpl = std::string(dir) + "/ptoc-fuzz-npy-XXXXXX";
      fd = ::mkstemp(tmpl.data());
      if (fd >= 0) {
        path = tmpl;
        return;
      }
    }
  }
  void write(const uint8_t* p, size_t n) const {
    if (fd < 0 || ::ftruncate(fd, 0) != 0) return;
    size_t done = 0;
    while (done < n) {
      ssize_t w = ::pwrite(fd, p + done, n - done, off_t(done));
      if (w <= 0) return;
      done += size_t(w);
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ScratchFile file;
  if (size == 0) return 0;
  file.write(data + 1, size - 1);
  const std::string& path = file.path;
  // The first byte picks the tensor dtype the file is read as.
  static const ptoc::DType kTypes[] = {ptoc::DType::fp32, ptoc::DType::fp16,  ptoc::DType::bf16,
                                       ptoc::DType::int32, ptoc::DType::int8, ptoc::DType::uint8,
                                       ptoc::DType::boolean};
  ptoc::DType t = kTypes[data[0] % 7];
  try {
    auto td = ptoc::read_npy_as(path, t, "x");
    if (td.numel() > 0) (void)td.get(td.numel() - 1);
  } catch (const ptoc::NpyError&) {
  }
  return 0;
}
