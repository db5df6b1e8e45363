// The bundle's "device_bin" section: one device object per kernel, by kernel name.
// Layout: u32 count, then per object: u32 name length, name bytes, u8 core type (AIV=0, AIC=1),
// u32 arch length, arch bytes, u64 size, object bytes. Little-endian.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"

namespace ptoc::ascend {

struct DeviceBinary {
  std::string kernel;
  CoreType core = CoreType::AIV;
  std::string arch;             // --cce-aicore-arch it was built for
  std::vector<uint8_t> bytes;
};

std::vector<uint8_t> pack_device_binaries(const std::vector<DeviceBinary>& bins);
// Throws std::runtime_error("device_bin section: ...") when malformed.
std::vector<DeviceBinary> unpack_device_binaries(const std::vector<uint8_t>& bytes);

}  // namespace ptoc::ascend
