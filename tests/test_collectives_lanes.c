/* SPDX-License-Identifier: MIT */
/* test_collectives_lanes.c - work-group collectives of lane kernels
 * (<fiberpar/group_lanes.h>): every operation on vf32, vf64, vi32 and vu32
 * in FPAR_LANE_KERNEL kernels and FPAR_PHASE_LANE_KERNEL kernels (loops,
 * debug loops, fibers), against the same plain C reference as the scalar
 * forms, bit for bit; any and all on masks; divergence.
 *
 * Built twice: at the machine's width (-march=native) and forced to one
 * lane (tests/test_collectives_lanes_scalar). */
#include <fiberpar/simd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives_ref.h"
#include "testutil_phase.h"

#define W FPAR_SIMD_WIDTH

/* Load the active lanes of the call from in[g...], store vector results
 * and uniform results of the call's lanes. */
#define COLL_LANE_IO(V, E)                                                     \
  static inline V load_##V(const E *in, const fpar_lanes *lk) {                \
    V v = (V){0};                                                              \
    for (unsigned i = 0; i < lk->active; i++)                                  \
      v[i] = in[i];                                                            \
    return v;                                                                  \
  }                                                                            \
  static inline void store_##V(E *out, V v, const fpar_lanes *lk) {            \
    for (unsigned i = 0; i < lk->active; i++)                                  \
      out[i] = v[i];                                                           \
  }                                                                            \
  static inline void fill_##V(E *out, E x, const fpar_lanes *lk) {             \
    for (unsigned i = 0; i < lk->active; i++)                                  \
      out[i] = x;                                                              \
  }

COLL_LANE_IO(fpar_vf32, float)
COLL_LANE_IO(fpar_vf64, double)
COLL_LANE_IO(fpar_vi32, int32_t)
COLL_LANE_IO(fpar_vu32, uint32_t)

#define COLL_LANE_KERNEL(V, E, t, vt)                                          \
  FPAR_LANE_KERNEL(lanes_##t, lk, p) {                                         \
    const coll_args *a = p;                                                    \
    size_t g = fpar_global_linear_id(lk->it), n = a->n;                        \
    E *o = a->out;                                                             \
    V x = load_##V((const E *)a->in + g, lk);                                  \
    fill_##V(o + 0 * n + g, fpar_group_broadcast_##vt(lk, x, a->src), lk);     \
    fill_##V(o + 1 * n + g, fpar_group_reduce_add_##vt(lk, x), lk);            \
    fill_##V(o + 2 * n + g, fpar_group_reduce_min_##vt(lk, x), lk);            \
    fill_##V(o + 3 * n + g, fpar_group_reduce_max_##vt(lk, x), lk);            \
    store_##V(o + 4 * n + g, fpar_group_scan_inclusive_add_##vt(lk, x), lk);   \
    store_##V(o + 5 * n + g, fpar_group_scan_inclusive_min_##vt(lk, x), lk);   \
    store_##V(o + 6 * n + g, fpar_group_scan_inclusive_max_##vt(lk, x), lk);   \
    store_##V(o + 7 * n + g, fpar_group_scan_exclusive_add_##vt(lk, x), lk);   \
    store_##V(o + 8 * n + g, fpar_group_scan_exclusive_min_##vt(lk, x), lk);   \
    store_##V(o + 9 * n + g, fpar_group_scan_exclusive_max_##vt(lk, x), lk);   \
  }                                                                            \
  typedef struct lane_state_##t {                                              \
    V v;                                                                       \
    E e;                                                                       \
  } lane_state_##t;                                                            \
  FPAR_PHASE_LANE_KERNEL(phase_lanes_##t, lk, p, lane_state_##t, st) {         \
    const coll_args *a = p;                                                    \
    size_t g = fpar_global_linear_id(lk->it), n = a->n;                        \
    const E *in = (const E *)a->in + g;                                        \
    E *o = a->out;                                                             \
    FPAR_PHASE_BEGIN();                                                        \
    FPAR_PHASE_GROUP(st->e, lk, broadcast_##vt, load_##V(in, lk), a->src);     \
    fill_##V(o + 0 * n + g, st->e, lk);                                        \
    FPAR_PHASE_GROUP(st->e, lk, reduce_add_##vt, load_##V(in, lk));            \
    fill_##V(o + 1 * n + g, st->e, lk);                                        \
    FPAR_PHASE_GROUP(st->e, lk, reduce_min_##vt, load_##V(in, lk));            \
    fill_##V(o + 2 * n + g, st->e, lk);                                        \
    FPAR_PHASE_GROUP(st->e, lk, reduce_max_##vt, load_##V(in, lk));            \
    fill_##V(o + 3 * n + g, st->e, lk);                                        \
    FPAR_PHASE_GROUP(st->v, lk, scan_inclusive_add_##vt, load_##V(in, lk));    \
    store_##V(o + 4 * n + g, st->v, lk);                                       \
    FPAR_PHASE_GROUP(st->v, lk, scan_inclusive_min_##vt, load_##V(in, lk));    \
    store_##V(o + 5 * n + g, st->v, lk);                                       \
    FPAR_PHASE_GROUP(st->v, lk, scan_inclusive_max_##vt, load_##V(in, lk));    \
    store_##V(o + 6 * n + g, st->v, lk);                                       \
    FPAR_PHASE_GROUP(st->v, lk, scan_exclusive_add_##vt, load_##V(in, lk));    \
    store_##V(o + 7 * n + g, st->v, lk);                                       \
    FPAR_PHASE_GROUP(st->v, lk, scan_exclusive_min_##vt, load_##V(in, lk));    \
    store_##V(o + 8 * n + g, st->v, lk);                                       \
    FPAR_PHASE_GROUP(st->v, lk, scan_exclusive_max_##vt, load_##V(in, lk));    \
    store_##V(o + 9 * n + g, st->v, lk);                                       \
    FPAR_PHASE_END();                                                          \
  }                                                                            \
  START_TEST(test_lanes_##t) {                                                 \
    const coll_shape *s = &coll_shapes[_i];                                    \
    size_t n = coll_items(s);                                                  \
    E *in = malloc(n * sizeof *in);                                            \
    E *out = malloc(COLL_KINDS * n * sizeof *out);                             \
    E *want = malloc(COLL_KINDS * n * sizeof *want);                           \
    coll_args a = {in, out, n, coll_src(s)};                                   \
    fpar_test_env e;                                                           \
    fpar_event *ev;                                                            \
    char what[96];                                                             \
    coll_fill_##t(in, n);                                                      \
    coll_ref_##t(s, in, want);                                                 \
    fpar_test_env_init(&e, 2);                                                 \
    memset(out, 0xa5, COLL_KINDS *n * sizeof *out);                            \
    ck_assert_fpar_ok(fpar_parallel_for_kernel(e.q, coll_range(s->dims, s->g), \
                                               coll_range(s->dims, s->l),      \
                                               &lanes_##t, &a, &ev));          \
    fpar_test_wait_ok(ev);                                                     \
    snprintf(what, sizeof what, #vt " lanes (W = %d)", W);                     \
    coll_compare(out, want, sizeof *out, n, what);                             \
    for (unsigned m = 0; m < 3; m++) {                                         \
      memset(out, 0xa5, COLL_KINDS *n * sizeof *out);                          \
      ck_assert_fpar_ok(                                                       \
          submit(&e, &phase_lanes_##t, coll_range(s->dims, s->g),              \
                 coll_range(s->dims, s->l), &a, modes[m], NULL, 0, &ev));      \
      fpar_test_wait_ok(ev);                                                   \
      snprintf(what, sizeof what, #vt " phase lanes %s (W = %d)",              \
               mode_names[m], W);                                              \
      coll_compare(out, want, sizeof *out, n, what);                           \
    }                                                                          \
    fpar_test_env_fini(&e);                                                    \
    free(in), free(out), free(want);                                           \
  }                                                                            \
  END_TEST

COLL_LANE_KERNEL(fpar_vf32, float, f32, vf32)
COLL_LANE_KERNEL(fpar_vf64, double, f64, vf64)
COLL_LANE_KERNEL(fpar_vi32, int32_t, i32, vi32)
COLL_LANE_KERNEL(fpar_vu32, uint32_t, u32, vu32)

/* ---- Collectives of 4- and 8-byte types one after the other ------------- */

/* A scan's results wait in the slots until each call reads them: the next
 * collective, of the other size, must not overwrite them (test_collectives
 * has the scalar forms). */
typedef struct sizes_args {
  const int32_t *in32;
  const double *in64;
  int32_t *scan32, *max32;
  double *scan64, *sum64;
} sizes_args;

FPAR_LANE_KERNEL(lanes_sizes, lk, p) {
  const sizes_args *a = p;
  size_t g = fpar_global_linear_id(lk->it);
  fpar_vi32 x = load_fpar_vi32(a->in32 + g, lk);
  fpar_vf64 d = load_fpar_vf64(a->in64 + g, lk);

  store_fpar_vi32(a->scan32 + g, fpar_group_scan_inclusive_add_vi32(lk, x), lk);
  fill_fpar_vf64(a->sum64 + g, fpar_group_reduce_add_vf64(lk, d), lk);
  store_fpar_vf64(a->scan64 + g, fpar_group_scan_exclusive_add_vf64(lk, d), lk);
  fill_fpar_vi32(a->max32 + g, fpar_group_reduce_max_vi32(lk, -x), lk);
}

typedef struct sizes_state {
  fpar_vi32 s32;
  fpar_vf64 s64;
  double d;
  int32_t m;
} sizes_state;

FPAR_PHASE_LANE_KERNEL(phase_lanes_sizes, lk, p, sizes_state, st) {
  const sizes_args *a = p;
  size_t g = fpar_global_linear_id(lk->it);

  FPAR_PHASE_BEGIN();
  FPAR_PHASE_GROUP(st->s32, lk, scan_inclusive_add_vi32,
                   load_fpar_vi32(a->in32 + g, lk));
  store_fpar_vi32(a->scan32 + g, st->s32, lk);
  FPAR_PHASE_GROUP(st->d, lk, reduce_add_vf64, load_fpar_vf64(a->in64 + g, lk));
  fill_fpar_vf64(a->sum64 + g, st->d, lk);
  FPAR_PHASE_GROUP(st->s64, lk, scan_exclusive_add_vf64,
                   load_fpar_vf64(a->in64 + g, lk));
  store_fpar_vf64(a->scan64 + g, st->s64, lk);
  FPAR_PHASE_GROUP(st->m, lk, reduce_max_vi32,
                   -load_fpar_vi32(a->in32 + g, lk));
  fill_fpar_vi32(a->max32 + g, st->m, lk);
  FPAR_PHASE_END();
}

static void sizes_check(const sizes_args *a, size_t L, size_t groups,
                        const char *what) {
  for (size_t grp = 0; grp < groups; grp++) {
    int32_t s32 = 0, mx = INT32_MIN;
    double s64 = 0, sum = 0;

    for (size_t i = 0; i < L; i++) {
      size_t g = grp * L + i;
      sum += a->in64[g];
      mx = -a->in32[g] > mx ? -a->in32[g] : mx;
    }
    for (size_t i = 0; i < L; i++) {
      size_t g = grp * L + i;

      s32 += a->in32[g];
      ck_assert_msg(a->scan32[g] == s32, "%s: vi32 scan of %zu: %d, want %d",
                    what, g, a->scan32[g], s32);
      ck_assert_msg(a->scan64[g] == s64, "%s: vf64 scan of %zu: %g, want %g",
                    what, g, a->scan64[g], s64);
      s64 += a->in64[g];
      ck_assert_msg(a->sum64[g] == sum, "%s: vf64 sum of %zu: %g, want %g",
                    what, g, a->sum64[g], sum);
      ck_assert_msg(a->max32[g] == mx, "%s: vi32 max of %zu: %d, want %d", what,
                    g, a->max32[g], mx);
    }
  }
}

/* In lane kernels and phase lane kernels, under each schedule (_i:
 * forward, reverse), in groups of 64 and 100 (a partial last call). */
START_TEST(test_mixed_sizes) {
  static const char *const schedules[] = {"forward", "reverse"};
  static const size_t sizes_L[] = {64, 100};
  size_t groups = 3;

  ck_assert_int_eq(setenv("FIBERPAR_SCHEDULE", schedules[_i], 1), 0);
  for (size_t k = 0; k < 2; k++) {
    size_t L = sizes_L[k], n = L * groups;
    int32_t *in32 = malloc(n * 4);
    double *in64 = malloc(n * 8);
    sizes_args a = {in32,          in64,          malloc(n * 4),
                    malloc(n * 4), malloc(n * 8), malloc(n * 8)};
    fpar_test_env e;
    fpar_event *ev;
    char what[96];

    for (size_t i = 0; i < n; i++) {
      in32[i] = (int32_t)(i * 7919 % 201) - 100;
      in64[i] = 0.5 * in32[i];
    }
    fpar_test_env_init(&e, 2);
    ck_assert_fpar_ok(fpar_parallel_for_kernel(
        e.q, fpar_range1(n), fpar_range1(L), &lanes_sizes, &a, &ev));
    fpar_test_wait_ok(ev);
    snprintf(what, sizeof what, "lanes (W = %d), L = %zu, %s", W, L,
             schedules[_i]);
    sizes_check(&a, L, groups, what);
    for (unsigned m = 0; m < 3; m++) {
      memset(a.scan32, 0xa5, n * 4);
      memset(a.scan64, 0xa5, n * 8);
      ck_assert_fpar_ok(submit(&e, &phase_lanes_sizes, fpar_range1(n),
                               fpar_range1(L), &a, modes[m], NULL, 0, &ev));
      fpar_test_wait_ok(ev);
      snprintf(what, sizeof what, "phase lanes %s (W = %d), L = %zu, %s",
               mode_names[m], W, L, schedules[_i]);
      sizes_check(&a, L, groups, what);
    }
    fpar_test_env_fini(&e);
    free(in32), free(in64), free(a.scan32), free(a.max32), free(a.scan64),
        free(a.sum64);
  }
  ck_assert_int_eq(unsetenv("FIBERPAR_SCHEDULE"), 0);
}
END_TEST

/* ---- any and all on masks ----------------------------------------------- */

typedef struct mask_args {
  const int32_t *pred;
  int *any, *all;
} mask_args;

FPAR_LANE_KERNEL(lanes_any_all, lk, p) {
  const mask_args *a = p;
  size_t g = fpar_global_linear_id(lk->it);
  fpar_vi32 v = load_fpar_vi32(a->pred + g, lk);
  int any = fpar_group_any_vmask(lk, v != 0);
  int all = fpar_group_all_vmask(lk, v != 0);

  for (unsigned i = 0; i < lk->active; i++)
    a->any[g + i] = any, a->all[g + i] = all;
}

/* Per group: all off, only the last work-item on, all on but the first,
 * all on.  (Lanes past the group's end never count.) */
START_TEST(test_any_all) {
  const coll_shape *s = &coll_shapes[_i];
  size_t n = coll_items(s), gn = coll_group_items(s), groups = n / gn;
  size_t *ids = malloc(gn * sizeof *ids);
  int32_t *pred = calloc(n, sizeof *pred);
  int *any = malloc(n * sizeof *any), *all = malloc(n * sizeof *all);
  int *want_any = malloc(n * sizeof *any), *want_all = malloc(n * sizeof *all);
  mask_args a = {pred, any, all};
  fpar_test_env e;
  fpar_event *ev;

  for (size_t grp = 0; grp < groups; grp++) {
    unsigned pattern = grp % 4;
    int on = 0, every = 1;
    coll_group_members(s, grp, ids);
    for (size_t k = 0; k < gn; k++) {
      int32_t v = pattern == 0   ? 0
                  : pattern == 1 ? k == gn - 1
                  : pattern == 2 ? k != 0
                                 : 1;
      pred[ids[k]] = v;
      on |= v != 0;
      every &= v != 0;
    }
    for (size_t k = 0; k < gn; k++)
      want_any[ids[k]] = on, want_all[ids[k]] = every;
  }
  fpar_test_env_init(&e, 2);
  ck_assert_fpar_ok(fpar_parallel_for_kernel(e.q, coll_range(s->dims, s->g),
                                             coll_range(s->dims, s->l),
                                             &lanes_any_all, &a, &ev));
  fpar_test_wait_ok(ev);
  ck_assert_mem_eq(any, want_any, n * sizeof *any);
  ck_assert_mem_eq(all, want_all, n * sizeof *all);
  fpar_test_env_fini(&e);
  free(ids), free(pred), free(any), free(all), free(want_any), free(want_all);
}
END_TEST

/* ---- Divergence ---------------------------------------------------------- */

/* The sub-groups of the second row call another collective. */
FPAR_LANE_KERNEL(lanes_diverge, lk, p) {
  fpar_vf32 one = fpar_vf32_splat(1.0f);
  (void)p;
  if (fpar_local_id(lk->it, 1) == 0)
    fpar_group_reduce_add_vf32(lk, one);
  else
    fpar_group_reduce_max_vf32(lk, one);
}

START_TEST(test_divergence) {
  fpar_test_env e;
  fpar_event *ev;
  char what[160];

  /* Rows of 2W + 1 work-items: three sub-groups each; the first sub-group
   * of row 1 is work-items 2W+1 .. 3W. */
  snprintf(what, sizeof what,
           "waits at the collective fpar_group_reduce_max_vf32 while "
           "work-items 0-%d wait at the collective "
           "fpar_group_reduce_add_vf32",
           2 * W);
  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(fpar_parallel_for_kernel(e.q, fpar_range2(2 * W + 1, 4),
                                             fpar_range2(2 * W + 1, 2),
                                             &lanes_diverge, NULL, &ev));
  fpar_test_wait_fault(ev, FPAR_EBARRIER, what, NULL);
  fpar_test_env_fini(&e);
}
END_TEST

/* A lane kernel's call covers W work-items: the scalar form, which takes
 * one value, fails the launch instead of reading W. */
FPAR_LANE_KERNEL(lanes_scalar_form, lk, p) {
  (void)p;
  fpar_group_reduce_add_f32(lk->it, 1.0f);
}

START_TEST(test_scalar_form_in_lanes) {
  fpar_test_env e;
  fpar_event *ev;

  if (W == 1)
    return; /* every call is one work-item */
  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(fpar_parallel_for_kernel(e.q, fpar_range1(4 * W),
                                             fpar_range1(2 * W),
                                             &lanes_scalar_form, NULL, &ev));
  fpar_test_wait_fault(ev, FPAR_EINVAL,
                       "a call of a lane kernel, called "
                       "fpar_group_reduce_add_f32()",
                       NULL);
  fpar_test_env_fini(&e);
}
END_TEST

int main(void) {
  Suite *s = suite_create("collectives_lanes");
  TCase *tc = fpar_test_case("lanes");

  tcase_add_loop_test(tc, test_lanes_f32, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_lanes_f64, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_lanes_i32, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_lanes_u32, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_any_all, 0, COLL_NSHAPES);
  tcase_add_loop_test(tc, test_mixed_sizes, 0, 2);
  tcase_add_test(tc, test_divergence);
  tcase_add_test(tc, test_scalar_form_in_lanes);
  suite_add_tcase(s, tc);
  return fpar_test_run(s);
}
