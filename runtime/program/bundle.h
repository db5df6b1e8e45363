// The bundle: the one file `ptoc` writes and `ptorun` reads. Layout
// (all integers little-endian):
//
//   offset 0   8 bytes   magic "PTOCBNDL"
//          8   u32       format version (PTOC_BUNDLE_FORMAT_VERSION)
//         12   u32       number of sections N
//         16   N x 48    section table: name (16 bytes, NUL padded), offset u64, length u64,
//                        xxhash64 (seed 0) of the section bytes u64, reserved u64 (0)
//   16+48N     u64       xxhash64 of bytes [0, 16+48N): the header and table themselves
//   then the sections, each starting at a multiple of 64, in table order.
//
// Sections: "manifest" (JSON: name, target, doc, dims, tensors, options, toolchain, spec source
// and --set overrides), "roots" (JSON: root functions with their tasks as templates + instance
// records, runtime/program/task_instances.h, args and regions as dim-expression text, and the
// control-flow loop nest), "leaves" (JSON: the leaf classes, each stored once: core type, costs),
// "kernels" (JSON: kernel names, parameter counts and CCE sources), "host_twin" (the host-twin
// shared object, raw bytes; empty unless compiled with --host-twin=cce), "leaf_programs" (each
// kernel's encoded leaf program, runtime/program/leaf_program.h; verified at load), optionally
// "device_bin" (device binaries) and "program_json" (JSON: program.json's BLOCK_GRAPH functions;
// the reader rebuilds the rest, runtime/program/program_json.h).
// Format 2 (classes + instances) replaced format 1 (a leaf record and explicit arrays per task).
// JSON is written with sorted keys and no floats, so the same program gives the same bytes.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"

namespace ptoc::runtime {

inline constexpr char kBundleMagic[8] = {'P', 'T', 'O', 'C', 'B', 'N', 'D', 'L'};
inline constexpr uint32_t kBundleFormatVersion = PTOC_BUNDLE_FORMAT_VERSION;

// Every refusal to read a bundle; the message names the file and what to do.
struct BundleError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct BundleSection {
  std::string name;
  uint64_t offset = 0, length = 0, checksum = 0;
};

struct LoadedBundle {
  std::string path;
  uint32_t format_version = 0;
  std::string toolchain;                 // "ptoc 0.1.0" of the compiler that wrote it
  CompiledProgram program;
  std::vector<uint8_t> host_twin_so;     // empty when the compiler could not build one
  std::vector<uint8_t> device_binaries;  // empty when no CANN toolkit built them
  std::vector<BundleSection> sections;   // as found in the file, for `ptorun info`
  uint64_t file_size = 0;
};

// Serialises `p` and the binaries into one byte string (deterministic). Throws BundleError when a
// text in `p` is not well-formed UTF-8.
std::vector<uint8_t> encode_bundle(const CompiledProgram& p, const std::vector<uint8_t>& host_twin_so,
                                   const std::vector<uint8_t>& device_binaries = {});
// The container around the four JSON sections and the binaries (header, section table, 64-byte
// aligned payloads, a checksum per section): encode_bundle's last step, public so that the test
// reference writer (test/program/bundle_reference.cpp) produces the same container.
std::vector<uint8_t> pack_bundle(const CompiledProgram& p, const std::string& manifest, const std::string& roots,
                                 const std::string& leaves, const std::string& kernels,
                                 const std::vector<uint8_t>& host_twin_so, const std::vector<uint8_t>& device_binaries);
// Writes encode_bundle(...) to `path` through a temporary file and a rename: never a half bundle.
// Throws BundleError when the file cannot be written.
void write_bundle(const std::string& path, const CompiledProgram& p, const std::vector<uint8_t>& host_twin_so,
                  const std::vector<uint8_t>& device_binaries = {});

// Reads and checks a bundle: magic, format version, size, every checksum. Throws BundleError.
LoadedBundle read_bundle(const std::string& path);
LoadedBundle decode_bundle(const std::vector<uint8_t>& bytes, const std::string& path_for_messages);

}  // namespace ptoc::runtime
