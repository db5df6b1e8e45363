// Which exit status (runtime/core/exit_codes.h) an error raised while loading or running a bundle
// maps to: the one mapping ptorun's commands and the C API share.
#pragma once
#include <exception>

#include "runtime/core/exit_codes.h"

namespace ptoc::runtime {

// For an exception thrown by the runtime (Session, bundle reader, .npy reader, dim binding, control
// flow, GM arena, machine model): kExitUsage, kExitEnv, kExitError, or kExitInternal for anything
// that is not one of the runtime's error types (a logic_error, bad_alloc: a bug).
ExitCode exit_code_of(std::exception_ptr e);

}  // namespace ptoc::runtime
