/* SPDX-License-Identifier: MIT */
/* test_offsets.c - global offsets (fpar_launch_desc.global_offset, OpenCL
 * get_global_offset): every id query of every kernel form sees them,
 * fpar_global_linear_id() counts from 0 as in OpenCL 2.0, descriptions of
 * older headers launch without one, and offsets that cannot be are
 * refused.  Every work-item's view is checked against plain C
 * (testutil_ranges.h). */
#include <stddef.h>

#include "testutil_ranges.h"

static const shape offset_shapes[] = {
    {1, {1000, 1, 1}, {10, 1, 1}, {7, 0, 0}},
    {1, {64, 1, 1}, {64, 1, 1}, {1u << 20, 0, 0}},
    {2, {16, 12, 1}, {4, 3, 1}, {3, 5, 0}},
    {2, {37, 5, 1}, {37, 1, 1}, {0, 100, 0}},
    {3, {12, 10, 6}, {4, 5, 3}, {1, 2, 3}},
    {3, {16, 8, 4}, {16, 2, 2}, {1000, 0, 7}},
};

#define NUM_OFFSET_SHAPES (sizeof offset_shapes / sizeof offset_shapes[0])

/* Each shape in each kernel form (the loop index is shape * forms +
 * form). */
START_TEST(test_offset_ids) {
  const shape *s = &offset_shapes[_i / SEEN_FORMS];
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  seen_check(e.q, s, (enum seen_form)(_i % SEEN_FORMS));
  fpar_test_env_fini(&e);
}
END_TEST

/* A 1-D kernel over part of an array: y[i] = 2 x[i] for i in
 * [offset, offset + n), the rest untouched; the index is the global id. */
typedef struct axpy_args {
  const float *x;
  float *y;
} axpy_args;

FPAR_KERNEL(twice, it, args) {
  axpy_args *a = args;
  size_t i = fpar_global_id(it, 0);

  a->y[i] = 2.0f * a->x[i];
}

START_TEST(test_offset_window) {
  enum { N = 1000, OFF = 123, LEN = 640 };
  float x[N], y[N];
  axpy_args a = {x, y};
  fpar_launch_desc d;
  fpar_test_env e;
  size_t i;

  for (i = 0; i < N; i++) {
    x[i] = (float)i;
    y[i] = -1.0f;
  }
  fpar_test_env_init(&e, 0);
  fpar_launch_desc_init(&d);
  d.def = &twice;
  d.args = &a;
  d.global = fpar_range1(LEN);
  d.local = fpar_range1(64);
  d.global_offset[0] = OFF;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  for (i = 0; i < N; i++)
    ck_assert_float_eq(y[i], i >= OFF && i < OFF + LEN ? 2.0f * i : -1.0f);
  fpar_test_env_fini(&e);
}
END_TEST

/* The new queries are exported as functions too, and agree with the
 * inlines (in a launch with an offset and smaller last groups). */
static void compare_offset_kernel(fpar_item *it, void *args) {
  size_t (*offset)(const fpar_item *, unsigned) = &fpar_global_offset;
  size_t (*enqueued)(const fpar_item *, unsigned) = &fpar_enqueued_local_range;
  unsigned d;

  for (d = 0; d < 4; d++)
    if (offset(it, d) != fpar_global_offset(it, d) ||
        enqueued(it, d) != fpar_enqueued_local_range(it, d) ||
        (d == 3 && (offset(it, d) != 0 || enqueued(it, d) != 1)))
      atomic_fetch_add((atomic_size_t *)args, 1);
}

START_TEST(test_offset_queries_as_functions) {
  atomic_size_t bad;
  fpar_launch_desc d;
  fpar_test_env e;

  atomic_init(&bad, 0);
  fpar_test_env_init(&e, 1);
  fpar_launch_desc_init(&d);
  d.kernel = compare_offset_kernel;
  d.args = &bad;
  d.global = fpar_range3(5, 3, 2);
  d.local = fpar_range3(2, 2, 2);
  d.global_offset[0] = 5;
  d.global_offset[2] = 9;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&bad), 0);
  fpar_test_env_fini(&e);
}
END_TEST

/* fpar_parallel_for() has no offset: every query says 0. */
START_TEST(test_parallel_for_has_no_offset) {
  const shape s = {2, {9, 4, 1}, {3, 2, 1}, {0, 0, 0}};
  seen_args a;
  fpar_test_env e;

  a.count = 36;
  a.slots = calloc(a.count, sizeof *a.slots);
  atomic_init(&a.outside, 0);
  fpar_test_env_init(&e, 0);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range2(9, 4), fpar_range2(3, 2),
                                      seen_kernel, &a, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  seen_verify(&s, &a, 1, "fpar_parallel_for");
  free(a.slots);
  fpar_test_env_fini(&e);
}
END_TEST

/* A description from a header older than global_offset: the member and
 * what follows are not read, the launch has no offset. */
START_TEST(test_offset_older_description) {
  const shape s = {1, {48, 1, 1}, {16, 1, 1}, {0, 0, 0}};
  seen_args a;
  fpar_launch_desc d;
  fpar_test_env e;

  a.count = 48;
  a.slots = calloc(a.count, sizeof *a.slots);
  atomic_init(&a.outside, 0);
  fpar_test_env_init(&e, 0);
  shape_desc(&s, &d, &a);
  d.kernel = seen_kernel;
  d.global_offset[0] = 1000; /* beyond the old size: not read */
  d.size = offsetof(fpar_launch_desc, global_offset);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  seen_verify(&s, &a, 1, "older description");
  free(a.slots);
  fpar_test_env_fini(&e);
}
END_TEST

/* Offsets that cannot be: beyond the range's dimensions, past SIZE_MAX,
 * and on scoped and hierarchical launches. */
static void group_fn(fpar_group *g, void *args) {
  (void)g;
  atomic_fetch_add((atomic_size_t *)args, 1);
}

START_TEST(test_offset_refused) {
  atomic_size_t runs;
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev = NULL;

  atomic_init(&runs, 0);
  fpar_test_env_init(&e, 0);

  fpar_launch_desc_init(&d);
  d.name = "flat";
  d.kernel = seen_kernel;
  d.global = fpar_range2(8, 8);
  d.global_offset[2] = 1;
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_EINVAL);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "global_offset[2]"));
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "2 dimensions"));

  d.global_offset[2] = 0;
  d.global_offset[1] = SIZE_MAX - 7; /* + 8 wraps */
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_EINVAL);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "global_offset[1]"));
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "SIZE_MAX"));

  fpar_launch_desc_init(&d);
  d.name = "scoped";
  d.scoped = group_fn;
  d.args = &runs;
  d.global = fpar_range1(4);
  d.local = fpar_range1(8);
  d.global_offset[0] = 4;
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_EINVAL);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "'scoped'"));
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "nd_range"));
  d.scoped = NULL;
  d.hierarchical = group_fn;
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_EINVAL);

  ck_assert_ptr_null(ev);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&runs), 0);
  /* The runtime stays usable, and the largest offset that fits runs. */
  fpar_launch_desc_init(&d);
  d.kernel = seen_kernel;
  d.global = fpar_range1(1);
  d.global_offset[0] = SIZE_MAX - 1;
  {
    seen_args a;
    const shape s = {1, {1, 1, 1}, {1, 1, 1}, {SIZE_MAX - 1, 0, 0}};
    a.count = 1;
    a.slots = calloc(1, sizeof *a.slots);
    atomic_init(&a.outside, 0);
    d.args = &a;
    ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
    ck_assert_fpar_ok(fpar_queue_wait(e.q));
    seen_verify(&s, &a, 1, "largest offset");
    free(a.slots);
  }
  fpar_test_env_fini(&e);
}
END_TEST

int main(void) {
  Suite *s = suite_create("offsets");
  TCase *tc = fpar_test_case("offsets");

  tcase_add_loop_test(tc, test_offset_ids, 0,
                      (int)(NUM_OFFSET_SHAPES * SEEN_FORMS));
  tcase_add_test(tc, test_offset_window);
  tcase_add_test(tc, test_offset_queries_as_functions);
  tcase_add_test(tc, test_parallel_for_has_no_offset);
  tcase_add_test(tc, test_offset_older_description);
  tcase_add_test(tc, test_offset_refused);
  suite_add_tcase(s, tc);
  return fpar_test_run(s);
}
