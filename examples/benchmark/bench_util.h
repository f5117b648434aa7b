/* SPDX-License-Identifier: MIT */
/* bench_util.h - timing and statistics for the benchmark (and the examples
 * that time themselves): every figure is repeated, and min and median are
 * printed, so noisy machines still give honest numbers. */
#ifndef FPAR_BENCH_UTIL_H
#define FPAR_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

/* Min and median of t[0..n-1] (sorts t). */
typedef struct bench_stat {
  double min, median;
} bench_stat;

static inline bench_stat bench_stats(double *t, int n) {
  bench_stat s;

  qsort(t, (size_t)n, sizeof *t, bench_cmp_double);
  s.min = t[0];
  s.median = (n & 1) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  return s;
}

/* One result line: per-unit cost of n reps summarised in s (units =
 * operations per rep), in `unit` (seconds * scale). */
static inline void bench_print_per(const char *label, bench_stat s, int n,
                                   double units, double scale,
                                   const char *unit) {
  printf("RESULT %-44s min %9.3f %s  median %9.3f %s  (reps %d)\n", label,
         s.min / units * scale, unit, s.median / units * scale, unit, n);
}

/* The same in ns. */
static inline void bench_print_ns(const char *label, bench_stat s, int n,
                                  double units) {
  bench_print_per(label, s, n, units, 1e9, "ns");
}

/* The same for the times t[0..n-1] (sorts t). */
static inline bench_stat bench_report_ns(const char *label, double *t, int n,
                                         double units) {
  bench_stat s = bench_stats(t, n);

  bench_print_ns(label, s, n, units);
  return s;
}

/* One result line: a rate (work per rep / time) in the given unit. */
static inline bench_stat bench_report_rate(const char *label, double *t, int n,
                                           double work, const char *unit) {
  bench_stat s = bench_stats(t, n);

  printf("RESULT %-44s best %9.3f %s  median %9.3f %s  (reps %d)\n", label,
         work / s.min, unit, work / s.median, unit, n);
  return s;
}

/* ratio line: reference time / our time (> 1 means we are faster). */
static inline void bench_report_ratio(const char *label, bench_stat ours,
                                      bench_stat ref, double target) {
  printf("RATIO  %-44s min %6.3f  median %6.3f  (reference/ours; target >= "
         "%.2f)\n",
         label, ref.min / ours.min, ref.median / ours.median, target);
}

/* ratio line the other way round: our time / the reference's (> 1 means
 * we are slower), against the most it may be. */
static inline void bench_report_slowdown(const char *label, bench_stat ours,
                                         bench_stat ref, double target) {
  printf("RATIO  %-44s min %6.3f  median %6.3f  (ours/reference; target <= "
         "%.2f)\n",
         label, ours.min / ref.min, ours.median / ref.median, target);
}

/* A result that was not measured in this run: `-` and the reason. */
static inline void bench_print_absent(const char *label, const char *why) {
  printf("RESULT %-44s -  (%s)\n", label, why);
}

/* Resident set size of this process in KiB. */
static inline long bench_rss_kib(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");

  if (f != NULL) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

#endif
