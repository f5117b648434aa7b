/* SPDX-License-Identifier: MIT */
/* rows_bench.c - barrier-free FPAR_KERNELs against the same loops in plain
 * C and OpenMP, side by side in one run: ns per work-item, min and median
 * of the repetitions, and the ratios.
 *
 *   ./examples/rows_bench [reps]
 *
 * Cases (rows_kernels.h): a 1-D scalar 8-step LCG, a 1-D 64-step float
 * recurrence, a 2-D 5-point Jacobi step, a 3-D 7-point stencil.  Each is
 * run, with 1 worker against 1 OpenMP thread and then 2 against 2, as
 *  - FPAR_KERNEL + fpar_parallel_for_kernel(), FPAR_LOCAL_AUTO, compiled
 *    with the flags `pkg-config --cflags fiberpar` gives (-fopenmp-simd
 *    -DFPAR_OPENMP_SIMD: the runner's loop over a row is `omp simd`),
 *  - the same compiled without them (-O2 alone: what a program gets that
 *    does not use pkg-config),
 *  - the same bodies with the row runner of version 0.1 of the header
 *    (one row per call, one item shared by the row), which programs built
 *    against that header still run,
 *  - the plain C loop nest (one thread), `#pragma omp parallel for` over
 *    the outer loop, and the same with `#pragma omp simd` on the inner
 *    one (1-D: `parallel for simd`).
 * Variants alternate within each repetition, so drift hits all alike;
 * every result is checked bit for bit against the plain C loop.
 *
 * A program of its own, not a section of examples/bench: its kernels are
 * built twice (rows_kernels.c, with and without the kernel flags), where
 * the bench's sources all share one set of flags. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "benchmark/bench_util.h"
#include "rows_kernels.h"

/* The range of each case: 1-D items, or the interior of a grid; `small`
 * divides each extent by 4 (for instruction counts under callgrind). */
static const unsigned rb_dims[RB_CASES] = {1, 1, 2, 3};
static size_t rb_size[RB_CASES][3] = {
    {(size_t)1 << 22, 1, 1}, /* lcg8 */
    {(size_t)1 << 20, 1, 1}, /* rec64 */
    {1024, 1024, 1},         /* jacobi */
    {128, 128, 128},         /* 7-point */
};
static const char *const rb_name[RB_CASES] = {"1-D lcg8", "1-D rec64",
                                              "2-D jacobi", "3-D 7pt"};

/* ---- The references: plain C and OpenMP loops over the same bodies ------ */

/* One set of loops per pragma spelling sfx: RB_P1_sfx on the 1-D loop,
 * RB_POUT_sfx on the outer loop and RB_PIN_sfx on the inner loop of a
 * nest (each a _Pragma, or nothing). */
#define RB_LOOPS(sfx)                                                          \
  static void rb_loops_##sfx(int c, const rb_args *a, const size_t *n) {       \
    switch (c) {                                                               \
    case RB_LCG8:                                                              \
      RB_P1_##sfx for (size_t i = 0; i < n[0]; i++) rb_lcg8(a, i);             \
      break;                                                                   \
    case RB_REC64:                                                             \
      RB_P1_##sfx for (size_t i = 0; i < n[0]; i++) rb_rec64(a, i);            \
      break;                                                                   \
    case RB_JACOBI:                                                            \
      RB_POUT_##sfx for (size_t y = 0; y < n[1]; y++) {                        \
        RB_PIN_##sfx for (size_t x = 0; x < n[0]; x++) rb_jacobi(a, x, y);     \
      }                                                                        \
      break;                                                                   \
    default:                                                                   \
      RB_POUT_##sfx for (size_t z = 0; z < n[2]; z++) {                        \
        for (size_t y = 0; y < n[1]; y++) {                                    \
          RB_PIN_##sfx for (size_t x = 0; x < n[0]; x++) rb_st7(a, x, y, z);   \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

#define RB_P1_c
#define RB_POUT_c
#define RB_PIN_c
#define RB_P1_omp _Pragma("omp parallel for schedule(static)")
#define RB_POUT_omp RB_P1_omp
#define RB_PIN_omp
#define RB_P1_omp_simd _Pragma("omp parallel for simd schedule(static)")
#define RB_POUT_omp_simd RB_P1_omp
#define RB_PIN_omp_simd _Pragma("omp simd")
RB_LOOPS(c)
RB_LOOPS(omp)
RB_LOOPS(omp_simd)

/* ---- The variants -------------------------------------------------------- */

enum {
  RB_FPAR_SIMD,  /* FPAR_KERNEL, pkg-config flags */
  RB_FPAR_PLAIN, /* FPAR_KERNEL, no flags */
  RB_FPAR_OLD,   /* the 0.1 row runner */
  RB_C,          /* plain C loop, one thread */
  RB_OMP,        /* omp parallel for */
  RB_OMP_SIMD,   /* omp parallel for + omp simd */
  RB_VARIANTS
};
static const char *const rb_variant_name[RB_VARIANTS] = {
    "FPAR_KERNEL", "FPAR_KERNEL -O2 only", "0.1 row runner", "plain C loop",
    "omp for",     "omp for + simd"};

static void rb_check(int err, const char *what) {
  if (err != 0) {
    fprintf(stderr, "rows_bench: %s: %s (%s)\n", what, fpar_strerror(err),
            fpar_last_error());
    exit(1);
  }
}

static fpar_range rb_range(int c) {
  fpar_range r = {rb_dims[c], {rb_size[c][0], rb_size[c][1], rb_size[c][2]}};
  return r;
}

/* Launch case c of variant v (an FPAR one) and wait. */
static void rb_launch(fpar_queue *q, int c, int v, rb_args *a) {
  const fpar_kernel *k = (v == RB_FPAR_PLAIN ? &rb_plain : &rb_simd)->kernel[c];
  fpar_launch_desc d;
  fpar_event *ev;

  fpar_launch_desc_init(&d);
  d.global = rb_range(c);
  d.args = a;
  d.flags = FPAR_LAUNCH_UNIFORM;
  if (v == RB_FPAR_OLD) {
    d.kernel = k->fn;
    d.row = rb_simd.old_row[c];
  } else {
    d.def = k;
  }
  rb_check(fpar_launch(q, &d, &ev), "launch");
  rb_check(fpar_event_wait(ev), rb_name[c]);
  fpar_event_release(ev);
}

static void rb_run(fpar_queue *q, int c, int v, rb_args *a) {
  if (v <= RB_FPAR_OLD)
    rb_launch(q, c, v, a);
  else if (v == RB_C)
    rb_loops_c(c, a, rb_size[c]);
  else if (v == RB_OMP)
    rb_loops_omp(c, a, rb_size[c]);
  else
    rb_loops_omp_simd(c, a, rb_size[c]);
}

/* The data of one case: inputs, the output every variant writes and the
 * plain C loop's, compared bit for bit. */
typedef struct rb_data {
  size_t cells; /* floats (or words) of each array */
  float *in, *out, *want;
  uint32_t *u, *uwant;
} rb_data;

static size_t rb_cells(int c) {
  size_t cells = 1;

  for (unsigned d = 0; d < 3; d++)
    cells *=
        d < rb_dims[c] && c >= RB_JACOBI ? rb_size[c][d] + 2 : rb_size[c][d];
  return cells;
}

static void rb_data_init(rb_data *m, int c, rb_args *a) {
  m->cells = rb_cells(c);
  m->in = malloc(m->cells * sizeof(float));
  m->out = calloc(m->cells, sizeof(float));
  m->want = calloc(m->cells, sizeof(float));
  m->u = calloc(m->cells, sizeof(uint32_t));
  m->uwant = calloc(m->cells, sizeof(uint32_t));
  if (!m->in || !m->out || !m->want || !m->u || !m->uwant) {
    fprintf(stderr, "rows_bench: out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < m->cells; i++)
    m->in[i] = (float)(i * 7919 % 1000) * 0.001f;
  a->in = m->in;
  a->sx = c >= RB_JACOBI ? rb_size[c][0] + 2 : 0;
  a->sxy = a->sx * (rb_size[c][1] + 2);
  a->out = m->want;
  a->u = m->uwant;
  rb_loops_c(c, a, rb_size[c]);
  a->out = m->out;
  a->u = m->u;
}

static void rb_data_free(rb_data *m) {
  free(m->in), free(m->out), free(m->want), free(m->u), free(m->uwant);
}

/* Whether the interior rows of out are want's, bit for bit. */
static int rb_same(int c, const rb_args *a, const rb_data *m) {
  const size_t *n = rb_size[c];

  if (c == RB_LCG8)
    return memcmp(m->u, m->uwant, n[0] * sizeof(uint32_t)) == 0;
  if (c == RB_REC64)
    return memcmp(m->out, m->want, n[0] * sizeof(float)) == 0;
  for (size_t z = 0; z < n[2]; z++)
    for (size_t y = 0; y < n[1]; y++) {
      size_t i = 1 + a->sx * (y + 1) + a->sxy * (z + (c == RB_ST7));
      if (memcmp(m->out + i, m->want + i, n[0] * sizeof(float)) != 0)
        return 0;
    }
  return 1;
}

/* Run variant v from a poisoned output and check it against the plain C
 * loop. */
static void rb_verify(fpar_queue *q, int c, int v, rb_args *a, rb_data *m) {
  memset(m->out, 0xff, m->cells * sizeof(float));
  memset(m->u, 0xff, m->cells * sizeof(uint32_t));
  rb_run(q, c, v, a);
  if (!rb_same(c, a, m)) {
    fprintf(stderr,
            "rows_bench: %s, %s: results differ from the plain C loop\n",
            rb_name[c], rb_variant_name[v]);
    exit(1);
  }
}

/* Time every variant of case c on q's `threads` workers and as many
 * OpenMP threads; print ns per work-item and the ratios. */
static void rb_case(fpar_queue *q, int c, unsigned threads, int reps) {
  double *t = malloc(sizeof(double) * RB_VARIANTS * (size_t)reps);
  double items = (double)(rb_size[c][0] * rb_size[c][1] * rb_size[c][2]);
  bench_stat st[RB_VARIANTS];
  char label[96];
  rb_args a;
  rb_data m;

  if (t == NULL) {
    fprintf(stderr, "rows_bench: out of memory\n");
    exit(1);
  }
  rb_data_init(&m, c, &a);
  for (int v = 0; v < RB_VARIANTS; v++)
    rb_verify(q, c, v, &a, &m);
  for (int r = 0; r < reps; r++)
    for (int v = 0; v < RB_VARIANTS; v++) {
      double t0 = bench_now();
      rb_run(q, c, v, &a);
      t[v * reps + r] = bench_now() - t0;
    }
  for (int v = 0; v < RB_VARIANTS; v++) {
    snprintf(label, sizeof label, "%s T=%u %s", rb_name[c], threads,
             rb_variant_name[v]);
    st[v] = bench_report_ns(label, t + v * reps, reps, items);
  }
  snprintf(label, sizeof label, "%s T=%u: FPAR_KERNEL vs omp for", rb_name[c],
           threads);
  bench_report_ratio(label, st[RB_FPAR_SIMD], st[RB_OMP], 0.95);
  snprintf(label, sizeof label, "%s T=%u: FPAR_KERNEL vs omp simd", rb_name[c],
           threads);
  bench_report_ratio(label, st[RB_FPAR_SIMD], st[RB_OMP_SIMD], 0.95);
  snprintf(label, sizeof label, "%s T=%u: -O2 only vs omp for", rb_name[c],
           threads);
  bench_report_ratio(label, st[RB_FPAR_PLAIN], st[RB_OMP], 0.95);
  snprintf(label, sizeof label, "%s T=%u: FPAR_KERNEL vs C loop", rb_name[c],
           threads);
  bench_report_ratio(label, st[RB_FPAR_SIMD], st[RB_C], threads * 0.95);
  snprintf(label, sizeof label, "%s T=%u: FPAR_KERNEL vs 0.1 runner",
           rb_name[c], threads);
  bench_report_ratio(label, st[RB_FPAR_SIMD], st[RB_FPAR_OLD], 1.0);
  rb_data_free(&m);
  free(t);
}

/* OpenMP threads that spin after a region would hold the cores the next
 * variant runs on: unless the caller chose a wait policy, run again with
 * OMP_WAIT_POLICY=passive. */
static void rb_passive_openmp(char **argv) {
  if (getenv("OMP_WAIT_POLICY") != NULL)
    return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);
  fprintf(stderr, "rows_bench: cannot run again with "
                  "OMP_WAIT_POLICY=passive; OpenMP threads may spin\n");
}

/* The CPU's model name, for the header line. */
static void rb_cpu(char *buf, size_t len) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256];

  snprintf(buf, len, "unknown CPU");
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
      snprintf(buf, len, "%s", strchr(line, ':') + 2);
      buf[strcspn(buf, "\n")] = '\0';
      break;
    }
  if (f != NULL)
    fclose(f);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 11;
  int small = argc > 2 && strcmp(argv[2], "small") == 0;
  char cpu[128];

  if (reps < 1 || (argc > 2 && !small) || argc > 3) {
    fprintf(stderr, "usage: rows_bench [reps >= 1 [small]]\n");
    return 2;
  }
  rb_passive_openmp(argv);
  rb_cpu(cpu, sizeof cpu);
  for (int c = 0; c < RB_CASES; c++)
    for (unsigned d = 0; small && d < rb_dims[c]; d++)
      rb_size[c][d] /= 4;
  printf("# rows: barrier-free kernels, ns per work-item, %d reps, %s; "
         "FPAR_KERNEL built with %s, \"-O2 only\" with %s; sizes:",
         reps, cpu, rb_simd.flags, rb_plain.flags);
  for (int c = 0; c < RB_CASES; c++)
    printf(" %s %zux%zux%zu", rb_name[c], rb_size[c][0], rb_size[c][1],
           rb_size[c][2]);
  printf("\n");
  /* One worker against one OpenMP thread, then the runtime's default (one
   * worker per core) against as many threads. */
  for (unsigned phase = 0; phase < 2; phase++) {
    fpar_runtime_opts o;
    fpar_runtime *rt;
    fpar_queue *q;
    unsigned threads;

    fpar_runtime_opts_init(&o);
    o.num_threads = phase == 0 ? 1 : 0;
    rb_check(fpar_runtime_create(&rt, &o), "runtime");
    rb_check(fpar_queue_create(rt, 0, &q), "queue");
    threads = fpar_runtime_num_threads(rt);
#ifdef _OPENMP
    omp_set_num_threads((int)threads);
#endif
    if (phase == 0 || threads > 1)
      for (int c = 0; c < RB_CASES; c++)
        rb_case(q, c, threads, reps);
    fpar_queue_destroy(q);
    rb_check(fpar_runtime_destroy(rt), "runtime");
  }
  return 0;
}
