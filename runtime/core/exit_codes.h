// The one table of exit statuses: the process status of ptoc and ptorun and the return codes of
// the C API (ptorun.h's PTORUN_* macros have the same values; ptorun_capi.cpp asserts it).
// README.md documents them; test/integration checks each class from both tools and the C API.
#pragma once

namespace ptoc {

enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,     // the input is wrong: spec error, unreadable or corrupt bundle,
                      // an out-of-bounds access at run time, a failed --check or dependency check
  kExitUsage = 2,     // the command line (or API call) is wrong: unknown flag, tensor, dim or knob, an
                      // input (.npy or buffer) whose dtype, rank or shape does not fit its tensor
  kExitEnv = 3,       // the environment lacks something: host compiler, CANN toolkit, NPU runtime, disk
  kExitInternal = 4,  // a bug in ptoc or ptorun ("internal error"): please report it with the spec
  kExitInterrupted = 130,  // SIGINT (128 + 2); SIGTERM gives 143
};

}  // namespace ptoc
