/* SPDX-License-Identifier: MIT */
/* test_atomics.c - C11 atomics in kernels, as the memory model of
 * <fiberpar.h> states it: contention inside a group (fibers of one worker:
 * atomic_fetch_add in loops with barriers, on local and global memory,
 * checked after every barrier), across groups on several workers (a
 * histogram and a maximum against plain C), with 3-D ranges. */
#include <stdatomic.h>
#include <stdio.h>

#include "testutil.h"

#define THREADS 2
#define ROUNDS 5

typedef struct inside_args {
  _Atomic uint32_t *global; /* one counter per group */
  uint32_t *bad;            /* per group: rounds whose count was wrong */
} inside_args;

/* Every work-item adds its round-dependent share to a local and a global
 * counter; after the barrier every work-item sees the whole round. */
static void inside_kernel(fpar_item *it, void *p) {
  inside_args *a = p;
  size_t L = fpar_local_range(it, 0) * fpar_local_range(it, 1) *
             fpar_local_range(it, 2);
  size_t lid = fpar_local_linear_id(it), g = fpar_group_linear_id(it);
  _Atomic uint32_t *local = fpar_group_local_memory(it, sizeof *local, 0);
  uint32_t want = 0;

  for (uint32_t r = 0; r < ROUNDS; r++) {
    for (uint32_t k = 0; k <= r; k++) {
      atomic_fetch_add_explicit(local, (uint32_t)lid + 1, memory_order_relaxed);
      atomic_fetch_add_explicit(&a->global[g], 1, memory_order_relaxed);
    }
    want += (r + 1) * (uint32_t)(L * (L + 1) / 2);
    fpar_barrier(it);
    if (atomic_load_explicit(local, memory_order_relaxed) != want ||
        atomic_load_explicit(&a->global[g], memory_order_relaxed) !=
            (uint32_t)L * (r + 1) * (r + 2) / 2)
      a->bad[g]++;
    fpar_barrier(it);
  }
}

START_TEST(test_contention_inside_group) {
  static const size_t locals[][3] = {{64, 1, 1}, {5, 3, 7}, {1, 1, 1}};
  const size_t *lr = locals[_i];
  const size_t G = 6;
  _Atomic uint32_t *global = calloc(G, sizeof *global);
  uint32_t *bad = calloc(G, sizeof *bad);
  inside_args a = {global, bad};
  size_t L = fpar_test_volume(lr);
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, THREADS);
  ck_assert_fpar_ok(fpar_parallel_for(
      e.q, fpar_range3(lr[0] * 3, lr[1] * 2, lr[2]),
      fpar_range3(lr[0], lr[1], lr[2]), inside_kernel, &a, &ev));
  fpar_test_wait_ok(ev);
  for (size_t g = 0; g < G; g++) {
    ck_assert_msg(bad[g] == 0, "group %zu: %u rounds with a wrong count", g,
                  bad[g]);
    ck_assert_uint_eq(atomic_load(&global[g]), L * ROUNDS * (ROUNDS + 1) / 2);
  }
  fpar_test_env_fini(&e);
  free(global);
  free(bad);
}
END_TEST

/* ---- Across groups ------------------------------------------------------ */

#define BINS 61

typedef struct across_args {
  const uint32_t *in; /* per global linear id */
  _Atomic uint32_t *hist;
  _Atomic uint32_t *max;
  _Atomic uint64_t *sum;
} across_args;

static uint32_t value_at(size_t i) {
  return (uint32_t)((i * 2654435761u) >> 7) % 100000u;
}

static void across_kernel(fpar_item *it, void *p) {
  across_args *a = p;
  uint32_t v = a->in[fpar_global_linear_id(it)];
  uint32_t m = atomic_load_explicit(a->max, memory_order_relaxed);

  atomic_fetch_add_explicit(&a->hist[v % BINS], 1, memory_order_relaxed);
  while (v > m && !atomic_compare_exchange_weak_explicit(a->max, &m, v,
                                                         memory_order_relaxed,
                                                         memory_order_relaxed))
    ;
  atomic_fetch_add_explicit(a->sum, v, memory_order_relaxed);
}

START_TEST(test_histogram_across_groups) {
  static const struct {
    size_t global[3], local[3];
  } shapes[] = {
      {{4096, 1, 1}, {64, 1, 1}},
      {{30, 14, 9}, {5, 7, 3}},
      {{100003, 1, 1}, {1, 1, 1}},
  };
  const size_t *gr = shapes[_i].global, *lr = shapes[_i].local;
  size_t n = fpar_test_volume(gr), i;
  uint32_t *in = malloc(n * sizeof *in), ref[BINS] = {0}, ref_max = 0;
  _Atomic uint32_t hist[BINS], max = 0;
  _Atomic uint64_t sum = 0;
  uint64_t ref_sum = 0;
  across_args a = {in, hist, &max, &sum};
  fpar_test_env e;
  fpar_event *ev;

  for (i = 0; i < BINS; i++)
    atomic_init(&hist[i], 0);
  for (i = 0; i < n; i++) {
    in[i] = value_at(i);
    ref[in[i] % BINS]++;
    ref_max = in[i] > ref_max ? in[i] : ref_max;
    ref_sum += in[i];
  }
  fpar_test_env_init(&e, THREADS);
  for (int rep = 0; rep < 3; rep++) {
    for (i = 0; i < BINS; i++)
      atomic_store(&hist[i], 0);
    atomic_store(&max, 0);
    atomic_store(&sum, 0);
    ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range3(gr[0], gr[1], gr[2]),
                                        fpar_range3(lr[0], lr[1], lr[2]),
                                        across_kernel, &a, &ev));
    fpar_test_wait_ok(ev);
    for (i = 0; i < BINS; i++)
      ck_assert_msg(atomic_load(&hist[i]) == ref[i], "bin %zu: %u, expected %u",
                    i, atomic_load(&hist[i]), ref[i]);
    ck_assert_uint_eq(atomic_load(&max), ref_max);
    ck_assert_uint_eq(atomic_load(&sum), ref_sum);
  }
  fpar_test_env_fini(&e);
  free(in);
}
END_TEST

static Suite *atomics_suite(void) {
  Suite *s = suite_create("atomics");
  TCase *tc = fpar_test_case("atomics");

  tcase_add_loop_test(tc, test_contention_inside_group, 0, 3);
  tcase_add_loop_test(tc, test_histogram_across_groups, 0, 3);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(atomics_suite());
}
