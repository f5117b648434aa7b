/* SPDX-License-Identifier: MIT */
/* subgroups.c - section subgroups: sub-group operations and group copies
 * of fiber kernels beside the hand-written forms they replace, on one
 * worker, in one run.
 *
 *  - group sums of 2^22 floats in groups of 256: sub-group reduce (S = 8
 *    and 32) + one barrier, against the same sums through local memory
 *    (every work-item stores, a barrier, each sub-group's first work-item
 *    adds its S values) + one barrier, and a plain C loop (the floor);
 *    also ns per work-item per sub-group operation beside a barrier's;
 *  - a tile of 4 floats per work-item copied into local memory and read by
 *    another work-item: fpar_async_work_group_copy + wait against the
 *    per-work-item copy + barrier, and memcpy (the floor).
 */
#include <string.h>

#include "bench.h"

#define SG_L 256
#define SG_N (1u << 22)
#define TILE_PER_ITEM 4

/* Launch kernel over n work-items in groups of SG_L with sub-groups of
 * sg, and wait. */
static void sg_run(fpar_queue *q, fpar_kernel_fn kernel, void *args, size_t n,
                   unsigned sg) {
  fpar_launch_desc d;

  fpar_launch_desc_init(&d);
  d.kernel = kernel;
  d.args = args;
  d.global = fpar_range1(n);
  d.local = fpar_range1(SG_L);
  d.subgroup_size = sg;
  bench_run_desc(q, &d);
}

typedef struct sum_args {
  const float *in;
  float *out; /* per group */
} sum_args;

/* Sub-group sums, one per sub-group in local memory, then a barrier. */
static void sum_subgroup_kernel(fpar_item *it, void *p) {
  sum_args *a = p;
  size_t nsg = fpar_num_sub_groups(it);
  float *sums = fpar_group_local_memory_for_overwrite(it, nsg * 4, 64);
  float s = fpar_sub_group_reduce_add_f32(it, a->in[fpar_global_id(it, 0)]);

  if (fpar_sub_group_local_id(it) == 0)
    sums[fpar_sub_group_id(it)] = s;
  fpar_barrier(it);
  if (fpar_local_id(it, 0) == 0) {
    float t = 0;
    for (size_t k = 0; k < nsg; k++)
      t += sums[k];
    a->out[fpar_group_id(it, 0)] = t;
  }
}

/* The same sub-group sums by hand through local memory. */
static void sum_local_kernel(fpar_item *it, void *p) {
  sum_args *a = p;
  size_t lid = fpar_local_id(it, 0), S = fpar_sub_group_max_size(it);
  size_t nsg = fpar_num_sub_groups(it);
  float *tmp = fpar_group_local_memory_for_overwrite(it, SG_L * 4, 64);
  float *sums = fpar_group_local_memory_for_overwrite(it, nsg * 4, 64);

  tmp[lid] = a->in[fpar_global_id(it, 0)];
  fpar_barrier(it);
  if (lid % S == 0) {
    float s = 0;
    for (size_t k = lid; k < lid + S && k < SG_L; k++)
      s += tmp[k];
    sums[lid / S] = s;
  }
  fpar_barrier(it);
  if (lid == 0) {
    float t = 0;
    for (size_t k = 0; k < nsg; k++)
      t += sums[k];
    a->out[fpar_group_id(it, 0)] = t;
  }
}

/* The floor: the same sums in plain C. */
static void sum_plain(const float *in, float *out, unsigned S) {
  float sums[SG_L];

  for (size_t g = 0; g < SG_N / SG_L; g++) {
    const float *x = in + g * SG_L;
    float t = 0;
    for (size_t k = 0; k < SG_L / S; k++) {
      float s = 0;
      for (size_t j = 0; j < S; j++)
        s += x[k * S + j];
      sums[k] = s;
    }
    for (size_t k = 0; k < SG_L / S; k++)
      t += sums[k];
    out[g] = t;
  }
}

/* Many sub-group operations per group: the cost of one. */
typedef struct ops_args {
  int ops;
  uint32_t *out;
} ops_args;

static void ops_kernel(fpar_item *it, void *p) {
  ops_args *a = p;
  uint32_t v = (uint32_t)fpar_local_id(it, 0);

  for (int k = 0; k < a->ops; k++)
    v = fpar_sub_group_shuffle_xor_u32(it, v * 1664525u + 1013904223u, 1);
  a->out[fpar_global_id(it, 0)] = v;
}

static void ops_barrier_kernel(fpar_item *it, void *p) {
  ops_args *a = p;
  uint32_t v = (uint32_t)fpar_local_id(it, 0);

  for (int k = 0; k < a->ops; k++) {
    v = v * 1664525u + 1013904223u;
    fpar_barrier(it);
  }
  a->out[fpar_global_id(it, 0)] = v;
}

static void bench_sums(fpar_queue *q) {
  static const unsigned sizes[] = {8, 32};
  float *in = malloc(SG_N * 4), *out = malloc(SG_N / SG_L * 4);
  float *ref = malloc(SG_N / SG_L * 4);
  sum_args a = {in, out};
  double units = SG_N;

  for (size_t i = 0; i < SG_N; i++)
    in[i] = (float)(i % 13) * 0.25f;
  for (unsigned k = 0; k < 2; k++) {
    unsigned S = sizes[k];
    double t_sg[REPS], t_loc[REPS], t_c[REPS];
    bench_stat s_sg, s_loc, s_c;
    char label[96];

    for (int r = -1; r < REPS; r++) {
      double t0 = bench_now(), t1, t2, t3;
      sg_run(q, sum_subgroup_kernel, &a, SG_N, S);
      t1 = bench_now();
      sg_run(q, sum_local_kernel, &a, SG_N, S);
      t2 = bench_now();
      sum_plain(in, ref, S);
      t3 = bench_now();
      if (r >= 0) {
        t_sg[r] = t1 - t0;
        t_loc[r] = t2 - t1;
        t_c[r] = t3 - t2;
      }
    }
    sg_run(q, sum_subgroup_kernel, &a, SG_N, S);
    for (size_t g = 0; g < SG_N / SG_L; g++)
      if (out[g] != ref[g]) {
        fprintf(stderr, "bench: sub-group sum of group %zu: %g, expected %g\n",
                g, out[g], ref[g]);
        exit(1);
      }
    snprintf(label, sizeof label, "group sums, sub-group reduce S=%u", S);
    s_sg = bench_report_ns(label, t_sg, REPS, units);
    snprintf(label, sizeof label, "group sums, local memory S=%u", S);
    s_loc = bench_report_ns(label, t_loc, REPS, units);
    snprintf(label, sizeof label, "group sums, plain C S=%u (floor)", S);
    s_c = bench_report_ns(label, t_c, REPS, units);
    snprintf(label, sizeof label, "sub-group reduce vs local memory S=%u", S);
    bench_report_ratio(label, s_sg, s_loc, 1.0);
    (void)s_c;
  }
  free(in), free(out), free(ref);
}

static void bench_op_cost(fpar_queue *q) {
  const int ops = 1000;
  size_t groups = 8, n = groups * SG_L;
  uint32_t *out = malloc(n * 4);
  ops_args a = {ops, out};
  double t_op[REPS], t_bar[REPS], units = (double)n * ops;
  bench_stat s_op, s_bar;

  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now(), t1, t2;
    sg_run(q, ops_kernel, &a, n, 8);
    t1 = bench_now();
    sg_run(q, ops_barrier_kernel, &a, n, 8);
    t2 = bench_now();
    if (r >= 0) {
      t_op[r] = t1 - t0;
      t_bar[r] = t2 - t1;
    }
  }
  s_op = bench_report_ns("sub-group shuffle_xor, per work-item S=8", t_op, REPS,
                         units);
  s_bar = bench_report_ns("barrier, per work-item (same kernel shape)", t_bar,
                          REPS, units);
  bench_report_ratio("sub-group operation vs barrier", s_op, s_bar, 1.0);
  free(out);
}

/* ---- Tiles ----------------------------------------------------------------
 */

typedef struct tile_args {
  const float *in;
  float *out;
} tile_args;

/* Work-item i reads the tile's elements of work-item L - 1 - i. */
static void tile_async_kernel(fpar_item *it, void *p) {
  tile_args *a = p;
  size_t lid = fpar_local_id(it, 0), T = SG_L * TILE_PER_ITEM;
  float *tile = fpar_group_local_memory_for_overwrite(it, T * 4, 64);
  const float *src = a->in + fpar_group_id(it, 0) * T;
  fpar_copy_event e = fpar_async_work_group_copy(it, tile, src, T, 4, 0);
  const float *mine = tile + (SG_L - 1 - lid) * TILE_PER_ITEM;

  fpar_wait_group_events(it, 1, &e);
  a->out[fpar_global_id(it, 0)] = mine[0] + mine[1] + mine[2] + mine[3];
}

static void tile_items_kernel(fpar_item *it, void *p) {
  tile_args *a = p;
  size_t lid = fpar_local_id(it, 0), T = SG_L * TILE_PER_ITEM;
  float *tile = fpar_group_local_memory_for_overwrite(it, T * 4, 64);
  const float *src = a->in + fpar_group_id(it, 0) * T;
  const float *mine = tile + (SG_L - 1 - lid) * TILE_PER_ITEM;

  for (size_t k = 0; k < TILE_PER_ITEM; k++)
    tile[lid * TILE_PER_ITEM + k] = src[lid * TILE_PER_ITEM + k];
  fpar_barrier(it);
  a->out[fpar_global_id(it, 0)] = mine[0] + mine[1] + mine[2] + mine[3];
}

static void tile_plain(const float *in, float *out) {
  float tile[SG_L * TILE_PER_ITEM];

  for (size_t g = 0; g < SG_N / SG_L; g++) {
    memcpy(tile, in + g * SG_L * TILE_PER_ITEM, sizeof tile);
    __asm__ volatile("" ::"r"(tile) : "memory");
    for (size_t i = 0; i < SG_L; i++) {
      const float *mine = tile + (SG_L - 1 - i) * TILE_PER_ITEM;
      out[g * SG_L + i] = mine[0] + mine[1] + mine[2] + mine[3];
    }
  }
}

static void bench_tiles(fpar_queue *q) {
  size_t n = SG_N;
  float *in = malloc(n * TILE_PER_ITEM * 4), *out = malloc(n * 4);
  float *ref = malloc(n * 4);
  tile_args a = {in, out};
  double t_as[REPS], t_it[REPS], t_c[REPS], units = (double)n;
  bench_stat s_as, s_it;

  for (size_t i = 0; i < n * TILE_PER_ITEM; i++)
    in[i] = (float)(i % 101);
  for (int r = -1; r < REPS; r++) {
    double t0 = bench_now(), t1, t2, t3;
    sg_run(q, tile_async_kernel, &a, n, 0);
    t1 = bench_now();
    sg_run(q, tile_items_kernel, &a, n, 0);
    t2 = bench_now();
    tile_plain(in, ref);
    t3 = bench_now();
    if (r >= 0) {
      t_as[r] = t1 - t0;
      t_it[r] = t2 - t1;
      t_c[r] = t3 - t2;
    }
  }
  sg_run(q, tile_async_kernel, &a, n, 0);
  if (memcmp(out, ref, n * 4) != 0) {
    fprintf(stderr, "bench: async tile copy: wrong result\n");
    exit(1);
  }
  s_as =
      bench_report_ns("tile, async_work_group_copy + wait", t_as, REPS, units);
  s_it = bench_report_ns("tile, per-item copy + barrier", t_it, REPS, units);
  bench_report_ns("tile, memcpy in plain C (floor)", t_c, REPS, units);
  bench_report_ratio("async copy vs per-item copy + barrier", s_as, s_it, 2.0);
  free(in), free(out), free(ref);
}

void bench_subgroups(void) {
  fpar_runtime *rt = bench_runtime(1, FPAR_FPENV_DEFAULT);
  fpar_queue *q;

  bench_check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# subgroups: one worker, groups of %d, %u work-items; ns per "
         "work-item\n",
         SG_L, SG_N);
  bench_sums(q);
  bench_op_cost(q);
  bench_tiles(q);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}
