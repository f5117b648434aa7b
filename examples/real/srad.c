/* SPDX-License-Identifier: MIT */
/* srad.c - Rodinia SRAD v2: speckle reducing anisotropic diffusion of a
 * 2048 x 2048 image, 2 iterations (Rodinia's run: ROI rows and columns
 * 0..127, lambda 0.5).
 *
 * Each iteration the host computes the ROI's statistics (q0sqr), then
 * two kernels run: srad_1 (derivatives and diffusion coefficient) and
 * srad_2 (divergence and image update, in place).
 * OpenCL (srad.cl): 16 x 16 work-groups with their tiles and neighbours
 * in local memory, 4 barriers per kernel.
 * port: the same two kernels as phase kernels.
 * best: two lane kernels (FPAR_LANE_KERNEL) without local memory in groups
 * of a whole row: the neighbours come from global memory as vectors (the
 * image's edges by shuffles), no barrier.
 * openmp: two `parallel for` loops over rows with `omp simd` rows, as
 * Rodinia's OpenMP srad_v2 with the edges peeled.
 * J starts as exp of pseudo-random values in [0, 1).  Checked against the
 * serial loops in float: |d| <= 1e-5 + 1e-4 |want|. */
#include <fiberpar/simd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real.h"

#define SRAD_BS 16
#define SRAD_ITERATIONS 2
#define SRAD_LAMBDA 0.5f
#define SRAD_ROI 128 /* rows and columns 0..127 */

typedef struct srad_args {
  float *J, *C, *dN, *dS, *dW, *dE;
  int cols, rows;
  float q0sqr;
} srad_args;

typedef struct srad {
  int n;
  float *J, *init, *C, *dN, *dS, *dW, *dE, *want;
  srad_args args[SRAD_ITERATIONS];
  bench_ocl_buf *cJ, *cC, *cdN, *cdS, *cdW, *cdE;
  bench_ocl_kernel *k1, *k2;
} srad;

static int srad_size_ok(long n) {
  return n >= 128 && n <= 8192 && n % SRAD_BS == 0;
}

/* q0sqr: the squared coefficient of variation of the ROI of J. */
static float srad_q0sqr(const float *J, int cols) {
  float sum = 0, sum2 = 0, mean, var;

  for (int i = 0; i < SRAD_ROI; i++)
    for (int j = 0; j < SRAD_ROI; j++) {
      float t = J[i * cols + j];
      sum += t;
      sum2 += t * t;
    }
  mean = sum / (SRAD_ROI * SRAD_ROI);
  var = sum2 / (SRAD_ROI * SRAD_ROI) - mean * mean;
  return var / (mean * mean);
}

/* The diffusion coefficient of a cell from its derivatives (equation 33),
 * saturated to [0, 1]. */
static inline float srad_c(float n, float s, float w, float e, float jc,
                           float q0sqr) {
  float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  float l = (n + s + w + e) / jc;
  float num = (0.5f * g2) - ((1.0f / 16.0f) * (l * l));
  float den = 1 + (0.25f * l);
  float qsqr = num / (den * den), c;

  den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
  c = 1.0f / (1.0f + den);
  return c < 0 ? 0 : c > 1 ? 1 : c;
}

/* Row i of srad_1 in plain C: the serial reference and openmp. */
static inline void srad_row1(const srad_args *a, int i) {
  const int cols = a->cols;
  const float *J = a->J + (size_t)i * cols;
  const float *Jn = i > 0 ? J - cols : J, *Js = i < a->rows - 1 ? J + cols : J;
  float *C = a->C + (size_t)i * cols, *dN = a->dN + (size_t)i * cols,
        *dS = a->dS + (size_t)i * cols, *dW = a->dW + (size_t)i * cols,
        *dE = a->dE + (size_t)i * cols;

#pragma omp simd
  for (int j = 0; j < cols; j++) {
    float jc = J[j];
    float n = Jn[j] - jc, s = Js[j] - jc;
    float w = J[j > 0 ? j - 1 : 0] - jc, e = J[j < cols - 1 ? j + 1 : j] - jc;

    C[j] = srad_c(n, s, w, e, jc, a->q0sqr);
    dN[j] = n, dS[j] = s, dW[j] = w, dE[j] = e;
  }
}

/* Row i of srad_2 in plain C. */
static inline void srad_row2(const srad_args *a, int i) {
  const int cols = a->cols;
  float *J = a->J + (size_t)i * cols;
  const float *C = a->C + (size_t)i * cols;
  const float *Cs = i < a->rows - 1 ? C + cols : C;
  const float *dN = a->dN + (size_t)i * cols, *dS = a->dS + (size_t)i * cols,
              *dW = a->dW + (size_t)i * cols, *dE = a->dE + (size_t)i * cols;

#pragma omp simd
  for (int j = 0; j < cols; j++) {
    float cc = C[j], cs = Cs[j], ce = C[j < cols - 1 ? j + 1 : j];
    float d_sum = cc * dN[j] + cs * dS[j] + cc * dW[j] + ce * dE[j];

    J[j] = J[j] + 0.25f * SRAD_LAMBDA * d_sum;
  }
}

static void *srad_setup(long size) {
  srad *s = calloc(1, sizeof *s);
  size_t cells = (size_t)size * size;
  srad_args a;

  if (s == NULL)
    return NULL;
  s->n = (int)size;
  s->J = real_alloc(cells * sizeof(float));
  s->init = real_alloc(cells * sizeof(float));
  s->C = real_alloc(cells * sizeof(float));
  s->dN = real_alloc(cells * sizeof(float));
  s->dS = real_alloc(cells * sizeof(float));
  s->dW = real_alloc(cells * sizeof(float));
  s->dE = real_alloc(cells * sizeof(float));
  s->want = real_alloc(cells * sizeof(float));
  for (size_t i = 0; i < cells; i++)
    s->init[i] = expf(real_rand01((uint32_t)i, 4));
  memcpy(s->want, s->init, cells * sizeof(float));
  a = (srad_args){s->want, s->C, s->dN, s->dS, s->dW, s->dE, s->n, s->n, 0};
  for (int it = 0; it < SRAD_ITERATIONS; it++) {
    a.q0sqr = srad_q0sqr(s->want, s->n);
    for (int i = 0; i < s->n; i++)
      srad_row1(&a, i);
    for (int i = 0; i < s->n; i++)
      srad_row2(&a, i);
  }
  return s;
}

static void srad_release(void *p) {
  srad *s = p;

  free(s->J), free(s->init), free(s->C), free(s->dN), free(s->dS);
  free(s->dW), free(s->dE), free(s->want), free(s);
}

static int srad_ocl_init(void *p, bench_ocl *o) {
  srad *s = p;
  size_t bytes = (size_t)s->n * s->n * sizeof(float);

  s->k1 = real_cl_kernel(o, "srad", "srad_1");
  s->k2 = real_cl_kernel(o, "srad", "srad_2");
  s->cJ = bench_ocl_buffer(o, s->J, bytes);
  s->cC = bench_ocl_buffer(o, s->C, bytes);
  s->cdN = bench_ocl_buffer(o, s->dN, bytes);
  s->cdS = bench_ocl_buffer(o, s->dS, bytes);
  s->cdW = bench_ocl_buffer(o, s->dW, bytes);
  s->cdE = bench_ocl_buffer(o, s->dE, bytes);
  return s->k1 == NULL || s->k2 == NULL || s->cJ == NULL || s->cC == NULL ||
         s->cdN == NULL || s->cdS == NULL || s->cdW == NULL || s->cdE == NULL;
}

static int srad_prepare(void *p, real_version v, real_env *env) {
  srad *s = p;

  return real_put(env, v, s->cJ, s->J, s->init,
                  (size_t)s->n * s->n * sizeof(float));
}

/* ---- port ------------------------------------------------------------------
 */

/* Where srad.cl's kernels read for a work-item: its cell, and the cells
 * north, south, west and east of its tile (its row and column, one
 * beyond the tile; at the image's edges the image's own first or last
 * row or column). */
typedef struct srad_at {
  int tx, ty, index, north, south, west, east;
} srad_at;

static inline srad_at srad_at_of(fpar_item *it, int cols) {
  const int BS = SRAD_BS;
  const int bx = (int)fpar_group_id(it, 0), by = (int)fpar_group_id(it, 1);
  const int tx = (int)fpar_local_id(it, 0), ty = (int)fpar_local_id(it, 1);
  const int gx = (int)fpar_group_range(it, 0);
  const int gy = (int)fpar_group_range(it, 1);
  const int tile = cols * BS * by + BS * bx;
  srad_at at;

  at.tx = tx, at.ty = ty;
  at.index = tile + cols * ty + tx;
  at.north = by == 0 ? BS * bx + tx : tile + tx - cols;
  at.south = by == gy - 1
                 ? cols * BS * (gy - 1) + BS * bx + cols * (BS - 1) + tx
                 : tile + cols * BS + tx;
  at.west = bx == 0 ? cols * BS * by + cols * ty : tile + cols * ty - 1;
  at.east = bx == gx - 1 ? cols * BS * by + BS * (gx - 1) + cols * ty + BS - 1
                         : tile + cols * ty + BS;
  return at;
}

typedef struct srad_local1 {
  float temp[SRAD_BS][SRAD_BS], temp_result[SRAD_BS][SRAD_BS],
      north[SRAD_BS][SRAD_BS], south[SRAD_BS][SRAD_BS], east[SRAD_BS][SRAD_BS],
      west[SRAD_BS][SRAD_BS];
} srad_local1;

/* The derivatives cross srad_1's last barrier. */
typedef struct srad_state1 {
  float n, s, w, e;
} srad_state1;

FPAR_PHASE_KERNEL_LOCAL(srad_port_1, it, args, srad_state1, st, srad_local1,
                        lm) {
  const srad_args *a = args;
  const float *J = a->J;
  const srad_at at = srad_at_of(it, a->cols);
  const int tx = at.tx, ty = at.ty, BS = SRAD_BS;

  FPAR_PHASE_BEGIN();
  lm->north[ty][tx] = J[at.north];
  lm->south[ty][tx] = J[at.south];
  FPAR_PHASE_BARRIER();
  lm->west[ty][tx] = J[at.west];
  lm->east[ty][tx] = J[at.east];
  FPAR_PHASE_BARRIER();
  lm->temp[ty][tx] = J[at.index];
  FPAR_PHASE_BARRIER();
  {
    float jc = lm->temp[ty][tx];

    st->n = (ty == 0 ? lm->north[ty][tx] : lm->temp[ty - 1][tx]) - jc;
    st->s = (ty == BS - 1 ? lm->south[ty][tx] : lm->temp[ty + 1][tx]) - jc;
    st->w = (tx == 0 ? lm->west[ty][tx] : lm->temp[ty][tx - 1]) - jc;
    st->e = (tx == BS - 1 ? lm->east[ty][tx] : lm->temp[ty][tx + 1]) - jc;
    lm->temp_result[ty][tx] = srad_c(st->n, st->s, st->w, st->e, jc, a->q0sqr);
  }
  FPAR_PHASE_BARRIER();
  a->C[at.index] = lm->temp_result[ty][tx];
  a->dE[at.index] = st->e;
  a->dW[at.index] = st->w;
  a->dS[at.index] = st->s;
  a->dN[at.index] = st->n;
  FPAR_PHASE_END();
}

typedef struct srad_local2 {
  float south_c[SRAD_BS][SRAD_BS], east_c[SRAD_BS][SRAD_BS],
      c_temp[SRAD_BS][SRAD_BS], c_result[SRAD_BS][SRAD_BS],
      temp[SRAD_BS][SRAD_BS];
} srad_local2;

/* Nothing crosses srad_2's barriers. */
FPAR_PHASE_KERNEL_LOCAL_STATELESS(srad_port_2, it, args, srad_local2, lm) {
  const srad_args *a = args;
  const float *C = a->C;
  const srad_at at = srad_at_of(it, a->cols);
  const int tx = at.tx, ty = at.ty, BS = SRAD_BS;

  FPAR_PHASE_BEGIN();
  lm->temp[ty][tx] = a->J[at.index];
  FPAR_PHASE_BARRIER();
  lm->south_c[ty][tx] = C[at.south];
  FPAR_PHASE_BARRIER();
  lm->east_c[ty][tx] = C[at.east];
  FPAR_PHASE_BARRIER();
  lm->c_temp[ty][tx] = C[at.index];
  FPAR_PHASE_BARRIER();
  {
    float cc = lm->c_temp[ty][tx], cn = cc, cw = cc;
    float cs = ty == BS - 1 ? lm->south_c[ty][tx] : lm->c_temp[ty + 1][tx];
    float ce = tx == BS - 1 ? lm->east_c[ty][tx] : lm->c_temp[ty][tx + 1];
    float d_sum = cn * a->dN[at.index] + cs * a->dS[at.index] +
                  cw * a->dW[at.index] + ce * a->dE[at.index];

    lm->c_result[ty][tx] = lm->temp[ty][tx] + 0.25f * SRAD_LAMBDA * d_sum;
  }
  FPAR_PHASE_BARRIER();
  a->J[at.index] = lm->c_result[ty][tx];
  FPAR_PHASE_END();
}

/* ---- best: lane kernels, neighbours from global memory ------------------- */

/* The vectors of row y at columns x0 - 1 and x0 + 1 (x0 is a multiple of
 * W and cols of 16): at the image's edges lane 0 or lane W - 1 keeps its
 * own value, as the clamped index does. */
static inline fpar_vf32 srad_west(const float *row, int x0, fpar_vf32 c) {
  return x0 > 0 ? fpar_vf32_load(row + x0 - 1) : fpar_vf32_shuffle_up(c, 1);
}

static inline fpar_vf32 srad_east(const float *row, int x0, int cols,
                                  fpar_vf32 c) {
  return x0 + FPAR_SIMD_WIDTH < cols ? fpar_vf32_load(row + x0 + 1)
                                     : fpar_vf32_shuffle_down(c, 1);
}

FPAR_LANE_KERNEL(srad_best_1, lk, args) {
  const srad_args *a = args;
  const int cols = a->cols, x0 = (int)lk->global_first;
  const int y = (int)fpar_global_id(lk->it, 1);
  const size_t at = (size_t)y * cols + x0;
  const float *row = a->J + (size_t)y * cols;
  fpar_vf32 jc = fpar_vf32_load(row + x0);
  fpar_vf32 n = (y > 0 ? fpar_vf32_load(row + x0 - cols) : jc) - jc;
  fpar_vf32 s = (y < a->rows - 1 ? fpar_vf32_load(row + x0 + cols) : jc) - jc;
  fpar_vf32 w = srad_west(row, x0, jc) - jc;
  fpar_vf32 e = srad_east(row, x0, cols, jc) - jc;
  fpar_vf32 g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  fpar_vf32 l = (n + s + w + e) / jc;
  fpar_vf32 num = (0.5f * g2) - ((1.0f / 16.0f) * (l * l));
  fpar_vf32 den = 1 + (0.25f * l);
  fpar_vf32 qsqr = num / (den * den), c;

  den = (qsqr - a->q0sqr) / (a->q0sqr * (1 + a->q0sqr));
  c = 1.0f / (1.0f + den);
  c = fpar_vf32_select(c < 0, fpar_vf32_splat(0), c);
  c = fpar_vf32_select(c > 1, fpar_vf32_splat(1), c);
  fpar_vf32_store(a->C + at, c);
  fpar_vf32_store(a->dN + at, n);
  fpar_vf32_store(a->dS + at, s);
  fpar_vf32_store(a->dW + at, w);
  fpar_vf32_store(a->dE + at, e);
}

FPAR_LANE_KERNEL(srad_best_2, lk, args) {
  const srad_args *a = args;
  const int cols = a->cols, x0 = (int)lk->global_first;
  const int y = (int)fpar_global_id(lk->it, 1);
  const size_t at = (size_t)y * cols + x0;
  const float *crow = a->C + (size_t)y * cols;
  fpar_vf32 cc = fpar_vf32_load(crow + x0);
  fpar_vf32 cs = y < a->rows - 1 ? fpar_vf32_load(crow + x0 + cols) : cc;
  fpar_vf32 ce = srad_east(crow, x0, cols, cc);
  fpar_vf32 d_sum =
      cc * fpar_vf32_load(a->dN + at) + cs * fpar_vf32_load(a->dS + at) +
      cc * fpar_vf32_load(a->dW + at) + ce * fpar_vf32_load(a->dE + at);

  fpar_vf32_store(a->J + at,
                  fpar_vf32_load(a->J + at) + 0.25f * SRAD_LAMBDA * d_sum);
}

/* ---- the iterations -------------------------------------------------------
 */

/* Work-items per group of the lane kernels: the largest divisor of the row
 * up to 2048, a whole row of Rodinia's image.  (Groups of 256 ran at
 * 0.94 of OpenMP's time on the 2-core Xeon, whole rows at 1.0: what the
 * runtime spends per group, 8 times as many groups.) */
static size_t srad_row_group(int n) {
  size_t g = 2048;

  while (n % g != 0)
    g /= 2;
  return g;
}

/* q0sqr of the current J (through the buffer for pocl). */
static int srad_stats(srad *s, real_version v, real_env *env, float *q0sqr) {
  size_t bytes = (size_t)SRAD_ROI * s->n * sizeof(float);
  const float *J = real_get(env, v, s->cJ, s->J, bytes);

  if (J == NULL)
    return -1;
  *q0sqr = srad_q0sqr(J, s->n);
  real_done(env, v, s->cJ, J);
  return 0;
}

static int srad_run(void *p, real_version v, real_env *env) {
  srad *s = p;
  const int n = s->n;
  int err = 0;

  for (int it = 0; it < SRAD_ITERATIONS && err == 0; it++) {
    srad_args *a = &s->args[it];

    *a = (srad_args){s->J, s->C, s->dN, s->dS, s->dW, s->dE, n, n, 0};
    if (v == REAL_PORT || v == REAL_BEST)
      err |= real_wait(env); /* the host reads J */
    err |= srad_stats(s, v, env, &a->q0sqr);
    switch (v) {
    case REAL_POCL: {
      size_t global[2] = {(size_t)n, (size_t)n}, local[2] = {SRAD_BS, SRAD_BS};

      err |= bench_ocl_args(s->k1, "bbbbbbiif", s->cJ, s->cC, s->cdN, s->cdS,
                            s->cdW, s->cdE, n, n, (double)a->q0sqr);
      err |= bench_ocl_enqueue(s->k1, 2, global, local);
      err |= bench_ocl_args(s->k2, "bbbbbbiif", s->cJ, s->cC, s->cdN, s->cdS,
                            s->cdW, s->cdE, n, n, (double)SRAD_LAMBDA);
      err |= bench_ocl_enqueue(s->k2, 2, global, local);
      break;
    }
    case REAL_PORT:
      err |= real_launch(env, &srad_port_1, fpar_range2((size_t)n, (size_t)n),
                         fpar_range2(SRAD_BS, SRAD_BS), a, sizeof *a);
      err |= real_launch(env, &srad_port_2, fpar_range2((size_t)n, (size_t)n),
                         fpar_range2(SRAD_BS, SRAD_BS), a, sizeof *a);
      break;
    case REAL_BEST:
      err |= real_launch(env, &srad_best_1, fpar_range2((size_t)n, (size_t)n),
                         fpar_range2(srad_row_group(n), 1), a, sizeof *a);
      err |= real_launch(env, &srad_best_2, fpar_range2((size_t)n, (size_t)n),
                         fpar_range2(srad_row_group(n), 1), a, sizeof *a);
      break;
    default:
#pragma omp parallel
    {
#pragma omp for schedule(static)
      for (int i = 0; i < n; i++)
        srad_row1(a, i);
#pragma omp for schedule(static)
      for (int i = 0; i < n; i++)
        srad_row2(a, i);
    }
    }
  }
  return real_finish(env, v, err);
}

static int srad_check(void *p, real_version v, real_env *env, char *why,
                      size_t len) {
  srad *s = p;

  return real_match_f32(env, v, s->cJ, s->J, s->want, (size_t)s->n * s->n, 1e-4,
                        1e-5, why, len);
}

const real_kernel real_srad = {
    "srad",
    "lanes",
    "the image side, a multiple of 16 from 128 to 8192",
    2048,
    128,
    srad_size_ok,
    srad_setup,
    srad_release,
    srad_ocl_init,
    srad_prepare,
    srad_run,
    srad_check};
