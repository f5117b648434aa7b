/* SPDX-License-Identifier: MIT */
/* test_async_copy.c - group copies (<fiberpar/async_copy.h>): tiles copied
 * global to local and back, contiguous and strided, with 3-D and odd
 * local ranges, in fiber kernels, barrier-free loops, lane kernels and
 * phase kernels (loops and fibers), against plain C; and each misuse with
 * its exact code. */
#include <fiberpar/simd.h>
#include <stdio.h>

#include "testutil.h"

#define THREADS 2

/* ---- Tiles: a group copies its block of rows into local memory, each
 * work-item doubles its element there, and the group copies the block
 * back transposed (strided), after a barrier. ------------------------------ */

typedef struct tile_args {
  const int32_t *in;
  int32_t *out; /* per group: its L elements, transposed as X x R */
  size_t X;     /* local range 0 */
} tile_args;

static void tile_kernel(fpar_item *it, void *p) {
  tile_args *a = p;
  size_t L = fpar_local_range(it, 0) * fpar_local_range(it, 1) *
             fpar_local_range(it, 2);
  size_t base = fpar_group_linear_id(it) * L, lid = fpar_local_linear_id(it);
  size_t R = L / a->X;
  int32_t *tile = fpar_group_local_memory_for_overwrite(it, L * 4, 64);
  fpar_copy_event e;

  e = fpar_async_work_group_copy(it, tile, a->in + base, L, 4, 0);
  fpar_wait_group_events(it, 1, &e);
  tile[lid] *= 2;
  fpar_barrier(it);
  /* Row r of the tile goes to column r of the output block: element x to
   * out[base + x * R + r], one strided copy per row, all made by the
   * group. */
  for (size_t row = 0; row < R; row++) {
    e = fpar_async_work_group_strided_copy(it, a->out + base + row,
                                           tile + row * a->X, a->X, 4, R, 1, 0);
    fpar_wait_group_events(it, 1, &e);
  }
}

static void check_tiles(const int32_t *in, const int32_t *out, size_t n,
                        size_t L, size_t X) {
  size_t R = L / X;

  for (size_t g = 0; g < n / L; g++)
    for (size_t lid = 0; lid < L; lid++) {
      size_t x = lid % X, r = lid / X;
      ck_assert_msg(out[g * L + x * R + r] == 2 * in[g * L + lid],
                    "group %zu item %zu: %d, expected %d", g, lid,
                    (int)out[g * L + x * R + r], (int)(2 * in[g * L + lid]));
    }
}

static const size_t tile_shapes[][3] = {
    {16, 4, 1}, {7, 3, 5}, {100, 1, 1}, {1, 1, 1}, {33, 2, 2}};
#define NTILES (sizeof tile_shapes / sizeof tile_shapes[0])

static void run_tiles(fpar_kernel_fn kernel, const size_t lr[3], unsigned lanes,
                      int max_stacks) {
  const size_t groups[3] = {3, 2, 1};
  size_t L = fpar_test_volume(lr), n = L * 6, k;
  int32_t *in = malloc(n * 4), *out = calloc(n, 4);
  tile_args a = {in, out, lr[0]};
  fpar_runtime_opts o;
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;

  for (k = 0; k < n; k++)
    in[k] = (int32_t)(k * 7 % 1000) - 500;
  fpar_runtime_opts_init(&o);
  o.num_threads = THREADS;
  o.max_stacks = (size_t)max_stacks;
  ck_assert_fpar_ok(fpar_runtime_create(&e.rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(e.rt, 0, &e.q));
  fpar_launch_desc_init(&d);
  d.kernel = kernel;
  d.lanes = lanes;
  d.args = &a;
  d.global =
      fpar_range3(lr[0] * groups[0], lr[1] * groups[1], lr[2] * groups[2]);
  d.local = fpar_range3(lr[0], lr[1], lr[2]);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_ok(ev);
  fpar_test_env_fini(&e);
  /* The group's block is the group's linear id times L: the kernel reads
   * in[] by group, not by global id. */
  check_tiles(in, out, n, L, lr[0]);
  free(in);
  free(out);
}

START_TEST(test_tiles_fibers) {
  run_tiles(tile_kernel, tile_shapes[_i], 0, 0);
}
END_TEST

START_TEST(test_tiles_copied_stacks) {
  run_tiles(tile_kernel, tile_shapes[_i], 0, 3);
}
END_TEST

/* ---- A barrier-free kernel: the group runs as a loop ------------------- */

typedef struct column_args {
  const float *in; /* rows of W floats */
  float *out;      /* per work-item: its element of the group's column
                      copy, times 3 */
  size_t width, col;
} column_args;

static void column_kernel(fpar_item *it, void *p) {
  column_args *a = p;
  size_t L = fpar_local_range(it, 0), lid = fpar_local_id(it, 0);
  size_t first_row = fpar_group_id(it, 0) * L;
  float *col = fpar_group_local_memory_for_overwrite(it, L * 4, 64);
  fpar_copy_event e = fpar_async_work_group_strided_copy(
      it, col, a->in + first_row * a->width + a->col, L, 4, 1, a->width, 0);

  /* A second copy joined to the first's event. */
  fpar_async_work_group_copy(it, col, col, 0, 4, e);
  fpar_wait_group_events(it, 1, &e);
  a->out[fpar_global_id(it, 0)] = 3 * col[lid];
}

START_TEST(test_strided_column_in_loop) {
  const size_t L = 37, G = 5, width = 11, col = 4;
  float *in = malloc(L * G * width * 4), *out = calloc(L * G, 4);
  column_args a = {in, out, width, col};
  fpar_test_env e;
  fpar_event *ev;
  size_t k;

  for (k = 0; k < L * G * width; k++)
    in[k] = (float)k;
  fpar_test_env_init(&e, THREADS);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(L * G), fpar_range1(L),
                                      column_kernel, &a, &ev));
  fpar_test_wait_ok(ev);
  for (k = 0; k < L * G; k++)
    ck_assert_msg(out[k] == 3 * in[k * width + col], "row %zu: %g", k, out[k]);
  fpar_test_env_fini(&e);
  free(in);
  free(out);
}
END_TEST

/* ---- Lane kernels: one call per sub-group -------------------------------- */

static inline void lane_column_body(fpar_lanes *lk, void *p) {
  column_args *a = p;
  fpar_item *it = lk->it;
  size_t L = fpar_local_range(it, 0), first = fpar_local_id(it, 0);
  float *col = fpar_group_local_memory_for_overwrite(it, L * 4, 64);
  fpar_copy_event e = fpar_async_work_group_strided_copy(
      it, col, a->in + fpar_group_id(it, 0) * L * a->width + a->col, L, 4, 1,
      a->width, 0);

  fpar_wait_group_events(it, 1, &e);
  fpar_vf32_store_mask(a->out + lk->global_first,
                       3 * fpar_vf32_load_mask(col + first, lk->mask),
                       lk->mask);
}
FPAR_DEFINE_LANE_KERNEL(lane_column_kernel, lane_column_body)

START_TEST(test_lane_kernel) {
  const size_t L = 3 * FPAR_SIMD_WIDTH + 5, G = 4, width = 9, col = 2;
  float *in = malloc(L * G * width * 4), *out = calloc(L * G, 4);
  column_args a = {in, out, width, col};
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;
  size_t k;

  for (k = 0; k < L * G * width; k++)
    in[k] = (float)(k % 1000);
  fpar_test_env_init(&e, THREADS);
  fpar_launch_desc_init(&d);
  d.kernel = lane_column_kernel;
  d.lanes = FPAR_SIMD_WIDTH;
  d.args = &a;
  d.global = fpar_range1(L * G);
  d.local = fpar_range1(L);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_ok(ev);
  for (k = 0; k < L * G; k++)
    ck_assert_msg(out[k] == 3 * in[k * width + col], "row %zu: %g", k, out[k]);
  fpar_test_env_fini(&e);
  free(in);
  free(out);
}
END_TEST

/* ---- Phase kernels ---------------------------------------------------------
 */

typedef struct phase_state {
  int32_t *tile;
  fpar_copy_event e;
} phase_state;

FPAR_PHASE_KERNEL(phase_tile, it, p, phase_state, st) {
  tile_args *a = p;
  size_t L = fpar_local_range(it, 0), lid = fpar_local_id(it, 0);
  size_t base = fpar_group_linear_id(it) * L;

  FPAR_PHASE_BEGIN();
  st->tile = fpar_group_local_memory_for_overwrite(it, L * 4, 64);
  st->e = fpar_async_work_group_copy(it, st->tile, a->in + base, L, 4, 0);
  fpar_wait_group_events(it, 1, &st->e);
  st->tile[lid] *= 2;
  FPAR_PHASE_BARRIER();
  st->e = fpar_async_work_group_copy(it, a->out + base, st->tile, L, 4, 0);
  fpar_wait_group_events(it, 1, &st->e);
  FPAR_PHASE_END();
}

START_TEST(test_phase_kernel) {
  static const fpar_phase_mode modes[] = {FPAR_PHASE_LOOPS, FPAR_PHASE_FIBERS,
                                          FPAR_PHASE_DEBUG};
  const size_t L = 45, G = 6;
  int32_t *in = malloc(L * G * 4), *out = calloc(L * G, 4);
  tile_args a = {in, out, L};
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;
  size_t k;

  for (k = 0; k < L * G; k++)
    in[k] = (int32_t)k - 100;
  fpar_test_env_init(&e, THREADS);
  fpar_launch_desc_init(&d);
  d.def = &phase_tile;
  d.args = &a;
  d.global = fpar_range1(L * G);
  d.local = fpar_range1(L);
  d.phase_mode = modes[_i];
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_ok(ev);
  for (k = 0; k < L * G; k++)
    ck_assert_int_eq(out[k], 2 * in[k]);
  fpar_test_env_fini(&e);
  free(in);
  free(out);
}
END_TEST

/* ---- Misuse ------------------------------------------------------------ */

static int32_t misuse_buf[64];

/* A valid copy between two group-local arrays. */
static void good_copy_kernel(fpar_item *it, void *p) {
  int32_t *x = fpar_group_local_memory(it, 64 * 4, 0);
  fpar_copy_event e = fpar_async_work_group_copy(it, x + 32, x, 32, 4, 0);
  (void)p;
  fpar_wait_group_events(it, 1, &e);
}

/* Launch kernel, which must fail with code and a message containing
 * what; the runtime then runs a valid copy. */
static void expect_fault(fpar_kernel_fn kernel, int code, const char *what) {
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, THREADS);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(16), fpar_range1(8),
                                      kernel, NULL, &ev));
  fpar_test_wait_fault(ev, code, what, NULL);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(16), fpar_range1(8),
                                      good_copy_kernel, NULL, &ev));
  fpar_test_wait_ok(ev);
  fpar_test_env_fini(&e);
}

static void num_differs_kernel(fpar_item *it, void *p) {
  int32_t *local = fpar_group_local_memory(it, 64 * 4, 0);
  size_t lid = fpar_local_id(it, 0);
  (void)p;
  fpar_async_work_group_copy(it, local, misuse_buf, lid == 5 ? 32 : 16, 4, 0);
}

START_TEST(test_num_differs) {
  expect_fault(num_differs_kernel, FPAR_EINVAL,
               "work-item 5 called fpar_async_work_group_copy (copy 0 of the "
               "group) with num 0x20 but work-item 0 made it with 0x10");
}
END_TEST

static void src_differs_kernel(fpar_item *it, void *p) {
  int32_t *local = fpar_group_local_memory(it, 64 * 4, 0);
  (void)p;
  fpar_barrier(it);
  fpar_async_work_group_strided_copy(
      it, local, misuse_buf + fpar_local_id(it, 0) / 4, 8, 4, 1, 2, 0);
}

START_TEST(test_src_differs) {
  expect_fault(src_differs_kernel, FPAR_EINVAL,
               "work-item 4 called fpar_async_work_group_strided_copy (copy 0 "
               "of the group) with src");
}
END_TEST

/* The misuse kernels below copy into group-local memory: the two groups
 * run on two workers at once, and copies of both into one global buffer
 * would race. */
static void unknown_event_kernel(fpar_item *it, void *p) {
  int32_t *local = fpar_group_local_memory(it, 16 * 4, 0);
  fpar_copy_event e = 3;
  (void)p;
  fpar_async_work_group_copy(it, local, misuse_buf + 32, 4, 4, 0);
  fpar_wait_group_events(it, 1, &e);
}

START_TEST(test_unknown_event) {
  expect_fault(unknown_event_kernel, FPAR_EINVAL,
               "work-item 0 waits for events[0] = 3, which none of its 1 copy "
               "calls returned");
}
END_TEST

static void wait_differs_kernel(fpar_item *it, void *p) {
  int32_t *local = fpar_group_local_memory(it, 16 * 4, 0);
  fpar_copy_event e[2];
  (void)p;
  e[0] = fpar_async_work_group_copy(it, local, misuse_buf + 32, 4, 4, 0);
  e[1] = fpar_async_work_group_copy(it, local + 8, misuse_buf + 40, 4, 4, 0);
  fpar_wait_group_events(it, fpar_local_id(it, 0) == 2 ? 2 : 1, e);
}

START_TEST(test_wait_differs) {
  expect_fault(wait_differs_kernel, FPAR_EINVAL,
               "work-item 2 called fpar_wait_group_events (wait 0 of the "
               "group) with num_events 2 but work-item 0 made it with 1");
}
END_TEST

static void zero_stride_kernel(fpar_item *it, void *p) {
  (void)p;
  fpar_async_work_group_strided_copy(it, misuse_buf, misuse_buf + 32, 4, 4, 0,
                                     1, 0);
}

START_TEST(test_zero_stride) {
  expect_fault(zero_stride_kernel, FPAR_EINVAL,
               "work-item 0 passed dst_stride 0 to "
               "fpar_async_work_group_strided_copy");
}
END_TEST

static void no_events_kernel(fpar_item *it, void *p) {
  (void)p;
  fpar_wait_group_events(it, 0, NULL);
}

START_TEST(test_no_events) {
  expect_fault(no_events_kernel, FPAR_EINVAL,
               "work-item 0 called fpar_wait_group_events with num_events 0");
}
END_TEST

START_TEST(test_outside_kernel) {
  fpar_copy_event e = 1;

  ck_assert_uint_eq(
      fpar_async_work_group_copy(NULL, misuse_buf, misuse_buf + 8, 4, 4, 0), 0);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "runs no kernel"));
  ck_assert_fpar_err(fpar_wait_group_events(NULL, 1, &e), FPAR_ENOTKERNEL);
}
END_TEST

static void scoped_copy_fn(fpar_group *g, void *p) {
  (void)g;
  (void)p;
  fpar_async_work_group_copy(NULL, misuse_buf, misuse_buf + 8, 4, 4, 0);
}

static void scoped_wait_fn(fpar_group *g, void *p) {
  fpar_copy_event e = 1;

  (void)g;
  (void)p;
  fpar_wait_group_events(NULL, 1, &e);
}

/* A copy and a wait in a scoped group, on a worker that never ran a group
 * (its records are in their first state) and on one whose last group made
 * copies and waited (one worker, so the same one): the records of that
 * group may not pass for the scoped group's. */
START_TEST(test_in_scoped_group) {
  static const fpar_group_fn fns[] = {scoped_copy_fn, scoped_wait_fn};
  static const char *const names[] = {"fpar_async_work_group_copy",
                                      "fpar_wait_group_events"};
  fpar_test_env e;
  fpar_event *ev;
  int after, k;

  for (k = 0; k < 2; k++)
    for (after = 0; after < 2; after++) {
      fpar_test_env_init(&e, 1);
      if (after) {
        ck_assert_fpar_ok(fpar_parallel_for(
            e.q, fpar_range1(16), fpar_range1(8), good_copy_kernel, NULL, &ev));
        fpar_test_wait_ok(ev);
      }
      ck_assert_fpar_ok(fpar_parallel(e.q, fpar_range1(2), fpar_range1(4),
                                      fns[k], NULL, &ev));
      fpar_test_wait_fault(ev, FPAR_ENOTKERNEL, names[k],
                           "scoped or hierarchical");
      fpar_test_env_fini(&e);
    }
}
END_TEST

static Suite *async_suite(void) {
  Suite *s = suite_create("async_copy");
  TCase *tc;

  tc = fpar_test_case("copies");
  tcase_add_loop_test(tc, test_tiles_fibers, 0, NTILES);
  tcase_add_loop_test(tc, test_tiles_copied_stacks, 0, NTILES);
  tcase_add_test(tc, test_strided_column_in_loop);
  tcase_add_test(tc, test_lane_kernel);
  tcase_add_loop_test(tc, test_phase_kernel, 0, 3);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("misuse");
  tcase_add_test(tc, test_num_differs);
  tcase_add_test(tc, test_src_differs);
  tcase_add_test(tc, test_unknown_event);
  tcase_add_test(tc, test_wait_differs);
  tcase_add_test(tc, test_zero_stride);
  tcase_add_test(tc, test_no_events);
  tcase_add_test(tc, test_outside_kernel);
  tcase_add_test(tc, test_in_scoped_group);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(async_suite());
}
