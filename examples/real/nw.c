/* SPDX-License-Identifier: MIT */
/* nw.c - Rodinia Needleman-Wunsch: global alignment scores of two
 * sequences of N = 2048 symbols (penalty 10), an (N + 1) x (N + 1)
 * integer matrix filled in anti-diagonal wavefronts.
 *
 * OpenCL (nw.cl): one launch per anti-diagonal of 16 x 16 blocks (255
 * launches), a work-group of 16 per block sweeping the block's
 * anti-diagonals in local memory with 34 barriers.
 * port: the same kernel as a phase kernel, launched the same way.
 * best: scoped groups (fpar_parallel) of one 64 x 64 block each, filled
 * row by row in plain C: 63 launches, no barrier.
 * openmp: the same 64 x 64 blocks, `parallel for` over each anti-diagonal
 * of blocks.
 * Substitution scores are pseudo-random in BLOSUM62's range [-4, 11].
 * Checked exactly against the serial row-by-row recurrence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real.h"

#define NW_BS 16 /* Rodinia's block: the work-group size */
#define NW_BB 64 /* best and openmp: block side */
#define NW_PENALTY 10

/* One launch: block bx of it is block (bx0 + bx, by0 - bx). */
typedef struct nw_args {
  const int *reference;
  int *items;
  int cols, penalty, bx0, by0;
} nw_args;

typedef struct nw {
  int n, cols;
  int *reference, *items, *init, *want;
  nw_args *args; /* one per launch */
  bench_ocl_buf *creference, *citems;
  bench_ocl_kernel *kernel;
} nw;

static int nw_size_ok(long n) {
  return n >= NW_BB && n <= 16384 && n % NW_BB == 0;
}

static inline int max3(int a, int b, int c) {
  int k = a > b ? a : b;

  return k > c ? k : c;
}

/* The recurrence for rows [i0, i0 + rows) and columns [j0, j0 + w) of s,
 * row by row: the serial reference, and each block of best and openmp. */
static inline void nw_fill(int *s, const int *ref, int cols, int penalty,
                           int i0, int rows, int j0, int w) {
  for (int i = i0; i < i0 + rows; i++) {
    int *row = s + (size_t)i * cols;
    const int *up = row - cols, *r = ref + (size_t)i * cols;
    int left = row[j0 - 1];

    for (int j = j0; j < j0 + w; j++) {
      left = max3(up[j - 1] + r[j], left - penalty, up[j] - penalty);
      row[j] = left;
    }
  }
}

static void *nw_setup(long n) {
  nw *s = calloc(1, sizeof *s);
  size_t cells;

  if (s == NULL)
    return NULL;
  s->n = (int)n;
  s->cols = s->n + 1;
  cells = (size_t)s->cols * s->cols;
  s->reference = real_alloc(cells * sizeof(int));
  s->items = real_alloc(cells * sizeof(int));
  s->init = real_alloc(cells * sizeof(int));
  s->want = real_alloc(cells * sizeof(int));
  s->args = calloc(2 * (size_t)(s->n / NW_BS), sizeof *s->args);
  if (s->args == NULL)
    return NULL;
  memset(s->init, 0, cells * sizeof(int));
  for (int i = 0; i < s->cols; i++) {
    s->init[(size_t)i * s->cols] = -i * NW_PENALTY;
    s->init[i] = -i * NW_PENALTY;
  }
  for (size_t i = 0; i < cells; i++)
    s->reference[i] = (int)(real_rand01((uint32_t)i, 2) * 16.0f) - 4;
  memcpy(s->want, s->init, cells * sizeof(int));
  nw_fill(s->want, s->reference, s->cols, NW_PENALTY, 1, s->n, 1, s->n);
  return s;
}

static void nw_release(void *p) {
  nw *s = p;

  free(s->reference), free(s->items), free(s->init), free(s->want);
  free(s->args), free(s);
}

static int nw_ocl_init(void *p, bench_ocl *o) {
  nw *s = p;
  size_t bytes = (size_t)s->cols * s->cols * sizeof(int);

  s->kernel = real_cl_kernel(o, "nw", "nw_kernel");
  s->creference = bench_ocl_buffer(o, s->reference, bytes);
  s->citems = bench_ocl_buffer(o, s->items, bytes);
  return s->kernel == NULL || s->creference == NULL || s->citems == NULL;
}

static int nw_prepare(void *p, real_version v, real_env *env) {
  nw *s = p;

  return real_put(env, v, s->citems, s->items, s->init,
                  (size_t)s->cols * s->cols * sizeof(int));
}

/* ---- port ------------------------------------------------------------------
 */

typedef struct nw_local {
  int score[(NW_BS + 1) * (NW_BS + 1)];
  int ref[NW_BS * NW_BS];
} nw_local;

typedef struct nw_state {
  int m;
} nw_state;

#define SCORE(i, j) lm->score[(j) + (i) * (NW_BS + 1)]
#define REF(i, j) lm->ref[(j) + (i)*NW_BS]

FPAR_PHASE_KERNEL_LOCAL(nw_port, it, args, nw_state, st, nw_local, lm) {
  const nw_args *a = args;
  const int cols = a->cols, penalty = a->penalty;
  const int bx = (int)fpar_group_id(it, 0), tx = (int)fpar_local_id(it, 0);
  const int base = cols * NW_BS * (a->by0 - bx) + NW_BS * (a->bx0 + bx);
  const int index = base + tx + cols + 1;

  FPAR_PHASE_BEGIN();
  if (tx == 0)
    SCORE(0, 0) = a->items[base];
  for (int ty = 0; ty < NW_BS; ty++)
    REF(ty, tx) = a->reference[index + cols * ty];
  FPAR_PHASE_BARRIER();
  SCORE(tx + 1, 0) = a->items[base + cols + cols * tx];
  FPAR_PHASE_BARRIER();
  SCORE(0, tx + 1) = a->items[base + tx + 1];
  FPAR_PHASE_BARRIER();
  for (st->m = 0; st->m < NW_BS; st->m++) {
    if (tx <= st->m) {
      int x = tx + 1, y = st->m - tx + 1;
      SCORE(y, x) = max3(SCORE(y - 1, x - 1) + REF(y - 1, x - 1),
                         SCORE(y, x - 1) - penalty, SCORE(y - 1, x) - penalty);
    }
    FPAR_PHASE_BARRIER();
  }
  for (st->m = NW_BS - 2; st->m >= 0; st->m--) {
    if (tx <= st->m) {
      int x = tx + NW_BS - st->m, y = NW_BS - tx;
      SCORE(y, x) = max3(SCORE(y - 1, x - 1) + REF(y - 1, x - 1),
                         SCORE(y, x - 1) - penalty, SCORE(y - 1, x) - penalty);
    }
    FPAR_PHASE_BARRIER();
  }
  for (int ty = 0; ty < NW_BS; ty++)
    a->items[index + cols * ty] = SCORE(ty + 1, tx + 1);
  FPAR_PHASE_END();
}

#undef SCORE
#undef REF

/* ---- best and openmp: 64 x 64 blocks filled row by row ------------------ */

static inline void nw_block(const nw_args *a, int bx, int by) {
  nw_fill(a->items, a->reference, a->cols, a->penalty, 1 + by * NW_BB, NW_BB,
          1 + bx * NW_BB, NW_BB);
}

static void nw_best(fpar_group *g, void *args) {
  const nw_args *a = args;
  int bx = (int)fpar_group_get_id(g, 0);

  nw_block(a, a->bx0 + bx, a->by0 - bx);
}

/* Anti-diagonal d of a matrix of nb x nb blocks: its blocks are (bx0 + k,
 * by0 - k) for k < count (Rodinia's two kernels' block indices, one
 * launch per diagonal). */
static void nw_diagonal(int nb, int d, int *bx0, int *by0, int *count) {
  *bx0 = d < nb ? 0 : d - nb + 1;
  *by0 = d < nb ? d : nb - 1;
  *count = *by0 - *bx0 + 1;
}

static int nw_run(void *p, real_version v, real_env *env) {
  nw *s = p;
  int bs = v == REAL_BEST || v == REAL_OMP ? NW_BB : NW_BS;
  int nb = s->n / bs, err = 0;

  for (int d = 0; d < 2 * nb - 1 && err == 0; d++) {
    nw_args *a = &s->args[d];
    int count;

    nw_diagonal(nb, d, &a->bx0, &a->by0, &count);
    a->reference = s->reference;
    a->items = s->items;
    a->cols = s->cols;
    a->penalty = NW_PENALTY;
    switch (v) {
    case REAL_POCL: {
      size_t global = (size_t)count * NW_BS, local = NW_BS;

      err |= bench_ocl_args(s->kernel, "bbiiii", s->creference, s->citems,
                            a->cols, a->penalty, a->bx0, a->by0);
      err |= bench_ocl_enqueue(s->kernel, 1, &global, &local);
      break;
    }
    case REAL_PORT:
      err |= real_launch(env, &nw_port, fpar_range1((size_t)count * NW_BS),
                         fpar_range1(NW_BS), a, sizeof *a);
      break;
    case REAL_BEST:
      err |= real_parallel(env, "nw_best", fpar_range1((size_t)count),
                           fpar_range1(1), nw_best, a);
      break;
    default:
#pragma omp parallel for schedule(static)
      for (int k = 0; k < count; k++)
        nw_block(a, a->bx0 + k, a->by0 - k);
    }
  }
  return real_finish(env, v, err);
}

static int nw_check(void *p, real_version v, real_env *env, char *why,
                    size_t len) {
  nw *s = p;

  return real_match_i32(env, v, s->citems, s->items, s->want,
                        (size_t)s->cols * s->cols, why, len);
}

const real_kernel real_nw = {
    "nw",
    "scoped-64x64-blocks",
    "the sequence length, a multiple of 64 from 64 to 16384",
    2048,
    128,
    nw_size_ok,
    nw_setup,
    nw_release,
    nw_ocl_init,
    nw_prepare,
    nw_run,
    nw_check};
