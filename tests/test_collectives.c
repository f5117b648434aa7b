/* SPDX-License-Identifier: MIT */
/* test_collectives.c - work-group collectives (<fiberpar/group.h>) in
 * scalar kernels on fibers and in phase kernels (loops, debug loops and
 * fibers): every operation and type against a plain C reference, bit for
 * bit, for group sizes 1 to 1024 and 3-D groups; divergence between
 * collectives, barriers and returns; misuse. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives_ref.h"
#include "testutil_phase.h"

/* ---- Every operation of a type, on fibers -------------------------------- */

#define COLL_KERNEL(T, t)                                                      \
  static void all_##t(fpar_item *it, void *p) {                                \
    const coll_args *a = p;                                                    \
    size_t g = fpar_global_linear_id(it), n = a->n;                            \
    T x = ((const T *)a->in)[g], *o = a->out;                                  \
    o[0 * n + g] = fpar_group_broadcast_##t(it, x, a->src);                    \
    o[1 * n + g] = fpar_group_reduce_add_##t(it, x);                           \
    o[2 * n + g] = fpar_group_reduce_min_##t(it, x);                           \
    o[3 * n + g] = fpar_group_reduce_max_##t(it, x);                           \
    o[4 * n + g] = fpar_group_scan_inclusive_add_##t(it, x);                   \
    o[5 * n + g] = fpar_group_scan_inclusive_min_##t(it, x);                   \
    o[6 * n + g] = fpar_group_scan_inclusive_max_##t(it, x);                   \
    o[7 * n + g] = fpar_group_scan_exclusive_add_##t(it, x);                   \
    o[8 * n + g] = fpar_group_scan_exclusive_min_##t(it, x);                   \
    o[9 * n + g] = fpar_group_scan_exclusive_max_##t(it, x);                   \
  }

/* The same as a phase kernel: each collective a phase boundary. */
#define COLL_PHASE_KERNEL(T, t)                                                \
  typedef struct phase_state_##t {                                             \
    T r;                                                                       \
  } phase_state_##t;                                                           \
  FPAR_PHASE_KERNEL(phase_##t, it, p, phase_state_##t, st) {                   \
    const coll_args *a = p;                                                    \
    size_t g = fpar_global_linear_id(it), n = a->n;                            \
    const T *in = a->in;                                                       \
    T *o = a->out;                                                             \
    FPAR_PHASE_BEGIN();                                                        \
    FPAR_PHASE_GROUP(st->r, it, broadcast_##t, in[g], a->src);                 \
    o[0 * n + g] = st->r;                                                      \
    FPAR_PHASE_GROUP(st->r, it, reduce_add_##t, in[g]);                        \
    o[1 * n + g] = st->r;                                                      \
    FPAR_PHASE_GROUP(st->r, it, reduce_min_##t, in[g]);                        \
    o[2 * n + g] = st->r;                                                      \
    FPAR_PHASE_GROUP(st->r, it, reduce_max_##t, in[g]);                        \
    o[3 * n + g] = st->r;                                                      \
    FPAR_PHASE_GROUP(st->r, it, scan_inclusive_add_##t, in[g]);                \
    o[4 * n + g] = st->r;                                                      \
    FPAR_PHASE_GROUP(st->r, it, scan_inclusive_min_##t, in[g]);                \
    o[5 * n + g] = st->r;                                                      \
    FPAR_PHASE_GROUP(st->r, it, scan_inclusive_max_##t, in[g]);                \
    o[6 * n + g] = st->r;                                                      \
    FPAR_PHASE_GROUP(st->r, it, scan_exclusive_add_##t, in[g]);                \
    o[7 * n + g] = st->r;                                                      \
    FPAR_PHASE_GROUP(st->r, it, scan_exclusive_min_##t, in[g]);                \
    o[8 * n + g] = st->r;                                                      \
    FPAR_PHASE_GROUP(st->r, it, scan_exclusive_max_##t, in[g]);                \
    o[9 * n + g] = st->r;                                                      \
    FPAR_PHASE_END();                                                          \
  }

/* Run the fiber kernel on `threads` workers and the phase kernel in every
 * mode for each shape; all must match the reference. */
#define COLL_TEST(T, t)                                                        \
  COLL_KERNEL(T, t)                                                            \
  COLL_PHASE_KERNEL(T, t)                                                      \
  START_TEST(test_all_##t) {                                                   \
    const coll_shape *s = &coll_shapes[_i];                                    \
    size_t n = coll_items(s);                                                  \
    T *in = malloc(n * sizeof *in);                                            \
    T *out = malloc(COLL_KINDS * n * sizeof *out);                             \
    T *want = malloc(COLL_KINDS * n * sizeof *want);                           \
    coll_args a = {in, out, n, coll_src(s)};                                   \
    fpar_test_env e;                                                           \
    fpar_event *ev;                                                            \
    char what[96];                                                             \
    coll_fill_##t(in, n);                                                      \
    coll_ref_##t(s, in, want);                                                 \
    for (unsigned threads = 1; threads <= 2; threads++) {                      \
      fpar_test_env_init(&e, threads);                                         \
      memset(out, 0xa5, COLL_KINDS *n * sizeof *out);                          \
      ck_assert_fpar_ok(fpar_parallel_for(e.q, coll_range(s->dims, s->g),      \
                                          coll_range(s->dims, s->l), all_##t,  \
                                          &a, &ev));                           \
      fpar_test_wait_ok(ev);                                                   \
      snprintf(what, sizeof what, #t " fibers, %u workers", threads);          \
      coll_compare(out, want, sizeof *out, n, what);                           \
      for (unsigned m = 0; m < NUM_MODES; m++) {                               \
        memset(out, 0xa5, COLL_KINDS *n * sizeof *out);                        \
        ck_assert_fpar_ok(submit(&e, &phase_##t, coll_range(s->dims, s->g),    \
                                 coll_range(s->dims, s->l), &a, modes[m],      \
                                 NULL, 0, &ev));                               \
        fpar_test_wait_ok(ev);                                                 \
        snprintf(what, sizeof what, #t " phase %s, %u workers", mode_names[m], \
                 threads);                                                     \
        coll_compare(out, want, sizeof *out, n, what);                         \
      }                                                                        \
      fpar_test_env_fini(&e);                                                  \
    }                                                                          \
    free(in), free(out), free(want);                                           \
  }                                                                            \
  END_TEST

COLL_TEST(int32_t, i32)
COLL_TEST(uint32_t, u32)
COLL_TEST(int64_t, i64)
COLL_TEST(uint64_t, u64)
COLL_TEST(float, f32)
COLL_TEST(double, f64)

/* ---- Other fiber modes --------------------------------------------------- */

/* Fibers that share one copied stack (room for 3 stacks per worker), and
 * fibers that keep their own floating-point state: the same results. */
START_TEST(test_fiber_modes) {
  const coll_shape *s = &coll_shapes[_i];
  size_t n = coll_items(s);
  float *in = malloc(n * sizeof *in);
  float *out = malloc(COLL_KINDS * n * sizeof *out);
  float *want = malloc(COLL_KINDS * n * sizeof *want);
  coll_args a = {in, out, n, coll_src(s)};

  coll_fill_f32(in, n);
  coll_ref_f32(s, in, want);
  for (int mode = 0; mode < 2; mode++) {
    fpar_runtime_opts o;
    fpar_runtime *rt;
    fpar_queue *q;
    fpar_event *ev;

    fpar_runtime_opts_init(&o);
    o.num_threads = 2;
    if (mode == 0)
      o.max_stacks = 3;
    else
      o.fpenv = FPAR_FPENV_ITEM;
    ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
    ck_assert_fpar_ok(fpar_queue_create(rt, 0, &q));
    memset(out, 0xa5, COLL_KINDS * n * sizeof *out);
    ck_assert_fpar_ok(fpar_parallel_for(q, coll_range(s->dims, s->g),
                                        coll_range(s->dims, s->l), all_f32, &a,
                                        &ev));
    fpar_test_wait_ok(ev);
    coll_compare(out, want, sizeof *out, n,
                 mode == 0 ? "f32, copied stacks" : "f32, own fpenv");
    fpar_queue_destroy(q);
    ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  }
  free(in), free(out), free(want);
}
END_TEST

/* ---- any and all --------------------------------------------------------- */

typedef struct pred_args {
  const int *pred;
  int *any, *all;
} pred_args;

static void any_all(fpar_item *it, void *p) {
  const pred_args *a = p;
  size_t g = fpar_global_linear_id(it);

  a->any[g] = fpar_group_any(it, a->pred[g]);
  a->all[g] = fpar_group_all(it, a->pred[g]);
}

typedef struct pred_state {
  int any;
} pred_state;

FPAR_PHASE_KERNEL(phase_any_all, it, p, pred_state, st) {
  const pred_args *a = p;
  size_t g = fpar_global_linear_id(it);

  FPAR_PHASE_BEGIN();
  FPAR_PHASE_GROUP(st->any, it, any, a->pred[g]);
  FPAR_PHASE_GROUP(a->all[g], it, all, a->pred[g]);
  a->any[g] = st->any;
  FPAR_PHASE_END();
}

/* Predicates per group: all 0, one set (the last work-item), all set but
 * one (the first), all set (any positive value counts). */
START_TEST(test_any_all) {
  const coll_shape *s = &coll_shapes[_i];
  size_t n = coll_items(s), gn = coll_group_items(s), groups = n / gn;
  size_t *ids = malloc(gn * sizeof *ids);
  int *pred = calloc(n, sizeof *pred), *any = malloc(n * sizeof *any);
  int *all = malloc(n * sizeof *all);
  int *want_any = malloc(n * sizeof *want_any);
  int *want_all = malloc(n * sizeof *want_all);
  pred_args a = {pred, any, all};
  fpar_test_env e;
  fpar_event *ev;

  for (size_t grp = 0; grp < groups; grp++) {
    unsigned pattern = grp % 4;
    int on = 0, every = 1;
    coll_group_members(s, grp, ids);
    for (size_t k = 0; k < gn; k++) {
      int v = pattern == 0   ? 0
              : pattern == 1 ? k == gn - 1
              : pattern == 2 ? (k != 0) * 3
                             : (int)(k + 1);
      pred[ids[k]] = v;
      on |= v != 0;
      every &= v != 0;
    }
    for (size_t k = 0; k < gn; k++)
      want_any[ids[k]] = on, want_all[ids[k]] = every;
  }
  fpar_test_env_init(&e, 2);
  memset(any, 0x55, n * sizeof *any);
  memset(all, 0x55, n * sizeof *all);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, coll_range(s->dims, s->g),
                                      coll_range(s->dims, s->l), any_all, &a,
                                      &ev));
  fpar_test_wait_ok(ev);
  ck_assert_mem_eq(any, want_any, n * sizeof *any);
  ck_assert_mem_eq(all, want_all, n * sizeof *all);
  for (unsigned m = 0; m < NUM_MODES; m++) {
    memset(any, 0x55, n * sizeof *any);
    memset(all, 0x55, n * sizeof *all);
    ck_assert_fpar_ok(submit(&e, &phase_any_all, coll_range(s->dims, s->g),
                             coll_range(s->dims, s->l), &a, modes[m], NULL, 0,
                             &ev));
    fpar_test_wait_ok(ev);
    ck_assert_mem_eq(any, want_any, n * sizeof *any);
    ck_assert_mem_eq(all, want_all, n * sizeof *all);
  }
  fpar_test_env_fini(&e);
  free(ids), free(pred), free(any), free(all), free(want_any), free(want_all);
}
END_TEST

/* ---- Mixed with barriers and local memory ------------------------------- */

/* Collectives between barriers and group-local memory, in a loop: the
 * result of one collective feeds the next (sum of prefix sums). */
typedef struct mixed_args {
  const int64_t *in;
  int64_t *out;
} mixed_args;

static void mixed(fpar_item *it, void *p) {
  const mixed_args *a = p;
  size_t g = fpar_global_id(it, 0), lid = fpar_local_id(it, 0);
  size_t L = fpar_local_range(it, 0);
  int64_t *tmp = fpar_group_local_memory(it, L * sizeof *tmp, 0);
  int64_t x = a->in[g];

  for (int round = 0; round < 3; round++) {
    int64_t pre = fpar_group_scan_exclusive_add_i64(it, x);
    tmp[lid] = pre;
    fpar_barrier(it);
    x = tmp[L - 1 - lid] + fpar_group_reduce_max_i64(it, pre);
    fpar_barrier(it);
  }
  a->out[g] = x;
}

START_TEST(test_mixed_with_barriers) {
  size_t L = 100, groups = 3, n = L * groups;
  int64_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
  int64_t *x = malloc(L * sizeof *x), *pre = malloc(L * sizeof *pre);
  mixed_args a = {in, out};
  fpar_test_env e;
  fpar_event *ev;

  for (size_t i = 0; i < n; i++)
    in[i] = (int64_t)(i * 37 % 101) - 50;
  fpar_test_env_init(&e, 2);
  ck_assert_fpar_ok(
      fpar_parallel_for(e.q, fpar_range1(n), fpar_range1(L), mixed, &a, &ev));
  fpar_test_wait_ok(ev);
  for (size_t grp = 0; grp < groups; grp++) {
    memcpy(x, in + grp * L, L * sizeof *x);
    for (int round = 0; round < 3; round++) {
      int64_t s = 0, mx = INT64_MIN;
      for (size_t i = 0; i < L; i++)
        pre[i] = s, s += x[i], mx = pre[i] > mx ? pre[i] : mx;
      for (size_t i = 0; i < L; i++)
        x[i] = pre[L - 1 - i] + mx;
    }
    for (size_t i = 0; i < L; i++)
      ck_assert_int_eq(out[grp * L + i], x[i]);
  }
  fpar_test_env_fini(&e);
  free(in), free(out), free(x), free(pre);
}
END_TEST

/* ---- Collectives of 4- and 8-byte types one after the other ------------- */

/* A scan's results wait in the slots until each work-item reads them; the
 * next collective, of the other size, must not overwrite them while
 * work-items after the first have yet to (a 4-byte scan then an 8-byte
 * reduction, an 8-byte scan then a 4-byte reduction). */
/* A factor that puts an int32_t's bits in the upper half of an int64_t. */
#define SIZES_WIDE ((int64_t)1 << 33)

typedef struct sizes_args {
  const int32_t *in;
  int32_t *scan32, *max32;
  int64_t *scan64;
  double *sum64;
} sizes_args;

static void sizes(fpar_item *it, void *p) {
  const sizes_args *a = p;
  size_t g = fpar_global_linear_id(it);
  int32_t x = a->in[g];

  a->scan32[g] = fpar_group_scan_inclusive_add_i32(it, x);
  a->sum64[g] = fpar_group_reduce_add_f64(it, 0.5 * x);
  a->scan64[g] = fpar_group_scan_exclusive_add_i64(it, (int64_t)x * SIZES_WIDE);
  a->max32[g] = fpar_group_reduce_max_i32(it, -x);
}

/* The same through the generic engine, fpar_group_collective(); any
 * return code but 0 is kept for the test to see. */
static _Atomic int sizes_generic_rc;

static void sizes_generic(fpar_item *it, void *p) {
  const sizes_args *a = p;
  size_t g = fpar_global_linear_id(it);
  int32_t x = a->in[g], neg = -x;
  double half = 0.5 * x;
  int64_t wide = (int64_t)x * SIZES_WIDE;
  int rc = 0;

  rc |= fpar_group_collective(
      it, FPAR_GROUP_OP(FPAR_GROUP_SCAN_INCLUSIVE_ADD, FPAR_GROUP_I32), &x,
      &a->scan32[g], 0);
  rc |= fpar_group_collective(
      it, FPAR_GROUP_OP(FPAR_GROUP_REDUCE_ADD, FPAR_GROUP_F64), &half,
      &a->sum64[g], 0);
  rc |= fpar_group_collective(
      it, FPAR_GROUP_OP(FPAR_GROUP_SCAN_EXCLUSIVE_ADD, FPAR_GROUP_I64), &wide,
      &a->scan64[g], 0);
  rc |= fpar_group_collective(
      it, FPAR_GROUP_OP(FPAR_GROUP_REDUCE_MAX, FPAR_GROUP_I32), &neg,
      &a->max32[g], 0);
  if (rc != 0)
    sizes_generic_rc = rc;
}

typedef struct sizes_state {
  int32_t s32;
  double d;
  int64_t s64;
} sizes_state;

FPAR_PHASE_KERNEL(phase_sizes, it, p, sizes_state, st) {
  const sizes_args *a = p;
  size_t g = fpar_global_linear_id(it);

  FPAR_PHASE_BEGIN();
  FPAR_PHASE_GROUP(st->s32, it, scan_inclusive_add_i32, a->in[g]);
  a->scan32[g] = st->s32;
  FPAR_PHASE_GROUP(st->d, it, reduce_add_f64, 0.5 * a->in[g]);
  a->sum64[g] = st->d;
  FPAR_PHASE_GROUP(st->s64, it, scan_exclusive_add_i64,
                   (int64_t)a->in[g] * SIZES_WIDE);
  a->scan64[g] = st->s64;
  FPAR_PHASE_GROUP(a->max32[g], it, reduce_max_i32, -a->in[g]);
  FPAR_PHASE_END();
}

static void sizes_check(const sizes_args *a, size_t L, size_t groups,
                        const char *what) {
  for (size_t grp = 0; grp < groups; grp++) {
    const int32_t *x = a->in + grp * L;
    int32_t s32 = 0, mx = INT32_MIN;
    int64_t s64 = 0;
    double sum = 0;

    for (size_t i = 0; i < L; i++)
      sum += 0.5 * x[i], mx = -x[i] > mx ? -x[i] : mx;
    for (size_t i = 0; i < L; i++) {
      size_t g = grp * L + i;

      s32 += x[i];
      ck_assert_msg(a->scan32[g] == s32, "%s: i32 scan of %zu: %d, want %d",
                    what, g, a->scan32[g], s32);
      ck_assert_msg(a->scan64[g] == s64, "%s: i64 scan of %zu: %lld, want %lld",
                    what, g, (long long)a->scan64[g], (long long)s64);
      s64 += (int64_t)x[i] * SIZES_WIDE;
      ck_assert_msg(a->sum64[g] == sum, "%s: f64 sum of %zu: %g, want %g", what,
                    g, a->sum64[g], sum);
      ck_assert_msg(a->max32[g] == mx, "%s: i32 max of %zu: %d, want %d", what,
                    g, a->max32[g], mx);
    }
  }
}

/* On fibers (the typed forms and the generic engine) and as phase
 * kernels in every mode, under each schedule (_i: forward, reverse), in
 * groups of 64 and 100. */
START_TEST(test_mixed_sizes) {
  static const char *const schedules[] = {"forward", "reverse"};
  static const size_t sizes_L[] = {64, 100};
  size_t groups = 3;

  ck_assert_int_eq(setenv("FIBERPAR_SCHEDULE", schedules[_i], 1), 0);
  for (size_t k = 0; k < 2; k++) {
    size_t L = sizes_L[k], n = L * groups;
    int32_t *in = malloc(n * sizeof *in);
    sizes_args a = {in, malloc(n * 4), malloc(n * 4), malloc(n * 8),
                    malloc(n * 8)};
    fpar_test_env e;
    fpar_event *ev;
    char what[96];

    for (size_t i = 0; i < n; i++)
      in[i] = (int32_t)(i * 7919 % 201) - 100;
    fpar_test_env_init(&e, 2);
    ck_assert_fpar_ok(
        fpar_parallel_for(e.q, fpar_range1(n), fpar_range1(L), sizes, &a, &ev));
    fpar_test_wait_ok(ev);
    snprintf(what, sizeof what, "fibers, L = %zu, %s", L, schedules[_i]);
    sizes_check(&a, L, groups, what);
    memset(a.scan32, 0xa5, n * 4);
    memset(a.scan64, 0xa5, n * 8);
    ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(n), fpar_range1(L),
                                        sizes_generic, &a, &ev));
    fpar_test_wait_ok(ev);
    ck_assert_int_eq(sizes_generic_rc, 0);
    snprintf(what, sizeof what, "fibers, fpar_group_collective(), L = %zu, %s",
             L, schedules[_i]);
    sizes_check(&a, L, groups, what);
    for (unsigned m = 0; m < NUM_MODES; m++) {
      memset(a.scan32, 0xa5, n * 4);
      memset(a.scan64, 0xa5, n * 8);
      ck_assert_fpar_ok(submit(&e, &phase_sizes, fpar_range1(n), fpar_range1(L),
                               &a, modes[m], NULL, 0, &ev));
      fpar_test_wait_ok(ev);
      snprintf(what, sizeof what, "phase %s, L = %zu, %s", mode_names[m], L,
               schedules[_i]);
      sizes_check(&a, L, groups, what);
    }
    fpar_test_env_fini(&e);
    free(in), free(a.scan32), free(a.max32), free(a.scan64), free(a.sum64);
  }
  ck_assert_int_eq(unsetenv("FIBERPAR_SCHEDULE"), 0);
}
END_TEST

/* ---- Floating-point determinism ----------------------------------------- */

/* A float sum whose value depends on the order of additions: 1e8 and -1e8
 * around small values.  Every run, on any number of workers, gives the
 * sequential sum in local-id order. */
static void fsum(fpar_item *it, void *p) {
  float **a = p;
  size_t g = fpar_global_id(it, 0);

  a[1][g] = fpar_group_reduce_add_f32(it, a[0][g]);
}

START_TEST(test_float_determinism) {
  size_t L = 256, groups = 8, n = L * groups;
  float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
  float *a[2] = {in, out};
  fpar_test_env e;

  for (size_t i = 0; i < n; i++)
    in[i] = i % 64 == 0 ? (i % 128 ? -1e8f : 1e8f) : 0.37f * (float)(i % 11);
  fpar_test_env_init(&e, 2);
  for (int rep = 0; rep < 5; rep++) {
    fpar_event *ev;
    ck_assert_fpar_ok(
        fpar_parallel_for(e.q, fpar_range1(n), fpar_range1(L), fsum, a, &ev));
    fpar_test_wait_ok(ev);
    for (size_t grp = 0; grp < groups; grp++) {
      float s = in[grp * L];
      for (size_t i = 1; i < L; i++)
        s += in[grp * L + i];
      for (size_t i = 0; i < L; i++)
        ck_assert_msg(memcmp(&out[grp * L + i], &s, sizeof s) == 0,
                      "group %zu: %a, sequential sum %a", grp,
                      (double)out[grp * L + i], (double)s);
    }
  }
  fpar_test_env_fini(&e);
  free(in), free(out);
}
END_TEST

/* fmin/fmax: a NaN loses to a number. */
static void fnan(fpar_item *it, void *p) {
  float **a = p;
  size_t g = fpar_global_id(it, 0);

  a[1][2 * g] = fpar_group_reduce_min_f32(it, a[0][g]);
  a[1][2 * g + 1] = fpar_group_reduce_max_f32(it, a[0][g]);
}

START_TEST(test_float_nan) {
  float in[8] = {NAN, 3, -2, NAN, 5, 1, NAN, 0}, out[16];
  float *a[2] = {in, out};
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(
      fpar_parallel_for(e.q, fpar_range1(8), fpar_range1(8), fnan, a, &ev));
  fpar_test_wait_ok(ev);
  for (int i = 0; i < 8; i++) {
    ck_assert(out[2 * i] == -2.0f);
    ck_assert(out[2 * i + 1] == 5.0f);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Divergence ---------------------------------------------------------- */

typedef enum diverge_case {
  COLL_VS_BARRIER,      /* odd work-items at a barrier */
  BARRIER_VS_COLL,      /* work-items from 3 on in the collective */
  COLL_VS_COLL,         /* work-items from 3 on another collective */
  COLL_VS_TYPE,         /* the same operation on another type */
  COLL_VS_UNNAMED,      /* an unnamed barrier (matches barriers only) */
  COLL_VS_RETURN_LAST,  /* the last work-item returns */
  RETURN_FIRST_VS_COLL, /* work-item 0 returns first */
  BROADCAST_RANGE,      /* a source beyond the group */
  BROADCAST_DIFFERENT   /* sources differ */
} diverge_case;

static void diverge(fpar_item *it, void *p) {
  const diverge_case *c = p;
  size_t lid = fpar_local_linear_id(it), L = fpar_local_range(it, 0);

  switch (*c) {
  case COLL_VS_BARRIER:
    if (lid % 2)
      fpar_barrier(it);
    else
      fpar_group_reduce_add_f32(it, 1.0f);
    break;
  case BARRIER_VS_COLL:
    if (lid < 3)
      fpar_barrier(it);
    else
      fpar_group_scan_inclusive_add_i32(it, 1);
    break;
  case COLL_VS_COLL:
    if (lid < 3)
      fpar_group_reduce_add_f32(it, 1.0f);
    else
      fpar_group_reduce_min_f32(it, 1.0f);
    break;
  case COLL_VS_TYPE:
    if (lid < 3)
      fpar_group_reduce_add_f32(it, 1.0f);
    else
      fpar_group_reduce_add_f64(it, 1.0);
    break;
  case COLL_VS_UNNAMED:
    if (lid < 3)
      fpar_group_any(it, 1);
    else
      (fpar_barrier)(it);
    break;
  case COLL_VS_RETURN_LAST:
    if (lid + 1 < L)
      fpar_group_reduce_max_u64(it, lid);
    break;
  case RETURN_FIRST_VS_COLL:
    if (lid != 0)
      fpar_group_reduce_max_u64(it, lid);
    break;
  case BROADCAST_RANGE:
    fpar_group_broadcast_i32(it, 1, L);
    break;
  case BROADCAST_DIFFERENT:
    fpar_group_broadcast_i32(it, 1, lid < 5 ? 2 : 3);
    break;
  }
}

static const struct {
  diverge_case c;
  int code;
  const char *what, *rule;
} diverge_cases[] = {
    {COLL_VS_BARRIER, FPAR_EBARRIER, "work-item 1 waits at the barrier at",
     "while work-item 0 waits at the collective fpar_group_reduce_add_f32"},
    {BARRIER_VS_COLL, FPAR_EBARRIER,
     "work-item 3 waits at the collective fpar_group_scan_inclusive_add_i32",
     "while work-items 0-2 wait at the barrier at"},
    {COLL_VS_COLL, FPAR_EBARRIER,
     "work-item 3 waits at the collective fpar_group_reduce_min_f32 while "
     "work-items 0-2 wait at the collective fpar_group_reduce_add_f32",
     NULL},
    {COLL_VS_TYPE, FPAR_EBARRIER,
     "work-item 3 waits at the collective fpar_group_reduce_add_f64 while "
     "work-items 0-2 wait at the collective fpar_group_reduce_add_f32",
     NULL},
    {COLL_VS_UNNAMED, FPAR_EBARRIER,
     "work-item 3 waits at the barrier at (unnamed call site) while "
     "work-items 0-2 wait at the collective fpar_group_any",
     NULL},
    {COLL_VS_RETURN_LAST, FPAR_EDIVERGENCE,
     "work-item 15 returned from the kernel while work-items 0-14 wait at the "
     "collective fpar_group_reduce_max_u64",
     NULL},
    /* Under racecheck (TSan) the group is fibers from its start, which
     * see the divergence from the collective's side. */
    {RETURN_FIRST_VS_COLL, FPAR_EDIVERGENCE,
     FPAR_TEST_TSAN
         ? "work-item 1 waits at the collective fpar_group_reduce_max_u64 but "
           "work-item 0 returned from the kernel without reaching it"
         : "work-item 1 reached the collective fpar_group_reduce_max_u64 after "
           "work-item 0 returned from the kernel without reaching it",
     NULL},
    {BROADCAST_RANGE, FPAR_EINVAL,
     "work-item 0 broadcasts from local id 16, beyond its group of 16 "
     "work-items (fpar_group_broadcast_i32)",
     NULL},
    {BROADCAST_DIFFERENT, FPAR_EINVAL,
     "work-item 5 broadcasts from local id 3 while the work-items before it "
     "broadcast from local id 2 (fpar_group_broadcast_i32)",
     NULL},
};

/* Each fault fails its launch with its code and message, and the runtime
 * then runs a correct collective. */
START_TEST(test_divergence) {
  diverge_case c = diverge_cases[_i].c;
  float *ok[2];
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(32), fpar_range1(16),
                                      diverge, &c, &ev));
  fpar_test_wait_fault(ev, diverge_cases[_i].code, diverge_cases[_i].what,
                       diverge_cases[_i].rule);
  ok[0] = calloc(64, sizeof(float));
  ok[1] = calloc(64, sizeof(float));
  for (int i = 0; i < 64; i++)
    ok[0][i] = (float)i;
  ck_assert_fpar_ok(
      fpar_parallel_for(e.q, fpar_range1(64), fpar_range1(32), fsum, ok, &ev));
  fpar_test_wait_ok(ev);
  ck_assert(ok[1][0] == 496.0f && ok[1][63] == 1520.0f);
  free(ok[0]), free(ok[1]);
  fpar_test_env_fini(&e);
}
END_TEST

/* A phase kernel whose work-items stop at a collective and at a barrier:
 * the same check as for two barriers, in every mode. */
typedef struct dstate {
  float r;
} dstate;

FPAR_PHASE_KERNEL(phase_diverge, it, p, dstate, st) {
  (void)p;
  FPAR_PHASE_BEGIN();
  if (fpar_local_id(it, 0) < 4) {
    FPAR_PHASE_GROUP(st->r, it, reduce_add_f32, 1.0f);
  } else {
    FPAR_PHASE_BARRIER();
  }
  FPAR_PHASE_END();
}

START_TEST(test_phase_divergence) {
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(submit(&e, &phase_diverge, fpar_range1(16), fpar_range1(8),
                           NULL, modes[_i], NULL, 0, &ev));
  fpar_test_wait_fault(ev, FPAR_EBARRIER, "work-item 4 waits at", NULL);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Misuse -------------------------------------------------------------- */

/* Outside a kernel: refused with FPAR_ENOTKERNEL (the lane forms' engine
 * returns NULL, the scalar forms' 0), the typed forms return 0. */
START_TEST(test_outside_kernel) {
  fpar_item it;
  float in = 2.0f, out = 7.0f;

  memset(&it, 0, sizeof it);
  it.lanes = 1;
  /* First, while this thread has no error yet: the lane forms' engine. */
  ck_assert_str_eq(fpar_last_error(), "");
  ck_assert_ptr_null(fpar_group_collective_at(
      &it, FPAR_GROUP_OP(FPAR_GROUP_REDUCE_ADD, FPAR_GROUP_F32), &in, 0));
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "no kernel"));
  ck_assert_fpar_err(fpar_group_collective(
                         &it,
                         FPAR_GROUP_OP(FPAR_GROUP_REDUCE_ADD, FPAR_GROUP_F32),
                         &in, &out, 0),
                     FPAR_ENOTKERNEL);
  ck_assert(out == 7.0f);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "no kernel"));
  ck_assert_uint_eq(
      fpar_group_collective_bits(
          &it, FPAR_GROUP_OP(FPAR_GROUP_REDUCE_ADD, FPAR_GROUP_I32), 5, 0),
      0);
  ck_assert(fpar_group_reduce_add_f32(&it, 2.0f) == 0.0f);
  ck_assert_int_eq(fpar_group_any(&it, 1), 0);
  ck_assert_fpar_err(
      fpar_group_phase_arrive(
          &it, FPAR_GROUP_OP(FPAR_GROUP_ANY, FPAR_GROUP_I32), &in, 0),
      FPAR_ENOTKERNEL);
  ck_assert_fpar_err(
      fpar_group_phase_result(
          &it, FPAR_GROUP_OP(FPAR_GROUP_ANY, FPAR_GROUP_I32), &out),
      FPAR_ENOTKERNEL);
}
END_TEST

/* An op code that is no FPAR_GROUP_OP fails the launch. */
static void bad_op(fpar_item *it, void *p) {
  int32_t x = 1, r;
  (void)p;
  fpar_group_collective(it, FPAR_GROUP_OP(FPAR_GROUP_ANY, FPAR_GROUP_F32), &x,
                        &r, 0);
}

START_TEST(test_bad_op) {
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(8), fpar_range1(4),
                                      bad_op, NULL, &ev));
  fpar_test_wait_fault(ev, FPAR_EINVAL, "is not an FPAR_GROUP_OP", NULL);
  fpar_test_env_fini(&e);
}
END_TEST

/* A collective called directly in a phase kernel run as loops. */
FPAR_PHASE_KERNEL(phase_direct, it, p, dstate, st) {
  (void)p;
  FPAR_PHASE_BEGIN();
  st->r = fpar_group_reduce_add_f32(it, 1.0f);
  FPAR_PHASE_END();
}

START_TEST(test_phase_direct) {
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(submit(&e, &phase_direct, fpar_range1(8), fpar_range1(4),
                           NULL, FPAR_PHASE_LOOPS, NULL, 0, &ev));
  if (FPAR_TEST_TSAN) {
    /* Racecheck (TSan) runs phase kernels as fibers, where the call is
     * allowed. */
    fpar_test_wait_ok(ev);
    fpar_test_env_fini(&e);
    return;
  }
  fpar_test_wait_fault(ev, FPAR_EINVAL,
                       "work-item 0 called fpar_group_reduce_add_f32() in a "
                       "phase kernel that runs as loops",
                       "FPAR_PHASE_GROUP(dst, it, reduce_add_f32, ...)");
  fpar_test_env_fini(&e);
}
END_TEST

/* In a scoped group function (which has no fpar_item of its own). */
static void scoped_fn(fpar_group *g, void *p) {
  fpar_item it;
  (void)g, (void)p;
  memset(&it, 0, sizeof it);
  it.lanes = 1;
  fpar_group_reduce_add_i32(&it, 1);
}

START_TEST(test_scoped) {
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(
      fpar_parallel(e.q, fpar_range1(2), fpar_range1(4), scoped_fn, NULL, &ev));
  fpar_test_wait_fault(ev, FPAR_ENOTKERNEL, "scoped or hierarchical", NULL);
  fpar_test_env_fini(&e);
}
END_TEST

int main(void) {
  Suite *s = suite_create("collectives");
  TCase *tc = fpar_test_case("types");
  TCase *f = fpar_test_case("faults");

  tcase_add_loop_test(tc, test_all_i32, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_all_u32, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_all_i64, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_all_u64, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_all_f32, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_all_f64, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_fiber_modes, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_any_all, 0, COLL_NSHAPES);
  tcase_add_test(tc, test_mixed_with_barriers);
  tcase_add_loop_test(tc, test_mixed_sizes, 0, 2);
  tcase_add_test(tc, test_float_determinism);
  tcase_add_test(tc, test_float_nan);
  suite_add_tcase(s, tc);
  tcase_add_loop_test(f, test_divergence, 0,
                      sizeof diverge_cases / sizeof *diverge_cases);
  tcase_add_loop_test(f, test_phase_divergence, 0, 3);
  tcase_add_test(f, test_outside_kernel);
  tcase_add_test(f, test_bad_op);
  tcase_add_test(f, test_phase_direct);
  tcase_add_test(f, test_scoped);
  suite_add_tcase(s, f);
  return fpar_test_run(s);
}
