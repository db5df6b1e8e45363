// The C API with an in-place output (catalog3): the cache bound with ptorun_set_input comes back from
// ptorun_get_output updated at the slots, the rows no slot names unchanged.
// usage: inplace_capi KV.bundle   (test/conformance/specs/catalog3_scatter_update.yaml's caches, here c32)
#include <stdio.h>
#include <string.h>

#include "runtime/capi/ptorun.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  ptorun_bundle* b = NULL;
  if (ptorun_load(argv[1], &b) != PTORUN_OK) {
    fprintf(stderr, "load: %s\n", ptorun_last_error());
    return 1;
  }
  enum { T = 3, NB = 2, D = 16, ROWS = NB * 4 };
  float x[T * D], cache[ROWS * D], out[ROWS * D];
  for (int i = 0; i < T * D; ++i) x[i] = (float)(i % 7) - 3.0f;
  for (int i = 0; i < ROWS * D; ++i) cache[i] = 100.0f + (float)i;
  const int slots[T] = {6, 1, 6};  // slot 6 twice: the later token (2) wins
  const int64_t xs[2] = {T, D}, ss[1] = {T}, cs[2] = {ROWS, D};
  int rc = ptorun_set_dim(b, "NB", NB);
  rc = rc ? rc : ptorun_set_input(b, "x", PTORUN_FLOAT32, xs, 2, x);
  rc = rc ? rc : ptorun_set_input(b, "slots", PTORUN_INT32, ss, 1, slots);
  rc = rc ? rc : ptorun_set_input(b, "c32_in", PTORUN_FLOAT32, cs, 2, cache);
  rc = rc ? rc : ptorun_run(b, NULL);
  rc = rc ? rc : ptorun_get_output(b, "c32", PTORUN_FLOAT32, out, sizeof out);
  if (rc != PTORUN_OK) {
    fprintf(stderr, "run: %s\n", ptorun_error(b));
    return 1;
  }
  int bad = 0;
  for (int r = 0; r < ROWS; ++r)
    for (int j = 0; j < D; ++j) {
      float want = cache[r * D + j];
      if (r == 1) want = 2.0f * x[1 * D + j];
      if (r == 6) want = 2.0f * x[2 * D + j];
      if (out[r * D + j] != want) {
        if (bad++ < 5) fprintf(stderr, "c32[%d][%d] = %g, want %g\n", r, j, out[r * D + j], want);
      }
    }
  ptorun_free(b);
  printf("%s: %d wrong elements\n", bad ? "FAIL" : "ok", bad);
  return bad ? 1 : 0;
}
