/* SPDX-License-Identifier: MIT */
/* bench.c - libfiberpar against plain C / OpenMP on the same data, side by
 * side in one run.  Every figure is repeated; min and median are printed.
 *
 *   ./examples/bench [section...]   sections: barrier free launch memory
 *                                   scoped lanes phase ranges subgroups
 *                                   collectives
 *                                   (default: all)
 *
 * barrier  ns per work-item per barrier at L = 64, 256, 1024 on one worker,
 *          beside the same work as plain loops split at the barriers (what
 *          a compiler's loop fission produces: the floor).
 * free     barrier-free nd_range kernels, through a bare kernel pointer and
 *          in their normal spelling (FPAR_KERNEL), against the same loop
 *          body in an OpenMP parallel for (memory-bound and compute-bound).
 * launch   empty-launch latency (submit + wait) and throughput, beside an
 *          empty OpenMP parallel region.
 * memory   resident memory of a 1024-work-item group's fibers.
 * scoped   scoped-parallelism reduction of 2^24 floats and NBody (N =
 *          16384) against OpenMP SIMD loops on the same data.
 * lanes    lane-form kernels (W lanes per sub-group): barrier cost at
 *          L = 256 and 1024, reductions, NBody, register-blocked SGEMM
 *          (and its fraction of the FMA peak of the built instruction
 *          set), the Jacobi and 7-point stencils against OpenMP SIMD loops
 *          on the same data, compiled for the same instruction set
 *          (examples/bench_avx2 and bench_sse2 are the other builds).
 * ranges   non-uniform work-groups (a smaller last group) against uniform
 *          ones: saxpy throughput and empty-launch latency.
 * subgroups sub-group reduce and async work-group copies of fiber kernels
 *          beside their hand-written local-memory forms (bench_subgroups.c).
 * collectives  work-group reduce and exclusive scan (<fiberpar/group.h>)
 *          against the same written by hand (two barriers around a loop
 *          by work-item 0, and trees: log2 L + 2 or + 1 barriers) and a
 *          bare barrier, as scalar fiber, lane and phase kernels: ns per
 *          work-item per collective at L = 256 and 1024 on one worker.
 * phase    phase kernels (FPAR_PHASE_KERNEL): the tree reduction of 2^24
 *          floats in groups of 256 as loops, the same source on fibers,
 *          the fpar_barrier() kernel and an OpenMP SIMD loop, beside PoCL
 *          (measured when FIBERPAR_BENCH_POCL_REDUCE names the anchors'
 *          reduce program, else the anchors' recorded figure, labelled
 *          so); ns per work-item per barrier at L = 64, 256, 1024 on one
 *          worker beside the loop-fission floor.
 */
#include <fiberpar/simd.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_subgroups.h"
#include "bench_util.h"
#include "collective_kernels.h"
#include "lane_kernels.h"
#include "phase_kernels.h"

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

static fpar_runtime *make_runtime(unsigned threads, fpar_fpenv fpenv) {
  fpar_runtime_opts o;
  fpar_runtime *rt;

  fpar_runtime_opts_init(&o);
  o.num_threads = threads;
  o.fpenv = fpenv;
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

/* Time and report the floor for `groups` groups of L work-items; *ref
 * receives the checksum every group must produce. */
static bench_stat barrier_floor(size_t L, size_t groups, double units,
                                uint32_t *ref) {
  uint32_t *priv = malloc(L * 4), *lmem = malloc(L * 4);
  double t[REPS];
  char label[96];

  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now();
    for (size_t g = 0; g < groups; g++)
      *ref = barrier_reference(L, 1000, priv, lmem);
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  free(priv), free(lmem);
  snprintf(label, sizeof label, "barrier loop fission L=%zu (floor)", L);
  return bench_report_ns(label, t, REPS, units);
}

static const char *fpenv_name(fpar_fpenv e) {
  return e == FPAR_FPENV_SHARED ? "shared fpenv" : "own fpenv";
}

/* ns per work-item per barrier of one runtime on one worker. */
static bench_stat barrier_fibers(fpar_queue *q, size_t local, size_t groups,
                                 uint32_t *out) {
  barrier_args a = {1000, out};
  double t[REPS];

  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now();
    run(q, fpar_range1(local * groups), fpar_range1(local), barrier_kernel, &a);
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  return bench_stats(t, REPS);
}

static void bench_barrier(void) {
  static const size_t sizes[] = {64, 256, 1024};
  static const fpar_fpenv modes[] = {FPAR_FPENV_ITEM, FPAR_FPENV_SHARED};
  fpar_runtime *rt[2];
  fpar_queue *q[2];

  for (int m = 0; m < 2; m++) {
    rt[m] = make_runtime(1, modes[m]);
    check(fpar_queue_create(rt[m], 0, &q[m]), "queue");
  }
  printf("# barrier: one worker, B = 1000 barriers per group, ~2M "
         "item-barriers per rep; own fpenv: each work-item keeps its FPU "
         "control words (FIBERPAR_FPENV=item), shared: "
         "FIBERPAR_FPENV=shared, the default\n");
  for (unsigned k = 0; k < 3; k++) {
    size_t L = sizes[k], groups = 2000000 / (L * 1000);
    uint32_t *out = calloc(groups, 4), ref = 0;
    double units = (double)L * 1000 * (double)groups;
    char label[96];
    bench_stat fibers, floor = barrier_floor(L, groups, units, &ref);

    for (int m = 0; m < 2; m++) {
      fibers = barrier_fibers(q[m], L, groups, out);
      for (size_t g = 0; g < groups; g++)
        if (out[g] != ref) {
          fprintf(stderr, "bench: barrier checksum mismatch at L=%zu\n", L);
          exit(1);
        }
      snprintf(label, sizeof label, "barrier fibers L=%zu, %s", L,
               fpenv_name(modes[m]));
      bench_print_ns(label, fibers, REPS, units);
    }
    printf("INFO   target <= 5 ns per work-item per barrier at L=1024 "
           "(floor %.3f ns)\n",
           floor.median / units * 1e9);
    free(out);
  }
  for (int m = 0; m < 2; m++) {
    fpar_queue_destroy(q[m]);
    fpar_runtime_destroy(rt[m]);
  }
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

FPAR_KERNEL(saxpy_kernel, it, p) {
  saxpy_body(p, fpar_global_id(it, 0));
}

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
 * spelling (FPAR_KERNEL: the kernel with its FPAR_DEFINE_ROW runner), and
 * as the same body in an OpenMP loop, alternated rep by rep so that drift
 * hits all three alike.  out/ref_out must match bit for bit. */
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

    run(q, fpar_range1(c->n), FPAR_LOCAL_AUTO, c->kernel->fn, c->args);
    t1 = bench_now();
    check(fpar_parallel_for_kernel(q, fpar_range1(c->n), FPAR_LOCAL_AUTO,
                                   c->kernel, c->args, &ev),
          "launch");
    check(fpar_event_wait(ev), "FPAR_KERNEL launch");
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

static void bench_free(void) {
  const size_t n = (size_t)1 << 24, nb = (size_t)1 << 22;
  fpar_runtime *rt = make_runtime(0, FPAR_FPENV_DEFAULT);
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

/* An empty OpenMP parallel region, n times per rep. */
static bench_stat omp_region_times(void) {
  const int n = 20000;
  double t[REPS];

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
  return bench_report_ns("launch OpenMP empty parallel region", t, REPS, n);
}

/* The OpenMP region is measured in a child process whose threads
 * spin-wait between regions, libgomp's default and its fastest setting
 * (this process runs OpenMP with passive waiting, see main).  Returns
 * seconds per region. */
static bench_stat omp_region_reference(void) {
  bench_stat s = {0, 0};
  char self[1024], cmd[1200], line[256];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  FILE *child = NULL;

  fflush(stdout);
  if (len > 0) {
    self[len] = '\0';
    snprintf(cmd, sizeof cmd, "OMP_WAIT_POLICY=active '%s' omp-region", self);
    child = popen(cmd, "r");
  }
  while (child != NULL && fgets(line, sizeof line, child) != NULL) {
    fputs(line, stdout);
    sscanf(line,
           "RESULT launch OpenMP empty parallel region min %lf ns "
           "median %lf ns",
           &s.min, &s.median);
  }
  if (child != NULL)
    pclose(child);
  s.min *= 1e-9, s.median *= 1e-9;
  return s;
}

static void bench_launch(void) {
  const int n = 20000;
  fpar_runtime *rt = make_runtime(0, FPAR_FPENV_DEFAULT);
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
  ref = omp_region_reference();
  printf("INFO   empty launch: %.2fx an OpenMP parallel region (median); "
         "target <= 2000 ns\n",
         ours.median / n / ref.median);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

/* ---- ranges: non-uniform work-groups against uniform ones ---------------- */

/* Launch a description and wait for it. */
static void run_desc(fpar_queue *q, const fpar_launch_desc *d) {
  fpar_event *ev;

  check(fpar_launch(q, d, &ev), "submit");
  if (fpar_event_wait(ev) != 0) {
    fprintf(stderr, "bench: kernel failed: %s\n", fpar_event_error(ev));
    exit(1);
  }
  fpar_event_release(ev);
}

/* Times per work-item (or per launch) of the two sides, alternated rep by
 * rep; `scale` turns the non-uniform side's times into the uniform side's
 * number of work-items. */
static void bench_ranges_pair(fpar_queue *q, fpar_launch_desc *uni,
                              fpar_launch_desc *non, int launches, double scale,
                              const char *what, double bytes) {
  double tu[REPS], tn[REPS];
  bench_stat u, n;
  char label[80];

  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now(), t1;
    for (int i = 0; i < launches; i++)
      run_desc(q, uni);
    t1 = bench_now();
    for (int i = 0; i < launches; i++)
      run_desc(q, non);
    if (r >= 0) {
      tu[r] = t1 - t0;
      tn[r] = (bench_now() - t1) * scale;
    }
  }
  if (bytes > 0) {
    snprintf(label, sizeof label, "ranges %s uniform (GB/s)", what);
    u = bench_report_rate(label, tu, REPS, bytes, "GB/s");
    snprintf(label, sizeof label, "ranges %s non-uniform (GB/s)", what);
    n = bench_report_rate(label, tn, REPS, bytes, "GB/s");
  } else {
    snprintf(label, sizeof label, "ranges %s uniform (ns/launch)", what);
    u = bench_report_ns(label, tu, REPS, launches);
    snprintf(label, sizeof label, "ranges %s non-uniform (ns/launch)", what);
    n = bench_report_ns(label, tn, REPS, launches);
  }
  snprintf(label, sizeof label, "ranges %s: non-uniform vs uniform", what);
  bench_report_ratio(label, n, u, 0.95);
}

/* A launch whose last work-group is smaller costs what a uniform launch
 * of the same work costs: saxpy over 2^24 work-items in groups of 4096
 * against 2^24 - 1000 (the last group 3096), and an empty launch of
 * 128 = 2 x 64 work-items against 127 (the last group 63). */
static void bench_ranges(void) {
  const size_t n = (size_t)1 << 24, n2 = n - 1000;
  fpar_runtime *rt = make_runtime(0, FPAR_FPENV_DEFAULT);
  float *x = malloc(n * 4), *y = malloc(n * 4), *z = malloc(n * 4);
  saxpy_args sa = {1.0001f, x, y, z};
  fpar_launch_desc uni, non;
  fpar_queue *q;

  check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# ranges: %u workers\n", fpar_runtime_num_threads(rt));
  for (size_t i = 0; i < n; i++) {
    x[i] = (float)(i % 1000) * 0.001f;
    y[i] = 1.0f;
  }
  fpar_launch_desc_init(&uni);
  uni.def = &saxpy_kernel;
  uni.args = &sa;
  uni.global = fpar_range1(n);
  uni.local = fpar_range1(4096);
  non = uni;
  non.global = fpar_range1(n2);
  bench_ranges_pair(q, &uni, &non, 1, (double)n / n2, "saxpy 2^24, 4096",
                    12.0 * (double)n / 1e9);
  uni.def = NULL;
  uni.kernel = empty_kernel;
  uni.args = NULL;
  uni.global = fpar_range1(128);
  uni.local = fpar_range1(64);
  non = uni;
  non.global = fpar_range1(127);
  bench_ranges_pair(q, &uni, &non, 20000, 1.0, "empty launch 128, 64", 0);
  free(x), free(y), free(z);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

/* ---- memory: resident memory of a 1024-fiber group ----------------------- */

static void touch_barrier_kernel(fpar_item *it, void *p) {
  (void)p;
  fpar_barrier(it);
}

static void bench_memory(void) {
  fpar_runtime *rt = make_runtime(1, FPAR_FPENV_DEFAULT);
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

/* ---- scoped: scoped parallelism against OpenMP SIMD --------------------- */

/* Reduction: each work group's logical items sum contiguous chunks into
 * local memory (the inner loop is the item's own SIMD loop), then one item
 * sums the group's partial sums. */
#define RED_GROUP 64

typedef struct red_args {
  const float *in;
  size_t chunk;   /* floats per logical item */
  float *partial; /* one per work group */
} red_args;

typedef struct red_state {
  const red_args *a;
  float *scratch; /* local: one partial per logical item */
  const fpar_group *g;
} red_state;

static inline void red_item(const fpar_s_item *si, void *p) {
  red_state *s = p;
  const float *x = s->a->in + fpar_s_item_get_global_id(si, 0) * s->a->chunk;
  float acc = 0;

#pragma omp simd reduction(+ : acc)
  for (size_t k = 0; k < s->a->chunk; k++)
    acc += x[k];
  s->scratch[fpar_s_item_get_innermost_local_id(si, 0)] = acc;
}
FPAR_DEFINE_ITEMS_ROW(red_row, red_item)

static void red_finish(void *p) {
  red_state *s = p;
  float acc = 0;

  for (size_t i = 0; i < RED_GROUP; i++)
    acc += s->scratch[i];
  s->a->partial[fpar_group_get_id(s->g, 0)] = acc;
}

static void red_env(fpar_group *g, void *const *mem, void *args) {
  red_state s = {args, mem[0], g};

  fpar_distribute_items_rows(g, red_row, &s);
  fpar_group_barrier(g);
  fpar_single_item(g, red_finish, &s);
}

static void red_group(fpar_group *g, void *args) {
  fpar_mem_request scratch =
      fpar_require_local_mem(RED_GROUP * sizeof(float), 64, NULL, 0);

  fpar_memory_environment(g, &scratch, 1, red_env, args);
}

/* NBody: a work group is a tile of bodies; per source tile the items copy
 * it into local memory, then each accumulates its body's acceleration in
 * private memory. */
#define NB_N 16384
#define NB_TILE 2048
#define NB_EPS2 0.01f

typedef struct nb_args {
  const float *pos; /* x, y, z, m per body */
  float *acc;       /* x, y, z per body */
} nb_args;

typedef struct nb_state {
  const nb_args *a;
  float *tile;               /* local: NB_TILE bodies */
  fpar_private_memory *mine; /* private: 3 floats per item */
  size_t source;             /* first body of the tile being read */
} nb_state;

static inline void nb_load(const fpar_s_item *si, void *p) {
  nb_state *s = p;
  size_t l = fpar_s_item_get_innermost_local_id(si, 0);

  for (int k = 0; k < 4; k++)
    s->tile[l * 4 + k] = s->a->pos[(s->source + l) * 4 + k];
}
FPAR_DEFINE_ITEMS_ROW(nb_load_row, nb_load)

/* The interaction loop, shared by our kernel and the OpenMP reference. */
static inline void nb_interact(const float *src, size_t n, const float *me,
                               float acc[3]) {
  float ax = acc[0], ay = acc[1], az = acc[2];

#pragma omp simd reduction(+ : ax, ay, az)
  for (size_t j = 0; j < n; j++) {
    float rx = src[j * 4] - me[0], ry = src[j * 4 + 1] - me[1];
    float rz = src[j * 4 + 2] - me[2];
    float d2 = rx * rx + ry * ry + rz * rz + NB_EPS2;
    float inv = 1.0f / sqrtf(d2);
    float w = src[j * 4 + 3] * inv * inv * inv;
    ax += rx * w, ay += ry * w, az += rz * w;
  }
  acc[0] = ax, acc[1] = ay, acc[2] = az;
}

static inline void nb_compute(const fpar_s_item *si, void *p) {
  nb_state *s = p;

  nb_interact(s->tile, NB_TILE,
              s->a->pos + fpar_s_item_get_global_id(si, 0) * 4,
              fpar_private_at(s->mine, si));
}
FPAR_DEFINE_ITEMS_ROW(nb_compute_row, nb_compute)

static inline void nb_store(const fpar_s_item *si, void *p) {
  nb_state *s = p;
  const float *acc = fpar_private_at(s->mine, si);
  float *out = s->a->acc + fpar_s_item_get_global_id(si, 0) * 3;

  out[0] = acc[0], out[1] = acc[1], out[2] = acc[2];
}

static void nb_env(fpar_group *g, void *const *mem, void *args) {
  nb_state s = {args, mem[0], mem[1], 0};

  for (s.source = 0; s.source < NB_N; s.source += NB_TILE) {
    fpar_distribute_items_rows(g, nb_load_row, &s);
    fpar_group_barrier(g);
    fpar_distribute_items_rows(g, nb_compute_row, &s);
    fpar_group_barrier(g);
  }
  fpar_distribute_items(g, nb_store, &s);
}

static void nb_group(fpar_group *g, void *args) {
  const float zero = 0;
  fpar_mem_request reqs[2] = {
      fpar_require_local_mem(NB_TILE * 4 * sizeof(float), 64, NULL, 0),
      fpar_require_private_mem(3 * sizeof(float), 16, &zero, sizeof zero)};

  fpar_memory_environment(g, reqs, 2, nb_env, args);
}

static void bench_scoped(void) {
  const size_t n = (size_t)1 << 24;
  fpar_runtime *rt = make_runtime(0, FPAR_FPENV_DEFAULT);
  unsigned workers = fpar_runtime_num_threads(rt);
  size_t groups = 32 * (size_t)workers, chunk = n / (groups * RED_GROUP);
  float *in = malloc(n * 4), *partial = malloc(groups * 4);
  float *pos = malloc(NB_N * 16), *acc = malloc(NB_N * 12),
        *acc_ref = malloc(NB_N * 12);
  red_args ra = {in, chunk, partial};
  nb_args na = {pos, acc};
  double t[REPS], tr[REPS], sum = 0, ref = 0, err2 = 0, ref2 = 0;
  bench_stat ours, omp;
  fpar_queue *q;

  check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# scoped: %u workers; reduction in %zu groups of %d items x %zu "
         "floats\n",
         workers, groups, RED_GROUP, chunk);
  for (size_t i = 0; i < n; i++)
    in[i] = (float)((i * 2654435761u) >> 8 & 0xffff) * (1.0f / 65536.0f);
  for (int rep = -1; rep < REPS; rep++) {
    fpar_event *ev;
    double t0 = bench_now(), t1, t2;
    float s = 0;

    check(fpar_parallel(q, fpar_range1(groups), fpar_range1(RED_GROUP),
                        red_group, &ra, &ev),
          "scoped reduction");
    check(fpar_event_wait(ev), "scoped reduction");
    fpar_event_release(ev);
    sum = 0;
    for (size_t g = 0; g < groups; g++)
      sum += partial[g];
    t1 = bench_now();
#pragma omp parallel for simd reduction(+ : s)
    for (size_t i = 0; i < n; i++)
      s += in[i];
    t2 = bench_now();
    ref = s;
    if (rep >= 0) {
      t[rep] = t1 - t0;
      tr[rep] = t2 - t1;
    }
  }
  if (fabs(sum - ref) > 1e-4 * fabs(ref)) {
    fprintf(stderr, "bench: scoped reduction %g != OpenMP %g\n", sum, ref);
    exit(1);
  }
  ours = bench_report_rate("scoped reduction 2^24 floats (GB/s)", t, REPS,
                           4.0 * (double)n / 1e9, "GB/s");
  omp = bench_report_rate("OpenMP simd reduction 2^24 floats (GB/s)", tr, REPS,
                          4.0 * (double)n / 1e9, "GB/s");
  bench_report_ratio("scoped reduction vs OpenMP simd", ours, omp, 0.8);

  srand(7);
  for (size_t i = 0; i < NB_N * 4; i++)
    pos[i] = (float)rand() / (float)RAND_MAX * (i % 4 == 3 ? 1.0f : 10.0f);
  for (int rep = -1; rep < REPS; rep++) {
    fpar_event *ev;
    double t0 = bench_now(), t1, t2;

    check(fpar_parallel(q, fpar_range1(NB_N / NB_TILE), fpar_range1(NB_TILE),
                        nb_group, &na, &ev),
          "scoped nbody");
    check(fpar_event_wait(ev), "scoped nbody");
    fpar_event_release(ev);
    t1 = bench_now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < NB_N; i++) {
      float a3[3] = {0, 0, 0};
      nb_interact(pos, NB_N, pos + i * 4, a3);
      acc_ref[i * 3] = a3[0], acc_ref[i * 3 + 1] = a3[1];
      acc_ref[i * 3 + 2] = a3[2];
    }
    t2 = bench_now();
    if (rep >= 0) {
      t[rep] = t1 - t0;
      tr[rep] = t2 - t1;
    }
  }
  for (size_t i = 0; i < NB_N * 3; i++) {
    err2 += (double)(acc[i] - acc_ref[i]) * (acc[i] - acc_ref[i]);
    ref2 += (double)acc_ref[i] * acc_ref[i];
  }
  if (sqrt(err2 / ref2) > 1e-5) {
    fprintf(stderr, "bench: scoped nbody differs (rel. L2 %g)\n",
            sqrt(err2 / ref2));
    exit(1);
  }
  ours = bench_report_rate("scoped nbody N=16384 (G interactions/s)", t, REPS,
                           (double)NB_N * NB_N / 1e9, "G/s");
  omp = bench_report_rate("OpenMP simd nbody N=16384 (G interactions/s)", tr,
                          REPS, (double)NB_N * NB_N / 1e9, "G/s");
  bench_report_ratio("scoped nbody vs OpenMP simd", ours, omp, 0.9);
  free(in), free(partial), free(pos), free(acc), free(acc_ref);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

/* ---- phase: phase kernels against fibers, OpenMP and PoCL --------------- */

/* The barrier microbenchmark's kernel as a phase kernel: the private value
 * and the barrier counter live in the state, the local array (for groups
 * of up to 1024) in the local struct. */
typedef struct barrier_state {
  uint32_t v;
  int b;
} barrier_state;

typedef struct barrier_local {
  uint32_t lmem[1024];
} barrier_local;

FPAR_PHASE_KERNEL_LOCAL(barrier_phases, it, p, barrier_state, st, barrier_local,
                        lm) {
  barrier_args *a = p;
  size_t lid = fpar_local_linear_id(it);

  FPAR_PHASE_BEGIN();
  st->v = (uint32_t)lid;
  for (st->b = 0; st->b < a->barriers; st->b++) {
    st->v = st->v * 1664525u + 1013904223u + (uint32_t)st->b;
    lm->lmem[lid] = st->v;
    FPAR_PHASE_BARRIER();
  }
  if (lid == 0) {
    uint32_t sum = 0;
    for (size_t i = 0; i < fpar_local_range(it, 0); i++)
      sum += lm->lmem[i];
    a->out[fpar_group_id(it, 0)] = sum;
  }
  FPAR_PHASE_END();
}

/* The same in lane form: one call per sub-group of W work-items. */
typedef struct barrier_lane_state {
  fpar_vu32 v;
  int b;
} barrier_lane_state;

FPAR_PHASE_LANE_KERNEL_LOCAL(barrier_lane_phases, lk, p, barrier_lane_state, st,
                             barrier_local, lm) {
  barrier_args *a = p;
  size_t first = fpar_local_id(lk->it, 0);

  FPAR_PHASE_BEGIN();
  st->v = (fpar_vu32)lk->local_id0;
  for (st->b = 0; st->b < a->barriers; st->b++) {
    st->v = st->v * 1664525u + 1013904223u + (uint32_t)st->b;
    fpar_vi32_store_mask((int32_t *)lm->lmem + first, (fpar_vi32)st->v,
                         lk->mask);
    FPAR_PHASE_BARRIER();
  }
  if (first == 0) {
    uint32_t sum = 0;
    for (size_t i = 0; i < fpar_local_range(lk->it, 0); i++)
      sum += lm->lmem[i];
    a->out[fpar_group_id(lk->it, 0)] = sum;
  }
  FPAR_PHASE_END();
}

/* Run k over n floats in groups of RED_WG and add the group sums on the
 * host, as the PoCL anchor does inside its timed region. */
static double phase_reduce_run(fpar_queue *q, const fpar_kernel *k,
                               fpar_phase_mode mode, float **args, size_t n) {
  fpar_launch_desc d;
  fpar_event *ev;
  double sum = 0;

  fpar_launch_desc_init(&d);
  d.def = k;
  d.phase_mode = mode;
  d.args = args;
  d.global = fpar_range1(n);
  d.local = fpar_range1(RED_WG);
  check(fpar_launch(q, &d, &ev), "phase reduction");
  if (fpar_event_wait(ev) != 0) {
    fprintf(stderr, "bench: reduction failed: %s\n", fpar_event_error(ev));
    exit(1);
  }
  fpar_event_release(ev);
  for (size_t g = 0; g < n / RED_WG; g++)
    sum += args[1][g];
  return sum;
}

/* PoCL's figure for the same reduction: measured now by the command in
 * FIBERPAR_BENCH_POCL_REDUCE (the anchors' reduce program, e.g.
 * "../shared/anchors/build/reduce 9"), else the anchors' recorded figure.
 * Returns seconds per reduction of 2^24 floats (min and median). */
static bench_stat pocl_reduce_reference(double bytes) {
  const char *cmd = getenv("FIBERPAR_BENCH_POCL_REDUCE");
  bench_stat s = {bytes / 0.8395e9, bytes / 0.7721e9};
  char line[512];
  double best = 0, median = 0;
  FILE *child = NULL;

  fflush(stdout);
  if (cmd != NULL && *cmd != '\0')
    child = popen(cmd, "r");
  if (child == NULL) {
    printf("ANCHOR reduction 2^24, PoCL 3.1 (shared/anchors results, NOT "
           "measured in this run) best 0.840 GB/s  median 0.772 GB/s\n");
    return s;
  }
  while (fgets(line, sizeof line, child) != NULL) {
    const char *r = strstr(line, "rate best");
    if (strncmp(line, "RESULT reduce pocl (", 20) == 0 && r != NULL)
      sscanf(r, "rate best %lf median %lf", &best, &median);
  }
  pclose(child);
  if (best <= 0 || median <= 0) {
    fprintf(stderr, "bench: no PoCL result from '%s'\n", cmd);
    exit(1);
  }
  printf("RESULT %-44s best %9.3f GB/s  median %9.3f GB/s  (measured now: "
         "%s)\n",
         "reduction 2^24, PoCL loop fission", best, median, cmd);
  s.min = bytes / (best * 1e9);
  s.median = bytes / (median * 1e9);
  return s;
}

static void bench_phase_reduce(void) {
  const size_t n = (size_t)1 << 24;
  const double bytes = 4.0 * (double)n;
  static const char *const labels[] = {
      "reduction 2^24, phase kernel (loops)",
      "reduction 2^24, phase kernel on fibers",
      "reduction 2^24, fpar_barrier kernel",
      "reduction 2^24, OpenMP simd",
  };
  fpar_runtime *rt = make_runtime(0, FPAR_FPENV_DEFAULT);
  float *in = malloc(n * 4), *partial = malloc(n / RED_WG * 4);
  float *args[2] = {in, partial};
  double t[4][REPS], sum[4], ref = 0;
  bench_stat st[4], pocl;
  fpar_queue *q;

  check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# phase: %u workers; tree reduction in groups of %d (8 barriers), "
         "the anchors' data\n",
         fpar_runtime_num_threads(rt), RED_WG);
  for (size_t i = 0; i < n; i++) {
    in[i] = (float)((i * 2654435761u) >> 8 & 0xffffff) * (1.0f / 16777216.0f);
    ref += in[i];
  }
  /* The fiber runs take seconds each: they get 3 of the REPS. */
  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now(), t1, t2, t3, t4;
    float s = 0;

    sum[0] = phase_reduce_run(q, &reduce_phases, FPAR_PHASE_LOOPS, args, n);
    t1 = bench_now();
    if (r < 3)
      sum[1] = phase_reduce_run(q, &reduce_phases, FPAR_PHASE_FIBERS, args, n);
    t2 = bench_now();
    if (r < 3)
      sum[2] = phase_reduce_run(q, &reduce_fibers, FPAR_PHASE_DEFAULT, args, n);
    t3 = bench_now();
#pragma omp parallel for simd reduction(+ : s)
    for (size_t i = 0; i < n; i++)
      s += in[i];
    sum[3] = s;
    t4 = bench_now();
    if (r >= 0) {
      t[0][r] = t1 - t0, t[3][r] = t4 - t3;
      if (r < 3)
        t[1][r] = t2 - t1, t[2][r] = t3 - t2;
    }
  }
  for (int k = 0; k < 4; k++) {
    if (fabs(sum[k] - ref) > 1e-4 * ref) {
      fprintf(stderr, "bench: %s: sum %g != %g\n", labels[k], sum[k], ref);
      exit(1);
    }
    st[k] = bench_report_rate(labels[k], t[k], k == 1 || k == 2 ? 3 : REPS,
                              bytes / 1e9, "GB/s");
  }
  pocl = pocl_reduce_reference(bytes);
  bench_report_ratio("reduction: phase loops vs phase on fibers", st[0], st[1],
                     10.0);
  bench_report_ratio("reduction: phase loops vs fpar_barrier fibers", st[0],
                     st[2], 10.0);
  bench_report_ratio("reduction: phase loops vs PoCL", st[0], pocl, 1.0);
  /* PoCL's ratio to the same OpenMP loop in the anchors (0.84 / 14.4 and
   * 1.14 / 19.7 GB/s): the target against PoCL, as a ratio. */
  bench_report_ratio("reduction: phase loops vs OpenMP simd", st[0], st[3],
                     0.058);
  free(in), free(partial);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

/* Seconds per rep of `groups` groups of L work-items running k (B = 1000
 * barriers each) on q; the checksums must be ref. */
static bench_stat phase_barrier_times(fpar_queue *q, const fpar_kernel *k,
                                      size_t L, size_t groups, uint32_t ref) {
  uint32_t *out = calloc(groups, 4);
  barrier_args a = {1000, out};
  double t[REPS];

  for (int r = -1; r < REPS; r++) {
    fpar_launch_desc d;
    fpar_event *ev;
    double t0 = bench_now();

    fpar_launch_desc_init(&d);
    d.def = k;
    d.phase_mode = FPAR_PHASE_LOOPS;
    d.args = &a;
    d.global = fpar_range1(L * groups);
    d.local = fpar_range1(L);
    check(fpar_launch(q, &d, &ev), "phase barriers");
    check(fpar_event_wait(ev), "phase barriers");
    fpar_event_release(ev);
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  for (size_t g = 0; g < groups; g++)
    if (out[g] != ref) {
      fprintf(stderr, "bench: %s checksum mismatch at L=%zu\n", k->name, L);
      exit(1);
    }
  free(out);
  return bench_stats(t, REPS);
}

/* ns per work-item per barrier of the phase form (scalar and lane) on one
 * worker, beside the plain loops split at the barriers (the floor). */
static void bench_phase_barrier(void) {
  static const size_t sizes[] = {64, 256, 1024};
  fpar_runtime *rt = make_runtime(1, FPAR_FPENV_DEFAULT);
  fpar_queue *q;

  check(fpar_queue_create(rt, 0, &q), "queue");
  for (unsigned k = 0; k < 3; k++) {
    size_t L = sizes[k], groups = 8000000 / (L * 1000);
    double units = (double)L * 1000 * (double)groups;
    uint32_t ref = 0;
    char label[96];

    barrier_floor(L, groups, units, &ref);
    snprintf(label, sizeof label, "phase barrier L=%zu", L);
    bench_print_ns(label,
                   phase_barrier_times(q, &barrier_phases, L, groups, ref),
                   REPS, units);
    snprintf(label, sizeof label, "phase barrier L=%zu, lane form (W=%d)", L,
             FPAR_SIMD_WIDTH);
    bench_print_ns(label,
                   phase_barrier_times(q, &barrier_lane_phases, L, groups, ref),
                   REPS, units);
  }
  printf("INFO   phase barriers: target <= 1 ns per work-item per barrier at "
         "L=256 (PoCL's loop fission: 0.6-1.1 ns in the anchors)\n");
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

static void bench_phase(void) {
  bench_phase_reduce();
  bench_phase_barrier();
}

/* ---- lanes: lane-form kernels against OpenMP SIMD ------------------------ */

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
  double sum, ref_sum;
  int variant; /* reduction: 0 nd_range, 1 scoped; nbody: 1 = fast rsqrt */
} lanes_case;

static void lanes_reduce(void *p) {
  lanes_case *c = p;
  size_t groups;

  check(c->variant ? lk_reduce_scoped(c->q, c->in, c->n, c->partial, &groups)
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

static void lanes_nbody(void *p) {
  lanes_case *c = p;

  check(lk_nbody(c->q, c->in, c->out, c->n, c->variant), "lane nbody");
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

  check(lk_sgemm(c->q, c->a, c->b, c->out, c->n), "lane sgemm");
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

  check(lk_jacobi(c->q, c->in, c->out, JACOBI_NX, JACOBI_NY), "lane jacobi");
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

  check(lk_stencil7(c->q, c->in, c->out, ST7_NX, ST7_NY, ST7_NZ),
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
    fpar_runtime *rt = make_runtime(1, modes[m]);
    fpar_queue *q;

    check(fpar_queue_create(rt, 0, &q), "queue");
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
        check(lk_barrier_loop(q, L, groups, 1000, out), "lane barriers");
        if (r >= 0)
          t[r] = bench_now() - t0;
      }
      for (size_t g = 0; g < groups; g++)
        if (out[g] != want) {
          fprintf(stderr, "bench: lane barrier checksum mismatch\n");
          exit(1);
        }
      snprintf(label, sizeof label, "lane barrier L=%zu, %s", L,
               fpenv_name(modes[m]));
      bench_report_ns(label, t, REPS, units);
      free(out);
    }
    fpar_queue_destroy(q);
    fpar_runtime_destroy(rt);
  }
  printf("INFO   lane barriers: target <= 1 ns per work-item per barrier "
         "(PoCL's loop fission: 0.6-1.1 ns in the anchors)\n");
}

static void bench_lanes(void) {
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
  rt = make_runtime(0, FPAR_FPENV_DEFAULT);
  memset(&lc, 0, sizeof lc);
  check(fpar_queue_create(rt, 0, &lc.q), "queue");

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

/* ---- collectives: work-group reduce and scan vs written by hand ---------- */

/* One form of a round: a kernel (bare or defined with its runners), what
 * each work-item's total must be, and how many barriers the hand-written
 * forms cross per round. */
typedef enum cb_result { CB_OWN, CB_SUM, CB_PREFIX } cb_result;
typedef struct cb_variant {
  const char *label;
  fpar_kernel_fn fn;
  const fpar_kernel *def;
  cb_result result;
} cb_variant;

#define CB_ROUNDS 100

/* The total work-item lid of a group of L must have. */
static float cb_expected(cb_result what, size_t lid, size_t L) {
  float acc = 0;

  for (int r = 0; r < CB_ROUNDS; r++) {
    float v = 0;
    size_t end = what == CB_SUM ? L : what == CB_PREFIX ? lid : 0;
    if (what == CB_OWN)
      v = cb_value(lid, r);
    for (size_t j = 0; j < end; j++)
      v += cb_value(j, r);
    acc += v;
  }
  return acc;
}

static void cb_run(fpar_queue *q, const cb_variant *v, size_t L,
                   size_t groups, cb_args *a) {
  fpar_event *ev;

  if (v->def != NULL)
    check(fpar_parallel_for_kernel(q, fpar_range1(L * groups), fpar_range1(L),
                                   v->def, a, &ev),
          v->label);
  else
    check(fpar_parallel_for(q, fpar_range1(L * groups), fpar_range1(L), v->fn,
                            a, &ev),
          v->label);
  if (fpar_event_wait(ev) != 0) {
    fprintf(stderr, "bench: %s failed: %s\n", v->label, fpar_event_error(ev));
    exit(1);
  }
  fpar_event_release(ev);
}

/* Time the variants interleaved (so drift hits all alike), check every
 * work-item's total, print ns per work-item per round. */
static void cb_measure(fpar_queue *q, const cb_variant *v, unsigned nv,
                       size_t L, bench_stat *st) {
  size_t groups = 2000000 / (L * CB_ROUNDS), n = L * groups;
  double units = (double)n * CB_ROUNDS, t[8][REPS];
  float *out = malloc(n * sizeof *out);
  cb_args a = {CB_ROUNDS, out};
  char label[96];

  for (int r = -1; r < REPS; r++)
    for (unsigned k = 0; k < nv; k++) {
      double t0 = bench_now();
      cb_run(q, &v[k], L, groups, &a);
      if (r >= 0)
        t[k][r] = bench_now() - t0;
      if (r == -1)
        for (size_t i = 0; i < n; i++)
          if (out[i] != cb_expected(v[k].result, i % L, L)) {
            fprintf(stderr, "bench: %s L=%zu: work-item %zu total %g, not %g\n",
                    v[k].label, L, i, (double)out[i],
                    (double)cb_expected(v[k].result, i % L, L));
            exit(1);
          }
    }
  for (unsigned k = 0; k < nv; k++) {
    snprintf(label, sizeof label, "%s L=%zu", v[k].label, L);
    st[k] = bench_report_ns(label, t[k], REPS, units);
  }
  free(out);
}

/* Ratios of one form: [0] the bare barrier, then the reduce collective,
 * its hand-written forms, the scan collective and its hand-written
 * forms; nr and ns: hand-written reduce and scan forms. */
static void cb_report(const char *form, const cb_variant *v, size_t L,
                      const bench_stat *st, unsigned nr, unsigned ns,
                      double tree_target) {
  size_t groups = 2000000 / (L * CB_ROUNDS);
  double units = (double)L * (double)groups * CB_ROUNDS;
  char label[96];

  for (unsigned k = 0; k < nr; k++) {
    snprintf(label, sizeof label, "%s L=%zu reduce: coll. vs %s", form, L,
             v[2 + k].label);
    bench_report_ratio(label, st[1], st[2 + k],
                       k + 1 == nr ? tree_target : 1.0);
  }
  for (unsigned k = 0; k < ns; k++) {
    snprintf(label, sizeof label, "%s L=%zu scan: coll. vs %s", form, L,
             v[3 + nr + k].label);
    bench_report_ratio(label, st[2 + nr], st[3 + nr + k], 1.0);
  }
  printf("INFO   %s L=%zu: reduce collective = one barrier %+.3f ns, scan "
         "collective = one barrier %+.3f ns per work-item (medians; target: "
         "one barrier + small per-item work)\n",
         form, L, (st[1].median - st[0].median) / units * 1e9,
         (st[2 + nr].median - st[0].median) / units * 1e9);
}

static void bench_collectives(void) {
  static const size_t sizes[] = {256, 1024};
  static const cb_variant fibers[] = {
      {"fibers barrier only", cb_barrier, NULL, CB_OWN},
      {"fibers reduce collective", cb_reduce_coll, NULL, CB_SUM},
      {"fibers reduce 2 barriers+loop", cb_reduce_loop, NULL, CB_SUM},
      {"fibers reduce tree", cb_reduce_tree, NULL, CB_SUM},
      {"fibers scan collective", cb_scan_coll, NULL, CB_PREFIX},
      {"fibers scan 2 barriers+loop", cb_scan_loop, NULL, CB_PREFIX},
      {"fibers scan Hillis-Steele", cb_scan_tree, NULL, CB_PREFIX},
  };
  static const cb_variant lanes[] = {
      {"lanes barrier only", NULL, &cb_lane_barrier, CB_OWN},
      {"lanes reduce collective", NULL, &cb_lane_reduce_coll, CB_SUM},
      {"lanes reduce 2 barriers+loop", NULL, &cb_lane_reduce_loop, CB_SUM},
      {"lanes scan collective", NULL, &cb_lane_scan_coll, CB_PREFIX},
      {"lanes scan 2 barriers+loop", NULL, &cb_lane_scan_loop, CB_PREFIX},
  };
  static const cb_variant phases[] = {
      {"phase barrier only", NULL, &cb_phase_barrier, CB_OWN},
      {"phase reduce collective", NULL, &cb_phase_reduce_coll, CB_SUM},
      {"phase reduce tree", NULL, &cb_phase_reduce_tree, CB_SUM},
      {"phase scan collective", NULL, &cb_phase_scan_coll, CB_PREFIX},
      {"phase scan 2 barriers+loop", NULL, &cb_phase_scan_loop, CB_PREFIX},
  };
  fpar_runtime *rt = make_runtime(1, FPAR_FPENV_DEFAULT);
  bench_stat st[8];
  fpar_queue *q;

  check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# collectives: one worker, %d rounds per group, ~2M work-item "
         "rounds per rep; ns per work-item per round (a collective, or "
         "its hand-written form, or one bare barrier)\n",
         CB_ROUNDS);
  for (unsigned k = 0; k < 2; k++) {
    size_t L = sizes[k];
    cb_measure(q, fibers, 7, L, st);
    cb_report("fibers", fibers, L, st, 2, 2, 1.5);
    cb_measure(q, lanes, 5, L, st);
    cb_report("lanes", lanes, L, st, 1, 1, 1.0);
    cb_measure(q, phases, 5, L, st);
    cb_report("phase", phases, L, st, 1, 1, 1.0);
  }
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

/* OpenMP threads that spin-wait after a parallel region (libgomp's default)
 * take a core from our workers in the next measurement; both sides must
 * wait passively between runs.  libgomp reads the setting when it loads,
 * so the benchmark runs itself again with it set. */
static void use_passive_openmp(char **argv) {
  const char *policy = getenv("OMP_WAIT_POLICY");

  if (policy != NULL && strcasecmp(policy, "passive") == 0)
    return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);
  fprintf(stderr, "bench: cannot re-run with OMP_WAIT_POLICY=passive; "
                  "comparisons with OpenMP may be unfair\n");
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*fn)(void);
  } sections[] = {{"barrier", bench_barrier}, {"free", bench_free},
                  {"launch", bench_launch},   {"memory", bench_memory},
                  {"scoped", bench_scoped},   {"lanes", bench_lanes},
                  {"phase", bench_phase},     {"ranges", bench_ranges},
                  {"subgroups", bench_subgroups},
                  {"collectives", bench_collectives}};
  size_t i;
  int a;

  if (argc == 2 && strcmp(argv[1], "omp-region") == 0) {
    omp_region_times();
    return 0;
  }
  if (!lk_isa_runs()) {
    printf("SKIP   bench built for %s: this CPU does not run it\n", lk_isa());
    return 0;
  }
  use_passive_openmp(argv);
  for (i = 0; i < sizeof sections / sizeof *sections; i++) {
    int wanted = argc < 2;
    for (a = 1; a < argc; a++)
      wanted |= strcmp(argv[a], sections[i].name) == 0;
    if (wanted)
      sections[i].fn();
  }
  return 0;
}
