/* SPDX-License-Identifier: MIT */
/* lane_kernels.h - the bundled kernels in lane form (<fiberpar/simd.h>):
 * each work-item call is a sub-group of FPAR_SIMD_WIDTH lanes.  Used by
 * examples/lanes.c (checked against plain C) and the benchmark (against
 * OpenMP SIMD loops).  Every launcher submits, waits and returns 0 or the
 * launch's error code. */
#ifndef FPAR_EXAMPLES_LANE_KERNELS_H
#define FPAR_EXAMPLES_LANE_KERNELS_H

#include <fiberpar/simd.h>
#include <stddef.h>
#include <stdint.h>

/* The instruction set these kernels were compiled for, which sets the
 * lane width: "avx512f", "avx2", "sse2" or "scalar". */
const char *lk_isa(void);

/* Whether this CPU runs that instruction set (a program built for a wider
 * one than the CPU has must stop before its first lane kernel). */
int lk_isa_runs(void);

/* Sum of in[0..n): an nd_range lane kernel (each work-item sums 256
 * elements, sub-groups reduce in registers, one barrier per group) writing
 * one partial sum per group.  n must be a multiple of 256 * 256.
 * *groups receives the number of partials. */
int lk_reduce_ndrange(fpar_queue *q, const float *in, size_t n, float *partial,
                      size_t *groups);

/* For each sub-group of W consecutive floats of in[0..n), its minimum in
 * minima[k] (sub-group k) and the running maximum of its lanes in
 * running_max (fpar_sub_group_reduce_min_vf32, fpar_vf32_scan_max).  n
 * must be a multiple of 256. */
int lk_subgroup_minmax(fpar_queue *q, const float *in, size_t n, float *minima,
                       float *running_max);

/* The same with scoped parallelism: work groups of 256 logical items of
 * 256 floats each, summed by a lane body in registers, block sums in local
 * memory.  n must be a multiple of 256 * 256. */
int lk_reduce_scoped(fpar_queue *q, const float *in, size_t n, float *partial,
                     size_t *groups);

/* Accelerations of n bodies (x, y, z, mass), Aparapi's tiles in local
 * memory, one body per work-item; fast: the rsqrt estimate refined by
 * Newton instead of 1/sqrt.  n must be a multiple of 256. */
int lk_nbody(fpar_queue *q, const float *pos, float *acc, size_t n, int fast);

/* C = A B for n x n row-major matrices: each work-item computes 64 rows
 * of 2 columns, register-blocked 4 rows x 2 vectors at a time from a
 * private panel of B (no local memory, no barrier).  n must be a multiple
 * of 128. */
int lk_sgemm(fpar_queue *q, const float *a, const float *b, float *c, size_t n);

/* One 5-point Jacobi sweep of an nx x ny grid (x fastest): out = mean of
 * the four neighbours inside, out = in on the boundary.  The neighbours
 * come straight from global memory (no local tiles, no barrier), and a
 * row runner of its own runs each row as one loop of vector steps.  Any
 * sizes; in and out must not overlap. */
int lk_jacobi(fpar_queue *q, const float *in, float *out, size_t nx, size_t ny);

/* One 7-point sweep of an nx x ny x nz grid (x fastest, then y): out =
 * the mean of the cell and its six neighbours inside, out = in on the
 * boundary; as lk_jacobi.  Any sizes. */
int lk_stencil7(fpar_queue *q, const float *in, float *out, size_t nx,
                size_t ny, size_t nz);

/* `barriers` barriers per group of `local` work-items in lane form (one
 * LCG step and a local-memory store between barriers, as the scalar
 * barrier benchmark); one checksum word per group in out. */
int lk_barrier_loop(fpar_queue *q, size_t local, size_t groups, int barriers,
                    uint32_t *out);

#endif
