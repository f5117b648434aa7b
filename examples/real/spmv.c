/* SPDX-License-Identifier: MIT */
/* spmv.c - SHOC SpMV in CSR form: y = A x for a random 16384 x 16384
 * float matrix with about 1% nonzeros (SHOC's largest size; rows of 82 to
 * 245 nonzeros, 2.7 million in all).  A run computes the product twice:
 * with SHOC's scalar kernel and with its vector kernel.
 *
 * OpenCL (spmv.cl): scalar: a work-item per row (groups of 128); vector:
 * 32 work-items per row, strided products reduced in local memory with 6
 * barriers (this PoCL has no sub-groups).
 * port: the scalar kernel as an FPAR_KERNEL (no barrier), the vector
 * kernel as a phase kernel.
 * best: a lane kernel, one row per sub-group of W lanes: vector loads of
 * values and columns, a gather of x, and one sub-group reduction
 * (fpar_sub_group_reduce_add_vf32) per row; run for both products.
 * openmp: `parallel for` over rows with an `omp simd reduction` row,
 * run for both products.
 * Checked against double-precision sums per row: |d| <= 1e-6 + 1e-4
 * |want| (the versions add in float, in different orders). */
#include <fiberpar/simd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real.h"

#define SPMV_LOCAL 128
#define SPMV_VEC 32 /* work-items per row of the vector kernel */

typedef struct spmv_args {
  const float *val, *vec;
  const int *cols, *rows; /* rows: rowDelimiters, dim + 1 entries */
  int dim;
  float *out;
} spmv_args;

typedef struct spmv {
  int dim, nnz;
  float *val, *vec, *out[2], *want;
  int *cols, *rows;
  spmv_args args[2];
  bench_ocl_buf *cval, *cvec, *ccols, *crows, *cout[2];
  bench_ocl_kernel *scalar, *vector;
} spmv;

static int spmv_size_ok(long n) {
  return n >= SPMV_LOCAL && n <= 65536 && n % SPMV_LOCAL == 0;
}

static void *spmv_setup(long n) {
  spmv *s = calloc(1, sizeof *s);
  const int dim = (int)n, mean = dim / 100 > 1 ? dim / 100 : 2;
  size_t cap = (size_t)dim * (mean / 2 + mean + 1);

  if (s == NULL)
    return NULL;
  s->dim = dim;
  s->rows = real_alloc(((size_t)dim + 1) * sizeof(int));
  s->cols = real_alloc(cap * sizeof(int));
  s->val = real_alloc(cap * sizeof(float));
  s->vec = real_alloc((size_t)dim * sizeof(float));
  s->out[0] = real_alloc((size_t)dim * sizeof(float));
  s->out[1] = real_alloc((size_t)dim * sizeof(float));
  s->want = real_alloc((size_t)dim * sizeof(float));
  /* Row r has mean/2 .. mean/2 + mean nonzeros, one in each of as many
   * equal column segments, at a pseudo-random place in it. */
  for (int r = 0; r < dim; r++) {
    int count = mean / 2 + (int)(real_rand01((uint32_t)r, 11) * (mean + 1));
    int width = dim / count;

    s->rows[r] = s->nnz;
    for (int k = 0; k < count; k++) {
      uint32_t at = (uint32_t)s->nnz;

      s->cols[at] = k * width + (int)(real_rand01(at, 12) * (float)width);
      s->val[at] = real_rand01(at, 13);
      s->nnz++;
    }
  }
  s->rows[dim] = s->nnz;
  for (int i = 0; i < dim; i++)
    s->vec[i] = real_rand01((uint32_t)i, 14);
  for (int r = 0; r < dim; r++) {
    double t = 0;

    for (int j = s->rows[r]; j < s->rows[r + 1]; j++)
      t += (double)s->val[j] * s->vec[s->cols[j]];
    s->want[r] = (float)t;
  }
  return s;
}

static void spmv_release(void *p) {
  spmv *s = p;

  free(s->rows), free(s->cols), free(s->val), free(s->vec);
  free(s->out[0]), free(s->out[1]), free(s->want), free(s);
}

static int spmv_ocl_init(void *p, bench_ocl *o) {
  spmv *s = p;
  size_t dim = (size_t)s->dim, nnz = (size_t)s->nnz;

  s->scalar = real_cl_kernel(o, "spmv", "spmv_csr_scalar_kernel");
  s->vector = real_cl_kernel(o, "spmv", "spmv_csr_vector_kernel");
  s->cval = bench_ocl_buffer(o, s->val, nnz * sizeof(float));
  s->cvec = bench_ocl_buffer(o, s->vec, dim * sizeof(float));
  s->ccols = bench_ocl_buffer(o, s->cols, nnz * sizeof(int));
  s->crows = bench_ocl_buffer(o, s->rows, (dim + 1) * sizeof(int));
  s->cout[0] = bench_ocl_buffer(o, s->out[0], dim * sizeof(float));
  s->cout[1] = bench_ocl_buffer(o, s->out[1], dim * sizeof(float));
  return s->scalar == NULL || s->vector == NULL || s->cval == NULL ||
         s->cvec == NULL || s->ccols == NULL || s->crows == NULL ||
         s->cout[0] == NULL || s->cout[1] == NULL;
}

static int spmv_prepare(void *p, real_version v, real_env *env) {
  spmv *s = p;
  int err = 0;

  for (int k = 0; k < 2; k++) {
    size_t bytes = (size_t)s->dim * sizeof(float);
    float *out = v == REAL_POCL
                     ? bench_ocl_map(env->ocl, s->cout[k], 0, bytes, 1)
                     : s->out[k];

    if (out == NULL)
      return -1;
    memset(out, 0xff, bytes);
    if (v == REAL_POCL)
      err |= bench_ocl_unmap(env->ocl, s->cout[k], out);
  }
  return err;
}

/* ---- port ------------------------------------------------------------------
 */

FPAR_KERNEL(spmv_port_scalar, it, args) {
  const spmv_args *a = args;
  const int myRow = (int)fpar_global_id(it, 0);

  if (myRow < a->dim) {
    float t = 0;
    int start = a->rows[myRow], end = a->rows[myRow + 1];

    for (int j = start; j < end; j++)
      t += a->val[j] * a->vec[a->cols[j]];
    a->out[myRow] = t;
  }
}

typedef struct spmv_local {
  float partialSums[SPMV_LOCAL];
} spmv_local;

typedef struct spmv_state {
  int bar;
} spmv_state;

FPAR_PHASE_KERNEL_LOCAL(spmv_port_vector, it, args, spmv_state, st, spmv_local,
                        lm) {
  const spmv_args *a = args;
  const int t = (int)fpar_local_id(it, 0), id = t & (SPMV_VEC - 1);
  const int vecsPerBlock = (int)fpar_local_range(it, 0) / SPMV_VEC;
  const int myRow = (int)fpar_group_id(it, 0) * vecsPerBlock + t / SPMV_VEC;
  float *partialSums = lm->partialSums;

  FPAR_PHASE_BEGIN();
  partialSums[t] = 0;
  if (myRow < a->dim) {
    {
      float mySum = 0;

      for (int j = a->rows[myRow] + id; j < a->rows[myRow + 1]; j += SPMV_VEC)
        mySum += a->val[j] * a->vec[a->cols[j]];
      partialSums[t] = mySum;
    }
    FPAR_PHASE_BARRIER();
    st->bar = SPMV_VEC / 2;
    while (st->bar > 0) {
      if (id < st->bar)
        partialSums[t] += partialSums[t + st->bar];
      FPAR_PHASE_BARRIER();
      st->bar = st->bar / 2;
    }
    if (id == 0)
      a->out[myRow] = partialSums[t];
  }
  FPAR_PHASE_END();
}

/* ---- best: a row per sub-group of lanes ------------------------------------
 */

FPAR_LANE_KERNEL(spmv_best, lk, args) {
  const spmv_args *a = args;
  const int row = (int)(lk->global_first / FPAR_SIMD_WIDTH);
  const int end = a->rows[row + 1];
  fpar_vf32 acc = {0};
  int j = a->rows[row];

  for (; j + FPAR_SIMD_WIDTH <= end; j += FPAR_SIMD_WIDTH) {
    fpar_vi32 col = fpar_vi32_load(a->cols + j);

    acc += fpar_vf32_load(a->val + j) *
           fpar_vf32_gather(a->vec, col, fpar_vmask_first(FPAR_SIMD_WIDTH));
  }
  if (j < end) {
    fpar_vmask m = fpar_vmask_first((unsigned)(end - j));
    fpar_vi32 col = fpar_vi32_load_mask(a->cols + j, m);

    acc +=
        fpar_vf32_load_mask(a->val + j, m) * fpar_vf32_gather(a->vec, col, m);
  }
  a->out[row] = fpar_sub_group_reduce_add_vf32(lk, acc);
}

/* ---- the two products
 * --------------------------------------------------------- */

static int spmv_run(void *p, real_version v, real_env *env) {
  spmv *s = p;
  const size_t dim = (size_t)s->dim;
  int err = 0;

  for (int k = 0; k < 2; k++)
    s->args[k] =
        (spmv_args){s->val, s->vec, s->cols, s->rows, s->dim, s->out[k]};
  switch (v) {
  case REAL_POCL: {
    size_t g1 = dim, g2 = dim * SPMV_VEC, local = SPMV_LOCAL;

    err |= bench_ocl_args(s->scalar, "bbbbib", s->cval, s->cvec, s->ccols,
                          s->crows, s->dim, s->cout[0]);
    err |= bench_ocl_enqueue(s->scalar, 1, &g1, &local);
    err |= bench_ocl_args(s->vector, "bbbbib", s->cval, s->cvec, s->ccols,
                          s->crows, s->dim, s->cout[1]);
    err |= bench_ocl_enqueue(s->vector, 1, &g2, &local);
    return real_finish(env, v, err);
  }
  case REAL_PORT:
    err |= real_launch(env, &spmv_port_scalar, fpar_range1(dim),
                       fpar_range1(SPMV_LOCAL), &s->args[0], sizeof s->args[0]);
    err |= real_launch(env, &spmv_port_vector, fpar_range1(dim * SPMV_VEC),
                       fpar_range1(SPMV_LOCAL), &s->args[1], sizeof s->args[0]);
    return real_finish(env, v, err);
  case REAL_BEST:
    for (int k = 0; k < 2; k++)
      err |= real_launch(env, &spmv_best, fpar_range1(dim * FPAR_SIMD_WIDTH),
                         fpar_range1(16 * FPAR_SIMD_WIDTH), &s->args[k],
                         sizeof s->args[0]);
    return real_finish(env, v, err);
  default:
    for (int k = 0; k < 2; k++) {
      const spmv_args *a = &s->args[k];

#pragma omp parallel for schedule(static)
      for (int r = 0; r < a->dim; r++) {
        float t = 0;

#pragma omp simd reduction(+ : t)
        for (int j = a->rows[r]; j < a->rows[r + 1]; j++)
          t += a->val[j] * a->vec[a->cols[j]];
        a->out[r] = t;
      }
    }
    return 0;
  }
}

static int spmv_check(void *p, real_version v, real_env *env, char *why,
                      size_t len) {
  spmv *s = p;

  return real_match_f32(env, v, s->cout[0], s->out[0], s->want, (size_t)s->dim,
                        1e-4, 1e-6, why, len) &&
         real_match_f32(env, v, s->cout[1], s->out[1], s->want, (size_t)s->dim,
                        1e-4, 1e-6, why, len);
}

const real_kernel real_spmv = {
    "spmv",
    "lanes+subgroup-reduce",
    "the number of rows, a multiple of 128 from 128 to 65536",
    16384,
    1024,
    spmv_size_ok,
    spmv_setup,
    spmv_release,
    spmv_ocl_init,
    spmv_prepare,
    spmv_run,
    spmv_check};
