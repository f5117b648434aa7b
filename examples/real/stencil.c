/* SPDX-License-Identifier: MIT */
/* stencil.c - Parboil stencil: 100 time steps of the 3-D 7-point Jacobi
 * stencil Anext = c1 (sum of the six neighbours) - c0 A0 on Parboil's
 * small grid, 128 x 128 x 32, boundary fixed, one launch per step.
 *
 * OpenCL (stencil.cl): 32 x 4 work-groups marching along z with the
 * current plane's tile in local memory, two barriers per plane.
 * port: the same kernel as a phase kernel.
 * best: a lane kernel (FPAR_LANE_KERNEL) over the grid's rows, groups of
 * 16 rows, a vector of cells per call with its seven points loaded from
 * memory (no local tile, no barrier).
 * openmp: the time loop in one parallel region, each step an
 * `omp for collapse(2)` over planes and rows with `omp simd` rows, as
 * Parboil's OpenMP version.
 * Parboil's coefficients (c0 = 1/6, c1 = 1/36) make every interior value
 * decay below 2^-126 within about 80 steps, which measures the CPU's
 * denormal arithmetic instead of the stencil; here c0 = -1/2, c1 = 1/12
 * (a damped Jacobi average, values stay of order one).  Checked against
 * the serial loops: |d| <= 1e-5 + 1e-4 |want|. */
#include <fiberpar/simd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real.h"

#define ST_TX 32
#define ST_TY 4
#define ST_NZ 32
#define ST_STEPS 100
#define ST_BEST_ROWS 16 /* best: rows per group */
#define ST_C0 (-0.5f)
#define ST_C1 (1.0f / 12.0f)

typedef struct st_args {
  const float *A0;
  float *Anext;
  int nx, ny, nz;
} st_args;

typedef struct stn {
  int nx, ny, nz;
  float *a[2], *init, *want;
  st_args args[ST_STEPS];
  bench_ocl_buf *ca[2];
  bench_ocl_kernel *kernel;
} stn;

static int st_size_ok(long n) {
  return n >= ST_TX && n <= 512 && n % ST_TX == 0;
}

/* One step of rows j of plane k, in plain C (serial reference, openmp). */
static inline void st_row(const float *A0, float *Anext, int nx, int ny, int j,
                          int k) {
  const size_t plane = (size_t)nx * ny;
  const float *c = A0 + (size_t)k * plane + (size_t)j * nx;
  float *out = Anext + (size_t)k * plane + (size_t)j * nx;

#pragma omp simd
  for (int i = 1; i < nx - 1; i++)
    out[i] = (c[i + plane] + c[i - plane] + c[i - 1] + c[i + 1] + c[i - nx] +
              c[i + nx]) *
                 ST_C1 -
             c[i] * ST_C0;
}

static void *st_setup(long n) {
  stn *s = calloc(1, sizeof *s);
  size_t cells = (size_t)n * n * ST_NZ;
  float *b;

  if (s == NULL)
    return NULL;
  s->nx = s->ny = (int)n;
  s->nz = ST_NZ;
  s->a[0] = real_alloc(cells * sizeof(float));
  s->a[1] = real_alloc(cells * sizeof(float));
  s->init = real_alloc(cells * sizeof(float));
  s->want = real_alloc(cells * sizeof(float));
  b = malloc(cells * sizeof(float));
  if (b == NULL)
    return NULL;
  for (size_t i = 0; i < cells; i++)
    s->init[i] = real_rand01((uint32_t)i, 9);
  memcpy(s->want, s->init, cells * sizeof(float));
  memcpy(b, s->init, cells * sizeof(float));
  for (int t = 0; t < ST_STEPS; t++) {
    const float *in = t & 1 ? b : s->want;
    float *out = t & 1 ? s->want : b;

    for (int k = 1; k < s->nz - 1; k++)
      for (int j = 1; j < s->ny - 1; j++)
        st_row(in, out, s->nx, s->ny, j, k);
  }
  if (ST_STEPS & 1)
    memcpy(s->want, b, cells * sizeof(float));
  free(b);
  return s;
}

static void st_release(void *p) {
  stn *s = p;

  free(s->a[0]), free(s->a[1]), free(s->init), free(s->want), free(s);
}

static int st_ocl_init(void *p, bench_ocl *o) {
  stn *s = p;
  size_t bytes = (size_t)s->nx * s->ny * s->nz * sizeof(float);

  s->kernel = real_cl_kernel(o, "stencil", "stencil");
  s->ca[0] = bench_ocl_buffer(o, s->a[0], bytes);
  s->ca[1] = bench_ocl_buffer(o, s->a[1], bytes);
  return s->kernel == NULL || s->ca[0] == NULL || s->ca[1] == NULL;
}

static int st_prepare(void *p, real_version v, real_env *env) {
  stn *s = p;
  size_t bytes = (size_t)s->nx * s->ny * s->nz * sizeof(float);

  return real_put(env, v, s->ca[0], s->a[0], s->init, bytes) |
         real_put(env, v, s->ca[1], s->a[1], s->init, bytes);
}

/* ---- port ------------------------------------------------------------------
 */

typedef struct st_local {
  float sh[ST_TY][ST_TX];
} st_local;

/* What every work-item holds alike: the plane. */
typedef struct st_uniform {
  int k;
} st_uniform;

typedef struct st_state {
  float bottom, current, top;
} st_state;

#define IDX(i, j, k) ((i) + nx * ((j) + ny * (k)))

FPAR_PHASE_KERNEL_LOCAL_UNIFORM(stencil_port, it, args, st_uniform, u, st_state,
                                st, st_local, lm) {
  const st_args *a = args;
  const float *A0 = a->A0;
  const int nx = a->nx, ny = a->ny, nz = a->nz;
  const int lx = (int)fpar_local_id(it, 0), ly = (int)fpar_local_id(it, 1);
  const int i = (int)fpar_global_id(it, 0), j = (int)fpar_global_id(it, 1);
  const int interior = i > 0 && j > 0 && i < nx - 1 && j < ny - 1;

  FPAR_PHASE_BEGIN();
  st->bottom = A0[IDX(i, j, 0)];
  st->current = A0[IDX(i, j, 1)];
  st->top = A0[IDX(i, j, 2)];
  for (u->k = 1; u->k < nz - 1; u->k++) {
    lm->sh[ly][lx] = st->current;
    FPAR_PHASE_BARRIER();
    if (interior) {
      const int k = u->k;
      float w = lx > 0 ? lm->sh[ly][lx - 1] : A0[IDX(i - 1, j, k)];
      float e = lx < ST_TX - 1 ? lm->sh[ly][lx + 1] : A0[IDX(i + 1, j, k)];
      float s = ly > 0 ? lm->sh[ly - 1][lx] : A0[IDX(i, j - 1, k)];
      float n = ly < ST_TY - 1 ? lm->sh[ly + 1][lx] : A0[IDX(i, j + 1, k)];

      a->Anext[IDX(i, j, k)] =
          (st->top + st->bottom + w + e + s + n) * ST_C1 - st->current * ST_C0;
    }
    FPAR_PHASE_BARRIER();
    st->bottom = st->current;
    st->current = st->top;
    if (u->k + 2 < nz)
      st->top = A0[IDX(i, j, u->k + 2)];
  }
  FPAR_PHASE_END();
}

/* ---- best: a lane kernel over the grid's rows -----------------------------
 */

/* One vector of W cells of row (j, k), its seven points from memory.  (A
 * march along z with the column in registers, as stencil.cl's, measured
 * 3x slower: planes of 128 x 128 floats are 64 KiB apart, so the 30
 * planes' lines of a column fall into one set of the L1 and L2 caches.) */
FPAR_LANE_KERNEL(stencil_best, lk, args) {
  const st_args *a = args;
  const int nx = a->nx, ny = a->ny, nz = a->nz;
  const int x0 = (int)lk->global_first, j = (int)fpar_global_id(lk->it, 1);
  const int k = (int)fpar_global_id(lk->it, 2);
  const fpar_vi32 i = lk->global_id0;
  const fpar_vmask inside = (i > 0) & (i < nx - 1);
  const size_t plane = (size_t)nx * ny;
  const float *c = a->A0 + IDX(x0, j, k);
  fpar_vf32 current, sum;

  if (j == 0 || j == ny - 1 || k == 0 || k == nz - 1)
    return;
  current = fpar_vf32_load(c);
  sum = fpar_vf32_load(c + plane) + fpar_vf32_load(c - plane) +
        fpar_vf32_load(c - 1) + fpar_vf32_load(c + 1) + fpar_vf32_load(c - nx) +
        fpar_vf32_load(c + nx);
  /* The boundary keeps its value: store it back rather than mask the
   * store (a masked store, vmaskmovps, is microcoded on Zen 3). */
  fpar_vf32_store(
      a->Anext + IDX(x0, j, k),
      fpar_vf32_select(inside, sum * ST_C1 - current * ST_C0, current));
}

#undef IDX

/* ---- the time steps
 * ---------------------------------------------------------- */

static int st_run(void *p, real_version v, real_env *env) {
  stn *s = p;
  const int nx = s->nx, ny = s->ny, nz = s->nz;
  int err = 0;

  if (v == REAL_OMP) {
    float *a0 = s->a[0], *a1 = s->a[1];

#pragma omp parallel
    for (int t = 0; t < ST_STEPS; t++) {
      const float *in = t & 1 ? a1 : a0;
      float *out = t & 1 ? a0 : a1;

#pragma omp for collapse(2) schedule(static)
      for (int k = 1; k < nz - 1; k++)
        for (int j = 1; j < ny - 1; j++)
          st_row(in, out, nx, ny, j, k);
    }
    return 0;
  }
  for (int t = 0; t < ST_STEPS && err == 0; t++) {
    st_args *a = &s->args[t];

    *a = (st_args){s->a[t & 1], s->a[(t + 1) & 1], nx, ny, nz};
    switch (v) {
    case REAL_POCL: {
      size_t global[2] = {(size_t)nx, (size_t)ny}, local[2] = {ST_TX, ST_TY};

      err |= bench_ocl_args(s->kernel, "ffbbiii", (double)ST_C0, (double)ST_C1,
                            s->ca[t & 1], s->ca[(t + 1) & 1], nx, ny, nz);
      err |= bench_ocl_enqueue(s->kernel, 2, global, local);
      break;
    }
    case REAL_PORT:
      err |=
          real_launch(env, &stencil_port, fpar_range2((size_t)nx, (size_t)ny),
                      fpar_range2(ST_TX, ST_TY), a, sizeof *a);
      break;
    default:
      err |= real_launch(
          env, &stencil_best, fpar_range3((size_t)nx, (size_t)ny, (size_t)nz),
          fpar_range3((size_t)nx, ST_BEST_ROWS, 1), a, sizeof *a);
    }
  }
  return real_finish(env, v, err);
}

static int st_check(void *p, real_version v, real_env *env, char *why,
                    size_t len) {
  stn *s = p;
  const int last = ST_STEPS & 1;

  return real_match_f32(env, v, s->ca[last], s->a[last], s->want,
                        (size_t)s->nx * s->ny * s->nz, 1e-4, 1e-5, why, len);
}

const real_kernel real_stencil = {
    "stencil",
    "lanes-rows",
    "the grid's side N (N x N x 32), a multiple of 32 from 32 to 512",
    128,
    32,
    st_size_ok,
    st_setup,
    st_release,
    st_ocl_init,
    st_prepare,
    st_run,
    st_check};
