/* SPDX-License-Identifier: MIT */
/* ranges.c - section ranges: non-uniform work-groups (a smaller last
 * group) against uniform ones: saxpy throughput and empty-launch latency. */

#include "bench.h"

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
      bench_run_desc(q, uni);
    t1 = bench_now();
    for (int i = 0; i < launches; i++)
      bench_run_desc(q, non);
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
void bench_ranges(void) {
  const size_t n = (size_t)1 << 24, n2 = n - 1000;
  fpar_runtime *rt = bench_runtime(0, FPAR_FPENV_DEFAULT);
  float *x = malloc(n * 4), *y = malloc(n * 4), *z = malloc(n * 4);
  saxpy_args sa = {1.0001f, x, y, z};
  fpar_launch_desc uni, non;
  fpar_queue *q;

  bench_check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# ranges: %u workers\n", fpar_runtime_num_threads(rt));
  for (size_t i = 0; i < n; i++) {
    x[i] = (float)(i % 1000) * 0.001f;
    y[i] = 1.0f;
  }
  fpar_launch_desc_init(&uni);
  uni.def = bench_saxpy_kernel;
  uni.args = &sa;
  uni.global = fpar_range1(n);
  uni.local = fpar_range1(4096);
  non = uni;
  non.global = fpar_range1(n2);
  bench_ranges_pair(q, &uni, &non, 1, (double)n / n2, "saxpy 2^24, 4096",
                    12.0 * (double)n / 1e9);
  uni.def = NULL;
  uni.kernel = bench_empty_kernel;
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
