/* SPDX-License-Identifier: MIT */
/* barrier.c - section barrier: ns per work-item per barrier of fiber
 * kernels at L = 64, 256, 1024 on one worker, beside the same work as plain
 * loops split at the barriers (the loop-fission floor, which the phase
 * section measures against too). */
#include "bench.h"

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

bench_stat bench_barrier_floor(size_t L, size_t groups, double units,
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

/* ns per work-item per barrier of one runtime on one worker. */
static bench_stat barrier_fibers(fpar_queue *q, size_t local, size_t groups,
                                 uint32_t *out) {
  barrier_args a = {1000, out};
  double t[REPS];

  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now();
    bench_run(q, fpar_range1(local * groups), fpar_range1(local),
              barrier_kernel, &a);
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  return bench_stats(t, REPS);
}

void bench_barrier(void) {
  static const size_t sizes[] = {64, 256, 1024};
  static const fpar_fpenv modes[] = {FPAR_FPENV_ITEM, FPAR_FPENV_SHARED};
  fpar_runtime *rt[2];
  fpar_queue *q[2];

  for (int m = 0; m < 2; m++) {
    rt[m] = bench_runtime(1, modes[m]);
    bench_check(fpar_queue_create(rt[m], 0, &q[m]), "queue");
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
    bench_stat fibers, floor = bench_barrier_floor(L, groups, units, &ref);

    for (int m = 0; m < 2; m++) {
      fibers = barrier_fibers(q[m], L, groups, out);
      for (size_t g = 0; g < groups; g++)
        if (out[g] != ref) {
          fprintf(stderr, "bench: barrier checksum mismatch at L=%zu\n", L);
          exit(1);
        }
      snprintf(label, sizeof label, "barrier fibers L=%zu, %s", L,
               bench_fpenv_name(modes[m]));
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
