/* bench.c - libfiberpar against plain C / OpenMP on the same data, side by
 * side in one run.  Every figure is repeated; min and median are printed.
 *
 *   ./examples/bench [section...]   sections: barrier free launch memory
 *                                   (default: all)
 *
 * barrier  ns per work-item per barrier at L = 64, 256, 1024 on one worker,
 *          beside the same work as plain loops split at the barriers (what
 *          a compiler's loop fission produces: the floor).
 * free     barrier-free nd_range kernels against the same loop body in an
 *          OpenMP parallel for (memory-bound and compute-bound).
 * launch   empty-launch latency (submit + wait) and throughput, beside an
 *          empty OpenMP parallel region.
 * memory   resident memory of a 1024-work-item group's fibers.
 */
#include <fiberpar.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_util.h"

#define REPS 9

static void check(int err, const char *what) {
  if (err) {
    fprintf(stderr, "bench: %s: %s (%s)\n", what, fpar_strerror(err),
            fpar_last_error());
    exit(1);
  }
}

static void run(fpar_queue *q, fpar_range g, fpar_range l, fpar_kernel_fn k,
                void *args) {
  fpar_event *ev;

  check(fpar_parallel_for(q, g, l, k, args, &ev), "submit");
  if (fpar_event_wait(ev) != 0) {
    fprintf(stderr, "bench: kernel failed: %s\n", fpar_event_error(ev));
    exit(1);
  }
  fpar_event_release(ev);
}

static fpar_runtime *make_runtime(unsigned threads) {
  fpar_runtime_opts o;
  fpar_runtime *rt;

  fpar_runtime_opts_init(&o);
  o.num_threads = threads;
  check(fpar_runtime_create(&rt, &o), "runtime");
  return rt;
}

/* ---- barrier: the anchor's work-group barrier microbenchmark ------------ */

/* One LCG step on a private value and a store to local memory between
 * barriers, as in ../shared/anchors/wg_barrier.c. */
typedef struct barrier_args {
  int barriers;
  uint32_t *out; /* one checksum word per group */
} barrier_args;

static void barrier_kernel(fpar_item *it, void *p) {
  barrier_args *a = p;
  size_t lid = fpar_local_linear_id(it), L = fpar_local_range(it, 0);
  uint32_t *lmem = fpar_group_local_memory_for_overwrite(it, L * 4, 64);
  uint32_t v = (uint32_t)lid;

  for (int b = 0; b < a->barriers; b++) {
    v = v * 1664525u + 1013904223u + (uint32_t)b;
    lmem[lid] = v;
    fpar_barrier(it);
  }
  if (lid == 0) {
    uint32_t s = 0;
    for (size_t i = 0; i < L; i++)
      s += lmem[i];
    a->out[fpar_group_id(it, 0)] = s;
  }
}

/* The same work as loops split at the barriers. */
static uint32_t barrier_reference(size_t L, int barriers, uint32_t *priv,
                                  uint32_t *lmem) {
  uint32_t s = 0;

  for (size_t i = 0; i < L; i++)
    priv[i] = (uint32_t)i;
  for (int b = 0; b < barriers; b++) {
    for (size_t i = 0; i < L; i++) {
      priv[i] = priv[i] * 1664525u + 1013904223u + (uint32_t)b;
      lmem[i] = priv[i];
    }
    __asm__ volatile("" ::: "memory");
  }
  for (size_t i = 0; i < L; i++)
    s += lmem[i];
  return s;
}

static void bench_barrier(void) {
  static const size_t sizes[] = {64, 256, 1024};
  fpar_runtime *rt = make_runtime(1);
  fpar_queue *q;
  double t[REPS], tr[REPS];

  check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# barrier: one worker, B = 1000 barriers per group, ~2M "
         "item-barriers per rep\n");
  for (unsigned k = 0; k < 3; k++) {
    size_t L = sizes[k], groups = 2000000 / (L * 1000);
    uint32_t *out = calloc(groups, 4), *priv = malloc(L * 4),
             *lmem = malloc(L * 4), ref = 0;
    barrier_args a = {1000, out};
    double units = (double)L * 1000 * (double)groups;
    char label[64];
    bench_stat ours, floor;

    if (groups == 0)
      groups = 1;
    for (int r = -1; r < REPS; r++) {
      double t0 = bench_now();
      run(q, fpar_range1(L * groups), fpar_range1(L), barrier_kernel, &a);
      if (r >= 0)
        t[r] = bench_now() - t0;
    }
    for (int r = -1; r < REPS; r++) {
      double t0 = bench_now();
      for (size_t g = 0; g < groups; g++)
        ref = barrier_reference(L, 1000, priv, lmem);
      if (r >= 0)
        tr[r] = bench_now() - t0;
    }
    for (size_t g = 0; g < groups; g++)
      if (out[g] != ref) {
        fprintf(stderr, "bench: barrier checksum mismatch at L=%zu\n", L);
        exit(1);
      }
    snprintf(label, sizeof label, "barrier fibers L=%zu (ns/item/barrier)", L);
    ours = bench_report_ns(label, t, REPS, units);
    snprintf(label, sizeof label, "barrier loop fission L=%zu (floor)", L);
    floor = bench_report_ns(label, tr, REPS, units);
    printf("INFO   L=%zu: fibers cost %.2fx the loop-fission floor (median); "
           "target <= 5 ns at L=1024\n",
           L, ours.median / floor.median);
    free(out);
    free(priv);
    free(lmem);
  }
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

/* ---- free: barrier-free kernels against OpenMP loops -------------------- */

typedef struct saxpy_args {
  float a;
  const float *x;
  float *y;
} saxpy_args;

static inline void saxpy_body(const saxpy_args *s, size_t i) {
  s->y[i] = s->a * s->x[i] + s->y[i];
}

static void saxpy_kernel(fpar_item *it, void *p) {
  saxpy_body(p, fpar_global_id(it, 0));
}

/* A compute-bound body: Black-Scholes call price for one option. */
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

static void bs_kernel(fpar_item *it, void *p) {
  bs_body(p, fpar_global_id(it, 0));
}

static void bench_free(void) {
  const size_t n = (size_t)1 << 24, nb = (size_t)1 << 22;
  fpar_runtime *rt = make_runtime(0);
  float *x = malloc(n * 4), *y = malloc(n * 4), *y2 = malloc(n * 4);
  float *spot = malloc(nb * 4), *strike = malloc(nb * 4), *years = malloc(nb * 4);
  float *call = malloc(nb * 4), *call2 = malloc(nb * 4);
  saxpy_args sa = {1.0001f, x, y}, sa2 = {1.0001f, x, y2};
  bs_args ba = {spot, strike, years, call}, ba2 = {spot, strike, years, call2};
  double t[REPS], tr[REPS];
  bench_stat ours, ref;
  fpar_queue *q;

  check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# free: %u workers; OpenMP reference with %d threads\n",
         fpar_runtime_num_threads(rt),
#ifdef _OPENMP
         omp_get_max_threads()
#else
         1
#endif
  );
  for (size_t i = 0; i < n; i++) {
    x[i] = (float)(i % 1000) * 0.001f;
    y[i] = y2[i] = 1.0f;
  }
  for (size_t i = 0; i < nb; i++) {
    spot[i] = 80.0f + (float)(i % 41);
    strike[i] = 90.0f + (float)(i % 23);
    years[i] = 0.25f + (float)(i % 8) * 0.25f;
  }
  /* Alternate ours and the reference so drift hits both alike. */
  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now();
    run(q, fpar_range1(n), FPAR_LOCAL_AUTO, saxpy_kernel, &sa);
    double t1 = bench_now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
      saxpy_body(&sa2, i);
    double t2 = bench_now();
    if (r >= 0) {
      t[r] = t1 - t0;
      tr[r] = t2 - t1;
    }
  }
  if (memcmp(y, y2, n * 4) != 0) {
    fprintf(stderr, "bench: saxpy results differ\n");
    exit(1);
  }
  ours = bench_report_rate("free saxpy 2^24 nd_range (GB/s)", t, REPS,
                           12.0 * (double)n / 1e9, "GB/s");
  ref = bench_report_rate("free saxpy 2^24 OpenMP for (GB/s)", tr, REPS,
                          12.0 * (double)n / 1e9, "GB/s");
  bench_report_ratio("free saxpy: nd_range vs OpenMP loop", ours, ref, 0.95);

  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now();
    run(q, fpar_range1(nb), FPAR_LOCAL_AUTO, bs_kernel, &ba);
    double t1 = bench_now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < nb; i++)
      bs_body(&ba2, i);
    double t2 = bench_now();
    if (r >= 0) {
      t[r] = t1 - t0;
      tr[r] = t2 - t1;
    }
  }
  if (memcmp(call, call2, nb * 4) != 0) {
    fprintf(stderr, "bench: Black-Scholes results differ\n");
    exit(1);
  }
  ours = bench_report_rate("free black-scholes 2^22 nd_range (Mopt/s)", t,
                           REPS, (double)nb / 1e6, "Mopt/s");
  ref = bench_report_rate("free black-scholes 2^22 OpenMP (Mopt/s)", tr, REPS,
                          (double)nb / 1e6, "Mopt/s");
  bench_report_ratio("free black-scholes: nd_range vs OpenMP", ours, ref,
                     0.95);
  free(x), free(y), free(y2), free(spot), free(strike), free(years);
  free(call), free(call2);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

/* ---- launch: empty-launch latency ---------------------------------------- */

static void empty_kernel(fpar_item *it, void *p) {
  (void)it;
  (void)p;
}

static void bench_launch(void) {
  const int n = 20000;
  fpar_runtime *rt = make_runtime(0);
  double t[REPS];
  fpar_queue *q;
  bench_stat ours, ref;

  check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# launch: %u workers, 2 work-groups of 64 empty work-items\n",
         fpar_runtime_num_threads(rt));
  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now();
    for (int i = 0; i < n; i++)
      run(q, fpar_range1(128), fpar_range1(64), empty_kernel, NULL);
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  ours = bench_report_ns("launch submit+wait (ns per launch)", t, REPS, n);
  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now();
    for (int i = 0; i < n; i++)
      check(fpar_parallel_for(q, fpar_range1(128), fpar_range1(64),
                              empty_kernel, NULL, NULL),
            "submit");
    check(fpar_queue_wait(q), "wait");
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  bench_report_ns("launch batch of 20000 + one wait (ns/launch)", t, REPS, n);
  for (int r = -1; r < REPS; r++) {
    volatile int sink = 0;
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
#pragma omp parallel
      { sink += 0; }
    }
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  ref = bench_report_ns("launch OpenMP empty parallel region", t, REPS, n);
  printf("INFO   empty launch: %.2fx an OpenMP parallel region (median); "
         "target <= 2000 ns\n",
         ours.median / ref.median);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

/* ---- memory: resident memory of a 1024-fiber group ----------------------- */

static void touch_barrier_kernel(fpar_item *it, void *p) {
  (void)p;
  fpar_barrier(it);
}

static void bench_memory(void) {
  fpar_runtime *rt = make_runtime(1);
  fpar_queue *q;
  long before, after;

  check(fpar_queue_create(rt, 0, &q), "queue");
  /* Warm up everything but the fibers: a barrier-free launch. */
  run(q, fpar_range1(1024), fpar_range1(1024), empty_kernel, NULL);
  before = bench_rss_kib();
  run(q, fpar_range1(1024), fpar_range1(1024), touch_barrier_kernel, NULL);
  after = bench_rss_kib();
  printf("RESULT %-44s %ld KiB (%.2f KiB per fiber; target <= 4096 KiB)\n",
         "memory resident growth, 1024-item group", after - before,
         (double)(after - before) / 1024);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*fn)(void);
  } sections[] = {{"barrier", bench_barrier},
                  {"free", bench_free},
                  {"launch", bench_launch},
                  {"memory", bench_memory}};
  size_t i;
  int a;

  for (i = 0; i < sizeof sections / sizeof *sections; i++) {
    int wanted = argc < 2;
    for (a = 1; a < argc; a++)
      wanted |= strcmp(argv[a], sections[i].name) == 0;
    if (wanted)
      sections[i].fn();
  }
  return 0;
}
