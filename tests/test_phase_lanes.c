/* SPDX-License-Identifier: MIT */
/* test_phase_lanes.c - phase kernels and kernels with runners in lane form
 * (FPAR_PHASE_LANE_KERNEL, FPAR_LANE_KERNEL): sub-groups of W work-items
 * per call, masked at the end of a row, with sub-group operations.
 *
 * Built twice: at the machine's width (-march=native) and forced to one
 * lane (tests/test_phase_lanes_scalar).  Results are checked against plain
 * C and must agree bit for bit between loops, debug loops and fibers.
 */
#include <fiberpar/simd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil_phase.h"

#define W FPAR_SIMD_WIDTH

/* ---- A reduction over sub-group sums ------------------------------------ */

typedef struct sums_args {
  const float *in; /* small integers: every sum is exact */
  float *partial;  /* one per group */
} sums_args;

typedef struct sums_state {
  size_t n; /* live slots */
} sums_state;

/* One slot per sub-group of the group (at most 1024 sub-groups). */
typedef struct sums_local {
  float sums[1024];
} sums_local;

/* Sub-group g of a 2-D group: its row's sub-groups come first. */
static size_t subgroup_index(fpar_item *it) {
  size_t per_row = (fpar_local_range(it, 0) + W - 1) / W;

  return fpar_local_id(it, 1) * per_row + fpar_local_id(it, 0) / W;
}

/* Each sub-group sums its lanes in registers into a slot of the group's
 * local struct; the slots are then folded in a tree, one barrier per
 * step. */
FPAR_PHASE_LANE_KERNEL_LOCAL(lane_sums, lk, p, sums_state, st, sums_local, lm) {
  sums_args *a = p;
  size_t sg = subgroup_index(lk->it);

  FPAR_PHASE_BEGIN();
  st->n =
      (fpar_local_range(lk->it, 0) + W - 1) / W * fpar_local_range(lk->it, 1);
  lm->sums[sg] = fpar_sub_group_reduce_add_vf32(
      lk, fpar_vf32_load_mask(a->in + fpar_global_linear_id(lk->it), lk->mask));
  while (st->n > 1) {
    FPAR_PHASE_BARRIER();
    {
      size_t half = (st->n + 1) / 2;
      if (sg + half < st->n)
        lm->sums[sg] += lm->sums[sg + half];
      st->n = half;
    }
  }
  if (sg == 0)
    a->partial[fpar_group_linear_id(lk->it)] = lm->sums[0];
  FPAR_PHASE_END();
}

static const size_t sums_shapes[][2] = {
    {1, 1}, {5, 1}, {37, 1}, {256, 1}, {100, 3}, {2 * W + 1, 4}, {1024, 1},
};

START_TEST(test_lane_sums) {
  fpar_test_env e;
  size_t lx = sums_shapes[_i][0], ly = sums_shapes[_i][1], groups = 3;
  size_t n = lx * ly * groups;
  float *in = malloc(n * sizeof *in), out[3][3], want[3] = {0, 0, 0};
  sums_args a;

  fpar_test_env_init(&e, 0);
  /* Groups are side by side along dimension 0. */
  for (size_t i = 0; i < n; i++) {
    in[i] = (float)((uint32_t)(i * 2654435761u) >> 26);
    want[i % (lx * groups) / lx] += in[i];
  }
  for (int m = 0; m < 3; m++) {
    fpar_event *ev;
    a.in = in;
    a.partial = out[m];
    ck_assert_fpar_ok(submit(&e, &lane_sums, fpar_range2(lx * groups, ly),
                             fpar_range2(lx, ly), &a, modes[m], NULL, 0, &ev));
    fpar_test_wait_ok(ev);
    for (size_t g = 0; g < groups; g++)
      ck_assert_msg(out[m][g] == want[g], "%s, %zux%zu: group %zu: %g != %g",
                    mode_names[m], lx, ly, g, out[m][g], want[g]);
  }
  free(in);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Divergence names work-items, not sub-groups ------------------------ */

typedef struct empty_state {
  char unused;
} empty_state;

/* Sub-group 1 returns while sub-group 0 waits. */
FPAR_PHASE_LANE_KERNEL(lane_returns_early, lk, p, empty_state, st) {
  (void)p;
  FPAR_PHASE_BEGIN();
  if (fpar_local_id(lk->it, 0) == W)
    FPAR_PHASE_RETURN();
  FPAR_PHASE_BARRIER();
  FPAR_PHASE_END();
}

START_TEST(test_lane_divergence) {
  fpar_test_env e;
  char want[128];

  fpar_test_env_init(&e, 1);
  if (W == 1)
    snprintf(want, sizeof want,
             "work-item 1 returned from the kernel while work-item 0 waits");
  else
    snprintf(want, sizeof want,
             "work-item %d returned from the kernel while work-items 0-%d "
             "wait",
             W, W - 1);
  for (int m = 0; m < 3; m++) {
    fpar_event *ev;
    ck_assert_fpar_ok(submit(&e, &lane_returns_early, fpar_range1(4 * W),
                             fpar_range1(4 * W), NULL, modes[m], NULL, 0, &ev));
    fpar_test_wait_fault(ev, FPAR_EDIVERGENCE, want, "test_phase_lanes.c:");
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- FPAR_LANE_KERNEL: the normal spelling in lane form ----------------- */

typedef struct axpy_args {
  const float *x;
  float *y;
} axpy_args;

FPAR_LANE_KERNEL(lane_axpy, lk, p) {
  axpy_args *a = p;
  size_t g = fpar_global_linear_id(lk->it);
  fpar_vf32 x = fpar_vf32_load_mask(a->x + g, lk->mask);
  fpar_vf32 y = fpar_vf32_load_mask(a->y + g, lk->mask);

  fpar_vf32_store_mask(
      a->y + g, 2.0f * x + y + fpar_vf32_from_vi32(lk->local_id0), lk->mask);
}

START_TEST(test_lane_kernel_spelling) {
  fpar_test_env e;
  const size_t lx = 3 * W + 5, n = lx * 6;
  float *x = malloc(n * 4), *y = malloc(n * 4);
  axpy_args a = {x, y};
  fpar_event *ev;

  fpar_test_env_init(&e, 0);
  for (size_t i = 0; i < n; i++) {
    x[i] = (float)(i % 97);
    y[i] = (float)(i % 13);
  }
  ck_assert_fpar_ok(fpar_parallel_for_kernel(
      e.q, fpar_range1(n), fpar_range1(lx), &lane_axpy, &a, &ev));
  fpar_test_wait_ok(ev);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(y[i] == 2.0f * (float)(i % 97) + (float)(i % 13) +
                              (float)(i % lx),
                  "y[%zu] = %g", i, y[i]);
  free(x), free(y);
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *phase_lanes_suite(void) {
  Suite *s = suite_create("phase lanes");
  TCase *tc = fpar_test_case("lanes");

  tcase_add_loop_test(tc, test_lane_sums, 0,
                      sizeof sums_shapes / sizeof *sums_shapes);
  tcase_add_test(tc, test_lane_divergence);
  tcase_add_test(tc, test_lane_kernel_spelling);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(phase_lanes_suite());
}
