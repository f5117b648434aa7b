/* SPDX-License-Identifier: MIT */
/* test_ndrange.c - nd_range geometry: the id and range queries of every
 * work-item, the runtime's choice of work-group size, launch descriptions,
 * and the launches that must be refused.
 *
 * This file is also built against the ucontext build of the library
 * (tests/test_ndrange_ucontext), so it uses the public API only. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"

/* The runtime's preferred work-group size (fiberpar.h: FPAR_LOCAL_AUTO
 * picks at most this many work-items). */
#define AUTO_GROUP_MAX 256

/* Assert that haystack contains needle, printing both otherwise. */
#define ck_assert_contains(haystack, needle)                                   \
  ck_assert_msg(strstr((haystack), (needle)) != NULL,                          \
                "\"%s\" does not contain \"%s\"", (haystack), (needle))

/* ---- Recording every work-item's view of the launch ---------------------- */

/* What one work-item saw.  Queries are recorded for dimensions 0..3; 3 is
 * beyond every range. */
typedef struct item_record {
  size_t global_id[4], local_id[4], group_id[4];
  size_t global_range[4], local_range[4], group_range[4];
  size_t global_linear_id, local_linear_id, group_linear_id;
  unsigned work_dim;
  atomic_uint visits;
} item_record;

typedef struct record_args {
  item_record *records; /* indexed by global linear id */
  size_t count;
  atomic_uint out_of_bounds; /* work-items whose linear id was too big */
} record_args;

static void record_kernel(fpar_item *it, void *args) {
  record_args *a = args;
  size_t idx = fpar_global_linear_id(it);
  item_record *r;
  unsigned d;

  if (idx >= a->count) {
    atomic_fetch_add(&a->out_of_bounds, 1);
    return;
  }
  r = &a->records[idx];
  for (d = 0; d < 4; d++) {
    r->global_id[d] = fpar_global_id(it, d);
    r->local_id[d] = fpar_local_id(it, d);
    r->group_id[d] = fpar_group_id(it, d);
    r->global_range[d] = fpar_global_range(it, d);
    r->local_range[d] = fpar_local_range(it, d);
    r->group_range[d] = fpar_group_range(it, d);
  }
  r->global_linear_id = idx;
  r->local_linear_id = fpar_local_linear_id(it);
  r->group_linear_id = fpar_group_linear_id(it);
  r->work_dim = fpar_work_dim(it);
  atomic_fetch_add(&r->visits, 1);
}

/* The same kernel with its runner compiled here, by FPAR_DEFINE_ROW: it is
 * deprecated (FPAR_KERNEL makes the runner), and must keep working. */
FPAR_DEFINE_ROW(record_row, record_kernel)

/* Extent of range r in dimension d, 1 beyond its dimensions. */
static size_t extent(fpar_range r, unsigned d) {
  return d < r.dims ? r.size[d] : 1;
}

static size_t volume(fpar_range r) {
  return extent(r, 0) * extent(r, 1) * extent(r, 2);
}

/* Fail unless got == want; cheap when they agree, since it runs for every
 * field of every work-item. */
static void expect_eq(size_t got, size_t want, const char *what, size_t idx,
                      unsigned d) {
  if (got != want)
    ck_abort_msg("work-item %zu: %s(%u) is %zu, expected %zu", idx, what, d,
                 got, want);
}

/* Launch record_kernel over global in groups of local, through the row
 * runner record_row when row is set; on return every work-item has been
 * recorded. */
static item_record *run_records(fpar_queue *q, fpar_range global,
                                fpar_range local, int row) {
  fpar_launch_desc d;
  record_args a;
  fpar_event *ev;

  a.count = volume(global);
  a.records = calloc(a.count, sizeof *a.records);
  ck_assert_ptr_nonnull(a.records);
  atomic_init(&a.out_of_bounds, 0);
  fpar_launch_desc_init(&d);
  d.kernel = record_kernel;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  d.row = row ? record_row : NULL;
#pragma GCC diagnostic pop
  d.args = &a;
  d.global = global;
  d.local = local;
  ck_assert_fpar_ok(fpar_launch(q, &d, &ev));
  ck_assert_fpar_ok(fpar_event_wait(ev));
  ck_assert_int_eq(fpar_test_state(ev), FPAR_COMPLETE);
  fpar_event_release(ev);
  ck_assert_uint_eq(atomic_load(&a.out_of_bounds), 0);
  return a.records;
}

/* Check every record of a launch over global in groups of local (local
 * given in full, 1 in unused dimensions) against arithmetic. */
static void verify_records(const item_record *records, fpar_range global,
                           const size_t local[3]) {
  size_t g[3], groups[3], n = volume(global), idx;
  unsigned d;

  for (d = 0; d < 3; d++) {
    g[d] = extent(global, d);
    groups[d] = g[d] / local[d];
  }
  for (idx = 0; idx < n; idx++) {
    const item_record *r = &records[idx];
    size_t gid[3], lid[3], grp[3];

    /* Dimension 0 varies fastest. */
    gid[0] = idx % g[0];
    gid[1] = idx / g[0] % g[1];
    gid[2] = idx / g[0] / g[1];
    for (d = 0; d < 3; d++) {
      lid[d] = gid[d] % local[d];
      grp[d] = gid[d] / local[d];
    }
    expect_eq(atomic_load(&r->visits), 1, "visits", idx, 0);
    expect_eq(r->work_dim, global.dims, "fpar_work_dim", idx, 0);
    for (d = 0; d < 3; d++) {
      expect_eq(r->global_id[d], gid[d], "fpar_global_id", idx, d);
      expect_eq(r->local_id[d], lid[d], "fpar_local_id", idx, d);
      expect_eq(r->group_id[d], grp[d], "fpar_group_id", idx, d);
      expect_eq(r->global_id[d],
                r->group_id[d] * r->local_range[d] + r->local_id[d],
                "group_id * local_range + local_id", idx, d);
      expect_eq(r->global_range[d], g[d], "fpar_global_range", idx, d);
      expect_eq(r->local_range[d], local[d], "fpar_local_range", idx, d);
      expect_eq(r->group_range[d], groups[d], "fpar_group_range", idx, d);
    }
    /* Beyond the range: id 0, size 1. */
    expect_eq(r->global_id[3], 0, "fpar_global_id", idx, 3);
    expect_eq(r->local_id[3], 0, "fpar_local_id", idx, 3);
    expect_eq(r->group_id[3], 0, "fpar_group_id", idx, 3);
    expect_eq(r->global_range[3], 1, "fpar_global_range", idx, 3);
    expect_eq(r->local_range[3], 1, "fpar_local_range", idx, 3);
    expect_eq(r->group_range[3], 1, "fpar_group_range", idx, 3);
    expect_eq(r->local_linear_id,
              lid[0] + local[0] * (lid[1] + local[1] * lid[2]),
              "fpar_local_linear_id", idx, 0);
    expect_eq(r->group_linear_id,
              grp[0] + groups[0] * (grp[1] + groups[1] * grp[2]),
              "fpar_group_linear_id", idx, 0);
  }
}

/* Run a launch with an explicit local range and check every work-item. */
static void check_nd_range(fpar_queue *q, fpar_range global, fpar_range local) {
  size_t l[3] = {extent(local, 0), extent(local, 1), extent(local, 2)};
  int row;

  for (row = 0; row < 2; row++) {
    item_record *records = run_records(q, global, local, row);
    verify_records(records, global, l);
    free(records);
  }
}

/* Run a launch whose local range the runtime chooses (local_arg is
 * FPAR_LOCAL_AUTO or all zeros) and check the choice and every work-item;
 * max_group is the runtime's group-size limit. */
static void check_auto_local(fpar_queue *q, fpar_range global,
                             fpar_range local_arg, size_t max_group) {
  item_record *records = run_records(q, global, local_arg, 0);
  size_t chosen[3], items = 1;
  unsigned d;

  for (d = 0; d < 3; d++) {
    chosen[d] = records[0].local_range[d];
    ck_assert_uint_ge(chosen[d], 1);
    ck_assert_msg(extent(global, d) % chosen[d] == 0,
                  "chosen local range %zu does not divide global range %zu "
                  "in dimension %u",
                  chosen[d], extent(global, d), d);
    if (d >= global.dims)
      ck_assert_uint_eq(chosen[d], 1);
    items *= chosen[d];
  }
  ck_assert_uint_le(items, AUTO_GROUP_MAX);
  ck_assert_uint_le(items, max_group);
  verify_records(records, global, chosen);
  free(records);
}

/* With a row runner the runtime picks larger barrier-free groups (up to
 * 4096 work-items), still dividing the global range. */
START_TEST(test_auto_local_with_row_runner) {
  fpar_test_env e;
  item_record *records;
  size_t chosen[3], items = 1;
  unsigned d;

  fpar_test_env_init(&e, 2);
  records = run_records(e.q, fpar_range2(1 << 12, 24), FPAR_LOCAL_AUTO, 1);
  for (d = 0; d < 3; d++) {
    chosen[d] = records[0].local_range[d];
    items *= chosen[d];
  }
  ck_assert_uint_gt(items, AUTO_GROUP_MAX);
  ck_assert_uint_le(items, 4096);
  verify_records(records, fpar_range2(1 << 12, 24), chosen);
  free(records);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Simple kernels ------------------------------------------------------ */

/* Counts the work-items that ran. */
static void count_kernel(fpar_item *it, void *args) {
  (void)it;
  atomic_fetch_add((atomic_size_t *)args, 1);
}

/* Work-item 1 reaches a barrier that work-item 0 returned without reaching:
 * FPAR_EDIVERGENCE. */
static void divergent_kernel(fpar_item *it, void *args) {
  (void)args;
  if (fpar_local_id(it, 0) == 1)
    fpar_barrier(it);
}
FPAR_DEFINE_ROW(divergent_row, divergent_kernel)

/* A row runner does not hide divergence: work-item 1 still fails the
 * group. */
START_TEST(test_row_runner_divergence) {
  fpar_test_env e;
  fpar_launch_desc d;
  fpar_event *ev;

  fpar_test_env_init(&e, 0);
  fpar_launch_desc_init(&d);
  d.name = "divergent_row";
  d.kernel = divergent_kernel;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  d.row = divergent_row;
#pragma GCC diagnostic pop
  d.global = fpar_range2(16, 4);
  d.local = fpar_range2(8, 2);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  ck_assert_int_eq(fpar_event_wait(ev), FPAR_EDIVERGENCE);
  ck_assert_contains(fpar_event_error(ev), "divergent_row");
  /* Under racecheck (TSan) the group is fibers from its start, which
   * see the same divergence from the barrier's side. */
  ck_assert_contains(fpar_event_error(ev),
                     FPAR_TEST_TSAN ? "work-item 1 waits at the barrier"
                                    : "work-item 1 reached the barrier");
  fpar_event_release(ev);
  fpar_test_env_fini(&e);
}
END_TEST

/* The args a launch description carries, and what its kernel saw. */
typedef struct args_probe {
  const void *self;      /* the address the kernel must be given */
  atomic_size_t matched; /* work-items that got it */
  atomic_size_t other;   /* work-items that got something else */
} args_probe;

static void args_probe_kernel(fpar_item *it, void *args) {
  args_probe *p = args;

  (void)it;
  if (p->self == (const void *)p)
    atomic_fetch_add(&p->matched, 1);
  else
    atomic_fetch_add(&p->other, 1);
}

/* ---- Explicit local ranges ----------------------------------------------- */

/* A global range and the local range to launch it with. */
typedef struct shape {
  fpar_range global, local;
} shape;

static void check_shapes(const shape *shapes, size_t n) {
  fpar_test_env e;
  size_t i;

  fpar_test_env_init(&e, 0);
  for (i = 0; i < n; i++)
    check_nd_range(e.q, shapes[i].global, shapes[i].local);
  fpar_test_env_fini(&e);
}

START_TEST(test_ids_1d) {
  const shape shapes[] = {
      {fpar_range1(1000), fpar_range1(10)},
      {fpar_range1(1024), fpar_range1(64)},
      {fpar_range1(7), fpar_range1(7)},
      {fpar_range1(1), fpar_range1(1)},
      {fpar_range1(97), fpar_range1(1)},
      {fpar_range1(300), fpar_range1(3)},
  };

  check_shapes(shapes, sizeof shapes / sizeof shapes[0]);
}
END_TEST

START_TEST(test_ids_2d) {
  const shape shapes[] = {
      {fpar_range2(16, 12), fpar_range2(4, 3)},
      {fpar_range2(10, 10), fpar_range2(5, 2)},
      {fpar_range2(1, 9), fpar_range2(1, 3)},
      {fpar_range2(64, 3), fpar_range2(8, 1)},
      {fpar_range2(6, 35), fpar_range2(6, 7)},
      {fpar_range2(9, 1), fpar_range2(3, 1)},
  };

  check_shapes(shapes, sizeof shapes / sizeof shapes[0]);
}
END_TEST

START_TEST(test_ids_3d) {
  const shape shapes[] = {
      {fpar_range3(12, 10, 6), fpar_range3(4, 5, 3)},
      {fpar_range3(8, 8, 8), fpar_range3(2, 4, 8)},
      {fpar_range3(5, 1, 3), fpar_range3(5, 1, 1)},
      {fpar_range3(1, 1, 1), fpar_range3(1, 1, 1)},
      {fpar_range3(3, 5, 7), fpar_range3(3, 5, 7)},
      {fpar_range3(2, 3, 30), fpar_range3(1, 1, 10)},
      {fpar_range3(1, 1, 17), fpar_range3(1, 1, 1)},
  };

  check_shapes(shapes, sizeof shapes / sizeof shapes[0]);
}
END_TEST

START_TEST(test_ids_one_worker) {
  const shape shapes[] = {
      {fpar_range1(256), fpar_range1(16)},
      {fpar_range3(12, 10, 6), fpar_range3(4, 5, 3)},
  };
  fpar_test_env e;
  size_t i;

  fpar_test_env_init(&e, 1);
  for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    check_nd_range(e.q, shapes[i].global, shapes[i].local);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_big_barrier_free_groups) {
  const shape shapes[] = {
      {fpar_range1(8192), fpar_range1(1024)},
      {fpar_range1(8192), fpar_range1(4096)}, /* the default limit */
      {fpar_range2(64, 64), fpar_range2(32, 32)},
      {fpar_range3(16, 16, 16), fpar_range3(16, 16, 4)},
  };

  check_shapes(shapes, sizeof shapes / sizeof shapes[0]);
}
END_TEST

/* ---- Runtime-chosen local ranges ----------------------------------------- */

static const fpar_range auto_globals[] = {
    {1, {1000, 1, 1}},  {1, {1009, 1, 1}}, {1, {1, 1, 1}},    {1, {4096, 1, 1}},
    {1, {65536, 1, 1}}, {2, {12, 10, 1}},  {2, {1009, 3, 1}}, {2, {1, 1024, 1}},
    {3, {12, 10, 6}},   {3, {7, 11, 13}},  {3, {1, 1, 1009}},
};

#define NUM_AUTO_GLOBALS (sizeof auto_globals / sizeof auto_globals[0])

START_TEST(test_auto_local_macro) {
  fpar_test_env e;
  size_t i;

  fpar_test_env_init(&e, 0);
  for (i = 0; i < NUM_AUTO_GLOBALS; i++)
    check_auto_local(e.q, auto_globals[i], FPAR_LOCAL_AUTO,
                     fpar_runtime_max_group_size(e.rt));
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_auto_local_all_zero_ranges) {
  /* Any range whose extents are all 0 lets the runtime choose, whatever
   * its dimensionality. */
  const fpar_range zeros[] = {fpar_range1(0), fpar_range2(0, 0),
                              fpar_range3(0, 0, 0)};
  fpar_test_env e;
  size_t i, z;

  fpar_test_env_init(&e, 0);
  for (z = 0; z < sizeof zeros / sizeof zeros[0]; z++)
    for (i = 0; i < NUM_AUTO_GLOBALS; i++)
      check_auto_local(e.q, auto_globals[i], zeros[z],
                       fpar_runtime_max_group_size(e.rt));
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_auto_local_prime_global) {
  atomic_size_t count;
  fpar_test_env e;

  /* 1009 is prime: the only divisors are 1 and 1009, so the runtime must
   * pick groups of one and still run every work-item once. */
  fpar_test_env_init(&e, 0);
  atomic_init(&count, 0);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(1009), FPAR_LOCAL_AUTO,
                                      count_kernel, &count, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&count), 1009);
  check_auto_local(e.q, fpar_range1(1009), FPAR_LOCAL_AUTO,
                   fpar_runtime_max_group_size(e.rt));
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_auto_local_respects_max_group_size) {
  fpar_runtime_opts o;
  fpar_test_env e;
  size_t i;

  fpar_runtime_opts_init(&o);
  o.max_group_size = 12;
  ck_assert_fpar_ok(fpar_runtime_create(&e.rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(e.rt, 0, &e.q));
  for (i = 0; i < NUM_AUTO_GLOBALS; i++)
    check_auto_local(e.q, auto_globals[i], fpar_range3(0, 0, 0), 12);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Launch descriptions ------------------------------------------------- */

/* A description from a program built against an older header: the
 * members its header lacks read as defaults; one never initialised is
 * refused. */
/* The queries are also exported functions (for other languages): called
 * through pointers, which takes those, they agree with the inline ones. */
typedef struct query_args {
  unsigned bad;
} query_args;

static void compare_queries_kernel(fpar_item *it, void *p) {
  static size_t (*const by_dim[])(const fpar_item *, unsigned) = {
      fpar_global_id,    fpar_local_id,    fpar_group_id,
      fpar_global_range, fpar_local_range, fpar_group_range};
  size_t (*const linear[])(const fpar_item *) = {
      fpar_global_linear_id, fpar_local_linear_id, fpar_group_linear_id};
  size_t inl[6][3], lin[3];
  query_args *a = p;
  unsigned d, k, bad = 0;
  unsigned (*volatile dims)(const fpar_item *) = fpar_work_dim;

  for (d = 0; d < 3; d++) {
    inl[0][d] = fpar_global_id(it, d);
    inl[1][d] = fpar_local_id(it, d);
    inl[2][d] = fpar_group_id(it, d);
    inl[3][d] = fpar_global_range(it, d);
    inl[4][d] = fpar_local_range(it, d);
    inl[5][d] = fpar_group_range(it, d);
  }
  lin[0] = fpar_global_linear_id(it);
  lin[1] = fpar_local_linear_id(it);
  lin[2] = fpar_group_linear_id(it);
  for (k = 0; k < 6; k++)
    for (d = 0; d < 3; d++)
      bad += by_dim[k](it, d) != inl[k][d];
  for (k = 0; k < 3; k++)
    bad += linear[k](it) != lin[k];
  bad += dims(it) != fpar_work_dim(it);
  if (bad)
    __atomic_add_fetch(&a->bad, bad, __ATOMIC_RELAXED);
}

START_TEST(test_queries_as_functions) {
  query_args a = {0};
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range3(8, 6, 4),
                                      fpar_range3(4, 3, 2),
                                      compare_queries_kernel, &a, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(a.bad, 0);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_launch_desc_from_other_headers) {
  atomic_size_t count;
  fpar_launch_desc d;
  fpar_test_env e;

  fpar_test_env_init(&e, 1);
  atomic_init(&count, 0);
  memset(&d, 0, sizeof d);
  d.kernel = count_kernel;
  d.args = &count;
  d.global = fpar_range1(64);
  ck_assert_fpar_err(fpar_launch(e.q, &d, NULL), FPAR_EINVAL);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "fpar_launch_desc.size"));
  fpar_launch_desc_init(&d);
  d.kernel = count_kernel;
  d.args = &count;
  d.global = fpar_range1(64);
  d.phase_mode = (fpar_phase_mode)99; /* beyond the old size: not read */
  d.size = offsetof(fpar_launch_desc, def);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&count), 64);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_launch_desc_init_defaults) {
  const fpar_range automatic = FPAR_LOCAL_AUTO;
  atomic_size_t count;
  fpar_launch_desc d;
  fpar_test_env e;

  memset(&d, 0x5a, sizeof d);
  fpar_launch_desc_init(&d);
  ck_assert_ptr_null(d.name);
  ck_assert_ptr_null(d.kernel);
  ck_assert_ptr_null(d.args);
  ck_assert_ptr_null(d.local_buffers);
  ck_assert_uint_eq(d.num_local_buffers, 0);
  ck_assert_uint_eq(d.size, sizeof d);
  /* All extents 0: the runtime chooses, as with FPAR_LOCAL_AUTO. */
  ck_assert_uint_eq(d.local.size[0], automatic.size[0]);
  ck_assert_uint_eq(d.local.size[1], automatic.size[1]);
  ck_assert_uint_eq(d.local.size[2], automatic.size[2]);

  /* A description with only a kernel and a global range runs. */
  fpar_test_env_init(&e, 0);
  atomic_init(&count, 0);
  d.kernel = count_kernel;
  d.args = &count;
  d.global = fpar_range2(30, 7);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&count), 210);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_launch_desc_passes_args) {
  fpar_launch_desc d;
  fpar_test_env e;
  args_probe p;

  p.self = &p;
  atomic_init(&p.matched, 0);
  atomic_init(&p.other, 0);
  fpar_test_env_init(&e, 0);
  fpar_launch_desc_init(&d);
  d.name = "args_probe";
  d.kernel = args_probe_kernel;
  d.args = &p;
  d.global = fpar_range3(6, 4, 5);
  d.local = fpar_range3(3, 2, 5);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&p.matched), 120);
  ck_assert_uint_eq(atomic_load(&p.other), 0);

  /* fpar_parallel_for passes its args the same way. */
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(64), fpar_range1(8),
                                      args_probe_kernel, &p, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&p.matched), 120 + 64);
  ck_assert_uint_eq(atomic_load(&p.other), 0);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_launch_desc_name_in_fault_message) {
  char name[32] = "diverging_kernel_xyz";
  atomic_size_t count;
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;
  const char *msg;

  fpar_test_env_init(&e, 0);
  fpar_launch_desc_init(&d);
  d.name = name;
  d.kernel = divergent_kernel;
  d.global = fpar_range1(8);
  d.local = fpar_range1(4);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  /* The name was copied at submission. */
  strcpy(name, "overwritten");
  ck_assert_fpar_err(fpar_event_wait(ev), FPAR_EDIVERGENCE);
  msg = fpar_event_error(ev);
  ck_assert_ptr_nonnull(msg);
  ck_assert_contains(msg, "diverging_kernel_xyz");
  fpar_event_release(ev);
  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_EDIVERGENCE);

  /* An unnamed launch still gets a message. */
  d.name = NULL;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  ck_assert_fpar_err(fpar_event_wait(ev), FPAR_EDIVERGENCE);
  ck_assert_ptr_nonnull(fpar_event_error(ev));
  ck_assert_str_ne(fpar_event_error(ev), "");
  fpar_event_release(ev);
  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_EDIVERGENCE);

  /* The queue still runs correct launches. */
  atomic_init(&count, 0);
  d.kernel = count_kernel;
  d.args = &count;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&count), 8);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Refused launches ---------------------------------------------------- */

/* A launch that must be refused with want. */
typedef struct bad_launch {
  const char *what;
  fpar_range global, local;
  int want;
} bad_launch;

static const bad_launch bad_launches[] = {
    {"global dims 0", {0, {4, 1, 1}}, {1, {4, 1, 1}}, FPAR_EDIM},
    {"global dims 4", {4, {4, 1, 1}}, {4, {4, 1, 1}}, FPAR_EDIM},
    {"1-D local for a 2-D global", {2, {4, 4, 1}}, {1, {4, 1, 1}}, FPAR_EDIM},
    {"3-D local for a 2-D global", {2, {4, 4, 1}}, {3, {2, 2, 1}}, FPAR_EDIM},
    {"empty 1-D global", {1, {0, 1, 1}}, {1, {1, 1, 1}}, FPAR_EEMPTY},
    {"empty global, automatic local",
     {1, {0, 1, 1}},
     {1, {0, 1, 1}},
     FPAR_EEMPTY},
    {"global empty in dimension 2",
     {3, {4, 4, 0}},
     {3, {2, 2, 1}},
     FPAR_EEMPTY},
    {"local (4,0)", {2, {8, 8, 1}}, {2, {4, 0, 1}}, FPAR_EEMPTY},
    {"100 / 7", {1, {100, 1, 1}}, {1, {7, 1, 1}}, FPAR_ENONDIV},
    {"local larger than global", {1, {4, 1, 1}}, {1, {8, 1, 1}}, FPAR_ENONDIV},
    {"(12,10,6) / (4,4,3)", {3, {12, 10, 6}}, {3, {4, 4, 3}}, FPAR_ENONDIV},
    {"local 8192", {1, {8192, 1, 1}}, {1, {8192, 1, 1}}, FPAR_EGROUPSIZE},
    {"local 128x64", {2, {128, 64, 1}}, {2, {128, 64, 1}}, FPAR_EGROUPSIZE},
};

#define NUM_BAD_LAUNCHES (sizeof bad_launches / sizeof bad_launches[0])

/* The two ways to submit a launch. */
enum submit_path { VIA_PARALLEL_FOR, VIA_LAUNCH };

static int submit(fpar_queue *q, enum submit_path path, fpar_range global,
                  fpar_range local, fpar_kernel_fn kernel, void *args,
                  fpar_event **ev) {
  fpar_launch_desc d;

  if (path == VIA_PARALLEL_FOR)
    return fpar_parallel_for(q, global, local, kernel, args, ev);
  fpar_launch_desc_init(&d);
  d.name = "refused";
  d.kernel = kernel;
  d.args = args;
  d.global = global;
  d.local = local;
  /* Uniform groups, as fpar_parallel_for() (tests/test_nonuniform.c runs
   * the ranges this refuses without the flag). */
  d.flags = FPAR_LAUNCH_UNIFORM;
  return fpar_launch(q, &d, ev);
}

/* Submit a refused launch: it must fail with want, leave *ev alone and
 * run nothing; then a correct launch of 16 work-items must run. */
static void check_refused(fpar_queue *q, enum submit_path path,
                          const char *what, fpar_range global, fpar_range local,
                          fpar_kernel_fn kernel, atomic_size_t *count,
                          int want) {
  fpar_event *sentinel = (fpar_event *)&sentinel, *ev = sentinel;
  size_t before = atomic_load(count);
  int rc = submit(q, path, global, local, kernel, count, &ev);

  ck_assert_msg(rc == want, "%s (%s): returned %s, expected %s (%s)", what,
                path == VIA_LAUNCH ? "fpar_launch" : "fpar_parallel_for",
                fpar_err_name(rc), fpar_err_name(want), fpar_last_error());
  ck_assert_msg(ev == sentinel, "%s: the event was written", what);
  ck_assert_fpar_ok(fpar_queue_wait(q));
  ck_assert_msg(atomic_load(count) == before, "%s: work-items ran", what);

  ck_assert_fpar_ok(submit(q, path, fpar_range1(16), fpar_range1(4),
                           count_kernel, count, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(q));
  ck_assert_uint_eq(atomic_load(count), before + 16);
}

START_TEST(test_refused_ranges) {
  atomic_size_t count;
  fpar_test_env e;
  size_t i;
  int path;

  atomic_init(&count, 0);
  fpar_test_env_init(&e, 0);
  for (path = VIA_PARALLEL_FOR; path <= VIA_LAUNCH; path++)
    for (i = 0; i < NUM_BAD_LAUNCHES; i++)
      check_refused(e.q, path, bad_launches[i].what, bad_launches[i].global,
                    bad_launches[i].local, count_kernel, &count,
                    bad_launches[i].want);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_refused_zero_dim_local) {
  /* dims 0 is no valid range (FPAR_LOCAL_AUTO has three zero extents), and
   * this one's extent is not 0, so it cannot mean "runtime's choice". */
  const fpar_range zero_dims = {0, {4, 1, 1}};
  atomic_size_t count;
  fpar_test_env e;
  int path;

  atomic_init(&count, 0);
  fpar_test_env_init(&e, 0);
  for (path = VIA_PARALLEL_FOR; path <= VIA_LAUNCH; path++)
    check_refused(e.q, path, "0-D local for a 1-D global", fpar_range1(4),
                  zero_dims, count_kernel, &count, FPAR_EDIM);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_refused_null_kernel) {
  atomic_size_t count;
  fpar_test_env e;
  int path;

  atomic_init(&count, 0);
  fpar_test_env_init(&e, 0);
  for (path = VIA_PARALLEL_FOR; path <= VIA_LAUNCH; path++)
    check_refused(e.q, path, "NULL kernel", fpar_range1(16), fpar_range1(4),
                  NULL, &count, FPAR_ENULLKERNEL);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_refused_null_queue_or_desc) {
  fpar_event *sentinel = (fpar_event *)&sentinel, *ev = sentinel;
  atomic_size_t count;
  fpar_launch_desc d;
  fpar_test_env e;

  atomic_init(&count, 0);
  ck_assert_fpar_err(fpar_parallel_for(NULL, fpar_range1(16), fpar_range1(4),
                                       count_kernel, &count, &ev),
                     FPAR_EINVAL);
  fpar_launch_desc_init(&d);
  d.kernel = count_kernel;
  d.args = &count;
  d.global = fpar_range1(16);
  d.local = fpar_range1(4);
  ck_assert_fpar_err(fpar_launch(NULL, &d, &ev), FPAR_EINVAL);
  fpar_test_env_init(&e, 0);
  ck_assert_fpar_err(fpar_launch(e.q, NULL, &ev), FPAR_EINVAL);
  ck_assert_ptr_eq(ev, sentinel);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&count), 0);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&count), 16);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_refused_local_buffer_lists) {
  fpar_local_buffer_desc buffers[FPAR_MAX_LOCAL_BUFFERS + 1];
  fpar_event *sentinel = (fpar_event *)&sentinel, *ev = sentinel;
  atomic_size_t count;
  fpar_launch_desc d;
  fpar_test_env e;
  unsigned k;

  for (k = 0; k <= FPAR_MAX_LOCAL_BUFFERS; k++)
    buffers[k] = (fpar_local_buffer_desc){16, 0, 0};
  atomic_init(&count, 0);
  fpar_test_env_init(&e, 0);
  fpar_launch_desc_init(&d);
  d.kernel = count_kernel;
  d.args = &count;
  d.global = fpar_range1(16);
  d.local = fpar_range1(4);
  d.local_buffers = buffers;

  d.num_local_buffers = FPAR_MAX_LOCAL_BUFFERS + 1; /* 17 */
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_EINVAL);
  d.num_local_buffers = 1;
  d.local_buffers = NULL;
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_EINVAL);
  ck_assert_ptr_eq(ev, sentinel);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&count), 0);

  /* The maximum number of buffers is allowed. */
  d.local_buffers = buffers;
  d.num_local_buffers = FPAR_MAX_LOCAL_BUFFERS;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_uint_eq(atomic_load(&count), 16);
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *ndrange_suite(void) {
  Suite *s = suite_create("ndrange");
  TCase *tc;

  tc = fpar_test_case("ids");
  tcase_add_test(tc, test_ids_1d);
  tcase_add_test(tc, test_ids_2d);
  tcase_add_test(tc, test_ids_3d);
  tcase_add_test(tc, test_ids_one_worker);
  tcase_add_test(tc, test_big_barrier_free_groups);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("auto_local");
  tcase_add_test(tc, test_auto_local_macro);
  tcase_add_test(tc, test_auto_local_all_zero_ranges);
  tcase_add_test(tc, test_auto_local_prime_global);
  tcase_add_test(tc, test_auto_local_respects_max_group_size);
  tcase_add_test(tc, test_auto_local_with_row_runner);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("launch_desc");
  tcase_add_test(tc, test_launch_desc_init_defaults);
  tcase_add_test(tc, test_launch_desc_from_other_headers);
  tcase_add_test(tc, test_queries_as_functions);
  tcase_add_test(tc, test_launch_desc_passes_args);
  tcase_add_test(tc, test_launch_desc_name_in_fault_message);
  tcase_add_test(tc, test_row_runner_divergence);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("refused");
  tcase_add_test(tc, test_refused_ranges);
  tcase_add_test(tc, test_refused_zero_dim_local);
  tcase_add_test(tc, test_refused_null_kernel);
  tcase_add_test(tc, test_refused_null_queue_or_desc);
  tcase_add_test(tc, test_refused_local_buffer_lists);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(ndrange_suite());
}
