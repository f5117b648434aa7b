/* SPDX-License-Identifier: MIT */
/* phase.c - section phase: phase kernels (FPAR_PHASE_KERNEL) on the
 * 2^24-float tree reduction in groups of 256, beside the same source on
 * fibers, the fpar_barrier() kernel, an OpenMP SIMD loop and PoCL; then ns
 * per work-item per barrier at L = 64, 256, 1024 on one worker beside the
 * loop-fission floor. */
#include <fiberpar/simd.h>
#include <string.h>

#include "../phase_kernels.h"
#include "bench.h"
#include "opencl.h"

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

/* What every form of the kernel writes at its end: the sum of the group's
 * local array, which the checksums compare. */
static inline uint32_t barrier_local_sum(const barrier_local *lm,
                                         const fpar_item *it) {
  uint32_t sum = 0;

  for (size_t i = 0; i < fpar_local_range(it, 0); i++)
    sum += lm->lmem[i];
  return sum;
}

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
  if (lid == 0)
    a->out[fpar_group_id(it, 0)] = barrier_local_sum(lm, it);
  FPAR_PHASE_END();
}

/* The same written as docs/phase-kernels-speed.md advises: the barrier
 * counter in the group-uniform part, so that the loop's test is invariant
 * in each phase's item loop, and a barrier closing the loop, so that the
 * sum after it (a loop) runs in a phase of its own instead of making
 * every iteration's item loop an outer loop, which GCC 12 leaves scalar.
 * Both let the compiler vectorize the phases across work-items. */
typedef struct barrier_value {
  uint32_t v;
} barrier_value;

typedef struct barrier_counter {
  int b;
} barrier_counter;

FPAR_PHASE_KERNEL_LOCAL_UNIFORM(barrier_uniform_phases, it, p, barrier_counter,
                                u, barrier_value, st, barrier_local, lm) {
  barrier_args *a = p;
  size_t lid = fpar_local_linear_id(it);

  FPAR_PHASE_BEGIN();
  st->v = (uint32_t)lid;
  for (u->b = 0; u->b < a->barriers; u->b++) {
    st->v = st->v * 1664525u + 1013904223u + (uint32_t)u->b;
    lm->lmem[lid] = st->v;
    FPAR_PHASE_BARRIER();
  }
  FPAR_PHASE_BARRIER();
  if (lid == 0)
    a->out[fpar_group_id(it, 0)] = barrier_local_sum(lm, it);
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
  if (first == 0)
    a->out[fpar_group_id(lk->it, 0)] = barrier_local_sum(lm, lk->it);
  FPAR_PHASE_END();
}

/* Run k over n floats in groups of RED_WG and add the group sums on the
 * host, as PoCL's run below does inside its timed region too. */
static double phase_reduce_run(fpar_queue *q, const fpar_kernel *k,
                               fpar_phase_mode mode, float **args, size_t n) {
  fpar_launch_desc d;
  double sum = 0;

  fpar_launch_desc_init(&d);
  d.def = k;
  d.phase_mode = mode;
  d.args = args;
  d.global = fpar_range1(n);
  d.local = fpar_range1(RED_WG);
  bench_run_desc(q, &d);
  for (size_t g = 0; g < n / RED_WG; g++)
    sum += args[1][g];
  return sum;
}

/* The same tree reduction in OpenCL C, for PoCL (whose compiler does the
 * loop fission that phase kernels do by macros). */
static const char pocl_reduce_source[] =
    "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))\n"
    "void reduce(__global const float *in, __global float *partial) {\n"
    "  __local float tmp[256];\n"
    "  size_t lid = get_local_id(0);\n"
    "  tmp[lid] = in[get_global_id(0)];\n"
    "  for (size_t s = 128; s > 0; s >>= 1) {\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid < s)\n"
    "      tmp[lid] += tmp[lid + s];\n"
    "  }\n"
    "  if (lid == 0)\n"
    "    partial[get_group_id(0)] = tmp[0];\n"
    "}\n";

/* PoCL on the same data (args: input, one sum per group), timed as
 * phase_reduce_run() is; the sum must be ref's.  Returns NULL, or why there
 * is no OpenCL (printed as a `-` line). */
static const char *pocl_reduce(float **args, size_t n, double ref, double bytes,
                               bench_stat *st) {
  static const char label[] = "reduction 2^24, PoCL loop fission";
  static char why[512];
  bench_ocl *o = bench_ocl_open(why, sizeof why);
  size_t groups = n / RED_WG, wg = RED_WG;
  bench_ocl_kernel *k;
  bench_ocl_buf *in, *partial;
  double t[REPS], sum = 0;
  void *p;

  if (o == NULL) {
    bench_print_absent(label, why);
    return why;
  }
  printf("INFO   OpenCL device: %s\n", bench_ocl_device(o));
  k = bench_ocl_build(o, "reduce", pocl_reduce_source, "reduce");
  in = bench_ocl_buffer(o, args[0], n * sizeof(float));
  partial = bench_ocl_buffer(o, args[1], groups * sizeof(float));
  if (k == NULL || in == NULL || partial == NULL ||
      bench_ocl_args(k, "bb", in, partial) != 0)
    exit(1);
  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now();
    /* The map makes the device's sums visible in args[1]. */
    if (bench_ocl_enqueue(k, 1, &n, &wg) != 0 || bench_ocl_finish(o) != 0 ||
        (p = bench_ocl_map(o, partial, 0, groups * sizeof(float), 0)) == NULL ||
        bench_ocl_unmap(o, partial, p) != 0)
      exit(1);
    sum = 0;
    for (size_t g = 0; g < groups; g++)
      sum += args[1][g];
    if (r >= 0)
      t[r] = bench_now() - t0;
  }
  bench_ocl_close(o);
  if (fabs(sum - ref) > 1e-4 * ref) {
    fprintf(stderr, "bench: %s: sum %g != %g\n", label, sum, ref);
    exit(1);
  }
  *st = bench_report_rate(label, t, REPS, bytes / 1e9, "GB/s");
  return NULL;
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
  fpar_runtime *rt = bench_runtime(0, FPAR_FPENV_DEFAULT);
  /* Page-aligned, so that PoCL uses the same memory (CL_MEM_USE_HOST_PTR). */
  float *in = aligned_alloc(4096, n * 4),
        *partial = aligned_alloc(4096, n / RED_WG * 4);
  float *args[2] = {in, partial};
  double t[4][REPS], sum[4], ref = 0;
  bench_stat st[4], pocl = {0, 0};
  const char *pocl_why;
  fpar_queue *q;

  bench_check(fpar_queue_create(rt, 0, &q), "queue");
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
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
  pocl_why = pocl_reduce(args, n, ref, bytes, &pocl);
  bench_report_ratio("reduction: phase loops vs phase on fibers", st[0], st[1],
                     10.0);
  bench_report_ratio("reduction: phase loops vs fpar_barrier fibers", st[0],
                     st[2], 10.0);
  if (pocl_why == NULL)
    bench_report_ratio("reduction: phase loops vs PoCL", st[0], pocl, 1.0);
  else
    printf("RATIO  %-44s -  (%s)\n", "reduction: phase loops vs PoCL",
           pocl_why);
  /* PoCL's ratio to the same OpenMP loop in the anchors (0.84 / 14.4 and
   * 1.14 / 19.7 GB/s): the target against PoCL, as a ratio. */
  bench_report_ratio("reduction: phase loops vs OpenMP simd", st[0], st[3],
                     0.058);
  free(in), free(partial);
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
    double t0 = bench_now();

    fpar_launch_desc_init(&d);
    d.def = k;
    d.phase_mode = FPAR_PHASE_LOOPS;
    d.args = &a;
    d.global = fpar_range1(L * groups);
    d.local = fpar_range1(L);
    bench_run_desc(q, &d);
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
  fpar_runtime *rt = bench_runtime(1, FPAR_FPENV_DEFAULT);
  fpar_queue *q;

  bench_check(fpar_queue_create(rt, 0, &q), "queue");
  for (unsigned k = 0; k < 3; k++) {
    size_t L = sizes[k], groups = 8000000 / (L * 1000);
    double units = (double)L * 1000 * (double)groups;
    uint32_t ref = 0;
    char label[96];

    bench_barrier_floor(L, groups, units, &ref);
    snprintf(label, sizeof label, "phase barrier L=%zu", L);
    bench_print_ns(label,
                   phase_barrier_times(q, &barrier_phases, L, groups, ref),
                   REPS, units);
    snprintf(label, sizeof label, "phase barrier L=%zu, advised form", L);
    bench_print_ns(
        label, phase_barrier_times(q, &barrier_uniform_phases, L, groups, ref),
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

void bench_phase(void) {
  bench_phase_reduce();
  bench_phase_barrier();
}
