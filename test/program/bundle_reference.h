// A second, independent writer of the bundle's JSON sections through nlohmann's DOM: the reference
// the one real writer (runtime/program/bundle.cpp, streamed) is compared against byte for byte.
// Test code only: the product has one writer.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/program/compiled_program.h"

namespace ptoc::test {

// Throws (nlohmann's type_error) on a string that is not well-formed UTF-8, as dump() does.
std::vector<uint8_t> encode_bundle_reference(const CompiledProgram& p, const std::vector<uint8_t>& host_twin_so,
                                             const std::vector<uint8_t>& device_binaries = {});

}  // namespace ptoc::test
