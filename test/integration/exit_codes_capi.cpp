// The C API returns the exit-code table's values (runtime/core/exit_codes.h) for each error class.
// usage: exit_codes_capi GOOD.bundle CORRUPT.bundle DIR; prints one "class code" line per case.
#include <stdio.h>
#include "runtime/capi/ptorun.h"

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  ptorun_bundle* b = NULL;
  printf("corrupt %d\n", ptorun_load(argv[2], &b));
  printf("directory %d\n", ptorun_load(argv[3], &b));
  printf("missing %d\n", ptorun_load("/nonexistent/x.bundle", &b));
  int rc = ptorun_load(argv[1], &b);
  printf("good %d\n", rc);
  if (rc != PTORUN_OK) return 1;
  printf("unknown_dim %d\n", ptorun_set_dim(b, "NO_SUCH_DIM", 4));
  float x[4] = {0};
  int64_t shape[1] = {4};
  printf("unknown_input %d\n", ptorun_set_input(b, "no_such_input", PTORUN_FLOAT32, shape, 1, x));
  ptorun_free(b);
  return 0;
}
