/* SPDX-License-Identifier: MIT */
/* test_barrier.c - fpar_barrier: kernels whose work-items exchange data
 * through group-local memory, checked against serial computations.
 *
 * Every kernel here is legal: each work-item of a group reaches the same
 * barriers the same number of times.  The illegal cases are in
 * test_faults.c.  This file is also built against the ucontext switch
 * (tests/test_barrier_ucontext), where a switch costs a system call, so the
 * workloads stay at a few hundred thousand switches.
 */
#include <fenv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* A deterministic pseudo-random value for index i (splitmix64). */
static uint64_t test_value(uint64_t i) {
  uint64_t z = i + 0x9e3779b97f4a7c15u;

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* Launch kernel on the environment's queue and wait for it; a failed
 * launch fails the test with the launch's own message. */
static void run_launch(fpar_test_env *e, fpar_range global, fpar_range local,
                       fpar_kernel_fn kernel, void *args) {
  fpar_event *ev = NULL;
  const char *msg;
  int rc;

  ck_assert_fpar_ok(fpar_parallel_for(e->q, global, local, kernel, args, &ev));
  rc = fpar_event_wait(ev);
  msg = fpar_event_error(ev);
  ck_assert_msg(rc == 0, "launch failed with %s: %s", fpar_err_name(rc),
                msg != NULL ? msg : "(no message)");
  fpar_event_release(ev);
}

/* ---- Tree reduction ---------------------------------------------------- */

typedef struct reduce_args {
  const uint64_t *in;
  uint64_t *partial; /* one sum per work-group */
} reduce_args;

/* Sums the group's inputs in group-local memory.  Each step folds the upper
 * half of the n live values onto the lower half; for odd n the middle
 * element has no partner and stays for the next step. */
static void tree_reduce_kernel(fpar_item *it, void *p) {
  reduce_args *a = p;
  size_t n = fpar_local_range(it, 0), lid = fpar_local_id(it, 0);
  uint64_t *tmp =
      fpar_group_local_memory_for_overwrite(it, n * sizeof *tmp, 64);

  tmp[lid] = a->in[fpar_global_id(it, 0)];
  fpar_barrier(it);
  while (n > 1) {
    size_t half = (n + 1) / 2;
    if (lid + half < n)
      tmp[lid] += tmp[lid + half];
    fpar_barrier(it);
    n = half;
  }
  if (lid == 0)
    a->partial[fpar_group_id(it, 0)] = tmp[0];
}

/* Work-group sizes of the reduction test and how many groups each runs. */
static const struct {
  size_t group_size;
  size_t groups;
} reduce_shapes[] = {
    {2, 64}, {3, 64}, {64, 16}, {256, 8}, {1024, 4}, {4096, 2},
};

START_TEST(test_tree_reduction) {
  size_t wg = reduce_shapes[_i].group_size;
  size_t groups = reduce_shapes[_i].groups, n = wg * groups, i, g;
  uint64_t *in = malloc(n * sizeof *in);
  uint64_t *partial = calloc(groups, sizeof *partial);
  uint64_t total = 0, serial_total = 0;
  reduce_args args = {in, partial};
  fpar_test_env e;

  ck_assert_ptr_nonnull(in);
  ck_assert_ptr_nonnull(partial);
  for (i = 0; i < n; i++)
    in[i] = test_value(i) >> 16;
  fpar_test_env_init(&e, 2);
  run_launch(&e, fpar_range1(n), fpar_range1(wg), tree_reduce_kernel, &args);
  for (g = 0; g < groups; g++) {
    uint64_t serial = 0;
    for (i = g * wg; i < (g + 1) * wg; i++)
      serial += in[i];
    ck_assert_msg(partial[g] == serial,
                  "group size %zu, group %zu: sum %llu, serial %llu", wg, g,
                  (unsigned long long)partial[g], (unsigned long long)serial);
    total += partial[g];
    serial_total += serial;
  }
  ck_assert_uint_eq(total, serial_total);
  fpar_test_env_fini(&e);
  free(in);
  free(partial);
}
END_TEST

/* Fibers outlive their group: a worker parks them when their work-item
 * returns and resumes them for the next group's work-items.  Groups of
 * shrinking and growing sizes, launches in between, a failed launch
 * (whose fibers stop mid-kernel) and barrier-free groups must all leave
 * the next reduction right. */
static void divergent_kernel(fpar_item *it, void *p) {
  (void)p;
  if (fpar_local_id(it, 0) != 7)
    fpar_barrier(it);
}

static void check_reduction(fpar_test_env *e, size_t wg, size_t groups) {
  size_t n = wg * groups, i, g;
  uint64_t *in = malloc(n * sizeof *in), *partial = calloc(groups, 8);
  reduce_args args = {in, partial};

  ck_assert_ptr_nonnull(in);
  ck_assert_ptr_nonnull(partial);
  for (i = 0; i < n; i++)
    in[i] = test_value(i + wg) >> 16;
  run_launch(e, fpar_range1(n), fpar_range1(wg), tree_reduce_kernel, &args);
  for (g = 0; g < groups; g++) {
    uint64_t serial = 0;
    for (i = g * wg; i < (g + 1) * wg; i++)
      serial += in[i];
    ck_assert_msg(partial[g] == serial, "group size %zu, group %zu", wg, g);
  }
  free(in);
  free(partial);
}

START_TEST(test_fibers_reused_across_groups) {
  static const size_t sizes[] = {256, 16, 300, 2, 1024, 64, 256};
  fpar_test_env e;
  fpar_event *ev;
  size_t k;

  fpar_test_env_init(&e, 2);
  for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    check_reduction(&e, sizes[k], 6);
    if (k == 2) {
      ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(64), fpar_range1(32),
                                          divergent_kernel, NULL, &ev));
      ck_assert_int_eq(fpar_event_wait(ev), FPAR_EDIVERGENCE);
      fpar_event_release(ev);
    }
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Many barriers ----------------------------------------------------- */

#define EXCHANGE_GROUP 32
#define EXCHANGE_GROUPS 4
#define EXCHANGE_ITERATIONS 1000

typedef struct exchange_args {
  const uint64_t *in;
  uint64_t *out;
} exchange_args;

/* One step of the neighbour exchange: what work-item lid makes of the value
 * its right neighbour held. */
static uint64_t exchange_step(uint64_t neighbour, size_t lid, size_t iter) {
  return neighbour * 0x9e3779b97f4a7c15u + lid + 7 * iter;
}

/* Each iteration passes every value one work-item to the left through
 * group-local memory: two barriers per iteration. */
static void neighbour_exchange_kernel(fpar_item *it, void *p) {
  exchange_args *a = p;
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0), iter;
  uint64_t *tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);
  uint64_t v = a->in[fpar_global_id(it, 0)];

  for (iter = 0; iter < EXCHANGE_ITERATIONS; iter++) {
    tmp[lid] = v;
    fpar_barrier(it);
    v = exchange_step(tmp[(lid + 1) % n], lid, iter);
    fpar_barrier(it);
  }
  a->out[fpar_global_id(it, 0)] = v;
}

START_TEST(test_neighbour_exchange_many_barriers) {
  enum { N = EXCHANGE_GROUP * EXCHANGE_GROUPS };
  uint64_t in[N], out[N], cur[EXCHANGE_GROUP], next[EXCHANGE_GROUP];
  exchange_args args = {in, out};
  fpar_test_env e;
  size_t g, lid, iter;

  for (lid = 0; lid < N; lid++)
    in[lid] = test_value(lid);
  memset(out, 0, sizeof out);
  fpar_test_env_init(&e, 2);
  run_launch(&e, fpar_range1(N), fpar_range1(EXCHANGE_GROUP),
             neighbour_exchange_kernel, &args);
  /* The same exchange, simulated one group at a time. */
  for (g = 0; g < EXCHANGE_GROUPS; g++) {
    memcpy(cur, &in[g * EXCHANGE_GROUP], sizeof cur);
    for (iter = 0; iter < EXCHANGE_ITERATIONS; iter++) {
      for (lid = 0; lid < EXCHANGE_GROUP; lid++)
        next[lid] = exchange_step(cur[(lid + 1) % EXCHANGE_GROUP], lid, iter);
      memcpy(cur, next, sizeof cur);
    }
    for (lid = 0; lid < EXCHANGE_GROUP; lid++)
      ck_assert_msg(out[g * EXCHANGE_GROUP + lid] == cur[lid],
                    "group %zu, work-item %zu differs from the simulation", g,
                    lid);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Multi-dimensional groups ------------------------------------------ */

typedef struct transpose_args {
  const uint32_t *in; /* X x Y x Z, x fastest */
  uint32_t *out;      /* Z x Y x X, z fastest */
} transpose_args;

/* Swaps dimensions 0 and 2 through a tile in group-local memory.  Work-item
 * l stores its element at tile slot l, then writes the element that belongs
 * at the l-th position of the transposed tile, which another work-item
 * loaded.  A 2-D launch (Z = 1) is an ordinary matrix transpose. */
static void transpose_tile_kernel(fpar_item *it, void *p) {
  transpose_args *a = p;
  size_t lx = fpar_local_range(it, 0), ly = fpar_local_range(it, 1);
  size_t lz = fpar_local_range(it, 2);
  size_t ny = fpar_global_range(it, 1), nz = fpar_global_range(it, 2);
  size_t lid = fpar_local_linear_id(it), ox, oy, oz, x, y, z;
  uint32_t *tile = fpar_group_local_memory(it, lx * ly * lz * sizeof *tile, 0);

  tile[lid] = a->in[fpar_global_linear_id(it)];
  fpar_barrier(it);
  oz = lid % lz;
  oy = lid / lz % ly;
  ox = lid / (lz * ly);
  x = fpar_group_id(it, 0) * lx + ox;
  y = fpar_group_id(it, 1) * ly + oy;
  z = fpar_group_id(it, 2) * lz + oz;
  a->out[z + nz * (y + ny * x)] = tile[ox + lx * (oy + ly * oz)];
}

/* Transposes an X x Y x Z array in groups of the given local range and
 * checks out[x][y][z] == in[z][y][x]. */
static void check_transpose(fpar_range global, fpar_range local) {
  size_t nx = global.size[0], ny = global.size[1], nz = global.size[2];
  size_t n = nx * ny * nz, i, x, y, z;
  uint32_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
  transpose_args args = {in, out};
  fpar_test_env e;

  ck_assert_ptr_nonnull(in);
  ck_assert_ptr_nonnull(out);
  for (i = 0; i < n; i++) {
    in[i] = (uint32_t)(i * 2654435761u);
    out[i] = 0xdeadbeef;
  }
  fpar_test_env_init(&e, 2);
  run_launch(&e, global, local, transpose_tile_kernel, &args);
  for (z = 0; z < nz; z++)
    for (y = 0; y < ny; y++)
      for (x = 0; x < nx; x++)
        ck_assert_msg(out[z + nz * (y + ny * x)] == in[x + nx * (y + ny * z)],
                      "element (%zu,%zu,%zu) was not transposed", x, y, z);
  fpar_test_env_fini(&e);
  free(in);
  free(out);
}

START_TEST(test_transpose_2d_groups) {
  check_transpose(fpar_range2(32, 16), fpar_range2(8, 4));
}
END_TEST

START_TEST(test_transpose_3d_groups) {
  check_transpose(fpar_range3(16, 8, 4), fpar_range3(8, 4, 2));
}
END_TEST

/* ---- Degenerate and structural cases ----------------------------------- */

typedef struct map_args {
  const uint64_t *in;
  uint64_t *out;
} map_args;

/* Barriers in a group of one work-item: nothing to wait for. */
static void single_item_group_kernel(fpar_item *it, void *p) {
  map_args *a = p;
  uint64_t *slot = fpar_group_local_memory(it, sizeof *slot, 0);
  size_t gid = fpar_global_id(it, 0);

  *slot = a->in[gid];
  fpar_barrier(it);
  *slot = *slot * 3 + 1;
  fpar_barrier(it);
  fpar_barrier(it);
  a->out[gid] = *slot;
}

START_TEST(test_groups_of_one_item) {
  enum { N = 64 };
  uint64_t in[N], out[N];
  map_args args = {in, out};
  fpar_test_env e;
  size_t i;

  for (i = 0; i < N; i++)
    in[i] = test_value(i);
  fpar_test_env_init(&e, 2);
  run_launch(&e, fpar_range1(N), fpar_range1(1), single_item_group_kernel,
             &args);
  for (i = 0; i < N; i++)
    ck_assert_uint_eq(out[i], in[i] * 3 + 1);
  fpar_test_env_fini(&e);
}
END_TEST

#define ROTATE_GROUP 16
#define ROTATE_STEPS 5

/* Rotates the group's values one work-item to the left.  The barriers are
 * in this function, not in the kernel: every work-item calls it from the
 * same call site, so they all meet at the same barriers. */
static __attribute__((noinline)) uint64_t
rotate_left(fpar_item *it, uint64_t *tmp, uint64_t v) {
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0);

  tmp[lid] = v;
  fpar_barrier(it);
  v = tmp[(lid + 1) % n];
  fpar_barrier(it);
  return v;
}

static void rotate_in_helper_kernel(fpar_item *it, void *p) {
  map_args *a = p;
  size_t n = fpar_local_range(it, 0), step;
  uint64_t *tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);
  uint64_t v = a->in[fpar_global_id(it, 0)];

  for (step = 0; step < ROTATE_STEPS; step++)
    v = rotate_left(it, tmp, v);
  a->out[fpar_global_id(it, 0)] = v;
}

START_TEST(test_barrier_in_helper_function) {
  enum { N = 4 * ROTATE_GROUP };
  uint64_t in[N], out[N];
  map_args args = {in, out};
  fpar_test_env e;
  size_t i;

  for (i = 0; i < N; i++)
    in[i] = test_value(i);
  fpar_test_env_init(&e, 2);
  run_launch(&e, fpar_range1(N), fpar_range1(ROTATE_GROUP),
             rotate_in_helper_kernel, &args);
  for (i = 0; i < N; i++) {
    size_t base = i / ROTATE_GROUP * ROTATE_GROUP;
    size_t src = base + (i - base + ROTATE_STEPS) % ROTATE_GROUP;
    ck_assert_msg(out[i] == in[src], "work-item %zu holds the wrong value", i);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* Odd groups reverse their values through group-local memory (with
 * barriers); even groups only scale theirs (without).  The condition is
 * the same for all work-items of a group, so this is legal. */
static void barrier_in_odd_groups_kernel(fpar_item *it, void *p) {
  map_args *a = p;
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0);
  size_t gid = fpar_global_id(it, 0);
  uint64_t *tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);

  if (fpar_group_id(it, 0) % 2) {
    tmp[lid] = a->in[gid];
    fpar_barrier(it);
    a->out[gid] = tmp[n - 1 - lid];
  } else {
    a->out[gid] = a->in[gid] * 5;
  }
}

START_TEST(test_barrier_in_some_groups) {
  enum { L = 64, N = 16 * L };
  uint64_t in[N], out[N];
  map_args args = {in, out};
  fpar_test_env e;
  size_t i;

  for (i = 0; i < N; i++)
    in[i] = test_value(i);
  fpar_test_env_init(&e, 2);
  run_launch(&e, fpar_range1(N), fpar_range1(L), barrier_in_odd_groups_kernel,
             &args);
  for (i = 0; i < N; i++) {
    size_t g = i / L, lid = i % L;
    uint64_t want = g % 2 ? in[g * L + L - 1 - lid] : in[i] * 5;
    ck_assert_msg(out[i] == want, "work-item %zu of group %zu is wrong", lid,
                  g);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Reuse across launches --------------------------------------------- */

typedef struct reverse_args {
  const uint64_t *in;
  uint64_t *out;
  uint64_t salt; /* differs per launch */
} reverse_args;

static void reverse_in_group_kernel(fpar_item *it, void *p) {
  reverse_args *a = p;
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0);
  size_t gid = fpar_global_id(it, 0);
  uint64_t *tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);

  tmp[lid] = a->in[gid] ^ a->salt;
  fpar_barrier(it);
  a->out[gid] = tmp[n - 1 - lid];
}

START_TEST(test_fiber_stacks_reused_across_launches) {
  enum { LAUNCHES = 200, MAX_L = 128, N = 4 * MAX_L };
  static const size_t group_sizes[] = {16, 64, 128};
  uint64_t in[N], out[N];
  reverse_args args = {in, out, 0};
  fpar_test_env e;
  size_t launch, i;

  for (i = 0; i < N; i++)
    in[i] = test_value(i);
  fpar_test_env_init(&e, 2);
  for (launch = 0; launch < LAUNCHES; launch++) {
    size_t l = group_sizes[launch % 3];
    args.salt = test_value(1000 + launch);
    memset(out, 0, sizeof out);
    run_launch(&e, fpar_range1(N), fpar_range1(l), reverse_in_group_kernel,
               &args);
    for (i = 0; i < N; i++) {
      size_t base = i / l * l;
      ck_assert_msg(out[i] == (in[base + l - 1 - (i - base)] ^ args.salt),
                    "launch %zu (group size %zu): work-item %zu is wrong",
                    launch, l, i);
    }
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Floating-point control state -------------------------------------- */

typedef struct rounding_args {
  int *mode_kept; /* per work-item: its rounding mode survived barriers */
  float *third;   /* per work-item: 1/3 computed after the barrier */
} rounding_args;

/* 1.0f / 3.0f in the current rounding mode; volatile operands keep the
 * compiler from folding the division at compile time. */
static float third_in_current_mode(void) {
  volatile float one = 1.0f, three = 3.0f;

  return one / three;
}

static float third_rounded(int mode) {
  float r;

  ck_assert_int_eq(fesetround(mode), 0);
  r = third_in_current_mode();
  ck_assert_int_eq(fesetround(FE_TONEAREST), 0);
  return r;
}

/* Odd work-items round up and even ones down; every fiber must keep its
 * own mode across the switches of two barriers. */
static void rounding_per_item_kernel(fpar_item *it, void *p) {
  rounding_args *a = p;
  size_t gid = fpar_global_id(it, 0);
  int mode = fpar_local_id(it, 0) % 2 ? FE_UPWARD : FE_DOWNWARD;
  int kept;

  fesetround(mode);
  fpar_barrier(it);
  kept = fegetround() == mode;
  a->third[gid] = third_in_current_mode();
  fpar_barrier(it);
  a->mode_kept[gid] = kept && fegetround() == mode;
  fesetround(FE_TONEAREST);
}

/* With FPAR_FPENV_ITEM, every fiber keeps its own mode. */
START_TEST(test_rounding_mode_per_fiber) {
  enum { N = 64, L = 16 };
  int mode_kept[N];
  float third[N];
  rounding_args args = {mode_kept, third};
  float up = third_rounded(FE_UPWARD), down = third_rounded(FE_DOWNWARD);
  fpar_test_env e;
  size_t i;

  fpar_runtime_opts o;

  /* 1/3 is inexact, so the two directed roundings differ. */
  ck_assert(up > down);
  fpar_runtime_opts_init(&o);
  o.num_threads = 2;
  o.fpenv = FPAR_FPENV_ITEM;
  ck_assert_fpar_ok(fpar_runtime_create(&e.rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(e.rt, 0, &e.q));
  run_launch(&e, fpar_range1(N), fpar_range1(L), rounding_per_item_kernel,
             &args);
  for (i = 0; i < N; i++) {
    ck_assert_msg(mode_kept[i], "work-item %zu lost its rounding mode", i);
    ck_assert_msg(third[i] == (i % 2 ? up : down),
                  "work-item %zu computed 1/3 = %a, expected %a", i,
                  (double)third[i], (double)(i % 2 ? up : down));
  }
  ck_assert_int_eq(fegetround(), FE_TONEAREST);
  fpar_test_env_fini(&e);
}
END_TEST

/* By default work-items share the state: a kernel that leaves it changed
 * at a barrier, or at its end, fails the launch instead of computing the
 * other work-items' results in its rounding mode. */
static void rounding_left_at_barrier_kernel(fpar_item *it, void *p) {
  (void)p;
  if (fpar_local_id(it, 0) == 5)
    fesetround(FE_UPWARD);
  fpar_barrier(it);
  fesetround(FE_TONEAREST);
}

static void rounding_left_at_end_kernel(fpar_item *it, void *p) {
  (void)p;
  if (fpar_local_id(it, 0) == 5)
    fesetround(FE_DOWNWARD);
}

/* Setting a mode and restoring it before the barrier is fine. */
static void rounding_restored_kernel(fpar_item *it, void *p) {
  rounding_args *a = p;
  size_t gid = fpar_global_id(it, 0);

  fesetround(FE_UPWARD);
  a->third[gid] = third_in_current_mode();
  fesetround(FE_TONEAREST);
  fpar_barrier(it);
  a->mode_kept[gid] = fegetround() == FE_TONEAREST;
}

START_TEST(test_shared_rounding_mode_checked) {
  enum { N = 64, L = 16 };
  int mode_kept[N];
  float third[N];
  rounding_args args = {mode_kept, third};
  float up = third_rounded(FE_UPWARD);
  fpar_test_env e;
  fpar_event *ev;
  size_t i;

  fpar_test_env_init(&e, 2);
  /* The ucontext switch gives every fiber its own state (swapcontext
   * carries it): nothing leaks from fiber to fiber there. */
  if (!FPAR_TEST_UCONTEXT) {
    ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N), fpar_range1(L),
                                        rounding_left_at_barrier_kernel, NULL,
                                        &ev));
    fpar_test_wait_fault(ev, FPAR_EFPENV, "the barrier at", "FIBERPAR_FPENV");
  }
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N), fpar_range1(L),
                                      rounding_left_at_end_kernel, NULL, &ev));
  fpar_test_wait_fault(ev, FPAR_EFPENV, "the end of the group", NULL);
  run_launch(&e, fpar_range1(N), fpar_range1(L), rounding_restored_kernel,
             &args);
  for (i = 0; i < N; i++) {
    ck_assert(mode_kept[i]);
    ck_assert(third[i] == up);
  }
  ck_assert_int_eq(fegetround(), FE_TONEAREST);
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *barrier_suite(void) {
  Suite *s = suite_create("barrier");
  TCase *tc;

  tc = fpar_test_case("reduction");
  tcase_add_test(tc, test_fibers_reused_across_groups);
  tcase_add_loop_test(tc, test_tree_reduction, 0,
                      sizeof reduce_shapes / sizeof reduce_shapes[0]);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("many_barriers");
  tcase_add_test(tc, test_neighbour_exchange_many_barriers);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("multi_dimensional");
  tcase_add_test(tc, test_transpose_2d_groups);
  tcase_add_test(tc, test_transpose_3d_groups);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("structure");
  tcase_add_test(tc, test_groups_of_one_item);
  tcase_add_test(tc, test_barrier_in_helper_function);
  tcase_add_test(tc, test_barrier_in_some_groups);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("reuse");
  tcase_add_test(tc, test_fiber_stacks_reused_across_launches);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("fp_state");
  tcase_add_test(tc, test_rounding_mode_per_fiber);
  tcase_add_test(tc, test_shared_rounding_mode_checked);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(barrier_suite());
}
