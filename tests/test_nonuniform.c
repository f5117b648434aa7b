/* SPDX-License-Identifier: MIT */
/* test_nonuniform.c - non-uniform work-groups (OpenCL 2.0): a local range
 * that does not divide the global range runs ceil(global / local) groups,
 * the last of each such dimension smaller.  Every kernel form sees the
 * right ids and sizes (fpar_local_range() the group's,
 * fpar_enqueued_local_range() the one asked for); barriers, local memory,
 * lanes and phases work on the smaller groups (per-group sums checked
 * against plain C); divergence in them is caught; uniform groups are
 * refused where asked for; and descriptions of older headers keep the
 * uniform rule they were built with. */
#include <stddef.h>

#include "testutil_ranges.h"

#define W FPAR_SIMD_WIDTH

static const shape nonuniform_shapes[] = {
    {1, {1000, 1, 1}, {64, 1, 1}, {0, 0, 0}},
    {1, {1003, 1, 1}, {64, 1, 1}, {0, 0, 0}},  /* last group 43 */
    {1, {5, 1, 1}, {8, 1, 1}, {0, 0, 0}},      /* one group, smaller */
    {2, {37, 5, 1}, {16, 2, 1}, {0, 0, 0}},    /* both dimensions */
    {2, {64, 7, 1}, {64, 3, 1}, {0, 0, 0}},    /* dimension 1 only */
    {3, {17, 9, 5}, {4, 4, 2}, {0, 0, 0}},     /* all three */
    {1, {1000, 1, 1}, {64, 1, 1}, {77, 0, 0}}, /* with an offset */
    {3, {17, 9, 5}, {4, 4, 2}, {5, 1000, 3}},  /* the same, 3-D */
};

#define NUM_SHAPES (sizeof nonuniform_shapes / sizeof nonuniform_shapes[0])

/* Each shape in each kernel form (the loop index is shape * forms +
 * form). */
START_TEST(test_nonuniform_ids) {
  const shape *s = &nonuniform_shapes[_i / SEEN_FORMS];
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  seen_check(e.q, s, (enum seen_form)(_i % SEEN_FORMS));
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Per-group sums: barriers and local memory -------------------------- */

typedef struct sum_args {
  const float *in; /* small integers: every sum is exact */
  float *out;      /* one per group */
  int buffer;      /* scalar kernel: launch-time buffer, else group-local */
} sum_args;

static size_t group_volume(fpar_item *it) {
  return fpar_local_range(it, 0) * fpar_local_range(it, 1) *
         fpar_local_range(it, 2);
}

static size_t enqueued_volume(fpar_item *it) {
  return fpar_enqueued_local_range(it, 0) * fpar_enqueued_local_range(it, 1) *
         fpar_enqueued_local_range(it, 2);
}

/* A tree over the group's work-items (its own size, not the enqueued
 * one), one barrier per level, in local memory of the enqueued size. */
static void group_sum_kernel(fpar_item *it, void *args) {
  sum_args *a = args;
  size_t n = group_volume(it), lid = fpar_local_linear_id(it), s;
  float *tmp =
      a->buffer
          ? fpar_local_buffer(it, 0)
          : fpar_group_local_memory(it, enqueued_volume(it) * sizeof(float), 0);

  tmp[lid] = a->in[fpar_global_linear_id(it)];
  for (s = 1; s < n; s *= 2) {
    fpar_barrier(it);
    if (lid % (2 * s) == 0 && lid + s < n)
      tmp[lid] += tmp[lid + s];
  }
  if (lid == 0)
    a->out[fpar_group_linear_id(it)] = tmp[0];
}

/* The same as a phase kernel; the local struct holds the largest group. */
typedef struct sum_state {
  size_t s;
} sum_state;
typedef struct sum_local {
  float tmp[1024];
} sum_local;

FPAR_PHASE_KERNEL_LOCAL(phase_sum, it, args, sum_state, st, sum_local, lm) {
  sum_args *a = args;
  size_t n = group_volume(it), lid = fpar_local_linear_id(it);

  FPAR_PHASE_BEGIN();
  lm->tmp[lid] = a->in[fpar_global_linear_id(it)];
  for (st->s = 1; st->s < n; st->s *= 2) {
    FPAR_PHASE_BARRIER();
    if (lid % (2 * st->s) == 0 && lid + st->s < n)
      lm->tmp[lid] += lm->tmp[lid + st->s];
  }
  if (lid == 0)
    a->out[fpar_group_linear_id(it)] = lm->tmp[0];
  FPAR_PHASE_END();
}

/* Sub-group of a lane call: the sub-groups of a row (its own, possibly
 * smaller, dimension 0 size) come one after another. */
static size_t subgroup_of(fpar_item *it) {
  size_t per_row = (fpar_local_range(it, 0) + W - 1) / W;

  return (fpar_local_id(it, 1) +
          fpar_local_range(it, 1) * fpar_local_id(it, 2)) *
             per_row +
         fpar_local_id(it, 0) / W;
}

/* Lane form on fibers: each sub-group (masked where a row of the group is
 * no multiple of W) sums its lanes into a launch-time buffer, then
 * sub-group 0 adds the slots up. */
FPAR_LANE_KERNEL(lane_sum, lk, args) {
  sum_args *a = args;
  float *slots = fpar_local_buffer(lk->it, 0);
  size_t sg = subgroup_of(lk->it), i, n;

  slots[sg] = fpar_sub_group_reduce_add_vf32(
      lk, fpar_vf32_load_mask(a->in + fpar_global_linear_id(lk->it), lk->mask));
  fpar_barrier(lk->it);
  if (sg == 0) {
    float total = 0;
    n = (fpar_local_range(lk->it, 0) + W - 1) / W *
        fpar_local_range(lk->it, 1) * fpar_local_range(lk->it, 2);
    for (i = 0; i < n; i++)
      total += slots[i];
    a->out[fpar_group_linear_id(lk->it)] = total;
  }
}

/* Phase lane form: sub-group sums folded in a tree of slots. */
typedef struct lane_state {
  size_t n; /* live slots */
} lane_state;

FPAR_PHASE_LANE_KERNEL_LOCAL(phase_lane_sum, lk, args, lane_state, st,
                             sum_local, lm) {
  sum_args *a = args;
  size_t sg = subgroup_of(lk->it);

  FPAR_PHASE_BEGIN();
  st->n = (fpar_local_range(lk->it, 0) + W - 1) / W *
          fpar_local_range(lk->it, 1) * fpar_local_range(lk->it, 2);
  lm->tmp[sg] = fpar_sub_group_reduce_add_vf32(
      lk, fpar_vf32_load_mask(a->in + fpar_global_linear_id(lk->it), lk->mask));
  while (st->n > 1) {
    FPAR_PHASE_BARRIER();
    {
      size_t half = (st->n + 1) / 2;
      if (sg + half < st->n)
        lm->tmp[sg] += lm->tmp[sg + half];
      st->n = half;
    }
  }
  if (sg == 0)
    a->out[fpar_group_linear_id(lk->it)] = lm->tmp[0];
  FPAR_PHASE_END();
}

/* The kernel forms of the sums. */
enum sum_form {
  SUM_FIBERS_GROUP_LOCAL,
  SUM_FIBERS_BUFFER,
  SUM_PHASE_LOOPS,
  SUM_PHASE_DEBUG,
  SUM_PHASE_FIBERS,
  SUM_LANES,
  SUM_PHASE_LANES_LOOPS,
  SUM_PHASE_LANES_FIBERS,
  SUM_FORMS
};

static const shape sum_shapes[] = {
    {1, {1000, 1, 1}, {64, 1, 1}, {0, 0, 0}},
    {1, {1003, 1, 1}, {256, 1, 1}, {0, 0, 0}},
    {2, {37, 5, 1}, {16, 2, 1}, {0, 0, 0}},
    {3, {17, 9, 5}, {4, 4, 2}, {0, 0, 0}},
    {3, {17, 9, 5}, {8, 4, 2}, {3, 0, 11}},
};

#define NUM_SUM_SHAPES (sizeof sum_shapes / sizeof sum_shapes[0])

/* Run form f over shape s and compare each group's sum with plain C. */
static void check_sums(fpar_test_env *e, const shape *s, enum sum_form f) {
  size_t n = fpar_test_volume(s->global), groups[3], ng, idx;
  float *in = malloc(n * sizeof *in), *out, *want;
  fpar_local_buffer_desc buf = {0, sizeof(float), 0};
  fpar_launch_desc d;
  fpar_event *ev;
  sum_args a;
  unsigned k;

  for (k = 0; k < 3; k++)
    groups[k] = ceil_div(s->global[k], s->local[k]);
  ng = fpar_test_volume(groups);
  out = malloc(ng * sizeof *out);
  want = calloc(ng, sizeof *want);
  ck_assert(in != NULL && out != NULL && want != NULL);
  for (idx = 0; idx < n; idx++) {
    size_t id[3], grp[3];
    in[idx] = (float)(idx % 13) - 6.0f;
    fpar_test_id_of(idx, s->global, id);
    for (k = 0; k < 3; k++)
      grp[k] = id[k] / s->local[k];
    want[fpar_test_linear(grp, groups)] += in[idx];
  }
  for (idx = 0; idx < ng; idx++)
    out[idx] = -1e9f;
  a.in = in;
  a.out = out;
  a.buffer = f == SUM_FIBERS_BUFFER;
  shape_desc(s, &d, &a);
  if (f == SUM_FIBERS_GROUP_LOCAL || f == SUM_FIBERS_BUFFER)
    d.kernel = group_sum_kernel;
  else if (f == SUM_LANES)
    d.def = &lane_sum;
  else if (f == SUM_PHASE_LANES_LOOPS || f == SUM_PHASE_LANES_FIBERS)
    d.def = &phase_lane_sum;
  else
    d.def = &phase_sum;
  if (f == SUM_PHASE_DEBUG)
    d.phase_mode = FPAR_PHASE_DEBUG;
  else if (f == SUM_PHASE_FIBERS || f == SUM_PHASE_LANES_FIBERS)
    d.phase_mode = FPAR_PHASE_FIBERS;
  if (f == SUM_FIBERS_BUFFER || f == SUM_LANES) {
    d.local_buffers = &buf;
    d.num_local_buffers = 1;
  }
  ck_assert_fpar_ok(fpar_launch(e->q, &d, &ev));
  fpar_test_wait_ok(ev);
  for (idx = 0; idx < ng; idx++)
    ck_assert_msg(out[idx] == want[idx],
                  "form %d, global (%zu,%zu,%zu) local (%zu,%zu,%zu): group "
                  "%zu sums to %g, expected %g",
                  (int)f, s->global[0], s->global[1], s->global[2], s->local[0],
                  s->local[1], s->local[2], idx, out[idx], want[idx]);
  free(in);
  free(out);
  free(want);
}

START_TEST(test_nonuniform_sums) {
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  check_sums(&e, &sum_shapes[_i / SUM_FORMS], (enum sum_form)(_i % SUM_FORMS));
  fpar_test_env_fini(&e);
}
END_TEST

/* One worker runs full and smaller groups one after another: the smaller
 * group's fibers and sizes must not leak into the next full group. */
START_TEST(test_nonuniform_sums_one_worker) {
  const shape s = {2, {37, 5, 1}, {16, 2, 1}, {0, 0, 0}};
  fpar_test_env e;
  int f;

  fpar_test_env_init(&e, 1);
  for (f = 0; f < SUM_FORMS; f++) {
    check_sums(&e, &s, (enum sum_form)f);
    check_sums(&e, &sum_shapes[0], (enum sum_form)f);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* Fibers that share one copied stack (max_stacks at its minimum) and
 * fibers that keep their own FP state (not parked between groups) run
 * the smaller groups too. */
START_TEST(test_nonuniform_sums_copied_and_item_fpenv) {
  fpar_runtime_opts o;
  fpar_test_env e;
  int f;

  fpar_runtime_opts_init(&o);
  o.num_threads = 1;
  if (_i == 0)
    o.max_stacks = 3;
  else
    o.fpenv = FPAR_FPENV_ITEM;
  ck_assert_fpar_ok(fpar_runtime_create(&e.rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(e.rt, 0, &e.q));
  for (f = 0; f < SUM_FORMS; f++) {
    check_sums(&e, &sum_shapes[3], (enum sum_form)f);
    check_sums(&e, &sum_shapes[1], (enum sum_form)f);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Faults in a smaller group ------------------------------------------ */

/* The last work-item of a smaller group returns without the barrier the
 * others wait at; full groups are fine. */
static void edge_divergent_kernel(fpar_item *it, void *args) {
  (void)args;
  if (fpar_local_range(it, 0) != fpar_enqueued_local_range(it, 0) &&
      fpar_local_id(it, 0) + 1 == fpar_local_range(it, 0))
    return;
  fpar_barrier(it);
}

/* The same as a phase kernel. */
FPAR_PHASE_KERNEL(edge_divergent_phases, it, args, seen_state, st) {
  FPAR_PHASE_BEGIN();
  if (fpar_local_range(it, 0) != fpar_enqueued_local_range(it, 0) &&
      fpar_local_id(it, 0) + 1 == fpar_local_range(it, 0))
    FPAR_PHASE_RETURN();
  FPAR_PHASE_BARRIER();
  FPAR_PHASE_END();
}

/* On fibers, and as a phase kernel in loops, debug loops and fibers. */
START_TEST(test_nonuniform_divergence) {
  static const fpar_phase_mode modes[] = {FPAR_PHASE_LOOPS, FPAR_PHASE_DEBUG,
                                          FPAR_PHASE_FIBERS};
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 0);
  fpar_launch_desc_init(&d);
  d.name = "edge_divergent";
  if (_i == 0) {
    d.kernel = edge_divergent_kernel;
  } else {
    d.def = &edge_divergent_phases;
    d.phase_mode = modes[_i - 1];
  }
  d.global = fpar_range1(1000);
  d.local = fpar_range1(64); /* last group: work-items 0-39 */
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_fault(ev, FPAR_EDIVERGENCE, "edge_divergent",
                       "work-item 39 returned from the kernel");
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Uniform groups where they are asked for ---------------------------- */

static void count_kernel(fpar_item *it, void *args) {
  (void)it;
  atomic_fetch_add((atomic_size_t *)args, 1);
}

FPAR_KERNEL(count_def, it, args) {
  (void)it;
  atomic_fetch_add((atomic_size_t *)args, 1);
}

START_TEST(test_uniform_refused) {
  atomic_size_t count;
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev = NULL;

  atomic_init(&count, 0);
  fpar_test_env_init(&e, 0);
  fpar_launch_desc_init(&d);
  d.kernel = count_kernel;
  d.args = &count;
  d.global = fpar_range3(17, 9, 5);
  d.local = fpar_range3(4, 4, 2);
  d.flags = FPAR_LAUNCH_UNIFORM;
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_ENONDIV);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "17"));
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "dimension 0"));
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "FPAR_LAUNCH_UNIFORM"));
  /* SYCL's nd_range: always uniform. */
  ck_assert_fpar_err(
      fpar_parallel_for(e.q, d.global, d.local, count_kernel, &count, &ev),
      FPAR_ENONDIV);
  ck_assert_fpar_err(fpar_parallel_for_kernel(e.q, fpar_range1(1000),
                                              fpar_range1(64), &count_def,
                                              &count, &ev),
                     FPAR_ENONDIV);
  /* Bits that are no flag. */
  d.flags = 1u << 7;
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_EINVAL);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "0x80"));
  /* The enqueued size counts against the group-size limit. */
  d.flags = 0;
  d.global = fpar_range1(5000);
  d.local = fpar_range1(fpar_runtime_max_group_size(e.rt) + 1);
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_EGROUPSIZE);
  ck_assert_ptr_null(ev);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&count), 0);

  /* Without the flag the same launch runs every work-item once. */
  d.global = fpar_range3(17, 9, 5);
  d.local = fpar_range3(4, 4, 2);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&count), 17 * 9 * 5);
  fpar_test_env_fini(&e);
}
END_TEST

/* A description from a header older than flags (with or without
 * global_offset) keeps the uniform rule it was built with; one with flags
 * gets the offset it sets. */
START_TEST(test_older_descriptions_stay_uniform) {
  const size_t sizes[] = {offsetof(fpar_launch_desc, global_offset),
                          offsetof(fpar_launch_desc, flags)};
  const shape with_offset = {1, {48, 1, 1}, {16, 1, 1}, {9, 0, 0}};
  atomic_size_t count;
  fpar_launch_desc d;
  fpar_test_env e;
  seen_args a;
  size_t k;

  atomic_init(&count, 0);
  fpar_test_env_init(&e, 0);
  for (k = 0; k < 2; k++) {
    fpar_launch_desc_init(&d);
    d.kernel = count_kernel;
    d.args = &count;
    d.global = fpar_range1(1000);
    d.local = fpar_range1(64);
    d.size = sizes[k];
    ck_assert_fpar_err(fpar_launch(e.q, &d, NULL), FPAR_ENONDIV);
  }
  ck_assert_uint_eq(atomic_load(&count), 0);

  a.count = 48;
  a.slots = calloc(a.count, sizeof *a.slots);
  atomic_init(&a.outside, 0);
  shape_desc(&with_offset, &d, &a);
  d.kernel = seen_kernel;
  d.size = offsetof(fpar_launch_desc, flags);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  seen_verify(&with_offset, &a, 1, "description without flags");
  free(a.slots);
  fpar_test_env_fini(&e);
}
END_TEST

int main(void) {
  Suite *s = suite_create("nonuniform");
  TCase *tc = fpar_test_case("nonuniform");

  tcase_add_loop_test(tc, test_nonuniform_ids, 0,
                      (int)(NUM_SHAPES * SEEN_FORMS));
  tcase_add_loop_test(tc, test_nonuniform_sums, 0,
                      (int)(NUM_SUM_SHAPES * SUM_FORMS));
  tcase_add_test(tc, test_nonuniform_sums_one_worker);
  tcase_add_loop_test(tc, test_nonuniform_sums_copied_and_item_fpenv, 0, 2);
  tcase_add_loop_test(tc, test_nonuniform_divergence, 0, 4);
  tcase_add_test(tc, test_uniform_refused);
  tcase_add_test(tc, test_older_descriptions_stay_uniform);
  suite_add_tcase(s, tc);
  return fpar_test_run(s);
}
