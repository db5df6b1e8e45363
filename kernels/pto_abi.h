// The calling convention between the runtime and every generated kernel, on
// the host twin and on the device: one parameter block per task.
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PtoKernelArgs {
  void* const* gm;       // GM base address per slot (Task::gm), already offset to the tensor's start
  const int64_t* args;   // Task::args evaluated for this root-function instance
  int64_t num_args;
  void* workspace;       // scratch GM for this call (spills); may be null
} PtoKernelArgs;

typedef void (*PtoKernelFn)(const PtoKernelArgs*);

#ifdef __cplusplus
}
#endif
