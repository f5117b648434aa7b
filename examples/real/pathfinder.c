/* SPDX-License-Identifier: MIT */
/* pathfinder.c - Rodinia PathFinder: the cheapest top-to-bottom path
 * through a grid of 100 rows of 100000 integer weights in [0, 10), each
 * step going to one of the three cells below (Rodinia's run: pyramid
 * height 20).
 *
 * OpenCL (pathfinder.cl): 5 launches of 463 work-groups of 256; each
 * group advances its block 20 rows in local memory, 2 barriers per row.
 * port: the same kernel as a phase kernel.
 * best: a launch per 4 rows (25), scoped groups (fpar_parallel) of 8192
 * columns each stepped with lane vectors (the minimum of three shifted
 * loads), no barrier; a group computes its intermediate rows in two
 * private rows, over a ghost zone that shrinks by a column a side per
 * row.  (A launch per row measured 0.81-1.16 of OpenMP, 4 rows 1.04-1.17
 * and 8 rows 0.90-1.07; the pyramid of 20 rows in groups of 2048 to
 * 16384 columns 1.5 to 2x slower.)
 * openmp: one parallel region, an `omp for simd` sweep of each row (99
 * worksharing loops), as Rodinia's OpenMP pathfinder in one region.
 * Checked exactly against the serial row-by-row recurrence. */
#include <fiberpar/simd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real.h"

#define PF_ROWS 100
#define PF_PYRAMID 20
#define PF_HALO 1
#define PF_BLOCK 256   /* Rodinia's work-group size */
#define PF_BEST 8192   /* best: columns per group */
#define PF_BEST_ROWS 4 /* best: rows per launch */

typedef struct pf_args {
  const int *wall; /* rows 1.. of the grid */
  const int *src;
  int *dst;
  int cols, t, iteration;
} pf_args;

typedef struct pf {
  int cols;
  int *data, *result[2], *want;
  pf_args args[PF_ROWS];
  int final; /* which result holds the last row */
  bench_ocl_buf *cwall, *cresult[2];
  bench_ocl_kernel *kernel;
} pf;

static int pf_size_ok(long n) {
  return n >= PF_BLOCK && n <= 100000000;
}

static inline int pf_min(int a, int b) {
  return a <= b ? a : b;
}
static inline int pf_max(int a, int b) {
  return a >= b ? a : b;
}

/* Cell x of the next row from row in of cols cells and its weights w
 * (the serial reference's step, and openmp's). */
static inline int pf_cell(const int *in, const int *w, int x, int cols) {
  int m = in[x];

  if (x > 0)
    m = pf_min(m, in[x - 1]);
  if (x < cols - 1)
    m = pf_min(m, in[x + 1]);
  return w[x] + m;
}

static void *pf_setup(long n) {
  pf *s = calloc(1, sizeof *s);
  size_t cols = (size_t)n;
  int *src, *dst;

  if (s == NULL)
    return NULL;
  s->cols = (int)n;
  s->data = real_alloc(cols * PF_ROWS * sizeof(int));
  s->result[0] = real_alloc(cols * sizeof(int));
  s->result[1] = real_alloc(cols * sizeof(int));
  s->want = real_alloc(cols * sizeof(int));
  for (size_t i = 0; i < cols * PF_ROWS; i++)
    s->data[i] = (int)(real_rand01((uint32_t)i, 8) * 10.0f);
  /* The serial reference, Rodinia's CPU loop. */
  src = malloc(cols * sizeof(int));
  dst = malloc(cols * sizeof(int));
  if (src == NULL || dst == NULL)
    return NULL;
  memcpy(dst, s->data, cols * sizeof(int));
  for (int t = 0; t < PF_ROWS - 1; t++) {
    int *tmp = src;

    src = dst, dst = tmp;
    for (int x = 0; x < s->cols; x++)
      dst[x] = pf_cell(src, s->data + (t + 1) * cols, x, s->cols);
  }
  memcpy(s->want, dst, cols * sizeof(int));
  free(src), free(dst);
  return s;
}

static void pf_release(void *p) {
  pf *s = p;

  free(s->data), free(s->result[0]), free(s->result[1]), free(s->want);
  free(s);
}

static int pf_ocl_init(void *p, bench_ocl *o) {
  pf *s = p;
  size_t cols = (size_t)s->cols;

  s->kernel = real_cl_kernel(o, "pathfinder", "dynproc_kernel");
  s->cwall =
      bench_ocl_buffer(o, s->data + cols, cols * (PF_ROWS - 1) * sizeof(int));
  s->cresult[0] = bench_ocl_buffer(o, s->result[0], cols * sizeof(int));
  s->cresult[1] = bench_ocl_buffer(o, s->result[1], cols * sizeof(int));
  return s->kernel == NULL || s->cwall == NULL || s->cresult[0] == NULL ||
         s->cresult[1] == NULL;
}

static int pf_prepare(void *p, real_version v, real_env *env) {
  pf *s = p;

  return real_put(env, v, s->cresult[0], s->result[0], s->data,
                  (size_t)s->cols * sizeof(int));
}

/* ---- port ------------------------------------------------------------------
 */

typedef struct pf_local {
  int prev[PF_BLOCK], result[PF_BLOCK];
} pf_local;

/* What every work-item holds alike: the step. */
typedef struct pf_uniform {
  int i;
} pf_uniform;

typedef struct pf_state {
  int computed;
} pf_state;

#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))

FPAR_PHASE_KERNEL_LOCAL_UNIFORM(pathfinder_port, it, args, pf_uniform, u,
                                pf_state, st, pf_local, lm) {
  const pf_args *a = args;
  const int BLOCK_SIZE = (int)fpar_local_range(it, 0), cols = a->cols;
  const int bx = (int)fpar_group_id(it, 0), tx = (int)fpar_local_id(it, 0);
  const int iteration = a->iteration, border = PF_PYRAMID * PF_HALO;
  const int small_block_cols = BLOCK_SIZE - (iteration * PF_HALO * 2);
  const int blkX = (small_block_cols * bx) - border;
  const int blkXmax = blkX + BLOCK_SIZE - 1;
  const int xidx = blkX + tx;
  const int validXmin = (blkX < 0) ? -blkX : 0;
  const int validXmax = (blkXmax > cols - 1)
                            ? BLOCK_SIZE - 1 - (blkXmax - cols + 1)
                            : BLOCK_SIZE - 1;
  const int W = tx - 1 < validXmin ? validXmin : tx - 1;
  const int E = tx + 1 > validXmax ? validXmax : tx + 1;
  const int isValid = IN_RANGE(tx, validXmin, validXmax);

  FPAR_PHASE_BEGIN();
  if (IN_RANGE(xidx, 0, cols - 1))
    lm->prev[tx] = a->src[xidx];
  FPAR_PHASE_BARRIER();
  for (u->i = 0; u->i < iteration; u->i++) {
    st->computed = 0;
    if (IN_RANGE(tx, u->i + 1, BLOCK_SIZE - u->i - 2) && isValid) {
      int shortest = pf_min(pf_min(lm->prev[W], lm->prev[tx]), lm->prev[E]);

      st->computed = 1;
      lm->result[tx] = shortest + a->wall[cols * (a->t + u->i) + xidx];
    }
    FPAR_PHASE_BARRIER();
    if (u->i == iteration - 1)
      break;
    if (st->computed)
      lm->prev[tx] = lm->result[tx];
    FPAR_PHASE_BARRIER();
  }
  if (st->computed)
    a->dst[xidx] = lm->result[tx];
  FPAR_PHASE_END();
}

#undef IN_RANGE

/* ---- best: wide blocks in private rows, lane vectors ----------------------
 */

/* out[k] = wall[k] + min(in[k - 1], in[k], in[k + 1]) for k in [0, n). */
static inline void pf_step(int *out, const int *in, const int *wall, int n) {
  int k = 0;

  for (; k + FPAR_SIMD_WIDTH <= n; k += FPAR_SIMD_WIDTH) {
    fpar_vi32 m =
        fpar_vi32_min(fpar_vi32_load(in + k - 1), fpar_vi32_load(in + k));

    m = fpar_vi32_min(m, fpar_vi32_load(in + k + 1));
    fpar_vi32_store(out + k, m + fpar_vi32_load(wall + k));
  }
  for (; k < n; k++)
    out[k] = wall[k] + pf_min(pf_min(in[k - 1], in[k]), in[k + 1]);
}

/* out[x] = wall[x] + the least of in[x - 1], in[x], in[x + 1] that lie
 * in the row, for the columns x of [lo, hi); out and in point at column
 * lo of their rows, wall at column 0, and in holds [lo - 1, hi + 1) of
 * the row's cols columns where they exist. */
static void pf_span(int *out, const int *in, const int *wall, int lo, int hi,
                    int cols) {
  if (lo == 0 && lo < hi) {
    *out++ = wall[0] + (cols > 1 ? pf_min(in[0], in[1]) : in[0]);
    in++, lo++;
  }
  if (hi == cols && lo < hi) {
    hi--;
    out[hi - lo] = wall[hi] + pf_min(in[hi - lo - 1], in[hi - lo]);
  }
  pf_step(out, in, wall + lo, hi - lo);
}

typedef struct pf_block {
  const pf_args *a;
  int xs, xe; /* the group's columns */
} pf_block;

/* PF_BEST_ROWS rows (a->iteration) of the group's columns: row t + s over
 * the columns [xs - (R - s), xe + (R - s)), a ghost zone that shrinks by
 * one column a side per row, in two private rows; the last into dst. */
static void pf_block_rows(fpar_group *g, void *const *mem, void *ctx) {
  const pf_block *c = ctx;
  const pf_args *a = c->a;
  const int cols = a->cols, R = a->iteration, base = c->xs - R;
  int *row[2] = {mem[0], (int *)mem[0] + PF_BEST + 2 * PF_BEST_ROWS};
  const int *in = a->src;
  int in_base = 0;

  (void)g;
  for (int s = 1; s <= R; s++) {
    int lo = pf_max(0, c->xs - (R - s)), hi = pf_min(cols, c->xe + (R - s));
    int *out = s == R ? a->dst : row[s & 1];
    int out_base = s == R ? 0 : base;

    pf_span(out + (lo - out_base), in + (lo - in_base),
            a->wall + (size_t)(s - 1) * cols, lo, hi, cols);
    in = out, in_base = out_base;
  }
}

/* The group's columns [b * PF_BEST, (b + 1) * PF_BEST), a->iteration rows
 * on. */
static void pathfinder_best(fpar_group *g, void *args) {
  const pf_args *a = args;
  const int b = (int)fpar_group_get_id(g, 0);
  pf_block c = {a, b * PF_BEST, pf_min(b * PF_BEST + PF_BEST, a->cols)};
  fpar_mem_request r = fpar_require_local_mem(
      2 * (PF_BEST + 2 * PF_BEST_ROWS) * sizeof(int), 64, NULL, 0);

  fpar_memory_environment(g, &r, 1, pf_block_rows, &c);
}

/* ---- the sweep ------------------------------------------------------------
 */

static int pf_run(void *p, real_version v, real_env *env) {
  pf *s = p;
  const int cols = s->cols, border = PF_PYRAMID * PF_HALO;
  const int small = PF_BLOCK - PF_PYRAMID * PF_HALO * 2;
  const size_t blocks = (size_t)(cols + small - 1) / small;
  const size_t groups = (size_t)(cols + PF_BEST - 1) / PF_BEST;
  int src = 1, dst = 0, err = 0, launch = 0;

  if (v == REAL_OMP) {
    const int *wall = s->data + cols;
    int *r0 = s->result[0], *r1 = s->result[1];

#pragma omp parallel
    for (int t = 0; t < PF_ROWS - 1; t++) {
      const int *in = t & 1 ? r1 : r0;
      int *out = t & 1 ? r0 : r1;
      const int *w = wall + (size_t)t * cols;

#pragma omp for simd schedule(static)
      for (int x = 0; x < cols; x++)
        out[x] = pf_cell(in, w, x, cols);
    }
    s->final = (PF_ROWS - 1) & 1;
    return 0;
  }
  if (v == REAL_BEST) {
    int k = 0;

    for (int t = 0; t < PF_ROWS - 1 && err == 0; t += PF_BEST_ROWS, k++) {
      pf_args *a = &s->args[k];

      a->wall = s->data + (size_t)cols * (t + 1);
      a->src = s->result[k & 1];
      a->dst = s->result[(k + 1) & 1];
      a->cols = cols;
      a->iteration = pf_min(PF_BEST_ROWS, PF_ROWS - 1 - t);
      err |= real_parallel(env, "pathfinder_best", fpar_range1(groups),
                           fpar_range1(1), pathfinder_best, a);
    }
    s->final = k & 1;
    return real_finish(env, v, err);
  }
  for (int t = 0; t < PF_ROWS - 1 && err == 0; t += PF_PYRAMID, launch++) {
    pf_args *a = &s->args[launch];
    int tmp = src;

    src = dst, dst = tmp;
    a->wall = s->data + cols;
    a->src = s->result[src];
    a->dst = s->result[dst];
    a->cols = cols;
    a->t = t;
    a->iteration = pf_min(PF_PYRAMID, PF_ROWS - t - 1);
    switch (v) {
    case REAL_POCL: {
      size_t global = blocks * PF_BLOCK, local = PF_BLOCK;

      err |= bench_ocl_args(s->kernel, "ibbbiiiiill", a->iteration, s->cwall,
                            s->cresult[src], s->cresult[dst], cols, PF_ROWS, t,
                            border, PF_HALO, PF_BLOCK * sizeof(int),
                            PF_BLOCK * sizeof(int));
      err |= bench_ocl_enqueue(s->kernel, 1, &global, &local);
      break;
    }
    default:
      err |= real_launch(env, &pathfinder_port, fpar_range1(blocks * PF_BLOCK),
                         fpar_range1(PF_BLOCK), a, sizeof *a);
    }
  }
  s->final = dst;
  return real_finish(env, v, err);
}

static int pf_check(void *p, real_version v, real_env *env, char *why,
                    size_t len) {
  pf *s = p;

  return real_match_i32(env, v, s->cresult[s->final], s->result[s->final],
                        s->want, (size_t)s->cols, why, len);
}

const real_kernel real_pathfinder = {
    "pathfinder",
    "scoped-lanes-4rows",
    "the number of columns, 256 to 10^8 (100 rows)",
    100000,
    1000,
    pf_size_ok,
    pf_setup,
    pf_release,
    pf_ocl_init,
    pf_prepare,
    pf_run,
    pf_check};
