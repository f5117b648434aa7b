/* SPDX-License-Identifier: MIT */
/* lud.c - Rodinia LU decomposition of a 1024 x 1024 float matrix, in
 * place and without pivoting, in 16 x 16 blocks.
 *
 * OpenCL (lud.cl): per step of 16 columns three launches: the diagonal
 * block (one work-group of 16, 30 barriers), the perimeter blocks (a
 * work-group of 32 per block pair, 2 barriers) and the internal blocks
 * (16 x 16 work-groups, 1 barrier); 191 launches in all.
 * port: the same three kernels as phase kernels, launched the same way.
 * best: the same three steps as scoped groups (fpar_parallel) of one
 * block each (internal: one 16 x 16 block per group, updated in plain C
 * that the compiler vectorizes across columns), no barrier.
 * openmp: the same block functions under `parallel for`, as Rodinia's
 * OpenMP lud.
 * The matrix is diagonally dominant (off-diagonal [0, 1), diagonal N), so
 * that LU without pivoting is stable.  Checked against a double-precision
 * unblocked LU: |d| <= 1e-6 + 1e-4 |want|. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real.h"

#define LUD_BS 16

typedef struct lud_args {
  float *m;
  int dim, offset;
} lud_args;

typedef struct lud {
  int n;
  float *m, *init, *want;
  lud_args *args; /* one per step */
  bench_ocl_buf *cm;
  bench_ocl_kernel *diagonal, *perimeter, *internal;
} lud;

static int lud_size_ok(long n) {
  return n >= 2 * LUD_BS && n <= 8192 && n % LUD_BS == 0;
}

static void *lud_setup(long size) {
  lud *s = calloc(1, sizeof *s);
  size_t n = (size_t)size, cells = n * n;
  double *a = malloc(cells * sizeof *a);

  if (s == NULL || a == NULL)
    return NULL;
  s->n = (int)n;
  s->m = real_alloc(cells * sizeof(float));
  s->init = real_alloc(cells * sizeof(float));
  s->want = real_alloc(cells * sizeof(float));
  s->args = calloc(n / LUD_BS, sizeof *s->args);
  if (s->args == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      s->init[i * n + j] =
          i == j ? (float)n : real_rand01((uint32_t)(i * n + j), 3);
  /* The serial reference: unblocked right-looking LU in double. */
  for (size_t i = 0; i < cells; i++)
    a[i] = s->init[i];
  for (size_t k = 0; k < n; k++)
    for (size_t i = k + 1; i < n; i++) {
      double l = a[i * n + k] /= a[k * n + k];

      for (size_t j = k + 1; j < n; j++)
        a[i * n + j] -= l * a[k * n + j];
    }
  for (size_t i = 0; i < cells; i++)
    s->want[i] = (float)a[i];
  free(a);
  return s;
}

static void lud_release(void *p) {
  lud *s = p;

  free(s->m), free(s->init), free(s->want), free(s->args), free(s);
}

static int lud_ocl_init(void *p, bench_ocl *o) {
  lud *s = p;

  s->diagonal = real_cl_kernel(o, "lud", "lud_diagonal");
  s->perimeter = real_cl_kernel(o, "lud", "lud_perimeter");
  s->internal = real_cl_kernel(o, "lud", "lud_internal");
  s->cm = bench_ocl_buffer(o, s->m, (size_t)s->n * s->n * sizeof(float));
  return s->diagonal == NULL || s->perimeter == NULL || s->internal == NULL ||
         s->cm == NULL;
}

static int lud_prepare(void *p, real_version v, real_env *env) {
  lud *s = p;

  return real_put(env, v, s->cm, s->m, s->init,
                  (size_t)s->n * s->n * sizeof(float));
}

/* ---- port ------------------------------------------------------------------
 */

typedef struct lud_diagonal_local {
  float shadow[LUD_BS * LUD_BS];
} lud_diagonal_local;

typedef struct lud_step_state {
  int i;
} lud_step_state;

FPAR_PHASE_KERNEL_LOCAL(lud_port_diagonal, it, args, lud_step_state, st,
                        lud_diagonal_local, lm) {
  const lud_args *a = args;
  float *m = a->m, *shadow = lm->shadow;
  const int tx = (int)fpar_local_id(it, 0), dim = a->dim, offset = a->offset;

  FPAR_PHASE_BEGIN();
  {
    int array_offset = offset * dim + offset;

    for (int i = 0; i < LUD_BS; i++) {
      shadow[i * LUD_BS + tx] = m[array_offset + tx];
      array_offset += dim;
    }
  }
  FPAR_PHASE_BARRIER();
  for (st->i = 0; st->i < LUD_BS - 1; st->i++) {
    if (tx > st->i) {
      const int i = st->i;

      for (int j = 0; j < i; j++)
        shadow[tx * LUD_BS + i] -=
            shadow[tx * LUD_BS + j] * shadow[j * LUD_BS + i];
      shadow[tx * LUD_BS + i] /= shadow[i * LUD_BS + i];
    }
    FPAR_PHASE_BARRIER();
    if (tx > st->i) {
      const int i = st->i;

      for (int j = 0; j < i + 1; j++)
        shadow[(i + 1) * LUD_BS + tx] -=
            shadow[(i + 1) * LUD_BS + j] * shadow[j * LUD_BS + tx];
    }
    FPAR_PHASE_BARRIER();
  }
  {
    int array_offset = (offset + 1) * dim + offset;

    for (int i = 1; i < LUD_BS; i++) {
      m[array_offset + tx] = shadow[i * LUD_BS + tx];
      array_offset += dim;
    }
  }
  FPAR_PHASE_END();
}

typedef struct lud_perimeter_local {
  float dia[LUD_BS * LUD_BS], peri_row[LUD_BS * LUD_BS],
      peri_col[LUD_BS * LUD_BS];
} lud_perimeter_local;

FPAR_PHASE_KERNEL_LOCAL_STATELESS(lud_port_perimeter, it, args,
                                  lud_perimeter_local, lm) {
  const lud_args *a = args;
  float *m = a->m, *dia = lm->dia, *peri_row = lm->peri_row,
        *peri_col = lm->peri_col;
  const int bx = (int)fpar_group_id(it, 0), tx = (int)fpar_local_id(it, 0);
  const int dim = a->dim, offset = a->offset;

  FPAR_PHASE_BEGIN();
  if (tx < LUD_BS) {
    int idx = tx, array_offset = offset * dim + offset;

    for (int i = 0; i < LUD_BS / 2; i++) {
      dia[i * LUD_BS + idx] = m[array_offset + idx];
      array_offset += dim;
    }
    array_offset = offset * dim + offset;
    for (int i = 0; i < LUD_BS; i++) {
      peri_row[i * LUD_BS + idx] = m[array_offset + (bx + 1) * LUD_BS + idx];
      array_offset += dim;
    }
  } else {
    int idx = tx - LUD_BS, array_offset = (offset + LUD_BS / 2) * dim + offset;

    for (int i = LUD_BS / 2; i < LUD_BS; i++) {
      dia[i * LUD_BS + idx] = m[array_offset + idx];
      array_offset += dim;
    }
    array_offset = (offset + (bx + 1) * LUD_BS) * dim + offset;
    for (int i = 0; i < LUD_BS; i++) {
      peri_col[i * LUD_BS + idx] = m[array_offset + idx];
      array_offset += dim;
    }
  }
  FPAR_PHASE_BARRIER();
  if (tx < LUD_BS) {
    int idx = tx;

    for (int i = 1; i < LUD_BS; i++)
      for (int j = 0; j < i; j++)
        peri_row[i * LUD_BS + idx] -=
            dia[i * LUD_BS + j] * peri_row[j * LUD_BS + idx];
  } else {
    int idx = tx - LUD_BS;

    for (int i = 0; i < LUD_BS; i++) {
      for (int j = 0; j < i; j++)
        peri_col[idx * LUD_BS + i] -=
            peri_col[idx * LUD_BS + j] * dia[j * LUD_BS + i];
      peri_col[idx * LUD_BS + i] /= dia[i * LUD_BS + i];
    }
  }
  FPAR_PHASE_BARRIER();
  if (tx < LUD_BS) {
    int idx = tx, array_offset = (offset + 1) * dim + offset;

    for (int i = 1; i < LUD_BS; i++) {
      m[array_offset + (bx + 1) * LUD_BS + idx] = peri_row[i * LUD_BS + idx];
      array_offset += dim;
    }
  } else {
    int idx = tx - LUD_BS,
        array_offset = (offset + (bx + 1) * LUD_BS) * dim + offset;

    for (int i = 0; i < LUD_BS; i++) {
      m[array_offset + idx] = peri_col[i * LUD_BS + idx];
      array_offset += dim;
    }
  }
  FPAR_PHASE_END();
}

typedef struct lud_internal_local {
  float peri_row[LUD_BS * LUD_BS], peri_col[LUD_BS * LUD_BS];
} lud_internal_local;

FPAR_PHASE_KERNEL_LOCAL_STATELESS(lud_port_internal, it, args,
                                  lud_internal_local, lm) {
  const lud_args *a = args;
  float *m = a->m;
  const int tx = (int)fpar_local_id(it, 0), ty = (int)fpar_local_id(it, 1);
  const int dim = a->dim, offset = a->offset;
  const int global_row_id = offset + ((int)fpar_group_id(it, 1) + 1) * LUD_BS;
  const int global_col_id = offset + ((int)fpar_group_id(it, 0) + 1) * LUD_BS;

  FPAR_PHASE_BEGIN();
  lm->peri_row[ty * LUD_BS + tx] = m[(offset + ty) * dim + global_col_id + tx];
  lm->peri_col[ty * LUD_BS + tx] = m[(global_row_id + ty) * dim + offset + tx];
  FPAR_PHASE_BARRIER();
  {
    float sum = 0;

    for (int i = 0; i < LUD_BS; i++)
      sum += lm->peri_col[ty * LUD_BS + i] * lm->peri_row[i * LUD_BS + tx];
    m[(global_row_id + ty) * dim + global_col_id + tx] -= sum;
  }
  FPAR_PHASE_END();
}

/* ---- best and openmp: the blocks in plain C ---------------------------------
 */

/* Factor the diagonal block at (offset, offset). */
static void lud_block_diagonal(float *m, int dim, int offset) {
  float *d = m + (size_t)offset * dim + offset;

  for (int k = 0; k < LUD_BS; k++)
    for (int i = k + 1; i < LUD_BS; i++) {
      float l = d[i * dim + k] /= d[k * dim + k];

      for (int j = k + 1; j < LUD_BS; j++)
        d[i * dim + j] -= l * d[k * dim + j];
    }
}

/* Solve perimeter block b of the step: the block right of the diagonal
 * block (L X = A) and the one below it (X U = A). */
static void lud_block_perimeter(float *m, int dim, int offset, int b) {
  const float *d = m + (size_t)offset * dim + offset;
  float *row = m + (size_t)offset * dim + offset + (b + 1) * LUD_BS;
  float *col = m + ((size_t)offset + (b + 1) * LUD_BS) * dim + offset;

  for (int i = 1; i < LUD_BS; i++)
    for (int j = 0; j < i; j++) {
      float l = d[i * dim + j];

      for (int x = 0; x < LUD_BS; x++)
        row[i * dim + x] -= l * row[j * dim + x];
    }
  for (int r = 0; r < LUD_BS; r++)
    for (int i = 0; i < LUD_BS; i++) {
      float x = col[r * dim + i];

      for (int j = 0; j < i; j++)
        x -= col[r * dim + j] * d[j * dim + i];
      col[r * dim + i] = x / d[i * dim + i];
    }
}

/* Update internal block (bx, by) of the step: A -= L U of its perimeter
 * blocks, a row of 16 sums at a time. */
static void lud_block_internal(float *m, int dim, int offset, int bx, int by) {
  const float *u = m + (size_t)offset * dim + offset + (bx + 1) * LUD_BS;
  const float *l = m + ((size_t)offset + (by + 1) * LUD_BS) * dim + offset;
  float *a = m + ((size_t)offset + (by + 1) * LUD_BS) * dim + offset +
             (bx + 1) * LUD_BS;

  for (int y = 0; y < LUD_BS; y++) {
    float sum[LUD_BS] = {0};

    for (int i = 0; i < LUD_BS; i++)
      for (int x = 0; x < LUD_BS; x++)
        sum[x] += l[y * dim + i] * u[i * dim + x];
    for (int x = 0; x < LUD_BS; x++)
      a[y * dim + x] -= sum[x];
  }
}

static void lud_best_diagonal(fpar_group *g, void *args) {
  const lud_args *a = args;

  (void)g;
  lud_block_diagonal(a->m, a->dim, a->offset);
}

static void lud_best_perimeter(fpar_group *g, void *args) {
  const lud_args *a = args;

  lud_block_perimeter(a->m, a->dim, a->offset, (int)fpar_group_get_id(g, 0));
}

static void lud_best_internal(fpar_group *g, void *args) {
  const lud_args *a = args;

  lud_block_internal(a->m, a->dim, a->offset, (int)fpar_group_get_id(g, 0),
                     (int)fpar_group_get_id(g, 1));
}

/* One step: the diagonal block at offset, then, unless it is the last,
 * its nb perimeter block pairs and nb x nb internal blocks. */
static int lud_step(lud *s, real_version v, real_env *env, lud_args *a,
                    int nb) {
  int err = 0;

  switch (v) {
  case REAL_POCL: {
    size_t g1 = LUD_BS, l1 = LUD_BS, g2 = (size_t)nb * 2 * LUD_BS,
           l2 = 2 * LUD_BS, g3[2] = {(size_t)nb * LUD_BS, (size_t)nb * LUD_BS},
           l3[2] = {LUD_BS, LUD_BS};
    const size_t block = LUD_BS * LUD_BS * sizeof(float);

    err |= bench_ocl_args(s->diagonal, "blii", s->cm, block, a->dim, a->offset);
    err |= bench_ocl_enqueue(s->diagonal, 1, &g1, &l1);
    if (nb == 0)
      break;
    err |= bench_ocl_args(s->perimeter, "blllii", s->cm, block, block, block,
                          a->dim, a->offset);
    err |= bench_ocl_enqueue(s->perimeter, 1, &g2, &l2);
    err |= bench_ocl_args(s->internal, "bllii", s->cm, block, block, a->dim,
                          a->offset);
    err |= bench_ocl_enqueue(s->internal, 2, g3, l3);
    break;
  }
  case REAL_PORT:
    err |= real_launch(env, &lud_port_diagonal, fpar_range1(LUD_BS),
                       fpar_range1(LUD_BS), a, sizeof *a);
    if (nb == 0)
      break;
    err |= real_launch(env, &lud_port_perimeter,
                       fpar_range1((size_t)nb * 2 * LUD_BS),
                       fpar_range1(2 * LUD_BS), a, sizeof *a);
    err |= real_launch(env, &lud_port_internal,
                       fpar_range2((size_t)nb * LUD_BS, (size_t)nb * LUD_BS),
                       fpar_range2(LUD_BS, LUD_BS), a, sizeof *a);
    break;
  case REAL_BEST:
    err |= real_parallel(env, "lud_best_diagonal", fpar_range1(1),
                         fpar_range1(1), lud_best_diagonal, a);
    if (nb == 0)
      break;
    err |= real_parallel(env, "lud_best_perimeter", fpar_range1((size_t)nb),
                         fpar_range1(1), lud_best_perimeter, a);
    err |= real_parallel(env, "lud_best_internal",
                         fpar_range2((size_t)nb, (size_t)nb), fpar_range2(1, 1),
                         lud_best_internal, a);
    break;
  default:
    lud_block_diagonal(a->m, a->dim, a->offset);
#pragma omp parallel
    {
#pragma omp for schedule(static)
      for (int b = 0; b < nb; b++)
        lud_block_perimeter(a->m, a->dim, a->offset, b);
#pragma omp for schedule(static)
      for (int b = 0; b < nb * nb; b++)
        lud_block_internal(a->m, a->dim, a->offset, b % nb, b / nb);
    }
  }
  return err;
}

static int lud_run(void *p, real_version v, real_env *env) {
  lud *s = p;
  int err = 0;

  for (int offset = 0; offset < s->n && err == 0; offset += LUD_BS) {
    lud_args *a = &s->args[offset / LUD_BS];

    a->m = s->m;
    a->dim = s->n;
    a->offset = offset;
    err |= lud_step(s, v, env, a, (s->n - offset) / LUD_BS - 1);
  }
  return real_finish(env, v, err);
}

static int lud_check(void *p, real_version v, real_env *env, char *why,
                     size_t len) {
  lud *s = p;

  return real_match_f32(env, v, s->cm, s->m, s->want, (size_t)s->n * s->n, 1e-4,
                        1e-6, why, len);
}

const real_kernel real_lud = {
    "lud",
    "scoped-blocks",
    "the matrix side, a multiple of 16 from 32 to 8192",
    1024,
    64,
    lud_size_ok,
    lud_setup,
    lud_release,
    lud_ocl_init,
    lud_prepare,
    lud_run,
    lud_check};
