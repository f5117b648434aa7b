/* SPDX-License-Identifier: MIT */
/* memory.c - section memory: resident memory added by a 1024-work-item
 * group's fibers. */

#include "bench.h"

static void touch_barrier_kernel(fpar_item *it, void *p) {
  (void)p;
  fpar_barrier(it);
}

void bench_memory(void) {
  fpar_runtime *rt = bench_runtime(1, FPAR_FPENV_DEFAULT);
  fpar_queue *q;
  long before, after;

  bench_check(fpar_queue_create(rt, 0, &q), "queue");
  /* Warm up everything but the fibers: a barrier-free launch. */
  bench_run(q, fpar_range1(1024), fpar_range1(1024), bench_empty_kernel, NULL);
  before = bench_rss_kib();
  bench_run(q, fpar_range1(1024), fpar_range1(1024), touch_barrier_kernel,
            NULL);
  after = bench_rss_kib();
  printf("RESULT %-44s %ld KiB (%.2f KiB per fiber; target <= 4096 KiB)\n",
         "memory resident growth, 1024-item group", after - before,
         (double)(after - before) / 1024);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}
