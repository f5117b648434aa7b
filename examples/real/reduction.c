/* SPDX-License-Identifier: MIT */
/* reduction.c - SHOC Reduction: the sum of 2^24 floats.
 *
 * OpenCL (reduction.cl): 64 work-groups of 256 add grid-strided pairs of
 * elements into local memory, reduce them with a tree of 8 barriers and
 * write 64 partial sums, which reduceNoLocal adds in one work-item.
 * port: the same two kernels, the first a phase kernel.
 * best: a lane kernel: each sub-group of W work-items sums a contiguous
 * span of W x 256 floats in four vector accumulators and reduces it with
 * one sub-group reduction; the host adds the sub-groups' sums.
 * openmp: `parallel for simd reduction(+)`.
 * Checked against a double-precision sum: relative error 1e-4 (the
 * versions add in float, in different orders). */
#include <fiberpar/simd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "real.h"

#define RED_LOCAL 256 /* SHOC's work-group size */
#define RED_GROUPS 64 /* SHOC's number of work-groups */
#define RED_SPAN 256  /* best: floats per lane */
#define RED_BEST_LOCAL 128

typedef struct red_args {
  const float *in;
  float *partial;
  float *result;
  unsigned n;
  unsigned groups; /* partial sums */
} red_args;

typedef struct red {
  unsigned n;
  float *in, *partial, *result;
  double ref;
  red_args args;
  bench_ocl_buf *cin, *cpartial, *cresult;
  bench_ocl_kernel *reduce, *final;
} red;

static int red_size_ok(long n) {
  return n > 0 && n <= 1L << 28 && n % (1L << 15) == 0;
}

static void *red_setup(long n) {
  red *r = calloc(1, sizeof *r);

  if (r == NULL)
    return NULL;
  r->n = (unsigned)n;
  r->in = real_alloc((size_t)n * sizeof(float));
  r->partial = real_alloc((size_t)n / RED_SPAN * sizeof(float));
  r->result = real_alloc(sizeof(float));
  for (unsigned i = 0; i < r->n; i++) {
    r->in[i] = real_rand01(i, 1);
    r->ref += r->in[i];
  }
  return r;
}

static void red_release(void *p) {
  red *r = p;

  free(r->in), free(r->partial), free(r->result), free(r);
}

static int red_ocl_init(void *p, bench_ocl *o) {
  red *r = p;

  r->reduce = real_cl_kernel(o, "reduction", "reduce");
  r->final = real_cl_kernel(o, "reduction", "reduceNoLocal");
  r->cin = bench_ocl_buffer(o, r->in, (size_t)r->n * sizeof(float));
  r->cpartial = bench_ocl_buffer(o, r->partial, RED_GROUPS * sizeof(float));
  r->cresult = bench_ocl_buffer(o, r->result, sizeof(float));
  return r->reduce == NULL || r->final == NULL || r->cin == NULL ||
         r->cpartial == NULL || r->cresult == NULL;
}

static int red_prepare(void *p, real_version v, real_env *env) {
  red *r = p;
  const float nan = NAN;

  return real_put(env, v, r->cresult, r->result, &nan, sizeof nan);
}

/* ---- port ------------------------------------------------------------------
 */

typedef struct red_local {
  float sdata[RED_LOCAL];
} red_local;

/* What every work-item holds alike: the stride of the tree. */
typedef struct red_uniform {
  unsigned s;
} red_uniform;

FPAR_PHASE_KERNEL_LOCAL_UNIFORM_STATELESS(reduction_port, it, args, red_uniform,
                                          u, red_local, lm) {
  const red_args *a = args;
  const unsigned tid = (unsigned)fpar_local_id(it, 0);
  const unsigned blockSize = (unsigned)fpar_local_range(it, 0);

  FPAR_PHASE_BEGIN();
  {
    unsigned i = (unsigned)fpar_group_id(it, 0) * (blockSize * 2) + tid;
    const unsigned gridSize = blockSize * 2 * (unsigned)fpar_group_range(it, 0);

    lm->sdata[tid] = 0;
    while (i < a->n) {
      lm->sdata[tid] += a->in[i] + a->in[i + blockSize];
      i += gridSize;
    }
  }
  FPAR_PHASE_BARRIER();
  for (u->s = blockSize / 2; u->s > 0; u->s >>= 1) {
    if (tid < u->s)
      lm->sdata[tid] += lm->sdata[tid + u->s];
    FPAR_PHASE_BARRIER();
  }
  if (tid == 0)
    a->partial[fpar_group_id(it, 0)] = lm->sdata[0];
  FPAR_PHASE_END();
}

FPAR_KERNEL(reduction_port_final, it, args) {
  const red_args *a = args;
  float sum = 0.0f;

  for (unsigned i = 0; i < a->groups; i++)
    sum += a->partial[i];
  a->result[0] = sum;
}

/* ---- best ------------------------------------------------------------------
 */

/* Lane i of the sub-group adds elements i, i + W, ... of its span. */
FPAR_LANE_KERNEL(reduction_best, lk, args) {
  const red_args *a = args;
  const float *src = a->in + lk->global_first * RED_SPAN;
  fpar_vf32 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};

  for (size_t k = 0; k < RED_SPAN; k += 4) {
    s0 += fpar_vf32_load(src + (k + 0) * FPAR_SIMD_WIDTH);
    s1 += fpar_vf32_load(src + (k + 1) * FPAR_SIMD_WIDTH);
    s2 += fpar_vf32_load(src + (k + 2) * FPAR_SIMD_WIDTH);
    s3 += fpar_vf32_load(src + (k + 3) * FPAR_SIMD_WIDTH);
  }
  a->partial[lk->global_first / FPAR_SIMD_WIDTH] =
      fpar_sub_group_reduce_add_vf32(lk, (s0 + s1) + (s2 + s3));
}

static int red_run(void *p, real_version v, real_env *env) {
  red *r = p;
  red_args *a = &r->args;
  int err = 0;

  a->in = r->in;
  a->partial = r->partial;
  a->result = r->result;
  a->n = r->n;
  switch (v) {
  case REAL_POCL: {
    size_t global = RED_GROUPS * RED_LOCAL, local = RED_LOCAL, one = 1;

    err |= bench_ocl_args(r->reduce, "bblu", r->cin, r->cpartial,
                          RED_LOCAL * sizeof(float), r->n);
    err |= bench_ocl_enqueue(r->reduce, 1, &global, &local);
    err |= bench_ocl_args(r->final, "bbu", r->cpartial, r->cresult,
                          (unsigned)RED_GROUPS);
    err |= bench_ocl_enqueue(r->final, 1, &one, &one);
    return real_finish(env, v, err);
  }
  case REAL_PORT:
    a->groups = RED_GROUPS;
    err |=
        real_launch(env, &reduction_port, fpar_range1(RED_GROUPS * RED_LOCAL),
                    fpar_range1(RED_LOCAL), a, sizeof *a);
    err |= real_launch(env, &reduction_port_final, fpar_range1(1),
                       fpar_range1(1), a, sizeof *a);
    return real_finish(env, v, err);
  case REAL_BEST: {
    size_t items = r->n / RED_SPAN, subgroups = items / FPAR_SIMD_WIDTH;
    float sum = 0.0f;

    err |= real_launch(env, &reduction_best, fpar_range1(items),
                       fpar_range1(RED_BEST_LOCAL), a, sizeof *a);
    if ((err = real_finish(env, v, err)) != 0)
      return err;
    for (size_t g = 0; g < subgroups; g++)
      sum += r->partial[g];
    r->result[0] = sum;
    return 0;
  }
  default: {
    const float *in = r->in;
    float sum = 0.0f;

#pragma omp parallel for simd reduction(+ : sum) schedule(static)
    for (unsigned i = 0; i < r->n; i++)
      sum += in[i];
    r->result[0] = sum;
    return 0;
  }
  }
}

static int red_check(void *p, real_version v, real_env *env, char *why,
                     size_t len) {
  red *r = p;
  float want = (float)r->ref;

  return real_match_f32(env, v, r->cresult, r->result, &want, 1, 1e-4, 0, why,
                        len);
}

const real_kernel real_reduction = {
    "reduction",
    "lanes+subgroup-reduce",
    "the number of floats, a multiple of 2^15 up to 2^28",
    1L << 24,
    1L << 18,
    red_size_ok,
    red_setup,
    red_release,
    red_ocl_init,
    red_prepare,
    red_run,
    red_check};
