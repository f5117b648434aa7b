/* SPDX-License-Identifier: MIT */
/* free.c - section free: barrier-free nd_range kernels (saxpy, memory-bound;
 * Black-Scholes, compute-bound) through a bare kernel pointer and in their
 * normal spelling (FPAR_KERNEL), against the same loop body in an OpenMP
 * parallel for. */
#include <string.h>

#include "bench.h"

static inline void saxpy_body(const saxpy_args *s, size_t i) {
  s->z[i] = s->a * s->x[i] + s->y[i];
}

FPAR_KERNEL(saxpy_kernel, it, p) {
  saxpy_body(p, fpar_global_id(it, 0));
}

const fpar_kernel *const bench_saxpy_kernel = &saxpy_kernel;

static void saxpy_reference(void *p, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++)
    saxpy_body(p, i);
}

/* Black-Scholes call price: compute-bound, about 20 ns per option. */
typedef struct bs_args {
  const float *spot, *strike, *years;
  float *call;
} bs_args;

static inline float cnd(float d) {
  return 0.5f * erfcf(-d * (float)M_SQRT1_2);
}

static inline void bs_body(const bs_args *b, size_t i) {
  const float r = 0.02f, v = 0.30f;
  float s = b->spot[i], k = b->strike[i], t = b->years[i];
  float sq = sqrtf(t);
  float d1 = (logf(s / k) + (r + 0.5f * v * v) * t) / (v * sq);
  float d2 = d1 - v * sq;

  b->call[i] = s * cnd(d1) - k * expf(-r * t) * cnd(d2);
}

FPAR_KERNEL(bs_kernel, it, p) {
  bs_body(p, fpar_global_id(it, 0));
}

static void bs_reference(void *p, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++)
    bs_body(p, i);
}

/* One barrier-free kernel: through its bare kernel pointer, in its normal
 * spelling (FPAR_KERNEL: the kernel with its runner), and as the same body
 * in an OpenMP loop, alternated rep by rep so that drift hits all three
 * alike.  out/ref_out must match bit for bit. */
typedef struct free_case {
  const char *name, *unit;
  double work; /* units per rep, in the unit's scale */
  size_t n;
  const fpar_kernel *kernel;
  void *args, *ref_args;
  void (*reference)(void *ref_args, size_t n);
  const float *out, *ref_out;
  /* The bare kernel pointer pays an indirect call per work-item (about
   * 2.5 ns): its floor against OpenMP for this kernel. */
  double pointer_target;
} free_case;

static void bench_free_case(fpar_queue *q, const free_case *c) {
  double tk[REPS], tr[REPS], to[REPS];
  bench_stat k, r, o;
  char label[80];

  for (int rep = -1; rep < REPS; rep++) {
    fpar_event *ev;
    double t0 = bench_now(), t1, t2, t3;

    bench_run(q, fpar_range1(c->n), FPAR_LOCAL_AUTO, c->kernel->fn, c->args);
    t1 = bench_now();
    bench_check(fpar_parallel_for_kernel(q, fpar_range1(c->n), FPAR_LOCAL_AUTO,
                                         c->kernel, c->args, &ev),
                "launch");
    bench_wait(ev, "FPAR_KERNEL launch");
    t2 = bench_now();
    c->reference(c->ref_args, c->n);
    t3 = bench_now();
    if (rep >= 0) {
      tk[rep] = t1 - t0;
      tr[rep] = t2 - t1;
      to[rep] = t3 - t2;
    }
  }
  if (memcmp(c->out, c->ref_out, c->n * sizeof(float)) != 0) {
    fprintf(stderr, "bench: %s results differ from the reference\n", c->name);
    exit(1);
  }
  snprintf(label, sizeof label, "free %s kernel pointer", c->name);
  k = bench_report_rate(label, tk, REPS, c->work, c->unit);
  snprintf(label, sizeof label, "free %s FPAR_KERNEL", c->name);
  r = bench_report_rate(label, tr, REPS, c->work, c->unit);
  snprintf(label, sizeof label, "free %s OpenMP parallel for", c->name);
  o = bench_report_rate(label, to, REPS, c->work, c->unit);
  snprintf(label, sizeof label, "free %s: kernel pointer vs OpenMP", c->name);
  bench_report_ratio(label, k, o, c->pointer_target);
  snprintf(label, sizeof label, "free %s: FPAR_KERNEL vs OpenMP", c->name);
  bench_report_ratio(label, r, o, 0.95);
}

void bench_free(void) {
  const size_t n = (size_t)1 << 24, nb = (size_t)1 << 22;
  fpar_runtime *rt = bench_runtime(0, FPAR_FPENV_DEFAULT);
  float *x = malloc(n * 4), *y = malloc(n * 4), *z = malloc(n * 4),
        *z2 = malloc(n * 4);
  float *spot = malloc(nb * 4), *strike = malloc(nb * 4),
        *years = malloc(nb * 4), *call = malloc(nb * 4),
        *call2 = malloc(nb * 4);
  saxpy_args sa = {1.0001f, x, y, z}, sa2 = {1.0001f, x, y, z2};
  bs_args ba = {spot, strike, years, call}, ba2 = {spot, strike, years, call2};
  free_case saxpy = {
      "saxpy 2^24", "GB/s", 12.0 * (double)n / 1e9, n, &saxpy_kernel,
      &sa,          &sa2,   saxpy_reference,        z, z2,
      0.25};
  free_case bs = {"black-scholes 2^22",
                  "Mopt/s",
                  (double)nb / 1e6,
                  nb,
                  &bs_kernel,
                  &ba,
                  &ba2,
                  bs_reference,
                  call,
                  call2,
                  0.8};
  fpar_queue *q;

  bench_check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# free: %u workers; OpenMP reference with %d threads\n",
         fpar_runtime_num_threads(rt), bench_omp_threads());
  for (size_t i = 0; i < n; i++) {
    x[i] = (float)(i % 1000) * 0.001f;
    y[i] = 1.0f;
  }
  for (size_t i = 0; i < nb; i++) {
    spot[i] = 80.0f + (float)(i % 41);
    strike[i] = 90.0f + (float)(i % 23);
    years[i] = 0.25f + (float)(i % 8) * 0.25f;
  }
  bench_free_case(q, &saxpy);
  bench_free_case(q, &bs);
  free(x), free(y), free(z), free(z2);
  free(spot), free(strike), free(years), free(call), free(call2);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}
