/* SPDX-License-Identifier: MIT */
/* bench.h - what the benchmark's sections share: their entry points, the
 * runtime and launch helpers, and the few kernels two sections use. */
#ifndef FPAR_BENCH_H
#define FPAR_BENCH_H

#include <fiberpar.h>
#include <fiberpar/phase.h>
#include <math.h>
#include <stdint.h>

#include "bench_util.h"

/* Timed repetitions of every figure (after one untimed warm-up). */
#define REPS 9

/* ---- The sections (one file each) --------------------------------------- */

void bench_barrier(void);
void bench_free(void);
void bench_launch(void);
void bench_memory(void);
void bench_scoped(void);
void bench_lanes(void);
void bench_phase(void);
void bench_ranges(void);
void bench_subgroups(void);
void bench_collectives(void);
void bench_timestep(void);

/* The sections this build runs, in the order they run: every section
 * (sections.c), or the lanes section alone in the builds for another
 * instruction set (sections_lanes.c). */
typedef struct bench_section {
  const char *name;
  void (*run)(void);
  const char *what;
} bench_section;
extern const bench_section bench_sections[];
extern const size_t bench_num_sections;

/* ---- Runtime and launch helpers (common.c) ------------------------------ */

/* Exit with the call's error and fpar_last_error() when err is not 0. */
void bench_check(int err, const char *what);
/* A runtime of `threads` workers (0: one per core) and FP-environment mode. */
fpar_runtime *bench_runtime(unsigned threads, fpar_fpenv fpenv);
/* Wait for a launch's event and release it; exit with the kernel's message
 * if it failed. */
void bench_wait(fpar_event *ev, const char *what);
/* fpar_parallel_for() and wait. */
void bench_run(fpar_queue *q, fpar_range g, fpar_range l, fpar_kernel_fn k,
               void *args);
/* fpar_launch() and wait. */
void bench_run_desc(fpar_queue *q, const fpar_launch_desc *d);
/* "own fpenv" or "shared fpenv", as the result lines name the modes. */
const char *bench_fpenv_name(fpar_fpenv e);
/* Threads of an OpenMP parallel region (1 without OpenMP). */
int bench_omp_threads(void);

/* ---- Kernels that two sections share ------------------------------------ */

/* launch.c: an empty nd_range kernel (launch, ranges and memory). */
void bench_empty_kernel(fpar_item *it, void *args);
/* launch.c: the child process's OpenMP region timing (see main.c). */
bench_stat bench_omp_region_times(void);

/* free.c: z = a x + y, memory-bound (free and ranges). */
typedef struct saxpy_args {
  float a;
  const float *x, *y;
  float *z;
} saxpy_args;
extern const fpar_kernel *const bench_saxpy_kernel;

/* barrier.c: the barrier microbenchmark's arguments and its loop-fission
 * floor (barrier and phase).  One LCG step on a private value and a store
 * to local memory between barriers, as in ../shared/anchors/wg_barrier.c. */
typedef struct barrier_args {
  int barriers;
  uint32_t *out; /* one checksum word per group */
} barrier_args;
/* Time and report the floor for `groups` groups of L work-items; *ref
 * receives the checksum every group must produce. */
bench_stat bench_barrier_floor(size_t L, size_t groups, double units,
                               uint32_t *ref);

/* NBody's interaction loop (scoped and lanes), inlined into our kernels and
 * the OpenMP references alike. */
#define NB_EPS2 0.01f
static inline void nb_interact(const float *src, size_t n, const float *me,
                               float acc[3]) {
  float ax = acc[0], ay = acc[1], az = acc[2];

#pragma omp simd reduction(+ : ax, ay, az)
  for (size_t j = 0; j < n; j++) {
    float rx = src[j * 4] - me[0], ry = src[j * 4 + 1] - me[1];
    float rz = src[j * 4 + 2] - me[2];
    float d2 = rx * rx + ry * ry + rz * rz + NB_EPS2;
    float inv = 1.0f / sqrtf(d2);
    float w = src[j * 4 + 3] * inv * inv * inv;
    ax += rx * w, ay += ry * w, az += rz * w;
  }
  acc[0] = ax, acc[1] = ay, acc[2] = az;
}

#endif
