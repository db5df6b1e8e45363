/* ptorun.h: load a ptoc bundle from a host program, bind its inputs, run it
 * on the simulated Ascend machine (or an NPU), and read its outputs and
 * timing summary. C API; link with `pkg-config --cflags --libs ptorun`.
 *
 *   ptorun_bundle* b;
 *   if (ptorun_load("softmax.bundle", &b) != PTORUN_OK) { puts(ptorun_last_error()); return 1; }
 *   int64_t shape[2] = {40, 128};
 *   ptorun_set_input(b, "x", PTORUN_FLOAT32, shape, 2, x_data);
 *   if (ptorun_run(b, NULL) != PTORUN_OK) { puts(ptorun_error(b)); ... }
 *   ptorun_get_output(b, "y", PTORUN_FLOAT32, y_data, sizeof y_data);
 *   ptorun_free(b);
 *
 * Every function returns a status code; the message of the last failure is
 * ptorun_error(bundle) (or ptorun_last_error() when no bundle exists yet).
 */
#ifndef PTORUN_H
#define PTORUN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: the exit codes of the ptorun command. */
#define PTORUN_OK 0
#define PTORUN_ERR_BUNDLE 1   /* unreadable or corrupt bundle, bad input data, failed run */
#define PTORUN_ERR_USAGE 2    /* unknown tensor or dim name, wrong dtype, shape or buffer size */
#define PTORUN_ERR_ENV 3      /* the environment lacks something (host compiler, NPU runtime) */
#define PTORUN_ERR_INTERNAL 4 /* a bug in ptorun (an internal error): please report it */

typedef enum ptorun_dtype {
  PTORUN_FLOAT32 = 0, /* accepted for fp32, fp16 and bf16 tensors (converted, round to nearest even) */
  PTORUN_FLOAT16 = 1, /* IEEE half as uint16_t bit patterns: fp16 tensors */
  PTORUN_INT32 = 2,
  PTORUN_INT8 = 3,
  PTORUN_UINT8 = 4,
  PTORUN_BOOL = 5,    /* one byte per element, 0 or 1 */
  PTORUN_INT64 = 6    /* int64 tensors, bit-exact */
} ptorun_dtype;

typedef struct ptorun_bundle ptorun_bundle;

typedef struct ptorun_options {
  const char* backend;      /* "sim" (default when NULL), "ascend", "auto" */
  const char* platform;     /* what-if platform for the simulator; NULL: the bundle's target */
  uint64_t seed;            /* fills inputs that were not set */
  int rounds;               /* launches (>= 1; 0 means 1) */
  int jobs;                 /* host threads for numerics; 0: all cores */
} ptorun_options;

typedef struct ptorun_summary {
  double aicore_e2e_us;     /* AICore End-to-End Time of the last round */
  double aicore_utilization;/* 0..1 */
  double operator_e2e_us;   /* Control AICPU start to the last core's exit */
  uint64_t tasks;           /* leaf tasks run in the last round */
  uint64_t device_tasks;
} ptorun_summary;

const char* ptorun_version(void);          /* "0.1.0 (bundle format 1)" */
const char* ptorun_last_error(void);       /* thread-local; for ptorun_load failures */

int ptorun_load(const char* path, ptorun_bundle** out);
void ptorun_free(ptorun_bundle* b);
const char* ptorun_error(const ptorun_bundle* b);

const char* ptorun_name(const ptorun_bundle* b);
int ptorun_num_inputs(const ptorun_bundle* b);
int ptorun_num_outputs(const ptorun_bundle* b);
const char* ptorun_input_name(const ptorun_bundle* b, int i);   /* NULL when out of range */
const char* ptorun_output_name(const ptorun_bundle* b, int i);

/* Binds a dynamic dim explicitly (otherwise dims bind from the input shapes). */
int ptorun_set_dim(ptorun_bundle* b, const char* name, int64_t value);
/* Copies `data` (row-major, `rank` dims of `shape`) as input `name`. */
int ptorun_set_input(ptorun_bundle* b, const char* name, ptorun_dtype dtype, const int64_t* shape, int rank,
                     const void* data);
/* Runs the operator; `options` may be NULL. */
int ptorun_run(ptorun_bundle* b, const ptorun_options* options);
/* Shape of output `name` after a run: writes up to 8 dims, sets *rank. */
int ptorun_output_shape(const ptorun_bundle* b, const char* name, int64_t* shape, int* rank);
/* Copies output `name` as `dtype` into `data` of `bytes` bytes (must be exactly the output's size). */
int ptorun_get_output(const ptorun_bundle* b, const char* name, ptorun_dtype dtype, void* data, size_t bytes);
int ptorun_get_summary(const ptorun_bundle* b, ptorun_summary* out);

#ifdef __cplusplus
}
#endif

#endif /* PTORUN_H */
