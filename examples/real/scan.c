/* SPDX-License-Identifier: MIT */
/* scan.c - SHOC Scan: the exclusive prefix sum of 2^24 ints, in three
 * kernels: reduce (each of 64 work-groups of 256 sums its region), top_scan
 * (one group scans the 64 sums), bottom_scan (each group scans its region
 * in windows of 1024 ints, seeded with its scanned sum).
 *
 * OpenCL (scan.cl): SHOC's kernels (bottom_scan as an exclusive scan; in
 * SHOC it is inclusive): 19 barriers per window of 1024 ints.
 * port: the same three kernels as phase kernels; scan.cl's helper with
 * barriers (scanLocalMem) becomes a macro of phase code; what every
 * work-item holds alike (window, seed, step) is the uniform part.
 * best: the same three steps as scoped groups (fpar_parallel) over the
 * same 64 regions: sums in lane vectors, the region scanned a vector at a
 * time with a lane scan (fpar_vi32_scan_add), no barrier.
 * openmp: one parallel region: per-thread sums (`omp simd reduction`),
 * their scan by one thread, then each thread's part with `omp simd
 * reduction(inscan)`.
 * Values are pseudo-random in [0, 16).  Checked exactly against the
 * serial scan. */
#include <fiberpar/simd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "real.h"

#define SCAN_LOCAL 256
#define SCAN_GROUPS 64

typedef struct scan_args {
  const int *in;
  int *isums, *out;
  int n;
} scan_args;

typedef struct scan {
  int n;
  int *in, *out, *isums, *want;
  scan_args args;
  bench_ocl_buf *cin, *cout, *cisums;
  bench_ocl_kernel *reduce, *top, *bottom;
} scan;

static int scan_size_ok(long n) {
  return n > 0 && n <= 1L << 28 && n % (1L << 16) == 0;
}

static void *scan_setup(long n) {
  scan *s = calloc(1, sizeof *s);
  int acc = 0;

  if (s == NULL)
    return NULL;
  s->n = (int)n;
  s->in = real_alloc((size_t)n * sizeof(int));
  s->out = real_alloc((size_t)n * sizeof(int));
  s->want = real_alloc((size_t)n * sizeof(int));
  s->isums = real_alloc(SCAN_LOCAL * sizeof(int));
  for (int i = 0; i < s->n; i++) {
    s->in[i] = (int)(real_rand01((uint32_t)i, 10) * 16.0f);
    s->want[i] = acc;
    acc += s->in[i];
  }
  return s;
}

static void scan_release(void *p) {
  scan *s = p;

  free(s->in), free(s->out), free(s->want), free(s->isums), free(s);
}

static int scan_ocl_init(void *p, bench_ocl *o) {
  scan *s = p;

  s->reduce = real_cl_kernel(o, "scan", "reduce");
  s->top = real_cl_kernel(o, "scan", "top_scan");
  s->bottom = real_cl_kernel(o, "scan", "bottom_scan");
  s->cin = bench_ocl_buffer(o, s->in, (size_t)s->n * sizeof(int));
  s->cout = bench_ocl_buffer(o, s->out, (size_t)s->n * sizeof(int));
  s->cisums = bench_ocl_buffer(o, s->isums, SCAN_LOCAL * sizeof(int));
  return s->reduce == NULL || s->top == NULL || s->bottom == NULL ||
         s->cin == NULL || s->cout == NULL || s->cisums == NULL;
}

static int scan_prepare(void *p, real_version v, real_env *env) {
  scan *s = p;
  int *out = v == REAL_POCL
                 ? bench_ocl_map(env->ocl, s->cout, 0, (size_t)s->n * 4, 1)
                 : s->out;

  if (out == NULL)
    return -1;
  memset(out, 0xff, (size_t)s->n * sizeof(int));
  return v == REAL_POCL ? bench_ocl_unmap(env->ocl, s->cout, out) : 0;
}

/* ---- port ------------------------------------------------------------------
 */

typedef struct scan_reduce_local {
  int lmem[SCAN_LOCAL];
} scan_reduce_local;

typedef struct scan_reduce_state {
  unsigned s;
} scan_reduce_state;

/* The region of group g of the bottom scan, in ints: [*start, *stop). */
static inline void scan_region(int n, int g, int groups, int *start,
                               int *stop) {
  int region = ((n / 4) / groups) * 4;

  *start = g * region;
  *stop = g == groups - 1 ? n : *start + region;
}

FPAR_PHASE_KERNEL_LOCAL(scan_port_reduce, it, args, scan_reduce_state, st,
                        scan_reduce_local, lm) {
  const scan_args *a = args;
  const int tid = (int)fpar_local_id(it, 0),
            size = (int)fpar_local_range(it, 0);

  FPAR_PHASE_BEGIN();
  {
    int block_start, block_stop, sum = 0;

    scan_region(a->n, (int)fpar_group_id(it, 0), (int)fpar_group_range(it, 0),
                &block_start, &block_stop);
    for (int i = block_start + tid; i < block_stop; i += size)
      sum += a->in[i];
    lm->lmem[tid] = sum;
  }
  FPAR_PHASE_BARRIER();
  for (st->s = (unsigned)size / 2; st->s > 0; st->s >>= 1) {
    if ((unsigned)tid < st->s)
      lm->lmem[tid] += lm->lmem[tid + st->s];
    FPAR_PHASE_BARRIER();
  }
  if (tid == 0)
    a->isums[fpar_group_id(it, 0)] = lm->lmem[0];
  FPAR_PHASE_END();
}

/* scan.cl's scanLocalMem as phase code (a function cannot hold a phase
 * kernel's barriers): dst = the exclusive (1) or inclusive (0) scan of val
 * over the group, through lm->lmem; the loop's u->d (the same in every
 * work-item) and st->t cross its barriers. */
#define SCAN_LOCAL_MEM(dst, val, exclusive)                                    \
  lm->lmem[lid] = 0;                                                           \
  lm->lmem[lid + size] = (val);                                                \
  FPAR_PHASE_BARRIER();                                                        \
  for (u->d = 1; u->d < size; u->d *= 2) {                                     \
    st->t = lm->lmem[lid + size - u->d];                                       \
    FPAR_PHASE_BARRIER();                                                      \
    lm->lmem[lid + size] += st->t;                                             \
    FPAR_PHASE_BARRIER();                                                      \
  }                                                                            \
  (dst) = lm->lmem[lid + size - (exclusive)]

typedef struct scan_local {
  int lmem[2 * SCAN_LOCAL];
  int s_seed;
} scan_local;

/* What every work-item holds alike: the scan's step. */
typedef struct scan_top_uniform {
  int d;
} scan_top_uniform;

typedef struct scan_top_state {
  int val, t;
} scan_top_state;

FPAR_PHASE_KERNEL_LOCAL_UNIFORM(scan_port_top, it, args, scan_top_uniform, u,
                                scan_top_state, st, scan_local, lm) {
  const scan_args *a = args;
  const int lid = (int)fpar_local_id(it, 0),
            size = (int)fpar_local_range(it, 0);

  FPAR_PHASE_BEGIN();
  st->val = lid < SCAN_GROUPS ? a->isums[lid] : 0;
  SCAN_LOCAL_MEM(st->val, st->val, 1);
  if (lid < SCAN_GROUPS)
    a->isums[lid] = st->val;
  FPAR_PHASE_END();
}

/* What every work-item holds alike: the window, its seed and the scan's
 * step. */
typedef struct scan_bottom_uniform {
  int window, seed, d;
} scan_bottom_uniform;

typedef struct scan_bottom_state {
  int v[4], i, res, t;
} scan_bottom_state;

FPAR_PHASE_KERNEL_LOCAL_UNIFORM(scan_port_bottom, it, args, scan_bottom_uniform,
                                u, scan_bottom_state, st, scan_local, lm) {
  const scan_args *a = args;
  const int lid = (int)fpar_local_id(it, 0),
            size = (int)fpar_local_range(it, 0);
  const int g = (int)fpar_group_id(it, 0);
  const int n4 = a->n / 4, region = n4 / (int)fpar_group_range(it, 0);
  const int block_start = g * region;
  const int block_stop =
      g == (int)fpar_group_range(it, 0) - 1 ? n4 : block_start + region;

  FPAR_PHASE_BEGIN();
  st->i = block_start + lid;
  u->window = block_start;
  u->seed = a->isums[g];
  while (u->window < block_stop) {
    for (int k = 0; k < 4; k++)
      st->v[k] = st->i < block_stop ? a->in[4 * st->i + k] : 0;
    SCAN_LOCAL_MEM(st->res, st->v[0] + st->v[1] + st->v[2] + st->v[3], 1);
    if (st->i < block_stop) {
      int *o = a->out + 4 * st->i, acc = st->res + u->seed;

      for (int k = 0; k < 4; k++) {
        o[k] = acc;
        acc += st->v[k];
      }
    }
    FPAR_PHASE_BARRIER();
    if (lid == size - 1)
      lm->s_seed =
          st->res + u->seed + st->v[0] + st->v[1] + st->v[2] + st->v[3];
    FPAR_PHASE_BARRIER();
    u->seed = lm->s_seed;
    u->window += size;
    st->i += size;
  }
  FPAR_PHASE_END();
}

#undef SCAN_LOCAL_MEM

/* ---- best: scoped groups over the same regions, lane vectors ------------ */

static void scan_best_reduce(fpar_group *g, void *args) {
  const scan_args *a = args;
  const int b = (int)fpar_group_get_id(g, 0);
  int start, stop, i;
  fpar_vi32 s0 = {0}, s1 = {0};
  int sum;

  scan_region(a->n, b, SCAN_GROUPS, &start, &stop);
  for (i = start; i + 2 * FPAR_SIMD_WIDTH <= stop; i += 2 * FPAR_SIMD_WIDTH) {
    s0 += fpar_vi32_load(a->in + i);
    s1 += fpar_vi32_load(a->in + i + FPAR_SIMD_WIDTH);
  }
  sum = fpar_vi32_reduce_add(s0 + s1, fpar_vmask_first(FPAR_SIMD_WIDTH));
  for (; i < stop; i++)
    sum += a->in[i];
  a->isums[b] = sum;
}

static void scan_best_top(fpar_group *g, void *args) {
  const scan_args *a = args;
  int acc = 0;

  (void)g;
  for (int b = 0; b < SCAN_GROUPS; b++) {
    int x = a->isums[b];

    a->isums[b] = acc;
    acc += x;
  }
}

static void scan_best_bottom(fpar_group *g, void *args) {
  const scan_args *a = args;
  const int b = (int)fpar_group_get_id(g, 0);
  const fpar_vmask all = fpar_vmask_first(FPAR_SIMD_WIDTH);
  int start, stop, i, carry = a->isums[b];
  fpar_vi32 c;

  scan_region(a->n, b, SCAN_GROUPS, &start, &stop);
  c = fpar_vi32_splat(carry);
  for (i = start; i + FPAR_SIMD_WIDTH <= stop; i += FPAR_SIMD_WIDTH) {
    fpar_vi32 v = fpar_vi32_load(a->in + i);
    fpar_vi32 incl = fpar_vi32_scan_add(v, all);

    fpar_vi32_store(a->out + i, incl - v + c);
    c += fpar_vi32_broadcast(incl, FPAR_SIMD_WIDTH - 1);
  }
  carry = c[0];
  for (; i < stop; i++) {
    a->out[i] = carry;
    carry += a->in[i];
  }
}

/* ---- openmp
 * ------------------------------------------------------------------- */

static void scan_omp(const int *in, int *out, int n) {
  int sums[1024];

#pragma omp parallel
  {
    int t = 0, nt = 1, lo, hi, acc = 0;

#ifdef _OPENMP
    t = omp_get_thread_num();
    nt = omp_get_num_threads();
#endif
    lo = (int)((long)n * t / nt);
    hi = (int)((long)n * (t + 1) / nt);
#pragma omp simd reduction(+ : acc)
    for (int i = lo; i < hi; i++)
      acc += in[i];
    sums[t] = acc;
#pragma omp barrier
#pragma omp single
    {
      int run = 0;

      for (int k = 0; k < nt; k++) {
        int x = sums[k];

        sums[k] = run;
        run += x;
      }
    }
    acc = sums[t];
#pragma omp simd reduction(inscan, + : acc)
    for (int i = lo; i < hi; i++) {
      out[i] = acc;
#pragma omp scan exclusive(acc)
      acc += in[i];
    }
  }
}

static int scan_run(void *p, real_version v, real_env *env) {
  scan *s = p;
  scan_args *a = &s->args;
  int err = 0;

  *a = (scan_args){s->in, s->isums, s->out, s->n};
  switch (v) {
  case REAL_POCL: {
    size_t global = SCAN_GROUPS * SCAN_LOCAL, local = SCAN_LOCAL;
    const size_t lbytes = 2 * SCAN_LOCAL * sizeof(int);

    err |= bench_ocl_args(s->reduce, "bbil", s->cin, s->cisums, s->n,
                          (size_t)SCAN_LOCAL * sizeof(int));
    err |= bench_ocl_enqueue(s->reduce, 1, &global, &local);
    err |= bench_ocl_args(s->top, "bil", s->cisums, SCAN_GROUPS, lbytes);
    err |= bench_ocl_enqueue(s->top, 1, &local, &local);
    err |= bench_ocl_args(s->bottom, "bbbil", s->cin, s->cisums, s->cout, s->n,
                          lbytes);
    err |= bench_ocl_enqueue(s->bottom, 1, &global, &local);
    return real_finish(env, v, err);
  }
  case REAL_PORT:
    err |= real_launch(env, &scan_port_reduce,
                       fpar_range1(SCAN_GROUPS * SCAN_LOCAL),
                       fpar_range1(SCAN_LOCAL), a, sizeof *a);
    err |= real_launch(env, &scan_port_top, fpar_range1(SCAN_LOCAL),
                       fpar_range1(SCAN_LOCAL), a, sizeof *a);
    err |= real_launch(env, &scan_port_bottom,
                       fpar_range1(SCAN_GROUPS * SCAN_LOCAL),
                       fpar_range1(SCAN_LOCAL), a, sizeof *a);
    return real_finish(env, v, err);
  case REAL_BEST:
    err |= real_parallel(env, "scan_best_reduce", fpar_range1(SCAN_GROUPS),
                         fpar_range1(1), scan_best_reduce, a);
    err |= real_parallel(env, "scan_best_top", fpar_range1(1), fpar_range1(1),
                         scan_best_top, a);
    err |= real_parallel(env, "scan_best_bottom", fpar_range1(SCAN_GROUPS),
                         fpar_range1(1), scan_best_bottom, a);
    return real_finish(env, v, err);
  default:
    scan_omp(s->in, s->out, s->n);
    return 0;
  }
}

static int scan_check(void *p, real_version v, real_env *env, char *why,
                      size_t len) {
  scan *s = p;

  return real_match_i32(env, v, s->cout, s->out, s->want, (size_t)s->n, why,
                        len);
}

const real_kernel real_scan = {
    "scan",
    "scoped-lane-scan",
    "the number of ints, a multiple of 2^16 up to 2^28",
    1L << 24,
    1L << 16,
    scan_size_ok,
    scan_setup,
    scan_release,
    scan_ocl_init,
    scan_prepare,
    scan_run,
    scan_check};
