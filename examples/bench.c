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

/* z = a x + y: memory-bound, 12 bytes per work-item. */
typedef struct saxpy_args {
  float a;
  const float *x, *y;
  float *z;
} saxpy_args;

static inline void saxpy_body(const saxpy_args *s, size_t i) {
  s->z[i] = s->a * s->x[i] + s->y[i];
}

static inline void saxpy_kernel(fpar_item *it, void *p) {
  saxpy_body(p, fpar_global_id(it, 0));
}
FPAR_DEFINE_ROW(saxpy_row, saxpy_kernel)

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

static inline void bs_kernel(fpar_item *it, void *p) {
  bs_body(p, fpar_global_id(it, 0));
}
FPAR_DEFINE_ROW(bs_row, bs_kernel)

static void bs_reference(void *p, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++)
    bs_body(p, i);
}

/* One barrier-free kernel: through its kernel pointer, through its row
 * runner, and as the same body in an OpenMP loop, alternated rep by rep so
 * that drift hits all three alike.  out/ref_out must match bit for bit. */
typedef struct free_case {
  const char *name, *unit;
  double work; /* units per rep, in the unit's scale */
  size_t n;
  fpar_kernel_fn kernel;
  fpar_row_fn row;
  void *args, *ref_args;
  void (*reference)(void *ref_args, size_t n);
  const float *out, *ref_out;
} free_case;

static void bench_free_case(fpar_queue *q, const free_case *c) {
  double tk[REPS], tr[REPS], to[REPS];
  bench_stat k, r, o;
  char label[80];

  for (int rep = -1; rep < REPS; rep++) {
    fpar_launch_desc d;
    fpar_event *ev;
    double t0 = bench_now(), t1, t2, t3;

    run(q, fpar_range1(c->n), FPAR_LOCAL_AUTO, c->kernel, c->args);
    t1 = bench_now();
    fpar_launch_desc_init(&d);
    d.name = c->name;
    d.kernel = c->kernel;
    d.row = c->row;
    d.args = c->args;
    d.global = fpar_range1(c->n);
    check(fpar_launch(q, &d, &ev), "launch");
    check(fpar_event_wait(ev), "row launch");
    fpar_event_release(ev);
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
  snprintf(label, sizeof label, "free %s nd_range kernel", c->name);
  k = bench_report_rate(label, tk, REPS, c->work, c->unit);
  snprintf(label, sizeof label, "free %s nd_range FPAR_DEFINE_ROW", c->name);
  r = bench_report_rate(label, tr, REPS, c->work, c->unit);
  snprintf(label, sizeof label, "free %s OpenMP parallel for", c->name);
  o = bench_report_rate(label, to, REPS, c->work, c->unit);
  snprintf(label, sizeof label, "free %s: kernel vs OpenMP", c->name);
  bench_report_ratio(label, k, o, 0.95);
  snprintf(label, sizeof label, "free %s: row vs OpenMP", c->name);
  bench_report_ratio(label, r, o, 0.95);
}

static void bench_free(void) {
  const size_t n = (size_t)1 << 24, nb = (size_t)1 << 22;
  fpar_runtime *rt = make_runtime(0);
  float *x = malloc(n * 4), *y = malloc(n * 4), *z = malloc(n * 4),
        *z2 = malloc(n * 4);
  float *spot = malloc(nb * 4), *strike = malloc(nb * 4),
        *years = malloc(nb * 4), *call = malloc(nb * 4),
        *call2 = malloc(nb * 4);
  saxpy_args sa = {1.0001f, x, y, z}, sa2 = {1.0001f, x, y, z2};
  bs_args ba = {spot, strike, years, call}, ba2 = {spot, strike, years, call2};
  free_case saxpy = {"saxpy 2^24",
                     "GB/s",
                     12.0 * (double)n / 1e9,
                     n,
                     saxpy_kernel,
                     saxpy_row,
                     &sa,
                     &sa2,
                     saxpy_reference,
                     z,
                     z2};
  free_case bs = {"black-scholes 2^22",
                  "Mopt/s",
                  (double)nb / 1e6,
                  nb,
                  bs_kernel,
                  bs_row,
                  &ba,
                  &ba2,
                  bs_reference,
                  call,
                  call2};
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
