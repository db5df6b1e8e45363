// int64 through the C API (lang4): PTORUN_INT64 in and out bit-exact (values past 2^53 too), an int64 tensor
// refused as PTORUN_INT32 with a usage error, and the saturating int64 -> int32 cast.
// usage: int64_capi INT64.bundle   (test/integration/int64_capi.yaml)
#include <stdint.h>
#include <stdio.h>

#include "runtime/capi/ptorun.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  ptorun_bundle* b = NULL;
  if (ptorun_load(argv[1], &b) != PTORUN_OK) {
    fprintf(stderr, "load: %s\n", ptorun_last_error());
    return 1;
  }
  enum { N = 8 };
  const int64_t w[2 * N] = {(int64_t(1) << 62) + 1, -(int64_t(1) << 60) - 3, (int64_t(1) << 53) + 1, -1, 0, 1,
                            int64_t(1) << 31, -(int64_t(1) << 31) - 1, 5, 6, 7, 8, 9, 10, 11, 12};
  const int64_t ws[2] = {2, N};
  int bad = 0;
  const int32_t as_i32[2 * N] = {0};
  if (ptorun_set_input(b, "w", PTORUN_INT32, ws, 2, as_i32) != PTORUN_ERR_USAGE) {
    fprintf(stderr, "an int64 input taken as PTORUN_INT32\n");
    bad++;
  }
  int64_t wt[N * 2];
  int32_t w32[2 * N];
  int rc = ptorun_set_input(b, "w", PTORUN_INT64, ws, 2, w);
  rc = rc ? rc : ptorun_run(b, NULL);
  rc = rc ? rc : ptorun_get_output(b, "wt", PTORUN_INT64, wt, sizeof wt);
  rc = rc ? rc : ptorun_get_output(b, "w32", PTORUN_INT32, w32, sizeof w32);
  if (rc != PTORUN_OK) {
    fprintf(stderr, "run: %s\n", ptorun_error(b));
    return 1;
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < N; ++j) {
      const int64_t v = w[i * N + j];
      if (wt[j * 2 + i] != v && bad++ < 5) fprintf(stderr, "wt[%d][%d] = %lld, want %lld\n", j, i, (long long)wt[j * 2 + i], (long long)v);
      const int32_t s = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : int32_t(v);
      if (w32[i * N + j] != s && bad++ < 5) fprintf(stderr, "w32[%d][%d] = %d, want %d\n", i, j, w32[i * N + j], s);
    }
  ptorun_free(b);
  printf("%s: %d wrong elements\n", bad ? "FAIL" : "ok", bad);
  return bad ? 1 : 0;
}
