// The device build: each generated CCE kernel compiled by CANN's bisheng for
// the target's AI Core arch (dav-c220-cube / dav-c220-vec on A2/A3,
// dav-c310-cube / dav-c310-vec on 950), one device object per kernel. The
// command lines follow PyPTO's aicore_compiler.cpp
// (reference/ascend-platform.md §1.4). Without a toolkit nothing runs and the
// status says what is missing; the command lines can still be printed
// (`ptoc --print-device-commands`).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "runtime/core/platform.h"

namespace ptoc::codegen {

struct CannToolkit {
  bool found = false;      // a toolkit directory was named and bisheng exists in it
  std::string root;        // the toolkit directory (may be set while !found)
  std::string bisheng;     // full path of bisheng when found
  std::string source;      // where the directory came from: "--cann", "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"
  std::string missing;     // !found: one sentence saying what is missing and how to fix it
};

// The toolkit from `explicit_dir` (--cann), else $ASCEND_HOME_PATH, else
// $ASCEND_TOOLKIT_HOME. bisheng is looked up in <root>/compiler/ccec_compiler/bin,
// <root>/bin and <root>/tools/ccec_compiler/bin.
CannToolkit find_cann_toolkit(const std::string& explicit_dir);
CannToolkit find_cann_toolkit(const std::string& explicit_dir, const char* home_env, const char* toolkit_env);

struct DeviceCommand {
  std::string kernel;              // kernel name
  std::string arch;                // --cce-aicore-arch value
  std::string source;              // the .cce file the command reads
  std::string output;              // the object it writes
  std::vector<std::string> argv;   // argv[0] is bisheng
};

struct DeviceBuildOptions {
  std::string source_dir = ".";    // where <kernel>.cce files are (written by build_device_kernels)
  std::string output_dir = ".";    // where <kernel>.o files go
  std::string kernels_dir;         // empty: kernels_include_dir() (host_build.h)
  int jobs = 0;                    // parallel compiles; 0 = all cores
};

// The exact bisheng command line for every kernel, in kernel order. `bisheng`
// is the program name used in argv[0] ("bisheng" when no toolkit was found).
std::vector<DeviceCommand> device_compile_commands(const std::vector<Kernel>& kernels, const Platform& platform,
                                                   const std::string& bisheng, const DeviceBuildOptions& opts);
// One line per command, shell-quoted (what --print-device-commands prints).
std::string format_device_commands(const std::vector<DeviceCommand>& cmds);

enum class DeviceBuildStatus { Built, NoToolkit, Failed };
std::string_view device_build_status_name(DeviceBuildStatus s);  // "built", "no-toolkit", "failed"

struct DeviceObject {
  std::string kernel;
  CoreType core = CoreType::AIV;
  std::string arch;
  std::vector<uint8_t> bytes;
};

struct DeviceBuildResult {
  DeviceBuildStatus status = DeviceBuildStatus::NoToolkit;
  std::string message;                 // NoToolkit: what is missing; Failed: the command and its output
  std::vector<DeviceObject> objects;   // Built: one per kernel, in kernel order
};

// Writes each kernel's source to a temporary directory and runs bisheng on
// it (in parallel). Without a toolkit: status NoToolkit and toolkit.missing.
DeviceBuildResult build_device_kernels(const std::vector<Kernel>& kernels, const Platform& platform,
                                       const CannToolkit& toolkit, int jobs = 0);

}  // namespace ptoc::codegen
