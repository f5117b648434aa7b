/* SPDX-License-Identifier: MIT */
/* real.h - the interface between the real-kernel suite's driver and its
 * kernels (Rodinia, Parboil and SHOC ports), and the helpers they share.
 *
 * Each kernel file defines one real_kernel: its inputs and serial
 * reference (setup), and four versions of the same computation on the
 * same data: the OpenCL C kernel run by an OpenCL implementation (PoCL),
 * the straight libfiberpar port of it, the best libfiberpar form, and an
 * OpenMP reference.  The driver (driver.c) times and checks them. */
#ifndef REAL_H
#define REAL_H

#include <fiberpar.h>
#include <stddef.h>
#include <stdint.h>

#include "examples/benchmark/opencl.h"

/* The four versions, in the order the driver runs them. */
typedef enum real_version {
  REAL_POCL = 0, /* the OpenCL C kernel through OpenCL */
  REAL_PORT,     /* the OpenCL structure as a libfiberpar kernel */
  REAL_BEST,     /* the best libfiberpar form */
  REAL_OMP,      /* the OpenMP reference loop */
  REAL_VERSIONS
} real_version;

/* What a version runs on. */
typedef struct real_env {
  fpar_queue *q;  /* libfiberpar's queue (port and best) */
  bench_ocl *ocl; /* the OpenCL device, or NULL (pocl) */
} real_env;

/* One kernel of the suite.  The driver calls setup once and ocl_init
 * once (for pocl), then runs every version: prepare (untimed: put back
 * the data a run changes) and run (timed), checked after its first and
 * its last run, the timed runs of the versions taking turns; release
 * ends. */
typedef struct real_kernel {
  const char *name;
  const char *best_form; /* one word for the output line */
  const char *size_help; /* what SIZE means, and its rule */
  long size;             /* the benchmark's size */
  long check_size;       /* the size make check runs */
  /* Whether n is a valid SIZE. */
  int (*size_ok)(long n);
  /* Inputs of size n and the serial reference; NULL when out of memory. */
  void *(*setup)(long n);
  void (*release)(void *s);
  /* Build the OpenCL programs and wrap the data in buffers: 0, or
   * nonzero after printing why. */
  int (*ocl_init)(void *s, bench_ocl *o);
  int (*prepare)(void *s, real_version v, real_env *env);
  /* One run: every launch of the algorithm, and waiting for them: 0, or
   * nonzero after printing why. */
  int (*run)(void *s, real_version v, real_env *env);
  /* 1 when the version's result matches the serial reference, else 0
   * with the first difference written to why. */
  int (*check)(void *s, real_version v, real_env *env, char *why, size_t len);
} real_kernel;

/* The kernels of the suite, in the order the driver runs them. */
extern const real_kernel real_nw, real_lud, real_srad, real_backprop,
    real_pathfinder, real_stencil, real_reduction, real_scan, real_spmv;

/* The driver, shared by the program (main.c) and its test: options and
 * the kernels to run. */
typedef struct real_options {
  int check;         /* --check: each version once at the check size */
  int opencl;        /* 0: --no-opencl */
  unsigned versions; /* bit v: run version v (--only) */
  int reps;          /* timed runs at least (--reps) */
  unsigned count;
  const real_kernel *kernels[16];
  long sizes[16]; /* 0: the kernel's default */
} real_options;

/* Parse argv into opts: 0; 1 for --help, with the usage in err; or -1
 * after writing the reason and the usage to err. */
int real_parse(int argc, char **argv, real_options *opts, char *err,
               size_t len);
/* The usage text. */
const char *real_usage(void);
/* Run what opts says, printing the suite's lines: 0 when every check
 * passed, 1 otherwise. */
int real_main(const real_options *opts);
/* Check kernel k at size n (0: its check size) in every version, OpenCL
 * too when opencl is set and a platform is there: 1 when all match, else
 * 0 with the first failure in why. */
int real_check_kernel(const real_kernel *k, long n, int opencl, char *why,
                      size_t len);

/* ---- Helpers for the kernels ------------------------------------------ */

/* A deterministic pseudo-random value in [0, 1) for index i of stream
 * seed. */
static inline float real_rand01(uint32_t i, uint32_t seed) {
  uint32_t x = i * 2654435761u ^ (seed * 2246822519u + 0x9e3779b9u);

  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  x *= 3266489917u;
  x ^= x >> 16;
  return (float)(x >> 8) * (1.0f / 16777216.0f);
}

/* Memory for n bytes, aligned for CL_MEM_USE_HOST_PTR and vectors; exits
 * with a message when there is none. */
void *real_alloc(size_t n);

/* Submit a kernel defined with FPAR_KERNEL and friends (uniform groups)
 * with its args_size bytes of arguments by value, as OpenCL's
 * clSetKernelArg() copies them; 0 or the error, printed with the kernel's
 * name. */
int real_launch(real_env *env, const fpar_kernel *k, fpar_range global,
                fpar_range local, const void *args, size_t args_size);
/* Submit a scoped group function (fpar_parallel). */
int real_parallel(real_env *env, const char *name, fpar_range groups,
                  fpar_range items, fpar_group_fn fn, void *args);
/* Wait for everything submitted: 0 or the first failure, printed. */
int real_wait(real_env *env);

/* Copy n bytes from src into host, the data version v works on: for
 * pocl through b, host's buffer, mapped for writing.  0 or nonzero. */
int real_put(real_env *env, real_version v, bench_ocl_buf *b, void *host,
             const void *src, size_t n);
/* The n bytes at host for reading what version v made (for pocl mapped
 * through b), then real_done(); NULL after printing why. */
const void *real_get(real_env *env, real_version v, bench_ocl_buf *b,
                     const void *host, size_t n);
void real_done(real_env *env, real_version v, bench_ocl_buf *b, const void *p);

/* Wait for what version v submitted in a run: clFinish for pocl,
 * fpar_queue_wait for port and best, nothing for openmp (its loops are
 * done).  Returns err, or the wait's failure. */
int real_finish(real_env *env, real_version v, int err);

/* Whether the n values version v left at host (read through b for pocl)
 * match want: exactly for integers; for floats |got - want| <= atol +
 * rtol |want|.  1 when all match, else 0 with the first difference (and
 * the worst, for floats) in why. */
int real_match_i32(real_env *env, real_version v, bench_ocl_buf *b,
                   const int32_t *host, const int32_t *want, size_t n,
                   char *why, size_t len);
int real_match_f32(real_env *env, real_version v, bench_ocl_buf *b,
                   const float *host, const float *want, size_t n, double rtol,
                   double atol, char *why, size_t len);

/* ---- OpenCL (examples/benchmark/opencl.c, shared with the benchmark) -- */

/* The embedded OpenCL C source of a kernel file (cl_sources.c, made from
 * examples/real/NAME.cl at build time), or NULL. */
const char *real_cl_source(const char *name);

/* Kernel kname of the suite's OpenCL program name (examples/real/name.cl),
 * built on first use; NULL after printing why. */
static inline bench_ocl_kernel *real_cl_kernel(bench_ocl *o, const char *name,
                                               const char *kname) {
  return bench_ocl_build(o, name, real_cl_source(name), kname);
}

#endif
