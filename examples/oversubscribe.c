/* SPDX-License-Identifier: MIT */
/* oversubscribe.c - two processes that each use all cores, as MPI ranks
 * placed on one node by mistake: each must finish within 2.5x the time one
 * takes alone (twice is the fair share).  The work is time-stepped: a 2-D
 * 5-point Jacobi sweep per launch with its arguments by value, waited at
 * every step, then the same steps queued with one wait at the end, the
 * results checked against a plain C sweep.
 *
 *   ./examples/oversubscribe --bench [steps [n [reps]]]  (2000 256 5)
 *
 * prints RESULT lines with the min and median of the runs alone and of
 * the slower process of each pair, and the ratio against its target.
 * Without --bench it runs a short version, as make check does, that
 * requires both processes of a pair to finish with right results (a
 * timing is no test on a shared machine). */
#include <fiberpar.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct jacobi_args {
  const float *in;
  float *out;
  size_t n;
} jacobi_args;

/* out = the mean of in's four neighbours; the border stays. */
FPAR_KERNEL(jacobi, it, args) {
  const jacobi_args *a = args;
  size_t x = fpar_global_id(it, 0) + 1, y = fpar_global_id(it, 1) + 1;
  size_t n = a->n;

  a->out[y * n + x] = 0.25f * (a->in[y * n + x - 1] + a->in[y * n + x + 1] +
                               a->in[(y - 1) * n + x] + a->in[(y + 1) * n + x]);
}

static double now_s(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void fail(int rc, const char *what) {
  fprintf(stderr, "oversubscribe: %s: %s: %s\n", what, fpar_err_name(rc),
          fpar_last_error());
  exit(1);
}

static void init_grid(float *g, size_t n) {
  size_t i;

  for (i = 0; i < n * n; i++)
    g[i] = (float)(i % 17) * 0.25f;
}

/* The same sweeps in plain C, for the check. */
static const float *reference(size_t n, unsigned steps) {
  float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b), *t;
  size_t x, y;
  unsigned s;

  if (a == NULL || b == NULL)
    fail(FPAR_ENOMEM, "reference grids");
  init_grid(a, n);
  init_grid(b, n);
  for (s = 0; s < steps; s++) {
    for (y = 1; y + 1 < n; y++)
      for (x = 1; x + 1 < n; x++)
        b[y * n + x] = 0.25f * (a[y * n + x - 1] + a[y * n + x + 1] +
                                a[(y - 1) * n + x] + a[(y + 1) * n + x]);
    t = a, a = b, b = t;
  }
  free(b);
  return a;
}

/* steps sweeps from the initial grid: waited one by one, or queued with
 * one wait.  Returns the grid of the last step. */
static const float *sweep(fpar_queue *q, float *g[2], size_t n, unsigned steps,
                          int queued) {
  fpar_range inner = fpar_range2(n - 2, n - 2);
  unsigned s;
  int rc;

  init_grid(g[0], n);
  init_grid(g[1], n);
  for (s = 0; s < steps; s++) {
    jacobi_args a = {g[s % 2], g[(s + 1) % 2], n};
    fpar_event *ev;
    if ((rc = fpar_parallel_for_kernel_by_value(q, inner, FPAR_LOCAL_AUTO,
                                                &jacobi, &a, sizeof a,
                                                queued ? NULL : &ev)) != 0)
      fail(rc, "launch");
    if (!queued) {
      if ((rc = fpar_event_wait(ev)) != 0)
        fail(rc, "wait");
      fpar_event_release(ev);
    }
  }
  if ((rc = fpar_queue_wait(q)) != 0)
    fail(rc, "queue wait");
  return g[steps % 2];
}

/* One process's run: both ways, checked.  Returns its seconds. */
static double run(unsigned steps, size_t n) {
  const float *want = reference(n, steps);
  float *g[2] = {malloc(n * n * sizeof(float)), malloc(n * n * sizeof(float))};
  fpar_runtime *rt;
  fpar_queue *q;
  double t0, t;
  int rc, queued;

  if (g[0] == NULL || g[1] == NULL)
    fail(FPAR_ENOMEM, "grids");
  if ((rc = fpar_runtime_create(&rt, NULL)) != 0 ||
      (rc = fpar_queue_create(rt, 0, &q)) != 0)
    fail(rc, "runtime");
  t0 = now_s();
  for (queued = 0; queued < 2; queued++)
    if (memcmp(sweep(q, g, n, steps, queued), want, n * n * sizeof *want)) {
      fprintf(stderr, "oversubscribe: wrong result (%s)\n",
              queued ? "queued" : "waited per step");
      exit(1);
    }
  t = now_s() - t0;
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
  free(g[0]);
  free(g[1]);
  free((void *)want);
  return t;
}

/* Run `procs` processes at once; returns the slowest one's seconds. */
static double run_processes(int procs, unsigned steps, size_t n) {
  int fds[2][2], k, status;
  pid_t pid[2];
  double worst = 0;

  fflush(stdout);
  for (k = 0; k < procs; k++) {
    if (pipe(fds[k]) != 0 || (pid[k] = fork()) < 0) {
      perror("oversubscribe: fork");
      exit(1);
    }
    if (pid[k] == 0) {
      double t = run(steps, n);
      if (write(fds[k][1], &t, sizeof t) != sizeof t)
        _exit(1);
      _exit(0);
    }
    close(fds[k][1]);
  }
  for (k = 0; k < procs; k++) {
    double t = 0;
    if (read(fds[k][0], &t, sizeof t) != sizeof t ||
        waitpid(pid[k], &status, 0) != pid[k] || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      fprintf(stderr, "oversubscribe: process %d of %d failed\n", k + 1, procs);
      exit(1);
    }
    close(fds[k][0]);
    if (t > worst)
      worst = t;
  }
  return worst;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int bench = argc > 1 && strcmp(argv[1], "--bench") == 0;
  unsigned steps = bench ? 2000 : 200, reps = bench ? 5 : 1, r;
  size_t n = bench ? 256 : 64;
  double alone[16], pair[16];

  if (bench && argc > 2)
    steps = (unsigned)atoi(argv[2]);
  if (bench && argc > 3)
    n = (size_t)atoi(argv[3]);
  if (bench && argc > 4)
    reps = (unsigned)atoi(argv[4]);
  if ((argc > 1 && !bench) || steps == 0 || n < 3 || reps == 0 || reps > 16) {
    fprintf(stderr, "usage: %s [--bench [steps [n [reps 1-16]]]]\n", argv[0]);
    return 2;
  }
  printf("# oversubscribe: %u steps of a %zux%zu Jacobi sweep, waited per "
         "step then queued, one process alone vs two at once\n",
         steps, n, n);
  for (r = 0; r < reps; r++) {
    alone[r] = run_processes(1, steps, n);
    pair[r] = run_processes(2, steps, n);
  }
  qsort(alone, reps, sizeof *alone, cmp_double);
  qsort(pair, reps, sizeof *pair, cmp_double);
  printf("RESULT oversubscribe one process alone (ms)   min %9.2f  median "
         "%9.2f\n",
         1e3 * alone[0], 1e3 * alone[reps / 2]);
  printf("RESULT oversubscribe slower of two (ms)       min %9.2f  median "
         "%9.2f\n",
         1e3 * pair[0], 1e3 * pair[reps / 2]);
  printf("RATIO  oversubscribe two / one                min %6.2f  median "
         "%6.2f  (target <= 2.50; 2.00 is the fair share)\n",
         pair[0] / alone[0], pair[reps / 2] / alone[reps / 2]);
  return 0;
}
