/* SPDX-License-Identifier: MIT */
/* lanes.c - section lanes: lane-form kernels (W lanes per sub-group):
 * barrier cost, reductions, NBody, register-blocked SGEMM and its fraction
 * of the FMA peak of the built instruction set, the Jacobi and 7-point
 * stencils, against OpenMP SIMD loops on the same data compiled for the
 * same instruction set (examples/bench_avx2 and bench_sse2 are the other
 * builds). */

#include <fiberpar/simd.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../lane_kernels.h"
#include "bench.h"

/* Run ours(ctx) and ref(ctx) alternately, REPS timed times each after one
 * warm-up, so that drift hits both alike. */
static void time_pair(void (*ours)(void *), void (*ref)(void *), void *ctx,
                      double *t_ours, double *t_ref) {
  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now(), t1, t2;
    ours(ctx);
    t1 = bench_now();
    ref(ctx);
    t2 = bench_now();
    if (r >= 0) {
      t_ours[r] = t1 - t0;
      t_ref[r] = t2 - t1;
    }
  }
}

/* Report a rate pair of `kernel` and its ratio, each line tagged with the
 * instruction set both sides were compiled for and the lane width; returns
 * our figures. */
static bench_stat report_pair(const char *kernel, const char *ours,
                              const char *ref, double *t_ours, double *t_ref,
                              double work, const char *unit, double target) {
  char label[128];
  bench_stat o, r;

  snprintf(label, sizeof label, "%s lanes%s [%s W=%d]", kernel, ours, lk_isa(),
           FPAR_SIMD_WIDTH);
  o = bench_report_rate(label, t_ours, REPS, work, unit);
  snprintf(label, sizeof label, "%s OpenMP simd%s [%s]", kernel, ref, lk_isa());
  r = bench_report_rate(label, t_ref, REPS, work, unit);
  snprintf(label, sizeof label, "%s%s [%s W=%d]: lanes vs OpenMP", kernel, ours,
           lk_isa(), FPAR_SIMD_WIDTH);
  bench_report_ratio(label, o, r, target);
  return o;
}

/* ---- The FMA peak of the build's instruction set ------------------------ */

#define PEAK_ITERS 20000000L
#define PEAK_CHAINS 12

/* PEAK_CHAINS independent multiply-add chains of W lanes without memory
 * operands, enough to cover the latency of two FMA pipes (as
 * ../shared/anchors/fma_peak.c does with AVX2 intrinsics).  a * m + c is
 * one FMA where the instruction set has one (GCC contracts it; SSE2 has
 * none: a multiply and an add, the peak of that build). */
static float peak_chains(float seed) {
  const fpar_vf32 m = fpar_vf32_splat(0.999999f), c = fpar_vf32_splat(1e-7f);
  fpar_vf32 a[PEAK_CHAINS], s = {0};

  for (int j = 0; j < PEAK_CHAINS; j++)
    a[j] = fpar_vf32_splat(seed + (float)j);
  for (long i = 0; i < PEAK_ITERS; i++) {
#pragma GCC unroll 16
    for (int j = 0; j < PEAK_CHAINS; j++)
      a[j] = a[j] * m + c;
  }
  for (int j = 0; j < PEAK_CHAINS; j++)
    s += a[j];
  return fpar_vf32_reduce_add(s, fpar_vmask_first(FPAR_SIMD_WIDTH));
}

/* Single-precision multiply-add peak of `threads` OpenMP threads, in
 * flop/s (min and median of REPS runs, as rates). */
static bench_stat fma_peak(int threads) {
  double t[REPS],
      flops = (double)threads * PEAK_ITERS * PEAK_CHAINS * FPAR_SIMD_WIDTH * 2;
  volatile float sink = 0;
  char label[96];
  bench_stat st;

  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now();
#pragma omp parallel num_threads(threads)
    {
#ifdef _OPENMP
      float v = peak_chains((float)omp_get_thread_num());
#else
      float v = peak_chains(0);
#endif
#pragma omp critical
      sink += v;
    }
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  (void)sink;
  snprintf(label, sizeof label, "FMA peak [%s W=%d], %d threads (GFLOP/s)",
           lk_isa(), FPAR_SIMD_WIDTH, threads);
  st = bench_report_rate(label, t, REPS, flops / 1e9, "GFLOP/s");
  st.min = flops / st.min, st.median = flops / st.median;
  return st;
}

typedef struct lanes_case {
  fpar_queue *q;
  size_t n;
  const float *in, *a, *b;
  float *out, *ref_out, *partial;
  float *minima, *ref_minima; /* sub-group minima */
  double sum, ref_sum;
  int variant; /* reduction: 0 nd_range, 1 scoped; nbody: 1 = fast rsqrt */
} lanes_case;

static void lanes_reduce(void *p) {
  lanes_case *c = p;
  size_t groups;

  bench_check(c->variant
                  ? lk_reduce_scoped(c->q, c->in, c->n, c->partial, &groups)
                  : lk_reduce_ndrange(c->q, c->in, c->n, c->partial, &groups),
              "lane reduction");
  c->sum = 0;
  for (size_t g = 0; g < groups; g++)
    c->sum += c->partial[g];
}

static void omp_reduce(void *p) {
  lanes_case *c = p;
  const float *in = c->in;
  size_t n = c->n;
  float s = 0;

#pragma omp parallel for simd reduction(+ : s)
  for (size_t i = 0; i < n; i++)
    s += in[i];
  c->ref_sum = s;
}

static void lanes_minmax(void *p) {
  lanes_case *c = p;

  bench_check(lk_subgroup_minmax(c->q, c->in, c->n, c->minima, c->out),
              "lane sub-group min/max");
}

/* The same as an HPC programmer writes it with OpenMP: per sub-group of W
 * floats, a min reduction and an inclusive max scan, both omp simd. */
static void omp_minmax(void *p) {
  lanes_case *c = p;
  const float *in = c->in;
  float *minima = c->ref_minima, *running = c->ref_out;
  size_t segments = c->n / FPAR_SIMD_WIDTH;

#pragma omp parallel for schedule(static)
  for (size_t k = 0; k < segments; k++) {
    const float *x = in + k * FPAR_SIMD_WIDTH;
    float *r = running + k * FPAR_SIMD_WIDTH;
    float mn = x[0], mx = -INFINITY;

#pragma omp simd reduction(min : mn)
    for (int j = 0; j < FPAR_SIMD_WIDTH; j++)
      mn = x[j] < mn ? x[j] : mn;
#pragma omp simd reduction(inscan, max : mx)
    for (int j = 0; j < FPAR_SIMD_WIDTH; j++) {
      mx = x[j] > mx ? x[j] : mx;
#pragma omp scan inclusive(mx)
      r[j] = mx;
    }
    minima[k] = mn;
  }
}

static void lanes_nbody(void *p) {
  lanes_case *c = p;

  bench_check(lk_nbody(c->q, c->in, c->out, c->n, c->variant), "lane nbody");
}

static void omp_nbody(void *p) {
  lanes_case *c = p;
  const float *pos = c->in;
  float *out = c->ref_out;
  size_t n = c->n;

#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) {
    float a3[3] = {0, 0, 0};
    nb_interact(pos, n, pos + i * 4, a3);
    out[i * 3] = a3[0], out[i * 3 + 1] = a3[1], out[i * 3 + 2] = a3[2];
  }
}

static void lanes_sgemm(void *p) {
  lanes_case *c = p;

  bench_check(lk_sgemm(c->q, c->a, c->b, c->out, c->n), "lane sgemm");
}

/* The anchors' OpenMP SIMD blocked SGEMM: 4 rows of C per pass, k blocked
 * so the B panel stays in L2, the j loop vectorised. */
static void omp_sgemm(void *p) {
  lanes_case *c = p;
  const size_t n = c->n, kb = 128;
  const float *A = c->a, *B = c->b;
  float *C = c->ref_out;

#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i += 4) {
    for (size_t j = 0; j < 4 * n; j++)
      C[i * n + j] = 0.0f;
    for (size_t kk = 0; kk < n; kk += kb)
      for (size_t k = kk; k < kk + kb; k++) {
        const float a0 = A[(i + 0) * n + k], a1 = A[(i + 1) * n + k];
        const float a2 = A[(i + 2) * n + k], a3 = A[(i + 3) * n + k];
        const float *b = B + k * n;
        float *c0 = C + i * n;
#pragma omp simd
        for (size_t j = 0; j < n; j++) {
          const float bj = b[j];
          c0[j] += a0 * bj;
          c0[n + j] += a1 * bj;
          c0[2 * n + j] += a2 * bj;
          c0[3 * n + j] += a3 * bj;
        }
      }
  }
}

#define JACOBI_NX 4096
#define JACOBI_NY 2048

static void lanes_jacobi(void *p) {
  lanes_case *c = p;

  bench_check(lk_jacobi(c->q, c->in, c->out, JACOBI_NX, JACOBI_NY),
              "lane jacobi");
}

static void omp_jacobi(void *p) {
  lanes_case *c = p;
  const size_t nx = JACOBI_NX, ny = JACOBI_NY;

#pragma omp parallel for schedule(static)
  for (size_t y = 0; y < ny; y++) {
    const float *in = c->in + y * nx;
    float *out = c->ref_out + y * nx;
    if (y == 0 || y == ny - 1) {
      memcpy(out, in, nx * sizeof *out);
      continue;
    }
    out[0] = in[0];
#pragma omp simd
    for (size_t x = 1; x < nx - 1; x++)
      out[x] = 0.25f * (in[x - nx] + in[x + nx] + in[x - 1] + in[x + 1]);
    out[nx - 1] = in[nx - 1];
  }
}

#define ST7_NX 256
#define ST7_NY 256
#define ST7_NZ 128

static void lanes_stencil7(void *p) {
  lanes_case *c = p;

  bench_check(lk_stencil7(c->q, c->in, c->out, ST7_NX, ST7_NY, ST7_NZ),
              "lane 7-point stencil");
}

static void omp_stencil7(void *p) {
  lanes_case *c = p;
  const size_t nx = ST7_NX, ny = ST7_NY, nz = ST7_NZ, plane = nx * ny;

#pragma omp parallel for collapse(2) schedule(static)
  for (size_t z = 0; z < nz; z++)
    for (size_t y = 0; y < ny; y++) {
      const float *in = c->in + z * plane + y * nx;
      float *out = c->ref_out + z * plane + y * nx;
      if (z == 0 || z == nz - 1 || y == 0 || y == ny - 1) {
        memcpy(out, in, nx * sizeof *out);
        continue;
      }
      out[0] = in[0];
#pragma omp simd
      for (size_t x = 1; x < nx - 1; x++)
        out[x] = (1.0f / 7) * (in[x - 1] + in[x + 1] + in[x - nx] + in[x + nx] +
                               in[x - plane] + in[x + plane] + in[x]);
      out[nx - 1] = in[nx - 1];
    }
}

static double rel_l2(const float *x, const float *ref, size_t n) {
  double e2 = 0, r2 = 0;

  for (size_t i = 0; i < n; i++) {
    e2 += ((double)x[i] - ref[i]) * ((double)x[i] - ref[i]);
    r2 += (double)ref[i] * ref[i];
  }
  return sqrt(e2 / r2);
}

static void lanes_barrier_cost(void) {
  static const size_t sizes[] = {256, 1024};
  static const fpar_fpenv modes[] = {FPAR_FPENV_ITEM, FPAR_FPENV_SHARED};

  for (int m = 0; m < 2; m++) {
    fpar_runtime *rt = bench_runtime(1, modes[m]);
    fpar_queue *q;

    bench_check(fpar_queue_create(rt, 0, &q), "queue");
    for (int k = 0; k < 2; k++) {
      size_t L = sizes[k], groups = 8000000 / (L * 1000);
      uint32_t *out = calloc(groups, 4), want = 0;
      double t[REPS], units = (double)L * 1000 * (double)groups;
      char label[96];

      for (size_t i = 0; i < L; i++) {
        uint32_t v = (uint32_t)i;
        for (int b = 0; b < 1000; b++)
          v = v * 1664525u + 1013904223u + (uint32_t)b;
        want += v;
      }
      for (int r = -1; r < REPS; r++) {
        double t0 = bench_now();
        bench_check(lk_barrier_loop(q, L, groups, 1000, out), "lane barriers");
        if (r >= 0)
          t[r] = bench_now() - t0;
      }
      for (size_t g = 0; g < groups; g++)
        if (out[g] != want) {
          fprintf(stderr, "bench: lane barrier checksum mismatch\n");
          exit(1);
        }
      snprintf(label, sizeof label, "lane barrier L=%zu, %s", L,
               bench_fpenv_name(modes[m]));
      bench_report_ns(label, t, REPS, units);
      free(out);
    }
    fpar_queue_destroy(q);
    fpar_runtime_destroy(rt);
  }
  printf("INFO   lane barriers: target <= 1 ns per work-item per barrier "
         "(PoCL's loop fission: 0.6-1.1 ns in the anchors)\n");
}

void bench_lanes(void) {
  const size_t n = (size_t)1 << 24, nb = 16384, nm = 1024;
  /* The Jacobi grid also holds the 7-point one. */
  const size_t jn = (size_t)JACOBI_NX * JACOBI_NY;
  fpar_runtime *rt;
  float *in = malloc(n * 4), *partial = malloc(n / 64 * 4);
  float *pos = malloc(nb * 16), *acc = malloc(nb * 12),
        *acc_ref = malloc(nb * 12);
  float *a = malloc(nm * nm * 4), *b = malloc(nm * nm * 4);
  float *c = malloc(nm * nm * 4), *c_ref = malloc(nm * nm * 4);
  float *grid = malloc(jn * 4), *g_out = malloc(jn * 4),
        *g_ref = malloc(jn * 4);
  double to[REPS], tr[REPS], flops;
  bench_stat sgemm, peak;
  lanes_case lc;

  printf("# lanes: built for %s, W = %d lanes per sub-group (kernels and "
         "OpenMP references compiled alike); vector math dispatched to %s\n",
         lk_isa(), FPAR_SIMD_WIDTH, fpar_math_isa());
  lanes_barrier_cost();
  rt = bench_runtime(0, FPAR_FPENV_DEFAULT);
  memset(&lc, 0, sizeof lc);
  bench_check(fpar_queue_create(rt, 0, &lc.q), "queue");

  for (size_t i = 0; i < n; i++)
    in[i] = (float)((i * 2654435761u) >> 8 & 0xffff) * (1.0f / 65536.0f);
  lc.n = n, lc.in = in, lc.partial = partial;
  for (lc.variant = 0; lc.variant < 2; lc.variant++) {
    time_pair(lanes_reduce, omp_reduce, &lc, to, tr);
    if (fabs(lc.sum - lc.ref_sum) > 1e-4 * lc.ref_sum) {
      fprintf(stderr, "bench: lane reduction %g != %g\n", lc.sum, lc.ref_sum);
      exit(1);
    }
    report_pair("reduction 2^24", lc.variant ? " scoped" : " nd_range", "", to,
                tr, 4.0 * (double)n / 1e9, "GB/s", 0.8);
  }

  lc.out = malloc(n * 4), lc.ref_out = malloc(n * 4);
  lc.minima = malloc(n / FPAR_SIMD_WIDTH * 4);
  lc.ref_minima = malloc(n / FPAR_SIMD_WIDTH * 4);
  time_pair(lanes_minmax, omp_minmax, &lc, to, tr);
  if (memcmp(lc.out, lc.ref_out, n * 4) != 0 ||
      memcmp(lc.minima, lc.ref_minima, n / FPAR_SIMD_WIDTH * 4) != 0) {
    fprintf(stderr, "bench: lane sub-group min/max differs\n");
    exit(1);
  }
  report_pair("sub-group min + max scan 2^24", "", "", to, tr,
              8.0 * (double)n / 1e9, "GB/s", 0.9);
  free(lc.out), free(lc.ref_out), free(lc.minima), free(lc.ref_minima);

  srand(7);
  for (size_t i = 0; i < nb * 4; i++)
    pos[i] = (float)rand() / (float)RAND_MAX * (i % 4 == 3 ? 1.0f : 10.0f);
  lc.n = nb, lc.in = pos, lc.out = acc, lc.ref_out = acc_ref;
  for (lc.variant = 0; lc.variant < 2; lc.variant++) {
    time_pair(lanes_nbody, omp_nbody, &lc, to, tr);
    if (rel_l2(acc, acc_ref, nb * 3) > (lc.variant ? 1e-4 : 1e-5)) {
      fprintf(stderr, "bench: lane nbody differs\n");
      exit(1);
    }
    report_pair("nbody 16384", lc.variant ? " rsqrt estimate" : " 1/sqrt",
                " 1/sqrt", to, tr, (double)nb * nb / 1e9, "G/s", 0.9);
  }

  for (size_t i = 0; i < nm * nm; i++) {
    a[i] = (float)((uint32_t)(i * 2654435761u) >> 20) / 4096.0f - 0.5f;
    b[i] = (float)((uint32_t)(i * 2246822519u) >> 20) / 4096.0f - 0.5f;
  }
  lc.n = nm, lc.a = a, lc.b = b, lc.out = c, lc.ref_out = c_ref;
  time_pair(lanes_sgemm, omp_sgemm, &lc, to, tr);
  if (rel_l2(c, c_ref, nm * nm) > 1e-5) {
    fprintf(stderr, "bench: lane sgemm differs\n");
    exit(1);
  }
  sgemm = report_pair("sgemm 1024", " 4x2W blocks", " blocked", to, tr,
                      2.0 * (double)nm * nm * nm / 1e9, "GFLOP/s", 1.0);
  peak = fma_peak((int)fpar_runtime_num_threads(rt));
  flops = 2.0 * (double)nm * nm * nm;
  printf("INFO   sgemm 1024 lanes [%s W=%d]: %.1f%% (best) / %.1f%% (median) "
         "of the FMA peak of %u threads\n",
         lk_isa(), FPAR_SIMD_WIDTH, 100 * flops / sgemm.min / peak.min,
         100 * flops / sgemm.median / peak.median,
         fpar_runtime_num_threads(rt));

  for (size_t i = 0; i < jn; i++)
    grid[i] = (float)((i * 2654435761u) >> 16 & 0xff);
  lc.in = grid, lc.out = g_out, lc.ref_out = g_ref;
  time_pair(lanes_jacobi, omp_jacobi, &lc, to, tr);
  if (memcmp(g_out, g_ref, jn * 4) != 0) {
    fprintf(stderr, "bench: lane jacobi differs\n");
    exit(1);
  }
  report_pair("jacobi 4096x2048", "", "", to, tr, 8.0 * (double)jn / 1e9,
              "GB/s", 0.9);

  lc.in = grid, lc.out = g_out, lc.ref_out = g_ref;
  time_pair(lanes_stencil7, omp_stencil7, &lc, to, tr);
  if (memcmp(g_out, g_ref, (size_t)ST7_NX * ST7_NY * ST7_NZ * 4) != 0) {
    fprintf(stderr, "bench: lane 7-point stencil differs\n");
    exit(1);
  }
  report_pair("7-point 256x256x128", "", "", to, tr,
              8.0 * ST7_NX * ST7_NY * ST7_NZ / 1e9, "GB/s", 0.9);

  free(in), free(partial), free(pos), free(acc), free(acc_ref);
  free(a), free(b), free(c), free(c_ref), free(grid), free(g_out), free(g_ref);
  fpar_queue_destroy(lc.q);
  fpar_runtime_destroy(rt);
}
