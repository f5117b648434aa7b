/* SPDX-License-Identifier: MIT */
/* launch.c - section launch: the fixed cost of starting parallel work.  An
 * empty launch + wait and a batch of launches with one wait, beside an
 * empty OpenMP parallel region, PoCL's empty enqueue + clFinish (through
 * OpenCL) and HIP-CPU's launch + synchronize, all in the same run. */
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "opencl.h"

/* Launches per rep: ours and OpenMP's cost about a microsecond, PoCL's
 * tens. */
#define LAUNCHES 20000
#define POCL_LAUNCHES 2000

void bench_empty_kernel(fpar_item *it, void *p) {
  (void)it;
  (void)p;
}

/* An empty OpenMP parallel region, LAUNCHES times per rep. */
bench_stat bench_omp_region_times(void) {
  double t[REPS];

  for (int r = -1; r < REPS; r++) {
    volatile int sink = 0;
    double t0 = bench_now();
    for (int i = 0; i < LAUNCHES; i++) {
#pragma omp parallel
      { sink += 0; }
    }
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  return bench_report_ns("launch OpenMP empty parallel region", t, REPS,
                         LAUNCHES);
}

/* Run `cmd`, echoing its output if `echo`; returns the min and median (in
 * seconds) that `format` (two %lf, in units of `scale` seconds) reads from
 * one of its lines, or zeros if none matched. */
static bench_stat child_result(const char *cmd, const char *format,
                               double scale, int echo) {
  bench_stat s = {0, 0};
  char line[512];
  FILE *child;

  fflush(stdout);
  child = popen(cmd, "r");
  while (child != NULL && fgets(line, sizeof line, child) != NULL) {
    double min, median;
    if (echo)
      fputs(line, stdout);
    if (sscanf(line, format, &min, &median) == 2)
      s.min = min * scale, s.median = median * scale;
  }
  if (child != NULL)
    pclose(child);
  return s;
}

/* The OpenMP region is measured in a child process whose threads
 * spin-wait between regions, libgomp's default and its fastest setting
 * (this process runs OpenMP with passive waiting, see main.c).  Returns
 * seconds per region. */
static bench_stat omp_region_reference(void) {
  char self[1024], cmd[1200];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  bench_stat none = {0, 0};

  if (len <= 0)
    return none;
  self[len] = '\0';
  snprintf(cmd, sizeof cmd, "OMP_WAIT_POLICY=active '%s' omp-region", self);
  return child_result(cmd,
                      "RESULT launch OpenMP empty parallel region min %lf ns "
                      "median %lf ns",
                      1e-9, 1);
}

/* PoCL's empty kernel on 2 work-groups of 64, enqueued and finished one at
 * a time, then POCL_LAUNCHES at once with one clFinish; seconds per launch.
 * Returns NULL, or why there is no OpenCL (printed as `-` lines). */
static const char *pocl_launches(bench_stat *one, bench_stat *batch) {
  static const char source[] = "__kernel void empty(void) {}\n";
  static const char one_label[] =
      "launch PoCL enqueue+clFinish (ns per launch)";
  static const char batch_label[] =
      "launch PoCL batch + one clFinish (ns/launch)";
  static char why[512];
  bench_ocl *o = bench_ocl_open(why, sizeof why);
  size_t global = 128, local = 64;
  bench_ocl_kernel *k;
  double t[2][REPS];

  if (o == NULL) {
    bench_print_absent(one_label, why);
    bench_print_absent(batch_label, why);
    return why;
  }
  printf("INFO   OpenCL device: %s; batches of %d launches\n",
         bench_ocl_device(o), POCL_LAUNCHES);
  if ((k = bench_ocl_build(o, "empty", source, "empty")) == NULL)
    exit(1);
  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now(), t1;
    int err = 0;

    for (int i = 0; i < POCL_LAUNCHES; i++) {
      err |= bench_ocl_enqueue(k, 1, &global, &local);
      err |= bench_ocl_finish(o);
    }
    t1 = bench_now();
    for (int i = 0; i < POCL_LAUNCHES; i++)
      err |= bench_ocl_enqueue(k, 1, &global, &local);
    err |= bench_ocl_finish(o);
    if (err != 0)
      exit(1);
    if (r >= 0)
      t[0][r] = t1 - t0, t[1][r] = bench_now() - t1;
  }
  bench_ocl_close(o);
  *one = bench_report_ns(one_label, t[0], REPS, POCL_LAUNCHES);
  *batch = bench_report_ns(batch_label, t[1], REPS, POCL_LAUNCHES);
  one->min /= POCL_LAUNCHES, one->median /= POCL_LAUNCHES;
  batch->min /= POCL_LAUNCHES, batch->median /= POCL_LAUNCHES;
  return NULL;
}

/* HIP-CPU's empty launch + hipDeviceSynchronize (one block of one thread),
 * measured by the command in FIBERPAR_BENCH_HIPCPU (HIP-CPU is a C++17
 * header library that Debian does not package, so the benchmark does not
 * build it: e.g. "../shared/anchors/hipcpu/build/hipcpu_bench launch"). */
static const char *hipcpu_launch(bench_stat *s) {
  static const char label[] = "launch HIP-CPU launch+sync (ns per launch)";
  static const char why[] = "HIP-CPU is not packaged for Debian 12; set "
                            "FIBERPAR_BENCH_HIPCPU to a build of it";
  const char *cmd = getenv("FIBERPAR_BENCH_HIPCPU");

  if (cmd == NULL || *cmd == '\0') {
    bench_print_absent(label, why);
    return why;
  }
  *s = child_result(
      cmd, "RESULT hipcpu empty launch+sync us min %lf median %lf", 1e-6, 0);
  if (s->min <= 0) {
    fprintf(stderr, "bench: no HIP-CPU launch result from '%s'\n", cmd);
    exit(1);
  }
  printf("RESULT %-44s min %9.3f ns  median %9.3f ns  (measured now: %s)\n",
         label, s->min * 1e9, s->median * 1e9, cmd);
  return NULL;
}

/* One comparison: our median over theirs, or `-` and why theirs is
 * absent. */
static void compare(const char *what, double ours, double theirs,
                    const char *why) {
  if (why == NULL)
    printf("INFO   %s: %.3fx (median ns %.0f vs %.0f)\n", what, ours / theirs,
           ours * 1e9, theirs * 1e9);
  else
    printf("INFO   %s: -  (%s)\n", what, why);
}

void bench_launch(void) {
  fpar_runtime *rt = bench_runtime(0, FPAR_FPENV_DEFAULT);
  double t[REPS];
  fpar_queue *q;
  bench_stat ours, batch, ref, pocl = {0, 0}, pocl_batch = {0, 0}, hip = {0, 0};
  const char *pocl_why, *hip_why;

  bench_check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# launch: %u workers, 2 work-groups of 64 empty work-items\n",
         fpar_runtime_num_threads(rt));
  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now();
    for (int i = 0; i < LAUNCHES; i++)
      bench_run(q, fpar_range1(128), fpar_range1(64), bench_empty_kernel, NULL);
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  ours =
      bench_report_ns("launch submit+wait (ns per launch)", t, REPS, LAUNCHES);
  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now();
    for (int i = 0; i < LAUNCHES; i++)
      bench_check(fpar_parallel_for(q, fpar_range1(128), fpar_range1(64),
                                    bench_empty_kernel, NULL, NULL),
                  "submit");
    bench_check(fpar_queue_wait(q), "wait");
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  batch = bench_report_ns("launch batch of 20000 + one wait (ns/launch)", t,
                          REPS, LAUNCHES);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
  ours.min /= LAUNCHES, ours.median /= LAUNCHES;
  batch.min /= LAUNCHES, batch.median /= LAUNCHES;
  ref = omp_region_reference();
  pocl_why = pocl_launches(&pocl, &pocl_batch);
  hip_why = hipcpu_launch(&hip);
  printf("INFO   empty launch: %.2fx an OpenMP parallel region (median); "
         "target <= 1.50x; batch: %.0f ns per launch (median), target <= "
         "1000 ns\n",
         ours.median / ref.median, batch.median * 1e9);
  compare("empty launch + wait vs PoCL enqueue + clFinish", ours.median,
          pocl.median, pocl_why);
  compare("batch + one wait vs PoCL batch + one clFinish", batch.median,
          pocl_batch.median, pocl_why);
  compare("empty launch + wait vs HIP-CPU launch + synchronize", ours.median,
          hip.median, hip_why);
}
