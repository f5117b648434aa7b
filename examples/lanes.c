/* SPDX-License-Identifier: MIT */
/* lanes.c - the bundled lane-form kernels (lane_kernels.c) checked against
 * plain C: reductions (nd_range with a barrier, scoped), sub-group minima
 * and running maxima, NBody, tiled SGEMM, the 5-point Jacobi and 7-point
 * stencils, and the barrier loop with groups that W does not divide.
 * Prints one line per kernel and exits 0 when all are right.
 */
#include <fiberpar.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lane_kernels.h"

static int failures;

static void verdict(const char *what, int ok, double err) {
  printf("%-38s W=%-2d error %.2e: %s\n", what, FPAR_SIMD_WIDTH, err,
         ok ? "ok" : "WRONG");
  failures += !ok;
}

static void check(int err, const char *what) {
  if (err != 0) {
    fprintf(stderr, "lanes: %s: %s\n", what, fpar_strerror(err));
    exit(1);
  }
}

static void test_reductions(fpar_queue *q) {
  const size_t n = (size_t)1 << 20;
  float *in = malloc(n * sizeof *in), *partial = malloc(n / 64 * 4);
  double ref = 0, sum;
  size_t groups;

  for (size_t i = 0; i < n; i++) {
    in[i] = (float)((i * 2654435761u) >> 8 & 0xffff) / 65536.0f;
    ref += in[i];
  }
  check(lk_reduce_ndrange(q, in, n, partial, &groups), "reduce");
  sum = 0;
  for (size_t g = 0; g < groups; g++)
    sum += partial[g];
  verdict("reduction, nd_range lanes", fabs(sum - ref) <= 1e-5 * ref,
          fabs(sum - ref) / ref);
  check(lk_reduce_scoped(q, in, n, partial, &groups), "scoped reduce");
  sum = 0;
  for (size_t g = 0; g < groups; g++)
    sum += partial[g];
  verdict("reduction, scoped lanes", fabs(sum - ref) <= 1e-5 * ref,
          fabs(sum - ref) / ref);
  free(in), free(partial);
}

/* Sub-group minima and running maxima against plain C, exactly; a
 * few lanes are NaN, which fmin and fmax pass over. */
static void test_subgroup_minmax(fpar_queue *q) {
  const size_t n = (size_t)1 << 16, W = FPAR_SIMD_WIDTH;
  float *in = malloc(n * 4), *run = malloc(n * 4), *mins = malloc(n / W * 4);
  int ok = 1;

  for (size_t i = 0; i < n; i++)
    in[i] =
        i % 37 == 5 ? NAN : (float)((i * 2654435761u) >> 12 & 0xfff) - 2048.0f;
  check(lk_subgroup_minmax(q, in, n, mins, run), "sub-group min/max");
  for (size_t k = 0; k < n / W; k++) {
    float mn = NAN, mx = NAN;

    for (size_t j = k * W; j < (k + 1) * W; j++) {
      mn = fminf(mn, in[j]);
      mx = fmaxf(mx, in[j]);
      ok &= isnan(mx) ? isnan(run[j]) != 0 : run[j] == mx;
    }
    ok &= isnan(mn) ? isnan(mins[k]) != 0 : mins[k] == mn;
  }
  verdict("sub-group minima, running maxima", ok, 0);
  free(in), free(run), free(mins);
}

static void test_nbody(fpar_queue *q) {
  const size_t n = 2048;
  float *pos = malloc(n * 16), *acc = malloc(n * 12);
  double *ref = malloc(n * 3 * sizeof *ref);

  srand(11);
  for (size_t i = 0; i < n * 4; i++)
    pos[i] = (float)rand() / (float)RAND_MAX * (i % 4 == 3 ? 1.0f : 10.0f);
  for (size_t i = 0; i < n; i++) {
    double a[3] = {0, 0, 0};
    for (size_t j = 0; j < n; j++) {
      double r[3], d2 = 0.01;
      for (int c = 0; c < 3; c++) {
        r[c] = pos[j * 4 + c] - pos[i * 4 + c];
        d2 += r[c] * r[c];
      }
      for (int c = 0; c < 3; c++)
        a[c] += r[c] * pos[j * 4 + 3] / (d2 * sqrt(d2));
    }
    for (int c = 0; c < 3; c++)
      ref[i * 3 + c] = a[c];
  }
  for (int fast = 0; fast < 2; fast++) {
    double e2 = 0, r2 = 0;
    check(lk_nbody(q, pos, acc, n, fast), "nbody");
    for (size_t i = 0; i < n * 3; i++) {
      e2 += (acc[i] - ref[i]) * (acc[i] - ref[i]);
      r2 += ref[i] * ref[i];
    }
    verdict(fast ? "nbody lanes, rsqrt estimate" : "nbody lanes, 1/sqrt",
            sqrt(e2 / r2) < (fast ? 1e-4 : 1e-5), sqrt(e2 / r2));
  }
  free(pos), free(acc), free(ref);
}

static void test_sgemm(fpar_queue *q) {
  const size_t n = 256;
  float *a = malloc(n * n * 4), *b = malloc(n * n * 4), *c = malloc(n * n * 4);
  double worst = 0;

  for (size_t i = 0; i < n * n; i++) {
    a[i] = (float)((uint32_t)(i * 2654435761u) >> 20) / 4096.0f - 0.5f;
    b[i] = (float)((uint32_t)(i * 2246822519u) >> 20) / 4096.0f - 0.5f;
  }
  check(lk_sgemm(q, a, b, c, n), "sgemm");
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      double s = 0;
      for (size_t k = 0; k < n; k++)
        s += (double)a[i * n + k] * b[k * n + j];
      worst = fmax(worst, fabs(s - c[i * n + j]));
    }
  verdict("sgemm lanes (max |error|)", worst < 1e-3, worst);
  free(a), free(b), free(c);
}

/* Cells of out that differ from the plain-C sweep of an nx x ny x nz grid
 * (5-point in the plane when nz is 1, else 7-point). */
static size_t stencil_wrong(const float *in, const float *out, size_t nx,
                            size_t ny, size_t nz) {
  const long sx = 1, sy = (long)nx, sz = (long)(nx * ny);
  size_t wrong = 0;

  for (size_t z = 0; z < nz; z++)
    for (size_t y = 0; y < ny; y++)
      for (size_t x = 0; x < nx; x++) {
        const float *c = in + (long)z * sz + (long)y * sy + (long)x;
        int edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1 ||
                   (nz > 1 && (z == 0 || z == nz - 1));
        float want;

        if (edge)
          want = *c;
        else if (nz == 1)
          want = 0.25f * (c[-sy] + c[sy] + c[-sx] + c[sx]);
        else
          want = (1.0f / 7) *
                 (c[-sx] + c[sx] + c[-sy] + c[sy] + c[-sz] + c[sz] + c[0]);
        wrong += out[(long)z * sz + (long)y * sy + (long)x] != want;
      }
  return wrong;
}

/* Sizes that W does not divide (masked last sub-groups), one row
 * narrower than a sub-group, rows of one or two sub-groups (W = 4, 8 or
 * 16) and rows one cell wider, where the vector steps of a row overlap. */
static void test_stencils(fpar_queue *q) {
  static const size_t sizes[][3] = {
      {256, 96, 1}, {203, 37, 1}, {5, 9, 1},  {8, 6, 1},    {16, 5, 1},
      {17, 4, 1},   {9, 5, 3},    {16, 4, 4}, {67, 13, 11}, {64, 32, 16}};
  const size_t cells = 64 * 32 * 16; /* the largest */
  float *in = malloc(cells * 4), *out = malloc(cells * 4);
  char what[64];

  for (size_t i = 0; i < cells; i++)
    in[i] = (float)((i * 2654435761u) >> 16 & 0xff);
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t nx = sizes[k][0], ny = sizes[k][1], nz = sizes[k][2], wrong;

    memset(out, 0xff, cells * 4);
    if (nz == 1)
      check(lk_jacobi(q, in, out, nx, ny), "jacobi");
    else
      check(lk_stencil7(q, in, out, nx, ny, nz), "stencil7");
    wrong = stencil_wrong(in, out, nx, ny, nz);
    snprintf(what, sizeof what, "%s %zux%zux%zu (cells wrong)",
             nz == 1 ? "jacobi lanes" : "7-point lanes", nx, ny, nz);
    verdict(what, wrong == 0, (double)wrong);
  }
  free(in), free(out);
}

static void test_barrier_loop(fpar_queue *q) {
  const size_t local = 100, groups = 7;
  const int barriers = 50;
  uint32_t out[7], want = 0;

  for (size_t i = 0; i < local; i++) {
    uint32_t v = (uint32_t)i;
    for (int b = 0; b < barriers; b++)
      v = v * 1664525u + 1013904223u + (uint32_t)b;
    want += v;
  }
  check(lk_barrier_loop(q, local, groups, barriers, out), "barrier loop");
  for (size_t g = 0; g < groups; g++)
    failures += out[g] != want;
  verdict("barrier loop, groups of 100 lanes", out[0] == want, 0);
}

int main(void) {
  fpar_runtime *rt;
  fpar_queue *q;

  if (!lk_isa_runs()) {
    printf("lanes: built for %s, which this CPU does not run: skipped\n",
           lk_isa());
    return 77;
  }
  check(fpar_runtime_create(&rt, NULL), "runtime");
  check(fpar_queue_create(rt, 0, &q), "queue");
  test_reductions(q);
  test_subgroup_minmax(q);
  test_nbody(q);
  test_sgemm(q);
  test_stencils(q);
  test_barrier_loop(q);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
  return failures != 0;
}
