/* SPDX-License-Identifier: MIT */
/* test_lanes.c - lane-form kernels of <fiberpar/simd.h>: nd_range kernels
 * that handle a sub-group of FPAR_SIMD_WIDTH work-items per call (their
 * geometry, barriers, group-local memory, launch-time local buffers and
 * divergence), the sub-group operations over a masked tail, the lane
 * bodies of scoped and hierarchical groups, and the launches the library
 * refuses.
 *
 * The file is built at the machine's width (tests/test_lanes) and with
 * FPAR_SIMD_FORCE_SCALAR (tests/test_lanes_scalar, one lane), so every
 * shape is written in terms of FPAR_SIMD_WIDTH.  Kernels run on worker
 * threads and only record what they see; the checks run on the test's
 * thread against serial references of their own (dimension 0 fastest,
 * linear ids x + X * (y + Y * z)).
 */
#include <fiberpar/simd.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The lane count of this build, as a size. */
#define LANES ((size_t)FPAR_SIMD_WIDTH)

/* Worker threads of every runtime made here. */
#define THREADS 2

/* Value inactive lanes are filled with, so that a sub-group operation that
 * lets them contribute gives a result far from every real one. */
#define POISON 1.0e6f

/* ---- Values, ranges and lanes ------------------------------------------- */

/* A deterministic pseudo-random value for index i (splitmix64). */
static uint64_t test_value(uint64_t i) {
  uint64_t z = i + 0x9e3779b97f4a7c15u;

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* An integer in [0, 1000) for index i: sums of a few thousand stay exact
 * in int32 and in float. */
static int32_t small_value(size_t i) {
  return (int32_t)(test_value(i) % 1000);
}

/* An integer-valued float in [-1000, 1000] for index i, so that sums and
 * scans are exact whatever order the lanes combine in. */
static float signed_value(size_t i) {
  return (float)((int32_t)(test_value(i) % 2001) - 1000);
}

static size_t range_volume(const size_t r[3]) {
  return r[0] * r[1] * r[2];
}

static size_t linear_of(const size_t id[3], const size_t r[3]) {
  return id[0] + r[0] * (id[1] + r[1] * id[2]);
}

static void id_of(size_t linear, const size_t r[3], size_t id[3]) {
  id[0] = linear % r[0];
  id[1] = linear / r[0] % r[1];
  id[2] = linear / (r[0] * r[1]);
}

/* Lanes of the block that starts at x in a row of `row` items. */
static unsigned lanes_in_block(size_t x, size_t row) {
  return row - x < LANES ? (unsigned)(row - x) : FPAR_SIMD_WIDTH;
}

/* Lanes 0..n-1 on, built lane by lane rather than by the library. */
static fpar_vmask expected_mask(unsigned n) {
  fpar_vmask m;

  for (int i = 0; i < FPAR_SIMD_WIDTH; i++)
    m[i] = (unsigned)i < n ? -1 : 0;
  return m;
}

/* Lane i holds first + i. */
static fpar_vi32 consecutive_ids(size_t first) {
  fpar_vi32 v;

  for (int i = 0; i < FPAR_SIMD_WIDTH; i++)
    v[i] = (int32_t)(first + (size_t)i);
  return v;
}

static int same_lanes(fpar_vi32 a, fpar_vi32 b) {
  return memcmp(&a, &b, sizeof a) == 0;
}

/* ---- Faults seen on worker threads -------------------------------------- */

/* Kernels cannot fail a Check test from a worker thread, so they count what
 * they find wrong here and describe the first case; the test's thread
 * asserts the count afterwards. */
typedef struct bad_log {
  unsigned count;
  char first[256];
} bad_log;

static void __attribute__((format(printf, 2, 3)))
bad_note(bad_log *b, const char *fmt, ...) {
  va_list ap;

  if (__atomic_fetch_add(&b->count, 1, __ATOMIC_RELAXED) != 0)
    return;
  va_start(ap, fmt);
  vsnprintf(b->first, sizeof b->first, fmt, ap);
  va_end(ap);
}

static void assert_no_bad(const bad_log *b, const char *what) {
  ck_assert_msg(b->count == 0, "%s: %u wrong observations; the first: %s", what,
                b->count, b->first);
}

/* ---- Launches ------------------------------------------------------------ */

/* A launch of a FPAR_DEFINE_LANE_KERNEL kernel at this build's width. */
static fpar_launch_desc lane_desc(fpar_kernel_fn kernel, void *args,
                                  fpar_range global, fpar_range local) {
  fpar_launch_desc d;

  fpar_launch_desc_init(&d);
  d.name = "lane kernel";
  d.kernel = kernel;
  d.lanes = FPAR_SIMD_WIDTH;
  d.subgroup_size = FPAR_SIMD_WIDTH; /* also when it is 1 */
  d.args = args;
  d.global = global;
  d.local = local;
  return d;
}

/* Submit d and wait; the launch must end with `want` (0: success). */
static void run_expect(fpar_test_env *e, const fpar_launch_desc *d, int want) {
  fpar_event *ev = NULL;
  const char *msg;
  int rc;

  ck_assert_fpar_ok(fpar_launch(e->q, d, &ev));
  rc = fpar_event_wait(ev);
  msg = fpar_event_error(ev);
  ck_assert_msg(rc == want, "launch ended with %s, expected %s: %s",
                fpar_err_name(rc), fpar_err_name(want),
                msg != NULL ? msg : "(no message)");
  fpar_event_release(ev);
}

static void run_ok(fpar_test_env *e, const fpar_launch_desc *d) {
  run_expect(e, d, 0);
}

/* A launch that must succeed, submitted through `submit` (fpar_parallel or
 * fpar_parallel_for_work_group). */
typedef int (*group_launch_fn)(fpar_queue *q, fpar_range groups,
                               fpar_range size, fpar_group_fn fn, void *args,
                               fpar_event **ev);

static void run_groups(fpar_test_env *e, group_launch_fn submit,
                       fpar_range groups, fpar_range size, fpar_group_fn fn,
                       void *args) {
  fpar_event *ev = NULL;
  const char *msg;
  int rc;

  ck_assert_fpar_ok(submit(e->q, groups, size, fn, args, &ev));
  rc = fpar_event_wait(ev);
  msg = fpar_event_error(ev);
  ck_assert_msg(rc == 0, "group launch failed with %s: %s", fpar_err_name(rc),
                msg != NULL ? msg : "(no message)");
  fpar_event_release(ev);
}

/* ==== Geometry of lane nd_range kernels ================================== */

/* What one work-item (one lane that is on) saw. */
typedef struct item_record {
  unsigned visits;
  uint32_t local0, global0; /* lk->local_id0 and lk->global_id0 */
  uint32_t lane, active;
  int32_t mask;
  size_t local_linear, global_linear; /* lane 0's query + lane */
  size_t local_id[3], global_id[3], group_id[3];
  size_t local_range[3], global_range[3], group_range[3];
  unsigned dims;
} item_record;

typedef struct geometry_args {
  item_record *rec; /* per global linear id */
  size_t n;
  int with_barriers; /* run the group as fibers */
  bad_log bad;
} geometry_args;

/* The per-call facts of a sub-group: where it starts, its active lanes and
 * mask (off lanes included), and the id vectors of every lane. */
static void check_lane_call(const fpar_lanes *lk, bad_log *bad) {
  fpar_item *it = lk->it;
  size_t first = fpar_local_id(it, 0), row = fpar_local_range(it, 0);
  unsigned want;

  if (first % LANES != 0 || first >= row) {
    bad_note(bad, "a sub-group starts at local id %zu of a row of %zu", first,
             row);
    return;
  }
  want = lanes_in_block(first, row);
  if (lk->active != want)
    bad_note(bad, "sub-group at %zu of %zu: active %u, expected %u", first, row,
             lk->active, want);
  if (!same_lanes(lk->mask, expected_mask(want)) ||
      fpar_vmask_count(lk->mask) != want)
    bad_note(bad, "sub-group at %zu of %zu: mask of %u lanes, expected %u",
             first, row, fpar_vmask_count(lk->mask), want);
  if (!same_lanes(lk->local_id0, consecutive_ids(first)))
    bad_note(bad, "sub-group at %zu: local_id0 lane 0 is %d", first,
             (int)lk->local_id0[0]);
  if (!same_lanes(lk->global_id0, consecutive_ids(fpar_global_id(it, 0))) ||
      lk->global_first != fpar_global_id(it, 0))
    bad_note(bad,
             "sub-group at %zu: global_id0 lane 0 is %d, global_first %zu, "
             "expected %zu",
             first, (int)lk->global_id0[0], lk->global_first,
             fpar_global_id(it, 0));
}

/* Record what lane `lane` says about its work-item: the lane vectors, and
 * lane 0's scalar queries shifted by the lane along dimension 0. */
static void record_lane_item(const fpar_lanes *lk, geometry_args *a, int lane) {
  fpar_item *it = lk->it;
  size_t g[3], r[3], index;
  item_record *rec;
  unsigned d;

  for (d = 0; d < 3; d++) {
    g[d] = fpar_global_id(it, d) + (d == 0 ? (size_t)lane : 0);
    r[d] = fpar_global_range(it, d);
  }
  index = linear_of(g, r);
  if (index >= a->n) {
    bad_note(&a->bad, "lane %d has global id (%zu,%zu,%zu) beyond the launch",
             lane, g[0], g[1], g[2]);
    return;
  }
  rec = &a->rec[index];
  __atomic_fetch_add(&rec->visits, 1, __ATOMIC_RELAXED);
  rec->local0 = (uint32_t)lk->local_id0[lane];
  rec->global0 = (uint32_t)lk->global_id0[lane];
  rec->lane = (uint32_t)lane;
  rec->active = lk->active;
  rec->mask = lk->mask[lane];
  rec->local_linear = fpar_local_linear_id(it) + (size_t)lane;
  rec->global_linear = fpar_global_linear_id(it) + (size_t)lane;
  rec->dims = fpar_work_dim(it);
  for (d = 0; d < 3; d++) {
    rec->local_id[d] = fpar_local_id(it, d) + (d == 0 ? (size_t)lane : 0);
    rec->global_id[d] = g[d];
    rec->group_id[d] = fpar_group_id(it, d);
    rec->local_range[d] = fpar_local_range(it, d);
    rec->global_range[d] = r[d];
    rec->group_range[d] = fpar_group_range(it, d);
  }
}

static inline void record_geometry_body(fpar_lanes *lk, void *p) {
  geometry_args *a = p;

  if (a->with_barriers)
    fpar_barrier(lk->it);
  check_lane_call(lk, &a->bad);
  for (int lane = 0; lane < FPAR_SIMD_WIDTH; lane++)
    if (lk->mask[lane])
      record_lane_item(lk, a, lane);
  if (a->with_barriers)
    fpar_barrier(lk->it);
}
FPAR_DEFINE_LANE_KERNEL(record_geometry_kernel, record_geometry_body)
FPAR_DEFINE_LANE_ROW(record_geometry_row, record_geometry_body)

/* An nd_range: its global range and its local range (all 0: AUTO). */
typedef struct nd_shape {
  unsigned dims;
  size_t global[3];
  size_t local[3];
} nd_shape;

/* Local sizes divisible by the width, not divisible (3W+5, 7, 1), smaller
 * than it, masked tails in every row of 2-D and 3-D groups, and the
 * runtime's choice. */
static const nd_shape nd_shapes[] = {
    {1, {4 * LANES, 1, 1}, {LANES, 1, 1}},
    {1, {3 * (3 * LANES + 5), 1, 1}, {3 * LANES + 5, 1, 1}},
    {1, {5 * 7, 1, 1}, {7, 1, 1}},
    {1, {9, 1, 1}, {1, 1, 1}},
    {1, {4 * ((LANES + 1) / 2), 1, 1}, {(LANES + 1) / 2, 1, 1}},
    {1, {6, 1, 1}, {3, 1, 1}},
    {2, {2 * (3 * LANES + 5), 6, 1}, {3 * LANES + 5, 2, 1}},
    {2, {14, 9, 1}, {7, 3, 1}},
    {2, {4, 6, 1}, {1, 3, 1}},
    {3, {2 * (LANES + 3), 4, 6}, {LANES + 3, 2, 3}},
    {3, {10, 6, 4}, {5, 3, 2}},
    {1, {6 * LANES + 10, 1, 1}, {0, 0, 0}},
    {2, {3 * LANES + 7, 6, 1}, {0, 0, 0}},
    {3, {2 * LANES + 1, 3, 4}, {0, 0, 0}},
};
#define NND_SHAPES (sizeof nd_shapes / sizeof nd_shapes[0])

static fpar_range shape_range(unsigned dims, const size_t size[3]) {
  fpar_range r = {dims, {size[0], size[1], size[2]}};

  return r;
}

/* The local range the launch used: the shape's, or for AUTO the one every
 * work-item reported (it must be one range that divides the global). */
static void launch_local_range(const nd_shape *s, const item_record *rec,
                               size_t n, size_t local[3]) {
  unsigned d;
  size_t i;

  if (s->local[0] != 0) {
    for (d = 0; d < 3; d++)
      local[d] = s->local[d];
    return;
  }
  memcpy(local, rec[0].local_range, 3 * sizeof local[0]);
  for (d = 0; d < 3; d++)
    ck_assert_msg(local[d] > 0 && s->global[d] % local[d] == 0,
                  "AUTO chose local range %zu in dimension %u of global %zu",
                  local[d], d, s->global[d]);
  for (i = 1; i < n; i++)
    ck_assert_msg(memcmp(rec[i].local_range, local, 3 * sizeof local[0]) == 0,
                  "work-item %zu saw another local range", i);
}

static void check_item_record(const item_record *r, const nd_shape *s,
                              const size_t local[3], size_t index) {
  size_t g[3], l[3], group[3], groups[3];
  unsigned d;

  id_of(index, s->global, g);
  for (d = 0; d < 3; d++) {
    l[d] = g[d] % local[d];
    group[d] = g[d] / local[d];
    groups[d] = s->global[d] / local[d];
  }
  ck_assert_msg(r->visits == 1, "work-item (%zu,%zu,%zu) visited %u times",
                g[0], g[1], g[2], r->visits);
  ck_assert_msg(r->local0 == l[0] && r->global0 == g[0],
                "work-item (%zu,%zu,%zu): lane ids local %u global %u, "
                "expected %zu and %zu",
                g[0], g[1], g[2], r->local0, r->global0, l[0], g[0]);
  ck_assert_msg(r->lane == l[0] % LANES && r->mask == -1,
                "work-item %zu of its row ran in lane %u (mask %d)", l[0],
                r->lane, (int)r->mask);
  ck_assert_msg(r->active == lanes_in_block(l[0] - l[0] % LANES, local[0]),
                "work-item %zu of a row of %zu: active %u", l[0], local[0],
                r->active);
  ck_assert_uint_eq(r->local_linear, linear_of(l, local));
  ck_assert_uint_eq(r->global_linear, index);
  ck_assert_uint_eq(r->dims, s->dims);
  for (d = 0; d < 3; d++) {
    ck_assert_msg(r->local_id[d] == l[d] && r->global_id[d] == g[d] &&
                      r->group_id[d] == group[d],
                  "work-item (%zu,%zu,%zu), dimension %u: local %zu global "
                  "%zu group %zu",
                  g[0], g[1], g[2], d, r->local_id[d], r->global_id[d],
                  r->group_id[d]);
    ck_assert_uint_eq(r->local_range[d], local[d]);
    ck_assert_uint_eq(r->global_range[d], s->global[d]);
    ck_assert_uint_eq(r->group_range[d], groups[d]);
  }
}

/* Every work-item is one lane of exactly one call, with the ids, mask and
 * scalar queries arithmetic gives; as a loop (no barrier), as fibers, and
 * as a loop of the row runner (FPAR_DEFINE_LANE_ROW), which fibers
 * ignore. */
#define GEOMETRY_MODES 4
START_TEST(test_lane_kernel_visits_each_item_once) {
  const nd_shape *s = &nd_shapes[_i / GEOMETRY_MODES];
  int mode = _i % GEOMETRY_MODES;
  size_t n = range_volume(s->global), local[3], i;
  geometry_args a = {calloc(n, sizeof(item_record)), n, mode & 1, {0, ""}};
  fpar_launch_desc d =
      lane_desc(record_geometry_kernel, &a, shape_range(s->dims, s->global),
                shape_range(s->dims, s->local));
  fpar_test_env e;

  /* FPAR_DEFINE_LANE_ROW is deprecated (FPAR_LANE_KERNEL makes the
   * runner), and must keep working. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  if (mode & 2)
    d.row = record_geometry_row;
#pragma GCC diagnostic pop
  ck_assert_ptr_nonnull(a.rec);
  fpar_test_env_init(&e, THREADS);
  run_ok(&e, &d);
  fpar_test_env_fini(&e);
  assert_no_bad(&a.bad, "lane kernel geometry");
  launch_local_range(s, a.rec, n, local);
  for (i = 0; i < n; i++)
    check_item_record(&a.rec[i], s, local, i);
  free(a.rec);
}
END_TEST

/* ==== Barriers and local memory in lane kernels ========================= */

typedef struct reduce_args {
  const int32_t *in;
  int32_t *partial; /* one sum per work-group */
} reduce_args;

/* A tree reduction of the group's inputs in group-local memory: each step
 * folds the upper half of the n live values onto the lower half (for odd n
 * the middle one waits for the next step), one barrier per step. */
static inline void tree_reduce_body(fpar_lanes *lk, void *p) {
  reduce_args *a = p;
  fpar_item *it = lk->it;
  size_t n = fpar_local_range(it, 0), first = fpar_local_id(it, 0);
  int32_t *tmp = fpar_group_local_memory_for_overwrite(it, n * sizeof *tmp, 64);
  fpar_vi32 in = fpar_vi32_load_mask(a->in + fpar_global_id(it, 0), lk->mask);

  fpar_vi32_store_mask(tmp + first, in, lk->mask);
  fpar_barrier(lk->it);
  while (n > 1) {
    size_t half = (n + 1) / 2;
    fpar_vmask m = lk->mask & (lk->local_id0 + (int32_t)half < (int32_t)n);
    fpar_vi32 upper = fpar_vi32_gather(tmp, lk->local_id0 + (int32_t)half, m);
    fpar_vi32 lower = fpar_vi32_load_mask(tmp + first, m);
    fpar_vi32_store_mask(tmp + first, lower + upper, m);
    fpar_barrier(lk->it);
    n = half;
  }
  if (first == 0)
    a->partial[fpar_group_id(it, 0)] = tmp[0];
}
FPAR_DEFINE_LANE_KERNEL(tree_reduce_kernel, tree_reduce_body)

/* Each sub-group sums its lanes (off lanes hold POISON) into a slot of
 * group-local memory; after a barrier the first sub-group adds the slots. */
static inline void subgroup_sums_body(fpar_lanes *lk, void *p) {
  reduce_args *a = p;
  fpar_item *it = lk->it;
  size_t first = fpar_local_id(it, 0);
  size_t slots = fpar_num_sub_groups(it), k;
  float *sums = fpar_group_local_memory(it, slots * sizeof *sums, 0);
  fpar_vi32 in = fpar_vi32_load_mask(a->in + fpar_global_id(it, 0), lk->mask);
  fpar_vf32 v = fpar_vf32_select(lk->mask, fpar_vf32_from_vi32(in),
                                 fpar_vf32_splat(POISON));

  sums[fpar_sub_group_id(it)] = fpar_sub_group_reduce_add_vf32(lk, v);
  fpar_barrier(lk->it);
  if (first == 0) {
    float total = 0;
    for (k = 0; k < slots; k++)
      total += sums[k];
    a->partial[fpar_group_id(it, 0)] = (int32_t)total;
  }
}
FPAR_DEFINE_LANE_KERNEL(subgroup_sums_kernel, subgroup_sums_body)

/* Run a reduction kernel over `groups` 1-D groups of `local` work-items
 * and compare every group's sum with a serial one. */
static void assert_group_sums(fpar_test_env *e, fpar_kernel_fn kernel,
                              size_t local, size_t groups) {
  size_t n = local * groups, i, g;
  int32_t *in = malloc(n * sizeof *in);
  int32_t *partial = calloc(groups, sizeof *partial);
  reduce_args a = {in, partial};
  fpar_launch_desc d =
      lane_desc(kernel, &a, fpar_range1(n), fpar_range1(local));

  ck_assert_ptr_nonnull(in);
  ck_assert_ptr_nonnull(partial);
  for (i = 0; i < n; i++)
    in[i] = small_value(i);
  run_ok(e, &d);
  for (g = 0; g < groups; g++) {
    int32_t serial = 0;
    for (i = g * local; i < (g + 1) * local; i++)
      serial += in[i];
    ck_assert_msg(partial[g] == serial,
                  "groups of %zu, group %zu: sum %d, serial %d", local, g,
                  (int)partial[g], (int)serial);
  }
  free(in);
  free(partial);
}

/* Local sizes of the reductions (none divisible by the width but the
 * width itself) and their group counts. */
static const struct {
  size_t local, groups;
} reduce_shapes[] = {
    {3 * LANES + 5, 8},  {7, 16}, {2 * LANES + 1, 8}, {LANES + 1, 8},
    {64 * LANES + 3, 4},
};
#define NREDUCE_SHAPES (sizeof reduce_shapes / sizeof reduce_shapes[0])

START_TEST(test_tree_reduction_through_local_memory) {
  fpar_test_env e;

  fpar_test_env_init(&e, THREADS);
  assert_group_sums(&e, tree_reduce_kernel, reduce_shapes[_i].local,
                    reduce_shapes[_i].groups);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_subgroup_sums_combined_after_barrier) {
  fpar_test_env e;

  fpar_test_env_init(&e, THREADS);
  assert_group_sums(&e, subgroup_sums_kernel, reduce_shapes[_i].local,
                    reduce_shapes[_i].groups);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Many barriers ------------------------------------------------------ */

#define EXCHANGE_ITERATIONS 200

typedef struct exchange_args {
  const uint32_t *in;
  uint32_t *out;
} exchange_args;

/* One step of the neighbour exchange: what work-item lid makes of the value
 * its right neighbour held (wrapping 32-bit arithmetic). */
static fpar_vu32 exchange_step(fpar_vu32 neighbour, fpar_vu32 lid,
                               uint32_t iter) {
  return neighbour * 0x9e3779b9u + lid + 7u * iter;
}

/* Each iteration passes every value one work-item to the left (cyclically)
 * through group-local memory: two barriers per iteration. */
static inline void exchange_body(fpar_lanes *lk, void *p) {
  exchange_args *a = p;
  fpar_item *it = lk->it;
  size_t n = fpar_local_range(it, 0), first = fpar_local_id(it, 0);
  uint32_t *tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);
  fpar_vi32 right = lk->local_id0 + 1;
  fpar_vu32 lid = (fpar_vu32)lk->local_id0;
  fpar_vu32 v = fpar_vu32_load_mask(a->in + fpar_global_id(it, 0), lk->mask);
  uint32_t iter;

  right = fpar_vi32_select(right == (int32_t)n, fpar_vi32_splat(0), right);
  for (iter = 0; iter < EXCHANGE_ITERATIONS; iter++) {
    fpar_vu32_store_mask(tmp + first, v, lk->mask);
    fpar_barrier(lk->it);
    v = exchange_step(fpar_vu32_gather(tmp, right, lk->mask), lid, iter);
    fpar_barrier(lk->it);
  }
  fpar_vu32_store_mask(a->out + fpar_global_id(it, 0), v, lk->mask);
}
FPAR_DEFINE_LANE_KERNEL(exchange_kernel, exchange_body)

/* The exchange of one group of n values, serially. */
static void exchange_serial(uint32_t *v, size_t n) {
  uint32_t *next = malloc(n * sizeof *next);
  uint32_t iter;
  size_t l;

  ck_assert_ptr_nonnull(next);
  for (iter = 0; iter < EXCHANGE_ITERATIONS; iter++) {
    for (l = 0; l < n; l++)
      next[l] = exchange_step(fpar_vu32_splat(v[(l + 1) % n]),
                              fpar_vu32_splat((uint32_t)l), iter)[0];
    memcpy(v, next, n * sizeof *v);
  }
  free(next);
}

static void assert_neighbour_exchange(fpar_test_env *e, size_t local,
                                      size_t groups) {
  size_t n = local * groups, i;
  uint32_t *in = malloc(n * sizeof *in), *out = calloc(n, sizeof *out);
  uint32_t *want = malloc(n * sizeof *want);
  exchange_args a = {in, out};
  fpar_launch_desc d =
      lane_desc(exchange_kernel, &a, fpar_range1(n), fpar_range1(local));

  ck_assert_ptr_nonnull(in);
  ck_assert_ptr_nonnull(out);
  ck_assert_ptr_nonnull(want);
  for (i = 0; i < n; i++)
    in[i] = want[i] = (uint32_t)test_value(i);
  run_ok(e, &d);
  for (i = 0; i < groups; i++)
    exchange_serial(want + i * local, local);
  for (i = 0; i < n; i++)
    ck_assert_msg(out[i] == want[i],
                  "groups of %zu, work-item %zu: %08x, serial %08x", local, i,
                  out[i], want[i]);
  free(in);
  free(out);
  free(want);
}

static const size_t exchange_locals[] = {2 * LANES + 3, 5, 4 * LANES};
#define NEXCHANGE_LOCALS (sizeof exchange_locals / sizeof exchange_locals[0])

START_TEST(test_neighbour_exchange_many_barriers) {
  fpar_test_env e;

  fpar_test_env_init(&e, THREADS);
  assert_neighbour_exchange(&e, exchange_locals[_i], 4);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Groups of one sub-group -------------------------------------------- */

/* With at most W work-items a group is one sub-group, so its barriers have
 * nobody to wait for and must return at once. */
START_TEST(test_single_subgroup_barriers) {
  const size_t locals[] = {LANES, (LANES + 1) / 2, 1};
  fpar_test_env e;
  size_t k;

  fpar_test_env_init(&e, THREADS);
  for (k = 0; k < sizeof locals / sizeof locals[0]; k++) {
    assert_group_sums(&e, tree_reduce_kernel, locals[k], 8);
    assert_group_sums(&e, subgroup_sums_kernel, locals[k], 8);
    assert_neighbour_exchange(&e, locals[k], 3);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Launch-time local buffers ------------------------------------------ */

typedef struct reverse_args {
  const int32_t *in;
  int32_t *out;    /* the group's inputs in reverse order */
  int32_t *counts; /* per work-item: work-items the group counted */
  bad_log bad;
} reverse_args;

/* Buffer 0 holds one int per work-item, buffer 1 a counter of the group
 * (contents undefined at group start, so the first sub-group clears it
 * before the first barrier). */
static inline void reverse_body(fpar_lanes *lk, void *p) {
  reverse_args *a = p;
  fpar_item *it = lk->it;
  size_t n = fpar_local_range(it, 0), first = fpar_local_id(it, 0);
  size_t g0 = fpar_global_id(it, 0);
  int32_t *items = fpar_local_buffer(it, 0), *count = fpar_local_buffer(it, 1);
  fpar_vi32 reversed;

  if ((uintptr_t)items % 64 != 0 || (uintptr_t)count % 128 != 0)
    bad_note(&a->bad, "local buffers at %p and %p are misaligned",
             (void *)items, (void *)count);
  if (first == 0)
    *count = 0;
  fpar_vi32_store_mask(items + first, fpar_vi32_load_mask(a->in + g0, lk->mask),
                       lk->mask);
  fpar_barrier(lk->it);
  /* Sub-groups add concurrently (on a GPU, and under racecheck). */
  __atomic_fetch_add(count, (int32_t)lk->active, __ATOMIC_RELAXED);
  reversed = fpar_vi32_gather(items, (int32_t)n - 1 - lk->local_id0, lk->mask);
  fpar_barrier(lk->it);
  fpar_vi32_store_mask(a->out + g0, reversed, lk->mask);
  fpar_vi32_store_mask(a->counts + g0, fpar_vi32_splat(*count), lk->mask);
}
FPAR_DEFINE_LANE_KERNEL(reverse_kernel, reverse_body)

static const size_t buffer_locals[] = {3 * LANES + 5, 7, LANES, 1};
#define NBUFFER_LOCALS (sizeof buffer_locals / sizeof buffer_locals[0])

START_TEST(test_local_buffers_per_item) {
  const fpar_local_buffer_desc bufs[2] = {{0, sizeof(int32_t), 0},
                                          {sizeof(int32_t), 0, 128}};
  size_t local = buffer_locals[_i], groups = 6, n = local * groups, i;
  reverse_args a = {malloc(n * sizeof(int32_t)),
                    calloc(n, sizeof(int32_t)),
                    calloc(n, sizeof(int32_t)),
                    {0, ""}};
  int32_t *in = (int32_t *)a.in;
  fpar_launch_desc d =
      lane_desc(reverse_kernel, &a, fpar_range1(n), fpar_range1(local));
  fpar_test_env e;

  ck_assert_ptr_nonnull(in);
  ck_assert_ptr_nonnull(a.out);
  ck_assert_ptr_nonnull(a.counts);
  for (i = 0; i < n; i++)
    in[i] = (int32_t)(test_value(i) >> 33);
  d.local_buffers = bufs;
  d.num_local_buffers = 2;
  fpar_test_env_init(&e, THREADS);
  run_ok(&e, &d);
  fpar_test_env_fini(&e);
  assert_no_bad(&a.bad, "local buffers");
  for (i = 0; i < n; i++) {
    size_t base = i - i % local, l = i % local;
    ck_assert_msg(a.out[i] == in[base + local - 1 - l],
                  "groups of %zu, work-item %zu: %d, expected %d", local, i,
                  (int)a.out[i], (int)in[base + local - 1 - l]);
    ck_assert_msg(a.counts[i] == (int32_t)local,
                  "groups of %zu, work-item %zu: the group counted %d", local,
                  i, (int)a.counts[i]);
  }
  free(in);
  free(a.out);
  free(a.counts);
}
END_TEST

/* ---- Divergence ---------------------------------------------------------- */

/* The first sub-group returns at once while the others wait at a barrier. */
static inline void first_returns_body(fpar_lanes *lk, void *p) {
  (void)p;
  if (fpar_local_linear_id(lk->it) == 0)
    return;
  fpar_barrier(lk->it);
}
FPAR_DEFINE_LANE_KERNEL(first_returns_kernel, first_returns_body)

/* The first sub-group waits at a barrier while the others return. */
static inline void others_return_body(fpar_lanes *lk, void *p) {
  (void)p;
  if (fpar_local_linear_id(lk->it) != 0)
    return;
  fpar_barrier(lk->it);
}
FPAR_DEFINE_LANE_KERNEL(others_return_kernel, others_return_body)

/* A group of three sub-groups whose first one takes another path than the
 * rest fails with FPAR_EDIVERGENCE instead of hanging, and the runtime
 * runs lane kernels with barriers correctly afterwards. */
START_TEST(test_divergence_detected) {
  fpar_kernel_fn kernels[2] = {first_returns_kernel, others_return_kernel};
  size_t local = 2 * LANES + 3;
  fpar_launch_desc d =
      lane_desc(kernels[_i], NULL, fpar_range1(4 * local), fpar_range1(local));
  fpar_test_env e;

  fpar_test_env_init(&e, THREADS);
  run_expect(&e, &d, FPAR_EDIVERGENCE);
  /* The queue reports the failure once, then is clean. */
  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_EDIVERGENCE);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  assert_group_sums(&e, tree_reduce_kernel, local, 8);
  assert_neighbour_exchange(&e, 3 * LANES + 5, 2);
  fpar_test_env_fini(&e);
}
END_TEST

/* ==== Sub-group operations =============================================== */

/* Room for the xor masks 1, 2, ..., W/2 of widths up to 64, and the number
 * of vote predicates x > threshold. */
#define XOR_STEPS 7
#define PREDICATES 4

static const float thresholds[PREDICATES] = {-2000.0f, 0.0f, 900.0f, 2000.0f};

/* Per work-item results of the lane-wise operations. */
typedef struct lane_ops_record {
  unsigned visits;
  float broadcast, shuffle, up, down, xor_[XOR_STEPS];
  float scan_add, scan_min, scan_max, exscan_add, exscan_min, exscan_max;
  int32_t iscan_add;
} lane_ops_record;

/* Per sub-group results of the reductions and votes. */
typedef struct subgroup_record {
  unsigned calls, active;
  float sum, min, max;
  int any[PREDICATES], all[PREDICATES];
  int any_off_lanes, all_on_lanes;
  float last_scan[3]; /* lane W-1 of scan_add/min/max: the running values
                         over all active lanes, off lanes adding nothing */
} subgroup_record;

typedef struct subgroup_args {
  const float *in; /* per global linear id */
  lane_ops_record *items;
  subgroup_record *subgroups; /* per sub-group of the launch */
  size_t num_subgroups;
  bad_log bad;
} subgroup_args;

/* The broadcast lane, shuffle source and shift of a sub-group, from its
 * index and active lanes only (the reference uses the same). */
static unsigned broadcast_lane(size_t sg, unsigned active) {
  return (unsigned)(sg % active);
}
static int shuffle_source(int lane, unsigned active) {
  return (lane * 5 + 3) % (int)active;
}
static unsigned down_delta(void) {
  return FPAR_SIMD_WIDTH > 1 ? FPAR_SIMD_WIDTH / 2 : 1;
}

/* Index of the calling sub-group within the launch: groups in linear order,
 * then rows, then sub-groups along the row. */
static size_t subgroup_index(const fpar_item *it) {
  return fpar_group_linear_id(it) * fpar_num_sub_groups(it) +
         fpar_sub_group_id(it);
}

static void record_votes(const fpar_lanes *lk, fpar_vf32 x, size_t row,
                         subgroup_record *r) {
  for (int k = 0; k < PREDICATES; k++) {
    fpar_vmask pred = x > fpar_vf32_splat(thresholds[k]);
    r->any[k] = fpar_sub_group_any_vmask(lk, pred);
    r->all[k] = fpar_sub_group_all_vmask(lk, pred);
  }
  /* True exactly on the lanes that are off, then exactly on those on. */
  r->any_off_lanes =
      fpar_sub_group_any_vmask(lk, lk->local_id0 >= (int32_t)row);
  r->all_on_lanes = fpar_sub_group_all_vmask(lk, lk->local_id0 < (int32_t)row);
}

static void record_lane_ops(const fpar_lanes *lk, fpar_vf32 v, size_t sg,
                            subgroup_record *sgr, lane_ops_record *out) {
  fpar_vi32 idx = fpar_vi32_iota();
  fpar_vf32 bcast = fpar_vf32_broadcast(v, broadcast_lane(sg, lk->active));
  fpar_vf32 xors[XOR_STEPS] = {{0}}, shuf, up, down, s[6];
  fpar_vi32 iscan = fpar_vi32_scan_add(fpar_vi32_from_vf32(v), lk->mask);
  int k = 0;

  for (int i = 0; i < FPAR_SIMD_WIDTH; i++)
    idx[i] = shuffle_source(i, lk->active) + FPAR_SIMD_WIDTH;
  shuf = fpar_vf32_shuffle(v, idx);
  for (unsigned m = 1; m < LANES; m *= 2)
    xors[k++] = fpar_vf32_shuffle_xor(v, m);
  up = fpar_vf32_shuffle_up(v, 1);
  down = fpar_vf32_shuffle_down(v, down_delta());
  s[0] = fpar_vf32_scan_add(v, lk->mask);
  s[1] = fpar_vf32_scan_min(v, lk->mask);
  s[2] = fpar_vf32_scan_max(v, lk->mask);
  s[3] = fpar_vf32_exscan_add(v, lk->mask);
  s[4] = fpar_vf32_exscan_min(v, lk->mask);
  s[5] = fpar_vf32_exscan_max(v, lk->mask);
  for (int j = 0; j < 3; j++)
    sgr->last_scan[j] = s[j][FPAR_SIMD_WIDTH - 1];
  for (int lane = 0; lane < FPAR_SIMD_WIDTH; lane++) {
    lane_ops_record *r = &out[lane];
    if (!lk->mask[lane])
      continue;
    __atomic_fetch_add(&r->visits, 1, __ATOMIC_RELAXED);
    r->broadcast = bcast[lane];
    r->shuffle = shuf[lane];
    r->up = up[lane];
    r->down = down[lane];
    for (int j = 0; j < k; j++)
      r->xor_[j] = xors[j][lane];
    r->scan_add = s[0][lane];
    r->scan_min = s[1][lane];
    r->scan_max = s[2][lane];
    r->exscan_add = s[3][lane];
    r->exscan_min = s[4][lane];
    r->exscan_max = s[5][lane];
    r->iscan_add = iscan[lane];
  }
}

/* Off lanes hold POISON (+POISON for min, -POISON for max) so that any
 * operation that lets them in shows it. */
static inline void subgroup_ops_body(fpar_lanes *lk, void *p) {
  subgroup_args *a = p;
  fpar_item *it = lk->it;
  size_t sg = subgroup_index(it), row = fpar_local_range(it, 0);
  size_t index = fpar_global_linear_id(it);
  fpar_vf32 x = fpar_vf32_load_mask(a->in + index, lk->mask);
  fpar_vf32 v = fpar_vf32_select(lk->mask, x, fpar_vf32_splat(POISON));
  subgroup_record *r;

  if (sg >= a->num_subgroups) {
    bad_note(&a->bad, "sub-group index %zu beyond %zu", sg, a->num_subgroups);
    return;
  }
  r = &a->subgroups[sg];
  __atomic_fetch_add(&r->calls, 1, __ATOMIC_RELAXED);
  r->active = lk->active;
  r->sum = fpar_sub_group_reduce_add_vf32(lk, v);
  r->min = fpar_sub_group_reduce_min_vf32(
      lk, fpar_vf32_select(lk->mask, x, fpar_vf32_splat(-POISON)));
  r->max = fpar_sub_group_reduce_max_vf32(
      lk, fpar_vf32_select(lk->mask, x, fpar_vf32_splat(POISON)));
  record_votes(lk, x, row, r);
  record_lane_ops(lk, v, sg, r, a->items + index);
}
FPAR_DEFINE_LANE_KERNEL(subgroup_ops_kernel, subgroup_ops_body)

/* The lanes of one sub-group as the kernel loads them: the inputs, POISON
 * where off. */
typedef struct lane_model {
  float v[FPAR_SIMD_WIDTH];
  unsigned active;
} lane_model;

static void check_subgroup_record(const subgroup_record *r, const lane_model *m,
                                  size_t row, size_t sg) {
  float sum = 0, mn = INFINITY, mx = -INFINITY;
  unsigned i;

  ck_assert_msg(r->calls == 1 && r->active == m->active,
                "sub-group %zu: %u calls with %u lanes, expected 1 with %u", sg,
                r->calls, r->active, m->active);
  for (i = 0; i < m->active; i++) {
    sum += m->v[i];
    mn = fminf(mn, m->v[i]);
    mx = fmaxf(mx, m->v[i]);
  }
  ck_assert_msg(r->sum == sum && r->min == mn && r->max == mx,
                "sub-group %zu (%u lanes): sum/min/max %g %g %g, expected "
                "%g %g %g",
                sg, m->active, r->sum, r->min, r->max, sum, mn, mx);
  ck_assert_msg(r->last_scan[0] == sum && r->last_scan[1] == mn &&
                    r->last_scan[2] == mx,
                "sub-group %zu (%u lanes): scans in the last lane %g %g %g, "
                "expected %g %g %g",
                sg, m->active, r->last_scan[0], r->last_scan[1],
                r->last_scan[2], sum, mn, mx);
  for (int k = 0; k < PREDICATES; k++) {
    int any = 0, all = 1;
    for (i = 0; i < m->active; i++) {
      any |= m->v[i] > thresholds[k];
      all &= m->v[i] > thresholds[k];
    }
    ck_assert_msg(r->any[k] == any && r->all[k] == all,
                  "sub-group %zu, x > %g: any %d all %d, expected %d %d", sg,
                  thresholds[k], r->any[k], r->all[k], any, all);
  }
  ck_assert_msg(r->any_off_lanes == 0 && r->all_on_lanes == 1,
                "sub-group %zu in a row of %zu: any over off lanes %d, all "
                "over on lanes %d",
                sg, row, r->any_off_lanes, r->all_on_lanes);
}

static void check_lane_ops(const lane_ops_record *r, const lane_model *m,
                           int lane, size_t sg) {
  float add = 0, mn = INFINITY, mx = -INFINITY, before[3] = {0};
  int32_t iadd = 0;
  unsigned d = down_delta();
  int k = 0;

  for (int i = 0; i <= lane; i++) {
    before[0] = add, before[1] = mn, before[2] = mx;
    add += m->v[i];
    mn = fminf(mn, m->v[i]);
    mx = fmaxf(mx, m->v[i]);
    iadd += (int32_t)m->v[i];
  }
  ck_assert_msg(r->visits == 1, "sub-group %zu lane %d: %u visits", sg, lane,
                r->visits);
  ck_assert_msg(r->broadcast == m->v[broadcast_lane(sg, m->active)],
                "sub-group %zu lane %d: broadcast %g", sg, lane, r->broadcast);
  ck_assert_msg(r->shuffle == m->v[shuffle_source(lane, m->active)],
                "sub-group %zu lane %d: shuffle %g", sg, lane, r->shuffle);
  for (unsigned x = 1; x < LANES; x *= 2, k++)
    ck_assert_msg(r->xor_[k] == m->v[(unsigned)lane ^ x],
                  "sub-group %zu lane %d: shuffle_xor %u gave %g, expected %g",
                  sg, lane, x, r->xor_[k], m->v[(unsigned)lane ^ x]);
  ck_assert_msg(r->up == m->v[lane >= 1 ? lane - 1 : lane],
                "sub-group %zu lane %d: shuffle_up 1 gave %g", sg, lane, r->up);
  ck_assert_msg(r->down == m->v[lane + d < LANES ? lane + d : (unsigned)lane],
                "sub-group %zu lane %d: shuffle_down %u gave %g", sg, lane, d,
                r->down);
  ck_assert_msg(r->scan_add == add && r->scan_min == mn && r->scan_max == mx,
                "sub-group %zu lane %d: scans %g %g %g, expected %g %g %g", sg,
                lane, r->scan_add, r->scan_min, r->scan_max, add, mn, mx);
  ck_assert_msg(r->exscan_add == before[0] && r->exscan_min == before[1] &&
                    r->exscan_max == before[2],
                "sub-group %zu lane %d: exclusive scans %g %g %g, expected "
                "%g %g %g",
                sg, lane, r->exscan_add, r->exscan_min, r->exscan_max,
                before[0], before[1], before[2]);
  ck_assert_msg(r->iscan_add == iadd, "sub-group %zu lane %d: int scan %d", sg,
                lane, (int)r->iscan_add);
}

/* Groups whose rows end in masked sub-groups (and one whose rows are
 * whole sub-groups). */
static const nd_shape subgroup_shapes[] = {
    {1, {4 * (3 * LANES + 5), 1, 1}, {3 * LANES + 5, 1, 1}},
    {1, {5 * 7, 1, 1}, {7, 1, 1}},
    {1, {3 * LANES, 1, 1}, {LANES, 1, 1}},
    {1, {6, 1, 1}, {1, 1, 1}},
    {2, {2 * (LANES + 3), 4, 1}, {LANES + 3, 2, 1}},
    {3, {2 * (2 * LANES + 1), 2, 3}, {2 * LANES + 1, 2, 1}},
};
#define NSUBGROUP_SHAPES (sizeof subgroup_shapes / sizeof subgroup_shapes[0])

/* Every sub-group's reductions, votes, broadcast, shuffles and scans
 * against a lane-by-lane model in which the off lanes hold POISON. */
START_TEST(test_subgroup_operations_match_model) {
  const nd_shape *s = &subgroup_shapes[_i];
  size_t n = range_volume(s->global), per_row, sg = 0, i, g[3], l[3];
  size_t groups[3], gid[3], row;
  subgroup_args a = {0};
  float *in = malloc(n * sizeof *in);
  fpar_launch_desc d;
  fpar_test_env e;
  unsigned k;

  per_row = (s->local[0] + LANES - 1) / LANES;
  a.num_subgroups = n / s->local[0] * per_row;
  a.in = in;
  a.items = calloc(n, sizeof *a.items);
  a.subgroups = calloc(a.num_subgroups, sizeof *a.subgroups);
  ck_assert_ptr_nonnull(in);
  ck_assert_ptr_nonnull(a.items);
  ck_assert_ptr_nonnull(a.subgroups);
  for (i = 0; i < n; i++)
    in[i] = signed_value(i);
  d = lane_desc(subgroup_ops_kernel, &a, shape_range(s->dims, s->global),
                shape_range(s->dims, s->local));
  fpar_test_env_init(&e, THREADS);
  run_ok(&e, &d);
  fpar_test_env_fini(&e);
  assert_no_bad(&a.bad, "sub-group operations");
  /* Walk the sub-groups in the order subgroup_index() numbers them. */
  for (k = 0; k < 3; k++)
    groups[k] = s->global[k] / s->local[k];
  for (i = 0; i < range_volume(groups); i++) {
    id_of(i, groups, g);
    for (row = 0; row < s->local[1] * s->local[2]; row++) {
      l[1] = row % s->local[1];
      l[2] = row / s->local[1];
      for (l[0] = 0; l[0] < s->local[0]; l[0] += LANES, sg++) {
        lane_model m = {{0}, lanes_in_block(l[0], s->local[0])};
        for (k = 0; k < LANES; k++) {
          gid[0] = g[0] * s->local[0] + l[0] + k;
          gid[1] = g[1] * s->local[1] + l[1];
          gid[2] = g[2] * s->local[2] + l[2];
          m.v[k] = k < m.active ? in[linear_of(gid, s->global)] : POISON;
        }
        check_subgroup_record(&a.subgroups[sg], &m, s->local[0], sg);
        for (k = 0; k < m.active; k++) {
          gid[0] = g[0] * s->local[0] + l[0] + k;
          check_lane_ops(&a.items[linear_of(gid, s->global)], &m, (int)k, sg);
        }
      }
    }
  }
  ck_assert_uint_eq(sg, a.num_subgroups);
  free(in);
  free(a.items);
  free(a.subgroups);
}
END_TEST

/* ==== Lane bodies of scoped and hierarchical groups ====================== */

/* What one logical item (one lane that is on) of a block saw. */
typedef struct block_record {
  unsigned visits;
  size_t first, global_first;
  uint32_t lane, local0, global0;
  int32_t mask;
  size_t si_local[3], si_global[3]; /* b->si's queries */
} block_record;

typedef struct block_args {
  block_record *rec; /* per global linear id */
  size_t n;
  int via_rows; /* FPAR_DEFINE_LANES_ROW rather than the fpar_lane_fn form */
  int nested;   /* inside the groups of fpar_distribute_groups() */
  bad_log bad;
} block_args;

/* The per-block facts: where it starts in its row, its mask and ids. */
static void check_block(const fpar_lane_block *b, bad_log *bad) {
  size_t row = fpar_s_item_get_innermost_local_range(b->si, 0);
  size_t origin = fpar_s_item_get_global_id(b->si, 0) -
                  fpar_s_item_get_innermost_local_id(b->si, 0);
  unsigned want;

  if (b->first % LANES != 0 || b->first >= row) {
    bad_note(bad, "a block starts at %zu of a row of %zu", b->first, row);
    return;
  }
  want = lanes_in_block(b->first, row);
  if (!same_lanes(b->mask, expected_mask(want)))
    bad_note(bad, "block at %zu of %zu: mask of %u lanes, expected %u",
             b->first, row, fpar_vmask_count(b->mask), want);
  if (!same_lanes(b->local_id0, consecutive_ids(b->first)))
    bad_note(bad, "block at %zu: local_id0 lane 0 is %d", b->first,
             (int)b->local_id0[0]);
  if (!same_lanes(b->global_id0, consecutive_ids(origin + b->first)) ||
      b->global_first != origin + b->first)
    bad_note(bad,
             "block at %zu: global_id0 lane 0 is %d, global_first %zu, "
             "expected %zu",
             b->first, (int)b->global_id0[0], b->global_first,
             origin + b->first);
}

static inline void record_lane_block(const fpar_lane_block *b, void *p) {
  block_args *a = p;
  size_t g[3], r[3], index;
  unsigned d;

  check_block(b, &a->bad);
  for (int lane = 0; lane < FPAR_SIMD_WIDTH; lane++) {
    block_record *rec;
    if (!b->mask[lane])
      continue;
    for (d = 0; d < 3; d++) {
      g[d] = d == 0 ? (size_t)b->global_id0[lane]
                    : fpar_s_item_get_global_id(b->si, d);
      r[d] = fpar_s_item_get_global_range(b->si, d);
    }
    index = linear_of(g, r);
    if (index >= a->n) {
      bad_note(&a->bad, "lane %d of block %zu is item %zu of %zu", lane,
               b->first, index, a->n);
      continue;
    }
    rec = &a->rec[index];
    __atomic_fetch_add(&rec->visits, 1, __ATOMIC_RELAXED);
    rec->first = b->first;
    rec->global_first = b->global_first;
    rec->lane = (uint32_t)lane;
    rec->local0 = (uint32_t)b->local_id0[lane];
    rec->global0 = (uint32_t)b->global_id0[lane];
    rec->mask = b->mask[lane];
    for (d = 0; d < 3; d++) {
      rec->si_local[d] = fpar_s_item_get_innermost_local_id(b->si, d);
      rec->si_global[d] = fpar_s_item_get_global_id(b->si, d);
    }
  }
}
FPAR_DEFINE_LANES_ROW(record_block_row, record_lane_block)

/* Hand the innermost group's items to the lane body in one of its forms. */
static void distribute_blocks(fpar_group *g, void *p) {
  block_args *a = p;

  if (a->via_rows)
    fpar_distribute_items_rows(g, record_block_row, a);
  else
    fpar_distribute_lanes(g, record_lane_block, a);
}

static void scoped_blocks_group(fpar_group *g, void *p) {
  block_args *a = p;

  if (a->nested)
    fpar_distribute_groups(g, distribute_blocks, a);
  else
    distribute_blocks(g, a);
}

static void hierarchical_blocks_group(fpar_group *g, void *p) {
  block_args *a = p;

  if (a->via_rows)
    fpar_parallel_for_work_item_rows(g, record_block_row, a);
  else
    fpar_parallel_for_work_item_lanes(g, record_lane_block, a);
}

/* Every item of the global range in exactly one lane, with ids that tile
 * the innermost groups of range `inner`; b->si is the first item of the
 * row (dimension 0 the row's start, dimensions 1 and 2 the item's). */
static void check_block_records(const block_args *a, const size_t global[3],
                                const size_t inner[3]) {
  size_t i, g[3], l[3];
  unsigned d;

  assert_no_bad(&a->bad, "lane blocks");
  for (i = 0; i < a->n; i++) {
    const block_record *r = &a->rec[i];
    id_of(i, global, g);
    for (d = 0; d < 3; d++)
      l[d] = g[d] % inner[d];
    ck_assert_msg(r->visits == 1, "item (%zu,%zu,%zu) visited %u times", g[0],
                  g[1], g[2], r->visits);
    ck_assert_msg(r->local0 == l[0] && r->global0 == g[0] && r->mask == -1,
                  "item (%zu,%zu,%zu): local %u global %u mask %d", g[0], g[1],
                  g[2], r->local0, r->global0, (int)r->mask);
    ck_assert_msg(r->first == l[0] - l[0] % LANES && r->lane == l[0] % LANES,
                  "item %zu of its row: block at %zu, lane %u", l[0], r->first,
                  r->lane);
    ck_assert_msg(r->global_first == g[0] - r->lane,
                  "item (%zu,%zu,%zu) in lane %u: global_first %zu", g[0], g[1],
                  g[2], r->lane, r->global_first);
    for (d = 0; d < 3; d++) {
      size_t want_local = d == 0 ? 0 : l[d],
             want_global = g[d] - l[d] + want_local;
      ck_assert_msg(r->si_local[d] == want_local &&
                        r->si_global[d] == want_global,
                    "item (%zu,%zu,%zu): b->si dimension %u local %zu global "
                    "%zu, expected %zu and %zu",
                    g[0], g[1], g[2], d, r->si_local[d], r->si_global[d],
                    want_local, want_global);
    }
  }
}

/* Number of groups and logical items per group of the scoped tests; rows
 * are never a whole number of blocks but for one shape. */
typedef struct group_shape {
  unsigned dims;
  size_t groups[3];
  size_t size[3];
} group_shape;

static const group_shape block_shapes[] = {
    {1, {3, 1, 1}, {3 * LANES + 5, 1, 1}},
    {1, {4, 1, 1}, {5, 1, 1}},
    {1, {2, 1, 1}, {2 * LANES, 1, 1}},
    {2, {2, 3, 1}, {2 * LANES + 3, 3, 1}},
    {2, {3, 2, 1}, {1, 4, 1}},
    {3, {2, 2, 2}, {LANES + 1, 2, 3}},
};
#define NBLOCK_SHAPES (sizeof block_shapes / sizeof block_shapes[0])

static void block_args_init(block_args *a, const size_t global[3], int via_rows,
                            int nested) {
  memset(a, 0, sizeof *a);
  a->n = range_volume(global);
  a->rec = calloc(a->n, sizeof *a->rec);
  a->via_rows = via_rows;
  a->nested = nested;
  ck_assert_ptr_nonnull(a->rec);
}

static void group_shape_global(const group_shape *s, const size_t size[3],
                               size_t global[3]) {
  for (unsigned d = 0; d < 3; d++)
    global[d] = s->groups[d] * size[d];
}

/* fpar_distribute_lanes() and FPAR_DEFINE_LANES_ROW in scoped work
 * groups. */
START_TEST(test_scoped_lane_blocks) {
  const group_shape *s = &block_shapes[_i / 2];
  size_t global[3];
  block_args a;
  fpar_test_env e;

  group_shape_global(s, s->size, global);
  block_args_init(&a, global, _i % 2, 0);
  fpar_test_env_init(&e, THREADS);
  run_groups(&e, fpar_parallel, shape_range(s->dims, s->groups),
             shape_range(s->dims, s->size), scoped_blocks_group, &a);
  fpar_test_env_fini(&e);
  check_block_records(&a, global, s->size);
  free(a.rec);
}
END_TEST

/* The same inside the groups fpar_distribute_groups() makes: sub-groups of
 * the runtime's sub-group size when it divides the row (offset within the
 * work group), scalar groups of one item otherwise. */
START_TEST(test_scoped_lane_blocks_in_subgroups) {
  int scalar = _i / 2;
  size_t sub, size[3], inner[3] = {1, 1, 1}, global[3];
  group_shape s = {2, {3, 2, 1}, {0, 0, 0}};
  block_args a;
  fpar_test_env e;

  fpar_test_env_init(&e, THREADS);
  sub = fpar_runtime_subgroup_size(e.rt);
  size[0] = 3 * sub + (size_t)scalar;
  size[1] = 2;
  size[2] = 1;
  if (!scalar)
    inner[0] = sub;
  group_shape_global(&s, size, global);
  block_args_init(&a, global, _i % 2, 1);
  run_groups(&e, fpar_parallel, shape_range(2, s.groups), shape_range(2, size),
             scoped_blocks_group, &a);
  fpar_test_env_fini(&e);
  check_block_records(&a, global, inner);
  free(a.rec);
}
END_TEST

/* Physical work-items of hierarchical groups (none a whole number of
 * blocks but one; 0: FPAR_LOCAL_AUTO, the runtime's sub-group size). */
static const group_shape hierarchical_shapes[] = {
    {1, {3, 1, 1}, {2 * LANES + 3, 1, 1}},
    {1, {4, 1, 1}, {LANES, 1, 1}},
    {2, {2, 2, 1}, {LANES + 3, 3, 1}},
    {3, {2, 1, 2}, {5, 2, 2}},
    {1, {5, 1, 1}, {0, 0, 0}},
};
#define NHIERARCHICAL_SHAPES                                                   \
  (sizeof hierarchical_shapes / sizeof hierarchical_shapes[0])

/* fpar_parallel_for_work_item_lanes() and FPAR_DEFINE_LANES_ROW with
 * fpar_parallel_for_work_item_rows() run every physical work-item once. */
START_TEST(test_hierarchical_lane_blocks) {
  const group_shape *s = &hierarchical_shapes[_i / 2];
  size_t size[3], global[3];
  block_args a;
  fpar_test_env e;

  fpar_test_env_init(&e, THREADS);
  memcpy(size, s->size, sizeof size);
  if (size[0] == 0) {
    size[0] = fpar_runtime_subgroup_size(e.rt);
    size[1] = size[2] = 1;
  }
  group_shape_global(s, size, global);
  block_args_init(&a, global, _i % 2, 0);
  run_groups(&e, fpar_parallel_for_work_group, shape_range(s->dims, s->groups),
             shape_range(s->dims, s->size), hierarchical_blocks_group, &a);
  fpar_test_env_fini(&e);
  check_block_records(&a, global, size);
  free(a.rec);
}
END_TEST

/* ---- Scoped reduction with lanes ----------------------------------------- */

typedef struct scoped_reduce_args {
  const int32_t *in;     /* per global linear id */
  int32_t *tree_sums;    /* per group: tree reductions of its rows */
  int32_t *private_sums; /* per group: row sums kept in private memory */
} scoped_reduce_args;

typedef struct scoped_reduce_ctx {
  const scoped_reduce_args *a;
  const fpar_group *g;
  int32_t *scratch;          /* local memory: one int per item, row by row */
  fpar_private_memory *rows; /* one int per item; the rows' first items'
                                objects hold the row sums */
  size_t n, half;            /* live values of a row and the fold of a step */
  int32_t tree_total, private_total;
} scoped_reduce_ctx;

/* Where the block's row starts in the group's linear order. */
static size_t block_row_offset(const fpar_lane_block *b) {
  return fpar_s_item_get_innermost_local_range(b->si, 0) *
         (fpar_s_item_get_innermost_local_id(b->si, 1) +
          fpar_s_item_get_innermost_local_range(b->si, 1) *
              fpar_s_item_get_innermost_local_id(b->si, 2));
}

/* Global linear id of the block's lane 0. */
static size_t block_global_linear(const fpar_lane_block *b) {
  size_t g[3] = {b->global_first, fpar_s_item_get_global_id(b->si, 1),
                 fpar_s_item_get_global_id(b->si, 2)};
  size_t r[3];

  for (unsigned d = 0; d < 3; d++)
    r[d] = fpar_s_item_get_global_range(b->si, d);
  return linear_of(g, r);
}

/* Load the block into local memory and add its sum to the private object
 * of its row's first item (b->si).  The blocks of a row add into that one
 * word: atomics, as the blocks of one distribute_lanes are unordered
 * (racecheck, which checks each block on its own, reports plain
 * additions). */
static inline void reduce_load_block(const fpar_lane_block *b, void *p) {
  scoped_reduce_ctx *c = p;
  fpar_vi32 v = fpar_vi32_load_mask(c->a->in + block_global_linear(b), b->mask);

  fpar_vi32_store_mask(c->scratch + block_row_offset(b) + b->first, v, b->mask);
  __atomic_fetch_add((int32_t *)fpar_private_at(c->rows, b->si),
                     fpar_vi32_reduce_add(v, b->mask), __ATOMIC_RELAXED);
}

/* Fold the upper half of the row's live values onto the lower half. */
static inline void reduce_fold_block(const fpar_lane_block *b, void *p) {
  scoped_reduce_ctx *c = p;
  int32_t *row = c->scratch + block_row_offset(b);
  fpar_vmask m = b->mask & (b->local_id0 + (int32_t)c->half < (int32_t)c->n);
  fpar_vi32 upper = fpar_vi32_gather(row, b->local_id0 + (int32_t)c->half, m);
  fpar_vi32 lower = fpar_vi32_load_mask(row + b->first, m);

  fpar_vi32_store_mask(row + b->first, lower + upper, m);
}

/* Add up the rows: their trees' roots and their first items' private
 * objects.  The first items of several rows add into one word: atomics,
 * as the items of one distribute_items are unordered (racecheck reports
 * plain additions). */
static void add_row_sums(const fpar_s_item *si, void *p) {
  scoped_reduce_ctx *c = p;

  if (fpar_s_item_get_innermost_local_id(si, 0) != 0)
    return;
  __atomic_fetch_add(&c->tree_total,
                     c->scratch[fpar_s_item_get_innermost_local_linear_id(si)],
                     __ATOMIC_RELAXED);
  __atomic_fetch_add(&c->private_total,
                     *(int32_t *)fpar_private_at(c->rows, si),
                     __ATOMIC_RELAXED);
}

static void store_group_sums(void *p) {
  scoped_reduce_ctx *c = p;
  size_t group = fpar_group_get_linear_id(c->g);

  c->a->tree_sums[group] = c->tree_total;
  c->a->private_sums[group] = c->private_total;
}

static void scoped_reduce_body(fpar_group *g, void *const *mem, void *p) {
  scoped_reduce_ctx c = {p, g, mem[0], mem[1], 0, 0, 0, 0};

  c.n = fpar_group_get_logical_local_range(g, 0);
  fpar_distribute_lanes(g, reduce_load_block, &c);
  fpar_group_barrier(g);
  while (c.n > 1) {
    c.half = (c.n + 1) / 2;
    fpar_distribute_lanes(g, reduce_fold_block, &c);
    fpar_group_barrier(g);
    c.n = c.half;
  }
  fpar_distribute_items(g, add_row_sums, &c);
  fpar_single_item(g, store_group_sums, &c);
}

static void scoped_reduce_group(fpar_group *g, void *p) {
  static const int32_t zero = 0;
  fpar_mem_request reqs[2] = {
      fpar_require_local_mem(fpar_group_get_logical_local_linear_range(g) *
                                 sizeof(int32_t),
                             64, NULL, 0),
      fpar_require_private_mem(sizeof(int32_t), 0, &zero, sizeof zero)};

  fpar_memory_environment(g, reqs, 2, scoped_reduce_body, p);
}

static const group_shape reduction_shapes[] = {
    {1, {5, 1, 1}, {3 * LANES + 5, 1, 1}}, {1, {6, 1, 1}, {7, 1, 1}},
    {2, {2, 3, 1}, {2 * LANES, 3, 1}},     {2, {3, 2, 1}, {1, 4, 1}},
    {3, {2, 1, 2}, {LANES + 3, 2, 2}},
};
#define NREDUCTION_SHAPES (sizeof reduction_shapes / sizeof reduction_shapes[0])

/* A scoped group reduction done by lane blocks twice: trees along the rows
 * in local memory, and block sums gathered in the private memory of each
 * row's first item (b->si). */
START_TEST(test_scoped_reduction_with_lanes) {
  const group_shape *s = &reduction_shapes[_i];
  size_t global[3], groups = range_volume(s->groups), n, i, g[3], grp[3];
  int32_t *in, *serial = calloc(groups, sizeof *serial);
  scoped_reduce_args a;
  fpar_test_env e;
  unsigned d;

  group_shape_global(s, s->size, global);
  n = range_volume(global);
  in = malloc(n * sizeof *in);
  a.in = in;
  a.tree_sums = calloc(groups, sizeof(int32_t));
  a.private_sums = calloc(groups, sizeof(int32_t));
  ck_assert_ptr_nonnull(in);
  ck_assert_ptr_nonnull(serial);
  ck_assert_ptr_nonnull(a.tree_sums);
  ck_assert_ptr_nonnull(a.private_sums);
  for (i = 0; i < n; i++) {
    in[i] = small_value(i);
    id_of(i, global, g);
    for (d = 0; d < 3; d++)
      grp[d] = g[d] / s->size[d];
    serial[linear_of(grp, s->groups)] += in[i];
  }
  fpar_test_env_init(&e, THREADS);
  run_groups(&e, fpar_parallel, shape_range(s->dims, s->groups),
             shape_range(s->dims, s->size), scoped_reduce_group, &a);
  fpar_test_env_fini(&e);
  for (i = 0; i < groups; i++) {
    ck_assert_msg(a.tree_sums[i] == serial[i],
                  "group %zu of %zux%zux%zu items: tree sum %d, serial %d", i,
                  s->size[0], s->size[1], s->size[2], (int)a.tree_sums[i],
                  (int)serial[i]);
    ck_assert_msg(a.private_sums[i] == serial[i],
                  "group %zu of %zux%zux%zu items: sum of the row sums in "
                  "private memory %d, serial %d",
                  i, s->size[0], s->size[1], s->size[2], (int)a.private_sums[i],
                  (int)serial[i]);
  }
  free(in);
  free(serial);
  free(a.tree_sums);
  free(a.private_sums);
}
END_TEST

/* ==== Refused launches ==================================================== */

static inline void noop_body(fpar_lanes *lk, void *p) {
  (void)lk, (void)p;
}
FPAR_DEFINE_LANE_KERNEL(noop_lane_kernel, noop_body)

static void noop_group(fpar_group *g, void *p) {
  (void)g, (void)p;
}

/* d must be refused with FPAR_EINVAL, a message about the lanes, and no
 * event. */
static void assert_lanes_refused(fpar_test_env *e, const fpar_launch_desc *d) {
  fpar_event *ev = NULL;

  ck_assert_fpar_err(fpar_launch(e->q, d, &ev), FPAR_EINVAL);
  ck_assert_ptr_null(ev);
  ck_assert_msg(strstr(fpar_last_error(), "lanes") != NULL,
                "lanes %u refused with \"%s\"", d->lanes, fpar_last_error());
}

/* Lane counts that are not a power of two or exceed 64, and lanes with a
 * scoped or hierarchical group function, are refused; the queue is
 * unaffected. */
START_TEST(test_launch_refuses_bad_lanes) {
  const unsigned bad_counts[] = {3, 5, 6, 12, 65, 96, 128, 256};
  const unsigned good_counts[] = {2, 4, 8, 16, 32, 64};
  fpar_launch_desc d =
      lane_desc(noop_lane_kernel, NULL, fpar_range1(64), fpar_range1(16));
  geometry_args a = {calloc(48, sizeof(item_record)), 48, 1, {0, ""}};
  fpar_test_env e;
  size_t k;

  ck_assert_ptr_nonnull(a.rec);
  fpar_test_env_init(&e, THREADS);
  for (k = 0; k < sizeof bad_counts / sizeof bad_counts[0]; k++) {
    d.lanes = bad_counts[k];
    assert_lanes_refused(&e, &d);
  }
  d.kernel = NULL;
  d.global = fpar_range1(4);
  d.local = fpar_range1(8);
  for (k = 0; k < sizeof good_counts / sizeof good_counts[0]; k++) {
    d.lanes = good_counts[k];
    d.scoped = noop_group;
    d.hierarchical = NULL;
    assert_lanes_refused(&e, &d);
    d.scoped = NULL;
    d.hierarchical = noop_group;
    assert_lanes_refused(&e, &d);
  }
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  /* A lane launch of this width still runs, each work-item once. */
  d = lane_desc(record_geometry_kernel, &a, fpar_range1(48), fpar_range1(24));
  run_ok(&e, &d);
  fpar_test_env_fini(&e);
  assert_no_bad(&a.bad, "lane kernel after refusals");
  for (k = 0; k < 48; k++)
    ck_assert_uint_eq(a.rec[k].visits, 1);
  free(a.rec);
}
END_TEST

/* ==== Suite =============================================================== */

static Suite *lanes_suite(void) {
  Suite *s = suite_create("lanes");
  TCase *tc;

  tc = fpar_test_case("geometry");
  tcase_add_loop_test(tc, test_lane_kernel_visits_each_item_once, 0,
                      GEOMETRY_MODES * NND_SHAPES);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("barriers");
  tcase_add_loop_test(tc, test_tree_reduction_through_local_memory, 0,
                      NREDUCE_SHAPES);
  tcase_add_loop_test(tc, test_subgroup_sums_combined_after_barrier, 0,
                      NREDUCE_SHAPES);
  tcase_add_loop_test(tc, test_neighbour_exchange_many_barriers, 0,
                      NEXCHANGE_LOCALS);
  tcase_add_test(tc, test_single_subgroup_barriers);
  tcase_add_loop_test(tc, test_local_buffers_per_item, 0, NBUFFER_LOCALS);
  tcase_add_loop_test(tc, test_divergence_detected, 0, 2);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("sub-group operations");
  tcase_add_loop_test(tc, test_subgroup_operations_match_model, 0,
                      NSUBGROUP_SHAPES);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("scoped and hierarchical");
  tcase_add_loop_test(tc, test_scoped_lane_blocks, 0, 2 * NBLOCK_SHAPES);
  tcase_add_loop_test(tc, test_scoped_lane_blocks_in_subgroups, 0, 4);
  tcase_add_loop_test(tc, test_hierarchical_lane_blocks, 0,
                      2 * NHIERARCHICAL_SHAPES);
  tcase_add_loop_test(tc, test_scoped_reduction_with_lanes, 0,
                      NREDUCTION_SHAPES);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("refusals");
  tcase_add_test(tc, test_launch_refuses_bad_lanes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (!fpar_test_cpu_runs_build())
    return 77;
  return fpar_test_run(lanes_suite());
}
