/* SPDX-License-Identifier: MIT */
/* timestep.c - section timestep: time-stepped stencils as a new user writes
 * them (FPAR_KERNEL, FPAR_LOCAL_AUTO, fpar_parallel_for_kernel, one launch
 * per step), waited per step and queued with one wait, against one OpenMP
 * parallel for per step over the same loop, once as written and once with
 * `omp simd` on its rows (the loop GCC vectorizes at -O2, as FPAR_KERNEL's
 * row runner is), results compared bit for bit. */
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* The pause between two timed runs, in microseconds: longer than the time
 * libgomp's threads (GOMP_SPINCOUNT) and our workers spin after their last
 * work, so that neither side's idle spinning lands in the other's time. */
#define SETTLE_US 20000

/* One step's grids: the stencil reads in and writes the interior of out;
 * the next step swaps them (ping-pong), and both hold the same fixed
 * boundary. */
typedef struct grid_args {
  const float *in;
  float *out;
  size_t nx, ny; /* points per row and rows per plane, boundary included */
} grid_args;

/* The 5-point Jacobi update of interior point (x, y). */
static inline void jacobi_point(const float *in, float *out, size_t nx,
                                size_t x, size_t y) {
  size_t i = y * nx + x;

  out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}

/* The 7-point update of interior point (x, y, z). */
static inline void stencil7_point(const float *in, float *out, size_t nx,
                                  size_t plane, size_t x, size_t y, size_t z) {
  size_t i = z * plane + y * nx + x;

  out[i] = (1.0f / 7) * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
                         in[i - plane] + in[i + plane] + in[i]);
}

/* One work-item per interior point; global id 0 runs along a row. */
FPAR_KERNEL(jacobi_kernel, it, p) {
  const grid_args *a = p;

  jacobi_point(a->in, a->out, a->nx, fpar_global_id(it, 0) + 1,
               fpar_global_id(it, 1) + 1);
}

FPAR_KERNEL(stencil7_kernel, it, p) {
  const grid_args *a = p;

  stencil7_point(a->in, a->out, a->nx, a->nx * a->ny, fpar_global_id(it, 0) + 1,
                 fpar_global_id(it, 1) + 1, fpar_global_id(it, 2) + 1);
}

/* A row of the interior, as written (GCC 12 leaves it scalar at -O2) and
 * under `omp simd` (vectorized at -O2 with -fopenmp). */
#define TS_ROWS(suffix, pragma)                                                \
  static void jacobi_row##suffix(const float *in, float *out, size_t nx,       \
                                 size_t y) {                                   \
    pragma for (size_t x = 1; x < nx - 1; x++)                                 \
        jacobi_point(in, out, nx, x, y);                                       \
  }                                                                            \
  static void stencil7_row##suffix(const float *in, float *out, size_t nx,     \
                                   size_t plane, size_t y, size_t z) {         \
    pragma for (size_t x = 1; x < nx - 1; x++)                                 \
        stencil7_point(in, out, nx, plane, x, y, z);                           \
  }
TS_ROWS(, )
TS_ROWS(_simd, _Pragma("omp simd"))

/* The same steps in OpenMP, one parallel for over the rows (planes). */
static void jacobi_omp(const grid_args *a, int threads, int simd) {
  const float *in = a->in;
  float *out = a->out;
  const size_t nx = a->nx, ny = a->ny;

#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t y = 1; y < ny - 1; y++)
    (simd ? jacobi_row_simd : jacobi_row)(in, out, nx, y);
}

static void stencil7_omp(const grid_args *a, size_t nz, int threads, int simd) {
  const float *in = a->in;
  float *out = a->out;
  const size_t nx = a->nx, ny = a->ny, plane = nx * ny;

#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t z = 1; z < nz - 1; z++)
    for (size_t y = 1; y < ny - 1; y++)
      (simd ? stencil7_row_simd : stencil7_row)(in, out, nx, plane, y, z);
}

/* One grid size: nx x ny (x nz) points, `steps` steps per timed run. */
typedef struct ts_case {
  const char *name; /* "jacobi 512^2" */
  size_t nx, ny, nz;
  int steps;
  double target; /* the most our time per step may be, over OpenMP's */
  double queued_target;
} ts_case;

/* What a timed run needs: the grid, the two ping-pong argument structs of
 * each side (alive until the queue is drained: arguments are passed by
 * pointer) and their buffers. */
typedef struct ts_run {
  const ts_case *c;
  const fpar_kernel *kernel;
  fpar_range global; /* the interior */
  size_t points;     /* of the whole grid */
  const float *init;
  grid_args ours[2], omp[2], simd[2]; /* simd: OpenMP with omp simd */
  int omp_threads;
} ts_run;

/* Both buffers of a side back to the initial grid (untimed). */
static void ts_fill(const ts_run *r, const grid_args *ping) {
  memcpy(ping[0].out, r->init, r->points * sizeof(float));
  memcpy(ping[1].out, r->init, r->points * sizeof(float));
}

/* The grid a side's last step wrote. */
static const float *ts_result(const ts_run *r, const grid_args *ping) {
  return ping[(r->c->steps - 1) & 1].out;
}

/* Seconds for c->steps steps waiting on each launch's event (queued = 0)
 * or submitting all and waiting once on the in-order queue (queued = 1). */
static double ts_ours(fpar_queue *q, ts_run *r, int queued) {
  double t0;

  ts_fill(r, r->ours);
  t0 = bench_now();
  for (int s = 0; s < r->c->steps; s++) {
    fpar_event *ev;
    bench_check(fpar_parallel_for_kernel(q, r->global, FPAR_LOCAL_AUTO,
                                         r->kernel, &r->ours[s & 1],
                                         queued ? NULL : &ev),
                r->c->name);
    if (!queued)
      bench_wait(ev, r->c->name);
  }
  if (queued)
    bench_check(fpar_queue_wait(q), r->c->name);
  return bench_now() - t0;
}

/* Seconds for c->steps OpenMP steps, with omp simd rows or without. */
static double ts_omp(ts_run *r, int simd) {
  grid_args *ping = simd ? r->simd : r->omp;
  double t0;

  ts_fill(r, ping);
  t0 = bench_now();
  for (int s = 0; s < r->c->steps; s++) {
    if (r->c->nz > 1)
      stencil7_omp(&ping[s & 1], r->c->nz, r->omp_threads, simd);
    else
      jacobi_omp(&ping[s & 1], r->omp_threads, simd);
  }
  return bench_now() - t0;
}

/* Exit unless the last grid of one side (ours, or OpenMP's simd rows)
 * equals OpenMP's bit for bit. */
static void ts_compare(const ts_run *r, const grid_args *side,
                       const char *variant) {
  const float *ours = ts_result(r, side), *ref = ts_result(r, r->omp);

  for (size_t i = 0; i < r->points; i++)
    if (memcmp(&ours[i], &ref[i], sizeof(float)) != 0) {
      fprintf(stderr,
              "bench: timestep %s, %s: point %zu is %.9g, OpenMP's %.9g\n",
              r->c->name, variant, i, (double)ours[i], (double)ref[i]);
      exit(1);
    }
}

/* Fill the run's buffers (6 grids of c's size) and initial grid. */
static void ts_open(ts_run *r, const ts_case *c, const fpar_kernel *k,
                    int omp_threads) {
  float *g[6], *init;

  r->c = c;
  r->kernel = k;
  r->points = c->nx * c->ny * c->nz;
  r->global = c->nz > 1 ? fpar_range3(c->nx - 2, c->ny - 2, c->nz - 2)
                        : fpar_range2(c->nx - 2, c->ny - 2);
  r->omp_threads = omp_threads;
  init = malloc(r->points * sizeof(float));
  for (int i = 0; i < 6; i++)
    g[i] = malloc(r->points * sizeof(float));
  if (init == NULL || !g[0] || !g[1] || !g[2] || !g[3] || !g[4] || !g[5]) {
    fprintf(stderr, "bench: timestep %s: out of memory\n", c->name);
    exit(1);
  }
  /* Values 1..256: no zeros, so no step makes denormals. */
  for (size_t i = 0; i < r->points; i++)
    init[i] = (float)(1 + ((i * 2654435761u) >> 16 & 0xff));
  r->init = init;
  r->ours[0] = (grid_args){g[0], g[1], c->nx, c->ny};
  r->ours[1] = (grid_args){g[1], g[0], c->nx, c->ny};
  r->omp[0] = (grid_args){g[2], g[3], c->nx, c->ny};
  r->omp[1] = (grid_args){g[3], g[2], c->nx, c->ny};
  r->simd[0] = (grid_args){g[4], g[5], c->nx, c->ny};
  r->simd[1] = (grid_args){g[5], g[4], c->nx, c->ny};
}

static void ts_close(ts_run *r) {
  free((void *)r->init);
  free(r->ours[0].out), free(r->ours[1].out);
  free(r->omp[0].out), free(r->omp[1].out);
  free(r->simd[0].out), free(r->simd[1].out);
}

/* Time one grid size: OpenMP, OpenMP with omp simd, waited per step,
 * queued; alternated rep by rep with a pause between, so that drift hits
 * all four alike. */
static void ts_measure(fpar_queue *q, const ts_case *c, const fpar_kernel *k,
                       int omp_threads, const char *waiting) {
  double t[4][REPS];
  bench_stat st[4];
  char label[96];
  ts_run r;

  ts_open(&r, c, k, omp_threads);
  for (int rep = -1; rep < REPS; rep++) {
    double tv[4];
    tv[0] = ts_omp(&r, 0);
    usleep(SETTLE_US);
    tv[3] = ts_omp(&r, 1);
    ts_compare(&r, r.simd, "OpenMP simd");
    usleep(SETTLE_US);
    tv[1] = ts_ours(q, &r, 0);
    ts_compare(&r, r.ours, "wait per step");
    usleep(SETTLE_US);
    tv[2] = ts_ours(q, &r, 1);
    ts_compare(&r, r.ours, "queued");
    usleep(SETTLE_US);
    if (rep >= 0)
      for (int v = 0; v < 4; v++)
        t[v][rep] = tv[v];
  }
  snprintf(label, sizeof label, "timestep %s x%d, OpenMP %s (us/step)", c->name,
           c->steps, waiting);
  st[0] = bench_stats(t[0], REPS);
  bench_print_per(label, st[0], REPS, c->steps, 1e6, "us");
  snprintf(label, sizeof label, "timestep %s x%d, OpenMP simd %s", c->name,
           c->steps, waiting);
  st[3] = bench_stats(t[3], REPS);
  bench_print_per(label, st[3], REPS, c->steps, 1e6, "us");
  snprintf(label, sizeof label, "timestep %s x%d, wait per step", c->name,
           c->steps);
  st[1] = bench_stats(t[1], REPS);
  bench_print_per(label, st[1], REPS, c->steps, 1e6, "us");
  snprintf(label, sizeof label, "timestep %s x%d, queued + one wait", c->name,
           c->steps);
  st[2] = bench_stats(t[2], REPS);
  bench_print_per(label, st[2], REPS, c->steps, 1e6, "us");
  snprintf(label, sizeof label, "timestep %s: wait per step vs OpenMP %s",
           c->name, waiting);
  bench_report_slowdown(label, st[1], st[0], c->target);
  snprintf(label, sizeof label, "timestep %s: queued vs OpenMP %s", c->name,
           waiting);
  bench_report_slowdown(label, st[2], st[0], c->queued_target);
  snprintf(label, sizeof label, "timestep %s: wait per step vs OpenMP simd",
           c->name);
  bench_report_slowdown(label, st[1], st[3], c->target);
  printf("INFO   timestep %s: both forms' and OpenMP simd's last grid equal "
         "OpenMP's bit for bit (%zu points)\n",
         c->name, r.points);
  ts_close(&r);
}

/* The per-item cost alone: one worker against one OpenMP thread, each step
 * big enough that launching is a small part of it. */
static void ts_one_thread(const char *waiting) {
  static const ts_case c = {"jacobi 1024^2", 1024, 1024, 1, 100, 1.05, 1.05};
  fpar_runtime *rt = bench_runtime(1, FPAR_FPENV_DEFAULT);
  double t[3][REPS], items = (double)(c.nx - 2) * (c.ny - 2) * c.steps;
  bench_stat st[3];
  char label[96];
  fpar_queue *q;
  ts_run r;

  bench_check(fpar_queue_create(rt, 0, &q), "queue");
  ts_open(&r, &c, &jacobi_kernel, 1);
  for (int rep = -1; rep < REPS; rep++) {
    double to = ts_omp(&r, 0), ts, tk;
    usleep(SETTLE_US);
    ts = ts_omp(&r, 1);
    ts_compare(&r, r.simd, "OpenMP simd, one thread");
    usleep(SETTLE_US);
    tk = ts_ours(q, &r, 0);
    ts_compare(&r, r.ours, "one worker");
    usleep(SETTLE_US);
    if (rep >= 0)
      t[0][rep] = to, t[1][rep] = tk, t[2][rep] = ts;
  }
  for (int v = 0; v < 3; v++)
    st[v] = bench_stats(t[v], REPS);
  snprintf(label, sizeof label,
           "timestep jacobi 1024^2 x100, 1 thread %s (ns/item)", waiting);
  bench_print_ns(label, st[0], REPS, items);
  snprintf(label, sizeof label,
           "timestep jacobi 1024^2 x100, 1 thread simd (ns/item)");
  bench_print_ns(label, st[2], REPS, items);
  bench_print_ns("timestep jacobi 1024^2 x100, 1 worker (ns/item)", st[1], REPS,
                 items);
  snprintf(label, sizeof label,
           "timestep jacobi 1024^2: 1 worker vs 1 thread %s", waiting);
  bench_report_slowdown(label, st[1], st[0], c.target);
  bench_report_slowdown("timestep jacobi 1024^2: 1 worker vs 1 thread simd",
                        st[1], st[2], c.target);
  ts_close(&r);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

/* How this process's OpenMP threads wait between regions. */
static const char *ts_omp_waiting(void) {
  const char *policy = getenv("OMP_WAIT_POLICY");

  if (policy == NULL)
    return "default";
  return strcasecmp(policy, "passive") == 0  ? "passive"
         : strcasecmp(policy, "active") == 0 ? "active"
                                             : policy;
}

/* Run the section again in a child process whose OpenMP threads wait as
 * libgomp's do by default (OMP_WAIT_POLICY unset: they spin a while after
 * a region, then sleep). */
static void ts_in_child(void) {
  char *args[] = {"bench", "--omp-default", "timestep", NULL};
  int status;
  pid_t pid;

  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    unsetenv("OMP_WAIT_POLICY");
    execv("/proc/self/exe", args);
    fprintf(stderr, "bench: cannot re-run the timestep section\n");
    _exit(127);
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench: the timestep section failed\n");
    exit(1);
  }
}

/* Every grid against OpenMP as this process runs it. */
static void ts_section(void) {
  /* Targets (docs/bench.md): per step <= 1.3x OpenMP at 128^2 (a step of
   * a few microseconds: the launch dominates), <= 1.1x from 512^2 (and
   * 64^3, as many points) up; queued <= 1.05x at 512^2. */
  static const ts_case grids[] = {
      {"jacobi 128^2", 128, 128, 1, 1000, 1.3, 1.3},
      {"jacobi 512^2", 512, 512, 1, 1000, 1.1, 1.05},
      {"jacobi 2048^2", 2048, 2048, 1, 50, 1.1, 1.1},
      {"7-point 64^3", 64, 64, 64, 1000, 1.1, 1.1},
      {"7-point 256^3", 256, 256, 256, 20, 1.1, 1.1},
  };
  const char *waiting = ts_omp_waiting();
  fpar_runtime *rt = bench_runtime(0, FPAR_FPENV_DEFAULT);
  fpar_queue *q;

  bench_check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# timestep: %u workers, one FPAR_KERNEL launch per step over the "
         "interior (FPAR_LOCAL_AUTO, in-order queue, arguments by pointer); "
         "OpenMP: %d threads, one parallel for per step, %s waiting "
         "(OMP_WAIT_POLICY); fewer steps on the big grids\n",
         fpar_runtime_num_threads(rt), bench_omp_threads(), waiting);
  for (size_t i = 0; i < sizeof grids / sizeof *grids; i++)
    ts_measure(q, &grids[i],
               grids[i].nz > 1 ? &stencil7_kernel : &jacobi_kernel,
               bench_omp_threads(), waiting);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
  ts_one_thread(waiting);
}

/* OpenMP's threads spin a while after a region by default, the fastest
 * setting on a machine of one's own and the slowest on a crowded one (a
 * spinning thread holds the core its partner waits for); passive threads
 * sleep at once.  The section runs with both: here with this process's
 * passive waiting (main.c), then in a child with libgomp's default. */
void bench_timestep(void) {
  const char *policy = getenv("OMP_WAIT_POLICY");

  ts_section();
  if (policy != NULL && strcasecmp(policy, "passive") == 0)
    ts_in_child();
}
