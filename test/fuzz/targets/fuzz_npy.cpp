// libFuzzer target: bytes -> the .npy reader for every tensor dtype, as `ptorun --input` and
// `ptoc eval --input` read a file. A bad file must be an NpyError, nothing else.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "runtime/core/tensor_data.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The reader takes a path: one scratch file per process, rewritten per input.
  static const std::string path = [] {
    char tmpl[] = "/tmp/ptoc-fuzz-npy-XXXXXX";
    int fd = ::mkstemp(tmpl);
    if (fd >= 0) ::close(fd);
    return std::string(tmpl);
  }();
  if (size == 0) return 0;
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data + 1, 1, size - 1, f);
    std::fclose(f);
  }
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
