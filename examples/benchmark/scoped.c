/* SPDX-License-Identifier: MIT */
/* scoped.c - section scoped: scoped parallelism (AdaptiveCpp's model) on
 * a reduction of 2^24 floats and NBody (N = 16384, tiles in local memory,
 * accelerations in private memory) against OpenMP SIMD loops on the same
 * data. */

#include "bench.h"

/* Reduction: each work group's logical items sum contiguous chunks into
 * local memory (the inner loop is the item's own SIMD loop), then one item
 * sums the group's partial sums. */
#define RED_GROUP 64

typedef struct red_args {
  const float *in;
  size_t chunk;   /* floats per logical item */
  float *partial; /* one per work group */
} red_args;

typedef struct red_state {
  const red_args *a;
  float *scratch; /* local: one partial per logical item */
  const fpar_group *g;
} red_state;

static inline void red_item(const fpar_s_item *si, void *p) {
  red_state *s = p;
  const float *x = s->a->in + fpar_s_item_get_global_id(si, 0) * s->a->chunk;
  float acc = 0;

#pragma omp simd reduction(+ : acc)
  for (size_t k = 0; k < s->a->chunk; k++)
    acc += x[k];
  s->scratch[fpar_s_item_get_innermost_local_id(si, 0)] = acc;
}
FPAR_DEFINE_ITEMS_ROW(red_row, red_item)

static void red_finish(void *p) {
  red_state *s = p;
  float acc = 0;

  for (size_t i = 0; i < RED_GROUP; i++)
    acc += s->scratch[i];
  s->a->partial[fpar_group_get_id(s->g, 0)] = acc;
}

static void red_env(fpar_group *g, void *const *mem, void *args) {
  red_state s = {args, mem[0], g};

  fpar_distribute_items_rows(g, red_row, &s);
  fpar_group_barrier(g);
  fpar_single_item(g, red_finish, &s);
}

static void red_group(fpar_group *g, void *args) {
  fpar_mem_request scratch =
      fpar_require_local_mem(RED_GROUP * sizeof(float), 64, NULL, 0);

  fpar_memory_environment(g, &scratch, 1, red_env, args);
}

/* NBody: a work group is a tile of bodies; per source tile the items copy
 * it into local memory, then each accumulates its body's acceleration in
 * private memory. */
#define NB_N 16384
#define NB_TILE 2048

typedef struct nb_args {
  const float *pos; /* x, y, z, m per body */
  float *acc;       /* x, y, z per body */
} nb_args;

typedef struct nb_state {
  const nb_args *a;
  float *tile;               /* local: NB_TILE bodies */
  fpar_private_memory *mine; /* private: 3 floats per item */
  size_t source;             /* first body of the tile being read */
} nb_state;

static inline void nb_load(const fpar_s_item *si, void *p) {
  nb_state *s = p;
  size_t l = fpar_s_item_get_innermost_local_id(si, 0);

  for (int k = 0; k < 4; k++)
    s->tile[l * 4 + k] = s->a->pos[(s->source + l) * 4 + k];
}
FPAR_DEFINE_ITEMS_ROW(nb_load_row, nb_load)

static inline void nb_compute(const fpar_s_item *si, void *p) {
  nb_state *s = p;

  nb_interact(s->tile, NB_TILE,
              s->a->pos + fpar_s_item_get_global_id(si, 0) * 4,
              fpar_private_at(s->mine, si));
}
FPAR_DEFINE_ITEMS_ROW(nb_compute_row, nb_compute)

static inline void nb_store(const fpar_s_item *si, void *p) {
  nb_state *s = p;
  const float *acc = fpar_private_at(s->mine, si);
  float *out = s->a->acc + fpar_s_item_get_global_id(si, 0) * 3;

  out[0] = acc[0], out[1] = acc[1], out[2] = acc[2];
}

static void nb_env(fpar_group *g, void *const *mem, void *args) {
  nb_state s = {args, mem[0], mem[1], 0};

  for (s.source = 0; s.source < NB_N; s.source += NB_TILE) {
    fpar_distribute_items_rows(g, nb_load_row, &s);
    fpar_group_barrier(g);
    fpar_distribute_items_rows(g, nb_compute_row, &s);
    fpar_group_barrier(g);
  }
  fpar_distribute_items(g, nb_store, &s);
}

static void nb_group(fpar_group *g, void *args) {
  const float zero = 0;
  fpar_mem_request reqs[2] = {
      fpar_require_local_mem(NB_TILE * 4 * sizeof(float), 64, NULL, 0),
      fpar_require_private_mem(3 * sizeof(float), 16, &zero, sizeof zero)};

  fpar_memory_environment(g, reqs, 2, nb_env, args);
}

void bench_scoped(void) {
  const size_t n = (size_t)1 << 24;
  fpar_runtime *rt = bench_runtime(0, FPAR_FPENV_DEFAULT);
  unsigned workers = fpar_runtime_num_threads(rt);
  size_t groups = 32 * (size_t)workers, chunk = n / (groups * RED_GROUP);
  float *in = malloc(n * 4), *partial = malloc(groups * 4);
  float *pos = malloc(NB_N * 16), *acc = malloc(NB_N * 12),
        *acc_ref = malloc(NB_N * 12);
  red_args ra = {in, chunk, partial};
  nb_args na = {pos, acc};
  double t[REPS], tr[REPS], sum = 0, ref = 0, err2 = 0, ref2 = 0;
  bench_stat ours, omp;
  fpar_queue *q;

  bench_check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# scoped: %u workers; reduction in %zu groups of %d items x %zu "
         "floats\n",
         workers, groups, RED_GROUP, chunk);
  for (size_t i = 0; i < n; i++)
    in[i] = (float)((i * 2654435761u) >> 8 & 0xffff) * (1.0f / 65536.0f);
  for (int rep = -1; rep < REPS; rep++) {
    fpar_event *ev;
    double t0 = bench_now(), t1, t2;
    float s = 0;

    bench_check(fpar_parallel(q, fpar_range1(groups), fpar_range1(RED_GROUP),
                              red_group, &ra, &ev),
                "scoped reduction");
    bench_check(fpar_event_wait(ev), "scoped reduction");
    fpar_event_release(ev);
    sum = 0;
    for (size_t g = 0; g < groups; g++)
      sum += partial[g];
    t1 = bench_now();
#pragma omp parallel for simd reduction(+ : s)
    for (size_t i = 0; i < n; i++)
      s += in[i];
    t2 = bench_now();
    ref = s;
    if (rep >= 0) {
      t[rep] = t1 - t0;
      tr[rep] = t2 - t1;
    }
  }
  if (fabs(sum - ref) > 1e-4 * fabs(ref)) {
    fprintf(stderr, "bench: scoped reduction %g != OpenMP %g\n", sum, ref);
    exit(1);
  }
  ours = bench_report_rate("scoped reduction 2^24 floats (GB/s)", t, REPS,
                           4.0 * (double)n / 1e9, "GB/s");
  omp = bench_report_rate("OpenMP simd reduction 2^24 floats (GB/s)", tr, REPS,
                          4.0 * (double)n / 1e9, "GB/s");
  bench_report_ratio("scoped reduction vs OpenMP simd", ours, omp, 0.8);

  srand(7);
  for (size_t i = 0; i < NB_N * 4; i++)
    pos[i] = (float)rand() / (float)RAND_MAX * (i % 4 == 3 ? 1.0f : 10.0f);
  for (int rep = -1; rep < REPS; rep++) {
    fpar_event *ev;
    double t0 = bench_now(), t1, t2;

    bench_check(fpar_parallel(q, fpar_range1(NB_N / NB_TILE),
                              fpar_range1(NB_TILE), nb_group, &na, &ev),
                "scoped nbody");
    bench_check(fpar_event_wait(ev), "scoped nbody");
    fpar_event_release(ev);
    t1 = bench_now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < NB_N; i++) {
      float a3[3] = {0, 0, 0};
      nb_interact(pos, NB_N, pos + i * 4, a3);
      acc_ref[i * 3] = a3[0], acc_ref[i * 3 + 1] = a3[1];
      acc_ref[i * 3 + 2] = a3[2];
    }
    t2 = bench_now();
    if (rep >= 0) {
      t[rep] = t1 - t0;
      tr[rep] = t2 - t1;
    }
  }
  for (size_t i = 0; i < NB_N * 3; i++) {
    err2 += (double)(acc[i] - acc_ref[i]) * (acc[i] - acc_ref[i]);
    ref2 += (double)acc_ref[i] * acc_ref[i];
  }
  if (sqrt(err2 / ref2) > 1e-5) {
    fprintf(stderr, "bench: scoped nbody differs (rel. L2 %g)\n",
            sqrt(err2 / ref2));
    exit(1);
  }
  ours = bench_report_rate("scoped nbody N=16384 (G interactions/s)", t, REPS,
                           (double)NB_N * NB_N / 1e9, "G/s");
  omp = bench_report_rate("OpenMP simd nbody N=16384 (G interactions/s)", tr,
                          REPS, (double)NB_N * NB_N / 1e9, "G/s");
  bench_report_ratio("scoped nbody vs OpenMP simd", ours, omp, 0.9);
  free(in), free(partial), free(pos), free(acc), free(acc_ref);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}
