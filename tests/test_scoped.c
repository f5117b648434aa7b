/* SPDX-License-Identifier: MIT */
/* test_scoped.c - AdaptiveCpp scoped parallelism (<fiberpar/scoped.h>):
 * fpar_parallel and the group queries, distribute_items in its three forms
 * and the s_item queries, nested distribute_groups and the sub-group
 * splitting rule, single_item and group_barrier, memory environments with
 * local and private memory, the reduction example of the scoped
 * parallelism documentation, the scoped rules and the launches the library
 * refuses.
 *
 * Group functions run on worker threads, so they only record what they
 * see; the checks run on the test's thread against arithmetic of their
 * own (dimension 0 fastest, linear ids x + X * (y + Y * z)).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

/* Sub-group size of most runtimes made here, so that the splitting of
 * fpar_distribute_groups() does not depend on the CPU. */
#define SUBGROUP 8

/* Queries are made for the three dimensions and one beyond them. */
#define QDIMS 4

/* Deepest nesting of fpar_distribute_groups() the tests use. */
#define MAX_LEVELS 5

/* ---- Ranges ------------------------------------------------------------ */

/* Whether [a, a + na) and [b, b + nb) share a byte. */
static int ranges_overlap(uintptr_t a, size_t na, uintptr_t b, size_t nb) {
  return a < b + nb && b < a + na;
}

/* ---- Environment and launches ------------------------------------------ */

/* fpar_parallel() and wait for success. */
static void run_scoped(fpar_test_env *e, fpar_range groups, fpar_range size,
                       fpar_group_fn fn, void *args) {
  fpar_event *ev = NULL;

  ck_assert_fpar_ok(fpar_parallel(e->q, groups, size, fn, args, &ev));
  fpar_test_wait_ok(ev);
}

/* ---- A launch that must work ------------------------------------------- */

typedef struct count_args {
  unsigned *calls; /* per global linear id */
  size_t n;
  unsigned stray; /* items with a global linear id beyond n */
} count_args;

static void count_item(const fpar_s_item *si, void *ctx) {
  count_args *a = ctx;
  size_t at = fpar_s_item_get_global_linear_id(si);

  if (at < a->n)
    __atomic_add_fetch(&a->calls[at], 1, __ATOMIC_RELAXED);
  else
    __atomic_add_fetch(&a->stray, 1, __ATOMIC_RELAXED);
}

static void count_items_group(fpar_group *g, void *args) {
  fpar_distribute_items(g, count_item, args);
}

/* A correct launch on the queue still runs every item once (after a
 * failed one). */
static void assert_queue_still_works(fpar_test_env *e) {
  enum { GROUPS = 4, SIZE = 16, N = GROUPS * SIZE };
  unsigned calls[N];
  count_args a = {calls, N, 0};
  size_t i;

  memset(calls, 0, sizeof calls);
  run_scoped(e, fpar_range1(GROUPS), fpar_range1(SIZE), count_items_group, &a);
  ck_assert_uint_eq(a.stray, 0);
  for (i = 0; i < N; i++)
    ck_assert_msg(calls[i] == 1, "after a fault, item %zu ran %u times", i,
                  calls[i]);
}

/* ---- Group records ----------------------------------------------------- */

/* Everything the group queries say about one group. */
typedef struct group_record {
  unsigned dims;
  fpar_fence_scope scope;
  size_t id[QDIMS], range[QDIMS], logical[QDIMS], physical[QDIMS];
  size_t physical_id[QDIMS];
  size_t linear_id, linear_range, logical_linear, physical_linear;
  size_t physical_linear_id;
  int leader;
} group_record;

static void record_group(const fpar_group *g, group_record *r) {
  unsigned d;

  r->dims = fpar_group_dims(g);
  r->scope = fpar_group_fence_scope(g);
  for (d = 0; d < QDIMS; d++) {
    r->id[d] = fpar_group_get_id(g, d);
    r->range[d] = fpar_group_get_range(g, d);
    r->logical[d] = fpar_group_get_logical_local_range(g, d);
    r->physical[d] = fpar_group_get_physical_local_range(g, d);
    r->physical_id[d] = fpar_group_get_physical_local_id(g, d);
  }
  r->linear_id = fpar_group_get_linear_id(g);
  r->linear_range = fpar_group_get_linear_range(g);
  r->logical_linear = fpar_group_get_logical_local_linear_range(g);
  r->physical_linear = fpar_group_get_physical_local_linear_range(g);
  r->physical_linear_id = fpar_group_get_physical_local_linear_id(g);
  r->leader = fpar_group_leader(g);
}

/* What a scoped group with this id among `range` groups and `logical`
 * items must report: one physical work-item, which is the leader. */
static void expect_group(group_record *w, unsigned dims, fpar_fence_scope scope,
                         const size_t id[3], const size_t range[3],
                         const size_t logical[3]) {
  unsigned d;

  w->dims = dims;
  w->scope = scope;
  for (d = 0; d < QDIMS; d++) {
    w->id[d] = d < 3 ? id[d] : 0;
    w->range[d] = d < 3 ? range[d] : 1;
    w->logical[d] = d < 3 ? logical[d] : 1;
    w->physical[d] = 1;
    w->physical_id[d] = 0;
  }
  w->linear_id = fpar_test_linear(id, range);
  w->linear_range = fpar_test_volume(range);
  w->logical_linear = fpar_test_volume(logical);
  w->physical_linear = 1;
  w->physical_linear_id = 0;
  w->leader = 1;
}

static void assert_ids_eq(const size_t *got, const size_t *want,
                          const char *field, const char *where) {
  unsigned d;

  for (d = 0; d < QDIMS; d++)
    ck_assert_msg(got[d] == want[d], "%s: %s(%u) is %zu, expected %zu", where,
                  field, d, got[d], want[d]);
}

static void assert_size_eq(size_t got, size_t want, const char *field,
                           const char *where) {
  ck_assert_msg(got == want, "%s: %s is %zu, expected %zu", where, field, got,
                want);
}

static void assert_group_record(const group_record *got,
                                const group_record *want, const char *where) {
  assert_size_eq(got->dims, want->dims, "dims", where);
  assert_size_eq(got->scope, want->scope, "fence scope", where);
  assert_ids_eq(got->id, want->id, "id", where);
  assert_ids_eq(got->range, want->range, "range", where);
  assert_ids_eq(got->logical, want->logical, "logical local range", where);
  assert_ids_eq(got->physical, want->physical, "physical local range", where);
  assert_ids_eq(got->physical_id, want->physical_id, "physical local id",
                where);
  assert_size_eq(got->linear_id, want->linear_id, "linear id", where);
  assert_size_eq(got->linear_range, want->linear_range, "linear range", where);
  assert_size_eq(got->logical_linear, want->logical_linear,
                 "logical local linear range", where);
  assert_size_eq(got->physical_linear, want->physical_linear,
                 "physical local linear range", where);
  assert_size_eq(got->physical_linear_id, want->physical_linear_id,
                 "physical local linear id", where);
  assert_size_eq((size_t)got->leader, (size_t)want->leader, "leader", where);
}

/* ---- Work groups ------------------------------------------------------- */

/* Launch shapes in one, two and three dimensions. */
typedef struct shape {
  fpar_range groups, size;
} shape;

static const shape shapes[] = {
    {{1, {5, 1, 1}}, {1, {12, 1, 1}}},
    {{2, {3, 2, 1}}, {2, {4, 5, 1}}},
    {{3, {2, 3, 2}}, {3, {3, 2, 4}}},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

typedef struct group_args {
  size_t groups[3];
  unsigned *calls;    /* per work group */
  group_record *seen; /* per work group */
  unsigned stray;     /* calls with an id beyond the launch */
  int scribble;       /* overwrite each group once it is recorded */
} group_args;

static void record_work_group(fpar_group *g, void *p) {
  group_args *a = p;
  size_t id[3] = {fpar_group_get_id(g, 0), fpar_group_get_id(g, 1),
                  fpar_group_get_id(g, 2)};
  size_t at = fpar_test_linear(id, a->groups);

  if (!fpar_test_id_in_range(id, a->groups)) {
    __atomic_add_fetch(&a->stray, 1, __ATOMIC_RELAXED);
    return;
  }
  __atomic_add_fetch(&a->calls[at], 1, __ATOMIC_RELAXED);
  record_group(g, &a->seen[at]);
  /* The group is the function's to write: the next group of the worker
   * must not see it. */
  if (a->scribble)
    memset(g, 0x5a, sizeof *g);
}

/* Each shape twice: the second time each group function overwrites its
 * group after recording it. */
START_TEST(test_group_function_once_per_work_group) {
  const shape *s = &shapes[_i % NSHAPES];
  size_t n = fpar_test_volume(s->groups.size), at, id[3];
  group_args a;
  group_record want;
  fpar_test_env e;
  char where[128];

  memcpy(a.groups, s->groups.size, sizeof a.groups);
  a.calls = calloc(n, sizeof *a.calls);
  a.seen = calloc(n, sizeof *a.seen);
  a.stray = 0;
  a.scribble = _i >= (int)NSHAPES;
  fpar_test_env_init(&e, 2);
  run_scoped(&e, s->groups, s->size, record_work_group, &a);
  ck_assert_uint_eq(a.stray, 0);
  for (at = 0; at < n; at++) {
    snprintf(where, sizeof where, "%u-D work group %zu", s->groups.dims, at);
    ck_assert_msg(a.calls[at] == 1, "%s ran %u times", where, a.calls[at]);
    fpar_test_id_of(at, s->groups.size, id);
    expect_group(&want, s->groups.dims, FPAR_FENCE_WORK_GROUP, id,
                 s->groups.size, s->size.size);
    assert_group_record(&a.seen[at], &want, where);
  }
  fpar_test_env_fini(&e);
  free(a.calls);
  free(a.seen);
}
END_TEST

/* ---- distribute_items -------------------------------------------------- */

/* How the items test distributes the work group's items. */
enum items_mode { ITEMS_PLAIN, ITEMS_AND_WAIT, ITEMS_ROWS, ITEMS_MODES };

/* Everything the s_item queries say about one logical item. */
typedef struct item_record {
  unsigned calls;
  size_t global_id[QDIMS], global_range[QDIMS], global_linear;
  size_t inner_id[QDIMS], inner_range[QDIMS], inner_linear, inner_linear_range;
  size_t wg_id[QDIMS], wg_range[QDIMS], wg_linear; /* w.r.t. the work group */
  size_t work_group[3]; /* id of the work group that ran it */
} item_record;

typedef struct items_args {
  enum items_mode mode;
  size_t global[3];
  item_record *items; /* per global linear id */
  unsigned stray;     /* items with a global id beyond the launch */
} items_args;

/* What an item body sees: the launch's record and the work group. */
typedef struct items_ctx {
  items_args *a;
  const fpar_group *wg;
} items_ctx;

static inline void record_item(const fpar_s_item *si, void *ctx) {
  items_ctx *c = ctx;
  size_t gid[3] = {fpar_s_item_get_global_id(si, 0),
                   fpar_s_item_get_global_id(si, 1),
                   fpar_s_item_get_global_id(si, 2)};
  item_record *r;
  unsigned d;

  if (!fpar_test_id_in_range(gid, c->a->global)) {
    __atomic_add_fetch(&c->a->stray, 1, __ATOMIC_RELAXED);
    return;
  }
  r = &c->a->items[fpar_test_linear(gid, c->a->global)];
  __atomic_add_fetch(&r->calls, 1, __ATOMIC_RELAXED);
  for (d = 0; d < QDIMS; d++) {
    r->global_id[d] = fpar_s_item_get_global_id(si, d);
    r->global_range[d] = fpar_s_item_get_global_range(si, d);
    r->inner_id[d] = fpar_s_item_get_innermost_local_id(si, d);
    r->inner_range[d] = fpar_s_item_get_innermost_local_range(si, d);
    r->wg_id[d] = fpar_s_item_get_local_id(si, c->wg, d);
    r->wg_range[d] = fpar_s_item_get_local_range(si, c->wg, d);
  }
  r->global_linear = fpar_s_item_get_global_linear_id(si);
  r->inner_linear = fpar_s_item_get_innermost_local_linear_id(si);
  r->inner_linear_range = fpar_s_item_get_innermost_local_linear_range(si);
  r->wg_linear = fpar_s_item_get_local_linear_id(si, c->wg);
  for (d = 0; d < 3; d++)
    r->work_group[d] = fpar_group_get_id(c->wg, d);
}

FPAR_DEFINE_ITEMS_ROW(record_item_row, record_item)

static void items_group(fpar_group *g, void *p) {
  items_ctx c = {p, g};

  switch (c.a->mode) {
  case ITEMS_PLAIN:
    fpar_distribute_items(g, record_item, &c);
    break;
  case ITEMS_AND_WAIT:
    fpar_distribute_items_and_wait(g, record_item, &c);
    break;
  default:
    fpar_distribute_items_rows(g, record_item_row, &c);
    break;
  }
}

/* A vector of the three dimensions and one beyond, which queries report
 * as `beyond`. */
static void vec4(size_t out[QDIMS], const size_t v[3], size_t beyond) {
  memcpy(out, v, 3 * sizeof *v);
  out[3] = beyond;
}

static void check_item_record(const item_record *r, const shape *s, size_t at) {
  const size_t *groups = s->groups.size, *size = s->size.size;
  size_t global[3], gid[3], wg[3], local[3], want[QDIMS];
  char where[128];
  unsigned d;

  for (d = 0; d < 3; d++)
    global[d] = groups[d] * size[d];
  fpar_test_id_of(at, global, gid);
  for (d = 0; d < 3; d++) {
    wg[d] = gid[d] / size[d];
    local[d] = gid[d] % size[d];
  }
  snprintf(where, sizeof where, "item (%zu,%zu,%zu)", gid[0], gid[1], gid[2]);
  ck_assert_msg(r->calls == 1, "%s ran %u times", where, r->calls);
  vec4(want, gid, 0);
  assert_ids_eq(r->global_id, want, "global id", where);
  vec4(want, global, 1);
  assert_ids_eq(r->global_range, want, "global range", where);
  assert_size_eq(r->global_linear, at, "global linear id", where);
  vec4(want, local, 0);
  assert_ids_eq(r->inner_id, want, "innermost local id", where);
  assert_ids_eq(r->wg_id, want, "local id in the work group", where);
  vec4(want, size, 1);
  assert_ids_eq(r->inner_range, want, "innermost local range", where);
  assert_ids_eq(r->wg_range, want, "local range of the work group", where);
  assert_size_eq(r->inner_linear, fpar_test_linear(local, size),
                 "innermost local linear id", where);
  assert_size_eq(r->wg_linear, fpar_test_linear(local, size),
                 "local linear id in the work group", where);
  assert_size_eq(r->inner_linear_range, fpar_test_volume(size),
                 "innermost local linear range", where);
  for (d = 0; d < 3; d++)
    ck_assert_msg(r->work_group[d] == wg[d],
                  "%s ran in a work group with id %zu in dimension %u, "
                  "expected %zu",
                  where, r->work_group[d], d, wg[d]);
}

/* _i: shape index + NSHAPES * mode. */
START_TEST(test_distribute_items_once_per_item) {
  const shape *s = &shapes[_i % NSHAPES];
  items_args a;
  fpar_test_env e;
  size_t n, at;
  unsigned d;

  a.mode = (enum items_mode)(_i / NSHAPES);
  for (d = 0; d < 3; d++)
    a.global[d] = s->groups.size[d] * s->size.size[d];
  n = fpar_test_volume(a.global);
  a.items = calloc(n, sizeof *a.items);
  a.stray = 0;
  fpar_test_env_init(&e, 2);
  run_scoped(&e, s->groups, s->size, items_group, &a);
  ck_assert_uint_eq(a.stray, 0);
  for (at = 0; at < n; at++)
    check_item_record(&a.items[at], s, at);
  fpar_test_env_fini(&e);
  free(a.items);
}
END_TEST

/* A scoped group has one physical work-item, so its logical size is not
 * bound by the runtime's largest work-group. */
START_TEST(test_logical_group_beyond_max_group_size) {
  fpar_test_env e;
  count_args a;
  size_t size, i;

  fpar_test_env_init(&e, 2);
  size = 2 * fpar_runtime_max_group_size(e.rt);
  a.n = 2 * size;
  a.calls = calloc(a.n, sizeof *a.calls);
  a.stray = 0;
  run_scoped(&e, fpar_range1(2), fpar_range1(size), count_items_group, &a);
  ck_assert_uint_eq(a.stray, 0);
  for (i = 0; i < a.n; i++)
    ck_assert_msg(a.calls[i] == 1, "item %zu ran %u times", i, a.calls[i]);
  free(a.calls);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Nested distribute_groups ------------------------------------------ */

/* A launch and what the splitting rule makes of its work groups: at level
 * L (0: the work group) groups of sizes[L] logical items and kind
 * scopes[L]. */
typedef struct nest_config {
  unsigned subgroup; /* the runtime's sub-group size */
  fpar_range groups, size;
  unsigned levels; /* fpar_distribute_groups() nesting depth */
  size_t sizes[MAX_LEVELS + 1][3];
  fpar_fence_scope scopes[MAX_LEVELS + 1];
} nest_config;

#define WG FPAR_FENCE_WORK_GROUP
#define SG FPAR_FENCE_SUB_GROUP
#define WI FPAR_FENCE_WORK_ITEM

static const nest_config nest_configs[] = {
    /* 64 items: sub-groups of 8, halved to 4 and 2, then scalar groups,
     * which split into one scalar group. */
    {8,
     {1, {3, 1, 1}},
     {1, {64, 1, 1}},
     5,
     {{64, 1, 1}, {8, 1, 1}, {4, 1, 1}, {2, 1, 1}, {1, 1, 1}, {1, 1, 1}},
     {WG, SG, SG, SG, WI, WI}},
    /* 12 items are not divisible by 8: scalar groups at once. */
    {8,
     {1, {4, 1, 1}},
     {1, {12, 1, 1}},
     2,
     {{12, 1, 1}, {1, 1, 1}, {1, 1, 1}},
     {WG, WI, WI}},
    /* Sub-groups of 6 halve to 3, which is odd: scalar groups next. */
    {6,
     {1, {2, 1, 1}},
     {1, {12, 1, 1}},
     3,
     {{12, 1, 1}, {6, 1, 1}, {3, 1, 1}, {1, 1, 1}},
     {WG, SG, SG, WI}},
    /* 2-D: sub-groups along dimension 0, a row of two per y. */
    {8,
     {2, {2, 3, 1}},
     {2, {16, 3, 1}},
     4,
     {{16, 3, 1}, {8, 1, 1}, {4, 1, 1}, {2, 1, 1}, {1, 1, 1}},
     {WG, SG, SG, SG, WI}},
    /* 3-D: one sub-group per (y, z). */
    {8,
     {3, {2, 1, 2}},
     {3, {8, 2, 3}},
     3,
     {{8, 2, 3}, {8, 1, 1}, {4, 1, 1}, {2, 1, 1}},
     {WG, SG, SG, SG}},
    /* 2-D with 16 items, but dimension 0 (4) is not divisible by 8. */
    {8,
     {2, {2, 2, 1}},
     {2, {4, 4, 1}},
     2,
     {{4, 4, 1}, {1, 1, 1}, {1, 1, 1}},
     {WG, WI, WI}},
};
#define NNEST (sizeof nest_configs / sizeof nest_configs[0])

/* What an item of the innermost group sees of every group around it. */
typedef struct nest_item_record {
  unsigned calls, depth;
  group_record level[MAX_LEVELS + 1];
  size_t local_id[MAX_LEVELS + 1][QDIMS]; /* w.r.t. each level */
  size_t local_range[MAX_LEVELS + 1][QDIMS];
  size_t local_linear[MAX_LEVELS + 1];
  size_t inner_id[QDIMS], inner_range[QDIMS];
} nest_item_record;

typedef struct nest_args {
  const nest_config *c;
  size_t global[3];
  nest_item_record *items; /* per global linear id */
  unsigned *visits;        /* per work group and level: group functions run */
  unsigned *singles; /* per work group and level: single_item bodies run */
  int rows;          /* innermost items through a row runner */
  unsigned stray;
} nest_args;

/* One work group's walk down the levels. */
typedef struct nest_state {
  nest_args *a;
  size_t wg; /* linear id of the work group */
  unsigned depth;
  const fpar_group *chain[MAX_LEVELS + 1]; /* the groups, outermost first */
} nest_state;

static void count_single(void *ctx) {
  (*(unsigned *)ctx)++;
}

static inline void record_nested_item(const fpar_s_item *si, void *ctx) {
  nest_state *s = ctx;
  size_t gid[3] = {fpar_s_item_get_global_id(si, 0),
                   fpar_s_item_get_global_id(si, 1),
                   fpar_s_item_get_global_id(si, 2)};
  nest_item_record *r;
  unsigned level, d;

  if (!fpar_test_id_in_range(gid, s->a->global)) {
    __atomic_add_fetch(&s->a->stray, 1, __ATOMIC_RELAXED);
    return;
  }
  r = &s->a->items[fpar_test_linear(gid, s->a->global)];
  __atomic_add_fetch(&r->calls, 1, __ATOMIC_RELAXED);
  r->depth = s->depth;
  for (level = 0; level <= s->depth; level++) {
    const fpar_group *g = s->chain[level];
    record_group(g, &r->level[level]);
    for (d = 0; d < QDIMS; d++) {
      r->local_id[level][d] = fpar_s_item_get_local_id(si, g, d);
      r->local_range[level][d] = fpar_s_item_get_local_range(si, g, d);
    }
    r->local_linear[level] = fpar_s_item_get_local_linear_id(si, g);
  }
  for (d = 0; d < QDIMS; d++) {
    r->inner_id[d] = fpar_s_item_get_innermost_local_id(si, d);
    r->inner_range[d] = fpar_s_item_get_innermost_local_range(si, d);
  }
}

FPAR_DEFINE_ITEMS_ROW(record_nested_item_row, record_nested_item)

static void nest_level(fpar_group *g, void *ctx);

/* Count the visit and run single_item on the group s->chain[s->depth],
 * then split it further or distribute its items (with a row runner if
 * s->a->rows); odd levels use the _and_wait forms, and every level ends
 * with a barrier. */
static void nest_enter(nest_state *s, fpar_group *g) {
  size_t slot = s->wg * (MAX_LEVELS + 1) + s->depth;
  int odd = s->depth % 2;

  s->a->visits[slot]++;
  if (odd)
    fpar_single_item_and_wait(g, count_single, &s->a->singles[slot]);
  else
    fpar_single_item(g, count_single, &s->a->singles[slot]);
  if (s->depth < s->a->c->levels && odd)
    fpar_distribute_groups_and_wait(g, nest_level, s);
  else if (s->depth < s->a->c->levels)
    fpar_distribute_groups(g, nest_level, s);
  else if (s->a->rows)
    fpar_distribute_items_rows(g, record_nested_item_row, s);
  else if (odd)
    fpar_distribute_items_and_wait(g, record_nested_item, s);
  else
    fpar_distribute_items(g, record_nested_item, s);
  fpar_group_barrier(g);
}

static void nest_level(fpar_group *g, void *ctx) {
  nest_state *s = ctx;

  s->chain[++s->depth] = g;
  nest_enter(s, g);
  s->depth--;
}

static void nest_work_group(fpar_group *g, void *p) {
  nest_state s;
  const size_t *groups = ((nest_args *)p)->c->groups.size;
  size_t id[3] = {fpar_group_get_id(g, 0), fpar_group_get_id(g, 1),
                  fpar_group_get_id(g, 2)};

  s.a = p;
  if (!fpar_test_id_in_range(id, groups)) {
    __atomic_add_fetch(&s.a->stray, 1, __ATOMIC_RELAXED);
    return;
  }
  s.wg = fpar_test_linear(id, groups);
  s.depth = 0;
  s.chain[0] = g;
  nest_enter(&s, g);
}

/* Check what the item with global linear id `at` saw at `level`: it has
 * local id x in work group w. */
static void check_nested_level(const nest_config *c, const nest_item_record *r,
                               const size_t w[3], const size_t x[3],
                               unsigned level, size_t at) {
  const size_t *size = c->sizes[level];
  size_t id[3], range[3], local[3], want[QDIMS];
  group_record expected;
  char where[128];
  unsigned d;

  for (d = 0; d < 3; d++) {
    if (level == 0) {
      id[d] = w[d];
      range[d] = c->groups.size[d];
    } else {
      id[d] = x[d] % c->sizes[level - 1][d] / size[d];
      range[d] = c->sizes[level - 1][d] / size[d];
    }
    local[d] = x[d] % size[d];
  }
  snprintf(where, sizeof where, "item %zu (local %zu,%zu,%zu), level %u", at,
           x[0], x[1], x[2], level);
  expect_group(&expected, c->groups.dims, c->scopes[level], id, range, size);
  assert_group_record(&r->level[level], &expected, where);
  vec4(want, local, 0);
  assert_ids_eq(r->local_id[level], want, "local id", where);
  vec4(want, size, 1);
  assert_ids_eq(r->local_range[level], want, "local range", where);
  assert_size_eq(r->local_linear[level], fpar_test_linear(local, size),
                 "local linear id", where);
}

static void check_nest(const nest_args *a) {
  const nest_config *c = a->c;
  const size_t *size = c->size.size;
  size_t n = fpar_test_volume(a->global),
         ngroups = fpar_test_volume(c->groups.size);
  size_t at, gid[3], w[3], x[3], want[QDIMS];
  unsigned level, d;

  ck_assert_uint_eq(a->stray, 0);
  for (at = 0; at < n; at++) {
    const nest_item_record *r = &a->items[at];
    ck_assert_msg(r->calls == 1, "item %zu ran %u times", at, r->calls);
    ck_assert_uint_eq(r->depth, c->levels);
    fpar_test_id_of(at, a->global, gid);
    for (d = 0; d < 3; d++) {
      w[d] = gid[d] / size[d];
      x[d] = gid[d] % size[d];
    }
    for (level = 0; level <= c->levels; level++)
      check_nested_level(c, r, w, x, level, at);
    for (d = 0; d < 3; d++)
      x[d] %= c->sizes[c->levels][d];
    vec4(want, x, 0);
    assert_ids_eq(r->inner_id, want, "innermost local id", "nested item");
    vec4(want, c->sizes[c->levels], 1);
    assert_ids_eq(r->inner_range, want, "innermost local range", "nested item");
  }
  for (at = 0; at < ngroups; at++)
    for (level = 0; level <= c->levels; level++) {
      size_t slot = at * (MAX_LEVELS + 1) + level;
      size_t groups =
          fpar_test_volume(size) / fpar_test_volume(c->sizes[level]);
      ck_assert_msg(a->visits[slot] == groups,
                    "work group %zu: %u groups at level %u, expected %zu", at,
                    a->visits[slot], level, groups);
      ck_assert_msg(a->singles[slot] == groups,
                    "work group %zu: single_item ran %u times at level %u, "
                    "once per group (%zu) expected",
                    at, a->singles[slot], level, groups);
    }
}

/* Launch the nested walk of c on e and check it. */
static void run_nest(fpar_test_env *e, const nest_config *c, int rows) {
  size_t ngroups = fpar_test_volume(c->groups.size);
  nest_args a;
  unsigned d;

  a.c = c;
  for (d = 0; d < 3; d++)
    a.global[d] = c->groups.size[d] * c->size.size[d];
  a.items = calloc(fpar_test_volume(a.global), sizeof *a.items);
  a.visits = calloc(ngroups * (MAX_LEVELS + 1), sizeof *a.visits);
  a.singles = calloc(ngroups * (MAX_LEVELS + 1), sizeof *a.singles);
  a.rows = rows;
  a.stray = 0;
  run_scoped(e, c->groups, c->size, nest_work_group, &a);
  check_nest(&a);
  free(a.items);
  free(a.visits);
  free(a.singles);
}

/* _i: configuration index + NNEST if the innermost items run through a
 * row runner. */
START_TEST(test_distribute_groups_nested) {
  const nest_config *c = &nest_configs[_i % NNEST];
  fpar_test_env e;

  fpar_test_env_init_subgroup(&e, 2, c->subgroup);
  run_nest(&e, c, _i >= (int)NNEST);
  fpar_test_env_fini(&e);
}
END_TEST

/* Without a sub-group size in the options, work groups split into groups
 * of the size the runtime reports. */
START_TEST(test_distribute_groups_default_subgroup_size) {
  nest_config c = {0, {1, {3, 1, 1}},         {1, {0, 1, 1}},
                   1, {{0, 1, 1}, {0, 1, 1}}, {WG, SG}};
  fpar_test_env e;
  unsigned sg;

  fpar_test_env_init_subgroup(&e, 2, 0);
  sg = fpar_runtime_subgroup_size(e.rt);
  ck_assert_msg(sg == 4 || sg == 8 || sg == 16,
                "default sub-group size %u is not a SIMD width", sg);
  c.size.size[0] = c.sizes[0][0] = 2 * (size_t)sg;
  c.sizes[1][0] = sg;
  run_nest(&e, &c, 0);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Memory environments: many requests -------------------------------- */

typedef struct triple {
  double a;
  int b;
  char c[4];
} triple;

/* The requests of test_memory_environment_requests, in order. */
enum env_request {
  ENV_LOCAL_INTS,      /* int[128], every element 7 */
  ENV_LOCAL_TRIPLE,    /* a struct, set to env_triple */
  ENV_LOCAL_RAW,       /* 100 bytes, 64-aligned, uninitialised */
  ENV_PRIVATE_INT,     /* int, 3 */
  ENV_PRIVATE_DOUBLES, /* double[4], every element 1.5 */
  ENV_PRIVATE_RAW,     /* 24 bytes, 32-aligned, uninitialised */
  ENV_LOCAL_BYTE,      /* char, 'q' */
  ENV_REQUESTS
};

#define ENV_INTS 128

static const int env_seven = 7, env_three = 3;
static const double env_one_and_half = 1.5;
static const char env_q = 'q';
static const triple env_triple = {2.5, -3, "xyz"};

/* Bytes and alignment of each request, for the overlap and alignment
 * checks. */
static const size_t env_size[ENV_REQUESTS] = {ENV_INTS * sizeof(int),
                                              sizeof(triple),
                                              100,
                                              sizeof(int),
                                              4 * sizeof(double),
                                              24,
                                              sizeof(char)};
static const size_t env_align[ENV_REQUESTS] = {16, 16, 64, 16, 16, 32, 1};

static void env_requests(fpar_mem_request r[ENV_REQUESTS]) {
  r[ENV_LOCAL_INTS] = fpar_require_local_mem(env_size[ENV_LOCAL_INTS], 0,
                                             &env_seven, sizeof env_seven);
  r[ENV_LOCAL_TRIPLE] =
      fpar_require_local_mem(sizeof(triple), 0, &env_triple, sizeof env_triple);
  r[ENV_LOCAL_RAW] = fpar_require_local_mem(100, 64, NULL, 0);
  r[ENV_PRIVATE_INT] =
      fpar_require_private_mem(sizeof(int), 0, &env_three, sizeof env_three);
  r[ENV_PRIVATE_DOUBLES] =
      fpar_require_private_mem(env_size[ENV_PRIVATE_DOUBLES], 0,
                               &env_one_and_half, sizeof env_one_and_half);
  r[ENV_PRIVATE_RAW] = fpar_require_private_mem(24, 32, NULL, 0);
  r[ENV_LOCAL_BYTE] = fpar_require_local_mem(1, 1, &env_q, 1);
}

static int is_private_request(unsigned k) {
  return k == ENV_PRIVATE_INT || k == ENV_PRIVATE_DOUBLES ||
         k == ENV_PRIVATE_RAW;
}

typedef struct env_group_record {
  unsigned calls;       /* of the environment's function */
  unsigned empty_calls; /* of an environment with no requests */
  int ints_ok, triple_ok, byte_ok;
  uintptr_t local[ENV_REQUESTS]; /* local objects' addresses */
} env_group_record;

typedef struct env_item_record {
  int int_init_ok, doubles_init_ok, values_kept;
  uintptr_t priv[ENV_REQUESTS]; /* private objects' addresses */
} env_item_record;

typedef struct env_args {
  size_t groups[3], size[3];
  env_group_record *group; /* per work group */
  env_item_record *item;   /* per global linear id */
} env_args;

/* What an environment's body works with. */
typedef struct env_ctx {
  env_args *a;
  env_group_record *r;
  void *const *mem;
} env_ctx;

static void check_local_initial_values(void *p) {
  env_ctx *c = p;
  const int *ints = c->mem[ENV_LOCAL_INTS];
  size_t i;

  c->r->ints_ok = 1;
  for (i = 0; i < ENV_INTS; i++)
    c->r->ints_ok &= ints[i] == 7;
  c->r->triple_ok =
      memcmp(c->mem[ENV_LOCAL_TRIPLE], &env_triple, sizeof env_triple) == 0;
  c->r->byte_ok = *(const char *)c->mem[ENV_LOCAL_BYTE] == 'q';
}

static env_item_record *env_item(const env_ctx *c, const fpar_s_item *si) {
  return &c->a->item[fpar_s_item_get_global_linear_id(si)];
}

/* First loop: check the initial values, note the addresses and write
 * values of the item's own. */
static void env_first_loop(const fpar_s_item *si, void *p) {
  env_ctx *c = p;
  env_item_record *r = env_item(c, si);
  size_t mine = fpar_s_item_get_global_linear_id(si);
  int *i = fpar_private_at(c->mem[ENV_PRIVATE_INT], si);
  double *dbl = fpar_private_at(c->mem[ENV_PRIVATE_DOUBLES], si);
  unsigned char *raw = fpar_private_at(c->mem[ENV_PRIVATE_RAW], si);
  unsigned k;

  r->int_init_ok = *i == 3;
  r->doubles_init_ok = 1;
  for (k = 0; k < 4; k++)
    r->doubles_init_ok &= dbl[k] == 1.5;
  r->priv[ENV_PRIVATE_INT] = (uintptr_t)i;
  r->priv[ENV_PRIVATE_DOUBLES] = (uintptr_t)dbl;
  r->priv[ENV_PRIVATE_RAW] = (uintptr_t)raw;
  *i = (int)mine;
  for (k = 0; k < 4; k++)
    dbl[k] = (double)(mine + k);
  memset(raw, (int)(mine & 0xff), 24);
}

/* Second loop: every item still finds its own values. */
static void env_second_loop(const fpar_s_item *si, void *p) {
  env_ctx *c = p;
  env_item_record *r = env_item(c, si);
  size_t mine = fpar_s_item_get_global_linear_id(si);
  const int *i = fpar_private_at(c->mem[ENV_PRIVATE_INT], si);
  const double *dbl = fpar_private_at(c->mem[ENV_PRIVATE_DOUBLES], si);
  const unsigned char *raw = fpar_private_at(c->mem[ENV_PRIVATE_RAW], si);
  unsigned k;

  r->values_kept = *i == (int)mine;
  for (k = 0; k < 4; k++)
    r->values_kept &= dbl[k] == (double)(mine + k);
  for (k = 0; k < 24; k++)
    r->values_kept &= raw[k] == (mine & 0xff);
}

static void env_body(fpar_group *g, void *const *mem, void *p) {
  env_ctx c = {p, NULL, mem};
  unsigned k;

  c.r = &c.a->group[fpar_group_get_linear_id(g)];
  c.r->calls++;
  for (k = 0; k < ENV_REQUESTS; k++)
    c.r->local[k] = is_private_request(k) ? 0 : (uintptr_t)mem[k];
  fpar_single_item_and_wait(g, check_local_initial_values, &c);
  fpar_distribute_items_and_wait(g, env_first_loop, &c);
  fpar_distribute_items(g, env_second_loop, &c);
}

static void empty_env_body(fpar_group *g, void *const *mem, void *p) {
  env_args *a = p;

  (void)mem;
  a->group[fpar_group_get_linear_id(g)].empty_calls++;
}

static void env_group(fpar_group *g, void *p) {
  fpar_mem_request reqs[ENV_REQUESTS];

  env_requests(reqs);
  fpar_memory_environment(g, reqs, ENV_REQUESTS, env_body, p);
  fpar_memory_environment(g, NULL, 0, empty_env_body, p);
}

/* The objects of one work group: its local ones and every item's private
 * ones, as address and size. */
static size_t env_objects(const env_args *a, size_t wg, uintptr_t *addr,
                          size_t *size) {
  size_t w[3], x[3], gid[3], global[3], n = 0;
  size_t items = fpar_test_volume(a->size), i;
  unsigned k, d;

  fpar_test_id_of(wg, a->groups, w);
  for (d = 0; d < 3; d++)
    global[d] = a->groups[d] * a->size[d];
  for (k = 0; k < ENV_REQUESTS; k++)
    if (!is_private_request(k)) {
      addr[n] = a->group[wg].local[k];
      size[n++] = env_size[k];
    }
  for (i = 0; i < items; i++) {
    fpar_test_id_of(i, a->size, x);
    for (d = 0; d < 3; d++)
      gid[d] = w[d] * a->size[d] + x[d];
    for (k = 0; k < ENV_REQUESTS; k++)
      if (is_private_request(k)) {
        addr[n] = a->item[fpar_test_linear(gid, global)].priv[k];
        size[n++] = env_size[k];
      }
  }
  return n;
}

static void check_env_group(const env_args *a, size_t wg) {
  const env_group_record *r = &a->group[wg];
  size_t max = 4 + 3 * fpar_test_volume(a->size);
  uintptr_t *addr = malloc(max * sizeof *addr);
  size_t *size = malloc(max * sizeof *size), n, i, j;
  unsigned k;

  ck_assert_msg(r->calls == 1, "work group %zu: environment ran %u times", wg,
                r->calls);
  ck_assert_msg(r->empty_calls == 1,
                "work group %zu: environment without requests ran %u times", wg,
                r->empty_calls);
  ck_assert_msg(r->ints_ok, "work group %zu: int[128] not all 7", wg);
  ck_assert_msg(r->triple_ok, "work group %zu: struct not initialised", wg);
  ck_assert_msg(r->byte_ok, "work group %zu: char not 'q'", wg);
  for (k = 0; k < ENV_REQUESTS; k++)
    if (!is_private_request(k))
      ck_assert_msg(r->local[k] % env_align[k] == 0,
                    "work group %zu: local request %u at %p is not "
                    "%zu-aligned",
                    wg, k, (void *)r->local[k], env_align[k]);
  n = env_objects(a, wg, addr, size);
  for (i = 0; i < n; i++)
    for (j = i + 1; j < n; j++)
      ck_assert_msg(!ranges_overlap(addr[i], size[i], addr[j], size[j]),
                    "work group %zu: objects %zu (%p, %zu bytes) and %zu (%p, "
                    "%zu bytes) overlap",
                    wg, i, (void *)addr[i], size[i], j, (void *)addr[j],
                    size[j]);
  free(addr);
  free(size);
}

START_TEST(test_memory_environment_requests) {
  env_args a = {{2, 2, 1}, {6, 8, 1}, NULL, NULL};
  size_t ngroups = fpar_test_volume(a.groups),
         n = ngroups * fpar_test_volume(a.size);
  fpar_test_env e;
  size_t i;
  unsigned k;

  a.group = calloc(ngroups, sizeof *a.group);
  a.item = calloc(n, sizeof *a.item);
  fpar_test_env_init(&e, 2);
  run_scoped(&e, fpar_range2(2, 2), fpar_range2(6, 8), env_group, &a);
  for (i = 0; i < ngroups; i++)
    check_env_group(&a, i);
  for (i = 0; i < n; i++) {
    const env_item_record *r = &a.item[i];
    ck_assert_msg(r->int_init_ok, "item %zu: private int not 3", i);
    ck_assert_msg(r->doubles_init_ok, "item %zu: private double[4] not 1.5", i);
    ck_assert_msg(r->values_kept, "item %zu: private values were changed", i);
    for (k = 0; k < ENV_REQUESTS; k++)
      if (is_private_request(k))
        ck_assert_msg(r->priv[k] % env_align[k] == 0,
                      "item %zu: private request %u at %p is not "
                      "%zu-aligned",
                      i, k, (void *)r->priv[k], env_align[k]);
  }
  fpar_test_env_fini(&e);
  free(a.group);
  free(a.item);
}
END_TEST

/* ---- Memory environments: local memory per group ----------------------- */

enum { SHARE_GROUPS = 16, SHARE_SIZE = 32, SHARE_INTS = 256, SHARE_ROUNDS = 4 };

typedef struct share_record {
  uint64_t start, end; /* CLOCK_MONOTONIC ns */
  uintptr_t local;
  unsigned wrong;           /* elements that were not the group's value */
  unsigned neighbour_wrong; /* neighbours' slots with another value */
} share_record;

typedef struct share_ctx {
  share_record *r;
  int *local;
  int value;
} share_ctx;

static uint64_t now_ns(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Keep the worker busy so that the other worker's group overlaps. */
static void spin_for_us(unsigned us) {
  uint64_t end = now_ns() + us * 1000ull;

  while (now_ns() < end)
    ;
}

static void fill_local_with_group_id(void *p) {
  share_ctx *c = p;
  size_t i;

  for (i = 0; i < SHARE_INTS; i++)
    c->local[i] = c->value;
}

/* The items of one distribute_items are unordered: the counters they
 * share are atomic (racecheck reports plain additions). */
static void check_local_filled(const fpar_s_item *si, void *p) {
  share_ctx *c = p;
  size_t per = SHARE_INTS / SHARE_SIZE, k;
  size_t lid = fpar_s_item_get_innermost_local_linear_id(si);

  for (k = 0; k < per; k++)
    __atomic_fetch_add(&c->r->wrong, c->local[lid * per + k] != c->value,
                       __ATOMIC_RELAXED);
}

static void write_own_slot(const fpar_s_item *si, void *p) {
  share_ctx *c = p;
  size_t lid = fpar_s_item_get_innermost_local_linear_id(si);

  c->local[lid] = c->value * 1000 + (int)lid;
}

static void read_neighbour_slot(const fpar_s_item *si, void *p) {
  share_ctx *c = p;
  size_t lid = fpar_s_item_get_innermost_local_linear_id(si);
  size_t next = (lid + 1) % SHARE_SIZE;

  __atomic_fetch_add(&c->r->neighbour_wrong,
                     c->local[next] != c->value * 1000 + (int)next,
                     __ATOMIC_RELAXED);
}

static void share_body(fpar_group *g, void *const *mem, void *p) {
  share_record *r = p;
  share_ctx c = {r, mem[0], (int)fpar_group_get_linear_id(g)};
  unsigned round;

  r->start = now_ns();
  r->local = (uintptr_t)mem[0];
  fpar_single_item_and_wait(g, fill_local_with_group_id, &c);
  for (round = 0; round < SHARE_ROUNDS; round++) {
    spin_for_us(100);
    fpar_distribute_items(g, check_local_filled, &c);
  }
  /* The items read words that others are about to write: a barrier
   * (distribute_items orders nothing when it ends). */
  fpar_group_barrier(g);
  fpar_distribute_items_and_wait(g, write_own_slot, &c);
  spin_for_us(100);
  fpar_distribute_items(g, read_neighbour_slot, &c);
  r->end = now_ns();
}

static void share_group(fpar_group *g, void *p) {
  share_record *records = p;
  fpar_mem_request req =
      fpar_require_local_mem(SHARE_INTS * sizeof(int), 0, NULL, 0);

  fpar_memory_environment(g, &req, 1, share_body,
                          &records[fpar_group_get_linear_id(g)]);
}

/* Local memory is one object shared by the group's items, and groups that
 * run at the same time on the two workers have objects of their own. */
START_TEST(test_local_memory_shared_and_per_group) {
  share_record r[SHARE_GROUPS];
  fpar_test_env e;
  size_t i, j;

  memset(r, 0, sizeof r);
  fpar_test_env_init(&e, 2);
  run_scoped(&e, fpar_range1(SHARE_GROUPS), fpar_range1(SHARE_SIZE),
             share_group, r);
  for (i = 0; i < SHARE_GROUPS; i++) {
    ck_assert_msg(r[i].wrong == 0,
                  "group %zu found %u elements of its local memory changed", i,
                  r[i].wrong);
    ck_assert_msg(r[i].neighbour_wrong == 0,
                  "group %zu: %u items did not see their neighbour's write", i,
                  r[i].neighbour_wrong);
    for (j = i + 1; j < SHARE_GROUPS; j++)
      if (r[i].start < r[j].end && r[j].start < r[i].end)
        ck_assert_msg(r[i].local != r[j].local,
                      "groups %zu and %zu ran at the same time on one local "
                      "object %p",
                      i, j, (void *)r[i].local);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Memory environments: private memory across loops ------------------ */

typedef struct persist_record {
  uintptr_t addr;
  size_t first, second; /* read in the second and third loops */
  int other;            /* the second request, read in the third loop */
} persist_record;

typedef struct persist_ctx {
  persist_record *r; /* per global linear id */
  void *const *mem;
} persist_ctx;

static size_t *persist_value(const persist_ctx *c, const fpar_s_item *si) {
  return fpar_private_at(c->mem[0], si);
}

static void persist_write(const fpar_s_item *si, void *p) {
  persist_ctx *c = p;
  size_t mine = fpar_s_item_get_global_linear_id(si);
  size_t *v = persist_value(c, si);

  *v = mine * 3 + 1;
  c->r[mine].addr = (uintptr_t)v;
}

static void persist_read_then_add(const fpar_s_item *si, void *p) {
  persist_ctx *c = p;
  size_t *v = persist_value(c, si);

  c->r[fpar_s_item_get_global_linear_id(si)].first = *v;
  *v += 5;
}

static void persist_read_again(const fpar_s_item *si, void *p) {
  persist_ctx *c = p;
  persist_record *r = &c->r[fpar_s_item_get_global_linear_id(si)];

  r->second = *persist_value(c, si);
  r->other = *(const int *)fpar_private_at(c->mem[1], si);
}

static void persist_body(fpar_group *g, void *const *mem, void *p) {
  persist_ctx c = {p, mem};

  fpar_distribute_items(g, persist_write, &c);
  fpar_group_barrier(g);
  fpar_distribute_items_and_wait(g, persist_read_then_add, &c);
  fpar_distribute_items(g, persist_read_again, &c);
}

static const int minus_one = -1;

static void persist_group(fpar_group *g, void *p) {
  fpar_mem_request reqs[2] = {
      fpar_require_private_mem(sizeof(size_t), 0, NULL, 0),
      fpar_require_private_mem(sizeof(int), 0, &minus_one, sizeof minus_one)};

  fpar_memory_environment(g, reqs, 2, persist_body, p);
}

START_TEST(test_private_memory_persists_across_loops) {
  enum { GX = 2, GY = 1, GZ = 2, X = 4, Y = 3, Z = 2 };
  enum { PER_GROUP = X * Y * Z, N = GX * GY * GZ * PER_GROUP };
  size_t global[3] = {GX * X, GY * Y, GZ * Z}, size[3] = {X, Y, Z};
  persist_record r[N];
  fpar_test_env e;
  size_t i, j, gi[3], gj[3];

  memset(r, 0, sizeof r);
  fpar_test_env_init(&e, 2);
  run_scoped(&e, fpar_range3(GX, GY, GZ), fpar_range3(X, Y, Z), persist_group,
             r);
  for (i = 0; i < N; i++) {
    ck_assert_msg(r[i].first == i * 3 + 1, "item %zu read %zu, expected %zu", i,
                  r[i].first, i * 3 + 1);
    ck_assert_msg(r[i].second == i * 3 + 6,
                  "item %zu read %zu in the third loop, expected %zu", i,
                  r[i].second, i * 3 + 6);
    ck_assert_msg(r[i].other == -1, "item %zu: second request is %d", i,
                  r[i].other);
    fpar_test_id_of(i, global, gi);
    for (j = i + 1; j < N; j++) {
      fpar_test_id_of(j, global, gj);
      if (gi[0] / size[0] == gj[0] / size[0] &&
          gi[1] / size[1] == gj[1] / size[1] &&
          gi[2] / size[2] == gj[2] / size[2])
        ck_assert_msg(r[i].addr != r[j].addr,
                      "items %zu and %zu of one group share %p", i, j,
                      (void *)r[i].addr);
    }
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Memory environments: private memory of a sub-group ---------------- */

enum { SUBPRIV_GROUPS = 3, SUBPRIV_SIZE = 32, SUBPRIV_N = 96 };

typedef struct subpriv_record {
  uintptr_t addr;
  int value;
} subpriv_record;

typedef struct subpriv_ctx {
  subpriv_record *r; /* per global linear id */
  fpar_private_memory *pm;
  const fpar_group *sub;
} subpriv_ctx;

static void subpriv_write(const fpar_s_item *si, void *p) {
  subpriv_ctx *c = p;
  int *v = fpar_private_at(c->pm, si);

  *v = (int)(fpar_s_item_get_local_id(si, c->sub, 0) * 10 +
             fpar_group_get_id(c->sub, 0));
  c->r[fpar_s_item_get_global_linear_id(si)].addr = (uintptr_t)v;
}

static void subpriv_read(const fpar_s_item *si, void *p) {
  subpriv_ctx *c = p;

  c->r[fpar_s_item_get_global_linear_id(si)].value =
      *(const int *)fpar_private_at(c->pm, si);
}

static void subpriv_body(fpar_group *sub, void *const *mem, void *p) {
  subpriv_ctx c = {p, mem[0], sub};

  fpar_distribute_items_and_wait(sub, subpriv_write, &c);
  fpar_distribute_items(sub, subpriv_read, &c);
}

static void subpriv_subgroup(fpar_group *sub, void *p) {
  fpar_mem_request req = fpar_require_private_mem(sizeof(int), 0, NULL, 0);

  fpar_memory_environment(sub, &req, 1, subpriv_body, p);
}

static void subpriv_group(fpar_group *g, void *p) {
  fpar_distribute_groups(g, subpriv_subgroup, p);
}

/* Private memory requested on a sub-group has one object per item of that
 * sub-group. */
START_TEST(test_private_memory_of_subgroup) {
  subpriv_record r[SUBPRIV_N];
  fpar_test_env e;
  size_t i, j;

  memset(r, 0, sizeof r);
  fpar_test_env_init_subgroup(&e, 2, SUBGROUP);
  run_scoped(&e, fpar_range1(SUBPRIV_GROUPS), fpar_range1(SUBPRIV_SIZE),
             subpriv_group, r);
  for (i = 0; i < SUBPRIV_N; i++) {
    size_t x = i % SUBPRIV_SIZE;
    int want = (int)(x % SUBGROUP * 10 + x / SUBGROUP);
    ck_assert_msg(r[i].value == want, "item %zu read %d, expected %d", i,
                  r[i].value, want);
    for (j = i + 1; j < i - i % SUBGROUP + SUBGROUP; j++)
      ck_assert_msg(r[i].addr != r[j].addr,
                    "items %zu and %zu of one sub-group share %p", i, j,
                    (void *)r[i].addr);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Memory environments: nested --------------------------------------- */

enum { NESTENV_SIZE = 16, NESTENV_GROUPS = 2 };
#define NESTENV_N (NESTENV_SIZE * NESTENV_GROUPS)

typedef struct nestenv_record {
  int outer_local, outer_private, twice_local, inner_local, inner_private;
  uintptr_t outer_addr, twice_addr, inner_addr;
} nestenv_record;

/* One work group's environments, from the outermost in. */
typedef struct nestenv_state {
  nestenv_record *r; /* per global linear id */
  const fpar_group *wg;
  int *outer_local, *twice_local, *inner_local;
  fpar_private_memory *outer_pm, *inner_pm;
} nestenv_state;

static const int one = 1, two = 2, five = 5, nine = 9, hundred = 100;

static void nestenv_record_item(const fpar_s_item *si, void *p) {
  nestenv_state *s = p;
  nestenv_record *r = &s->r[fpar_s_item_get_global_linear_id(si)];
  size_t x = fpar_s_item_get_local_id(si, s->wg, 0);
  size_t lid = fpar_s_item_get_innermost_local_id(si, 0);

  r->outer_local = s->outer_local[x];
  r->outer_private = *(const int *)fpar_private_at(s->outer_pm, si);
  r->twice_local = s->twice_local[x % 4];
  r->inner_local = s->inner_local[lid];
  r->inner_private = *(const int *)fpar_private_at(s->inner_pm, si);
  r->outer_addr = (uintptr_t)s->outer_local;
  r->twice_addr = (uintptr_t)s->twice_local;
  r->inner_addr = (uintptr_t)s->inner_local;
}

static void nestenv_inner_body(fpar_group *sub, void *const *mem, void *p) {
  nestenv_state *s = p;

  s->inner_local = mem[0];
  s->inner_pm = mem[1];
  fpar_distribute_items(sub, nestenv_record_item, s);
}

static void nestenv_subgroup(fpar_group *sub, void *p) {
  fpar_mem_request reqs[2] = {
      fpar_require_local_mem(SUBGROUP * sizeof(int), 0, &two, sizeof two),
      fpar_require_private_mem(sizeof(int), 0, &five, sizeof five)};

  fpar_memory_environment(sub, reqs, 2, nestenv_inner_body, p);
}

static void nestenv_twice_body(fpar_group *g, void *const *mem, void *p) {
  nestenv_state *s = p;

  s->twice_local = mem[0];
  fpar_distribute_groups(g, nestenv_subgroup, s);
}

static void add_local_id_to_outer_private(const fpar_s_item *si, void *p) {
  nestenv_state *s = p;

  *(int *)fpar_private_at(s->outer_pm, si) +=
      (int)fpar_s_item_get_innermost_local_id(si, 0);
}

static void nestenv_outer_body(fpar_group *g, void *const *mem, void *p) {
  nestenv_state *s = p;
  fpar_mem_request req =
      fpar_require_local_mem(4 * sizeof(int), 0, &nine, sizeof nine);

  s->outer_local = mem[0];
  s->outer_pm = mem[1];
  fpar_distribute_items_and_wait(g, add_local_id_to_outer_private, s);
  fpar_memory_environment(g, &req, 1, nestenv_twice_body, s);
}

static void nestenv_group(fpar_group *g, void *p) {
  nestenv_state s = {p, g, NULL, NULL, NULL, NULL, NULL};
  fpar_mem_request reqs[2] = {
      fpar_require_local_mem(NESTENV_SIZE * sizeof(int), 0, &one, sizeof one),
      fpar_require_private_mem(sizeof(int), 0, &hundred, sizeof hundred)};

  fpar_memory_environment(g, reqs, 2, nestenv_outer_body, &s);
}

/* An environment inside another on the same group, and one on a
 * sub-group inside that: all their memory is usable at once. */
START_TEST(test_nested_memory_environments) {
  nestenv_record r[NESTENV_N];
  fpar_test_env e;
  size_t i;

  memset(r, 0, sizeof r);
  fpar_test_env_init_subgroup(&e, 2, SUBGROUP);
  run_scoped(&e, fpar_range1(NESTENV_GROUPS), fpar_range1(NESTENV_SIZE),
             nestenv_group, r);
  for (i = 0; i < NESTENV_N; i++) {
    size_t x = i % NESTENV_SIZE;
    ck_assert_msg(r[i].outer_local == 1, "item %zu: outer local %d", i,
                  r[i].outer_local);
    ck_assert_msg(r[i].outer_private == 100 + (int)x,
                  "item %zu: outer private %d, expected %d", i,
                  r[i].outer_private, 100 + (int)x);
    ck_assert_msg(r[i].twice_local == 9, "item %zu: second local %d", i,
                  r[i].twice_local);
    ck_assert_msg(r[i].inner_local == 2, "item %zu: sub-group local %d", i,
                  r[i].inner_local);
    ck_assert_msg(r[i].inner_private == 5, "item %zu: sub-group private %d", i,
                  r[i].inner_private);
    ck_assert_msg(
        !ranges_overlap(r[i].outer_addr, NESTENV_SIZE * sizeof(int),
                        r[i].twice_addr, 4 * sizeof(int)) &&
            !ranges_overlap(r[i].outer_addr, NESTENV_SIZE * sizeof(int),
                            r[i].inner_addr, SUBGROUP * sizeof(int)) &&
            !ranges_overlap(r[i].twice_addr, 4 * sizeof(int), r[i].inner_addr,
                            SUBGROUP * sizeof(int)),
        "item %zu: nested local objects overlap (%p, %p, %p)", i,
        (void *)r[i].outer_addr, (void *)r[i].twice_addr,
        (void *)r[i].inner_addr);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Memory environments: release -------------------------------------- */

/* One local object per environment, of `size` bytes; `done` counts the
 * environments that could write both its ends. */
typedef struct release_args {
  size_t size;
  unsigned done;
} release_args;

static void touch_ends(fpar_group *g, void *const *mem, void *p) {
  release_args *a = p;
  unsigned char *obj = mem[0];

  (void)g;
  obj[0] = 1;
  obj[a->size - 1] = 2;
  if (obj[0] == 1 && obj[a->size - 1] == 2)
    __atomic_add_fetch(&a->done, 1, __ATOMIC_RELAXED);
}

static void local_object_group(fpar_group *g, void *p) {
  release_args *a = p;
  fpar_mem_request req = fpar_require_local_mem(a->size, 0, NULL, 0);

  fpar_memory_environment(g, &req, 1, touch_ends, p);
}

/* Eight environments one after another in one group. */
static void repeated_local_object_group(fpar_group *g, void *p) {
  unsigned k;

  for (k = 0; k < 8; k++)
    local_object_group(g, p);
}

/* 1000 groups of 256 KiB each, three times, and eight environments of
 * 600 KiB in one group: the 1 MiB arena only holds them if every
 * environment gives its memory back. */
START_TEST(test_memory_released_after_environment) {
  enum { GROUPS = 1000, LAUNCHES = 3 };
  release_args a;
  fpar_test_env e;
  unsigned launch;

  fpar_test_env_init(&e, 2);
  ck_assert_uint_eq(fpar_runtime_local_mem_size(e.rt), 1024 * 1024);
  for (launch = 0; launch < LAUNCHES; launch++) {
    a.size = 256 * 1024;
    a.done = 0;
    run_scoped(&e, fpar_range1(GROUPS), fpar_range1(4), local_object_group, &a);
    ck_assert_uint_eq(a.done, GROUPS);
  }
  a.size = 600 * 1024;
  a.done = 0;
  run_scoped(&e, fpar_range1(2), fpar_range1(4), repeated_local_object_group,
             &a);
  ck_assert_uint_eq(a.done, 2 * 8);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- The reduction example --------------------------------------------- */

enum { REDUCE_N = 1024, REDUCE_GROUP = 128, REDUCE_GROUPS = 8 };

typedef struct reduce_args {
  int *data;
  unsigned singles[REDUCE_GROUPS];  /* sub-groups' single_item bodies */
  unsigned mismatch[REDUCE_GROUPS]; /* private values that differ */
} reduce_args;

typedef struct reduce_ctx {
  reduce_args *a;
  const fpar_group *grp;
  int *scratch;
  fpar_private_memory *priv;
  size_t i; /* the reduction's current stride */
  unsigned *singles, *mismatch;
} reduce_ctx;

static void reduce_load(const fpar_s_item *idx, void *p) {
  reduce_ctx *c = p;
  int v = c->a->data[fpar_s_item_get_global_id(idx, 0)];

  c->scratch[fpar_s_item_get_local_id(idx, c->grp, 0)] = v;
  *(int *)fpar_private_at(c->priv, idx) = v;
}

static void reduce_check_private(const fpar_s_item *idx, void *p) {
  reduce_ctx *c = p;

  __atomic_fetch_add(c->mismatch,
                     *(const int *)fpar_private_at(c->priv, idx) !=
                         c->scratch[fpar_s_item_get_local_id(idx, c->grp, 0)],
                     __ATOMIC_RELAXED);
}

static void reduce_count_single(void *p) {
  reduce_ctx *c = p;

  (*c->singles)++;
}

static void reduce_subgroup(fpar_group *subgroup, void *p) {
  fpar_single_item(subgroup, reduce_count_single, p);
}

static void reduce_step(const fpar_s_item *idx, void *p) {
  reduce_ctx *c = p;
  size_t lid = fpar_s_item_get_innermost_local_id(idx, 0);

  if (lid < c->i)
    c->scratch[lid] += c->scratch[lid + c->i];
}

static void reduce_store(void *p) {
  reduce_ctx *c = p;

  c->a->data[fpar_group_get_id(c->grp, 0) * REDUCE_GROUP] = c->scratch[0];
}

static void reduce_body(fpar_group *grp, void *const *mem, void *p) {
  reduce_ctx c = {p, grp, mem[0], mem[1], 0, NULL, NULL};
  size_t gid = fpar_group_get_id(grp, 0);

  c.singles = &c.a->singles[gid];
  c.mismatch = &c.a->mismatch[gid];
  fpar_distribute_items(grp, reduce_load, &c);
  fpar_group_barrier(grp);
  fpar_distribute_items(grp, reduce_check_private, &c);
  fpar_distribute_groups(grp, reduce_subgroup, &c);
  for (c.i = REDUCE_GROUP / 2; c.i > 0; c.i /= 2)
    fpar_distribute_items_and_wait(grp, reduce_step, &c);
  fpar_single_item(grp, reduce_store, &c);
}

static void reduce_group(fpar_group *grp, void *p) {
  fpar_mem_request reqs[2] = {
      fpar_require_local_mem(REDUCE_GROUP * sizeof(int), 0, NULL, 0),
      fpar_require_private_mem(sizeof(int), 0, NULL, 0)};

  fpar_memory_environment(grp, reqs, 2, reduce_body, p);
}

START_TEST(test_reduction_example) {
  int data[REDUCE_N];
  reduce_args a = {data, {0}, {0}};
  fpar_test_env e;
  int i, g;

  for (i = 0; i < REDUCE_N; i++)
    data[i] = i;
  fpar_test_env_init_subgroup(&e, 2, SUBGROUP);
  run_scoped(&e, fpar_range1(REDUCE_N / REDUCE_GROUP),
             fpar_range1(REDUCE_GROUP), reduce_group, &a);
  for (g = 0; g < REDUCE_GROUPS; g++) {
    int host_result = 0;
    for (i = g * REDUCE_GROUP; i < (g + 1) * REDUCE_GROUP; i++)
      host_result += i;
    ck_assert_msg(data[g * REDUCE_GROUP] == host_result,
                  "group %d: got %d, expected %d", g, data[g * REDUCE_GROUP],
                  host_result);
    ck_assert_msg(a.singles[g] == REDUCE_GROUP / SUBGROUP,
                  "group %d: single_item ran in %u sub-groups, expected %d", g,
                  a.singles[g], REDUCE_GROUP / SUBGROUP);
    ck_assert_msg(a.mismatch[g] == 0,
                  "group %d: %u private values differ from the scratch", g,
                  a.mismatch[g]);
  }
  for (i = 0; i < REDUCE_N; i++)
    if (i % REDUCE_GROUP != 0)
      ck_assert_msg(data[i] == i, "data[%d] changed to %d", i, data[i]);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Broken rules ------------------------------------------------------ */

static void ignore_item(const fpar_s_item *si, void *ctx) {
  (void)si, (void)ctx;
}

FPAR_DEFINE_ITEMS_ROW(ignore_row, ignore_item)

static void ignore_group(fpar_group *g, void *ctx) {
  (void)g, (void)ctx;
}

static void ignore_single(void *ctx) {
  (void)ctx;
}

static void ignore_env(fpar_group *g, void *const *mem, void *ctx) {
  (void)g, (void)mem, (void)ctx;
}

/* Rule 2: group operations from within distribute_items, on the group
 * the item loop runs over (ctx). */
static void barrier_from_item(const fpar_s_item *si, void *ctx) {
  (void)si;
  fpar_group_barrier(ctx);
}

static void items_from_item(const fpar_s_item *si, void *ctx) {
  (void)si;
  fpar_distribute_items(ctx, ignore_item, NULL);
}

static void items_and_wait_from_item(const fpar_s_item *si, void *ctx) {
  (void)si;
  fpar_distribute_items_and_wait(ctx, ignore_item, NULL);
}

static void rows_from_item(const fpar_s_item *si, void *ctx) {
  (void)si;
  fpar_distribute_items_rows(ctx, ignore_row, NULL);
}

static void groups_from_item(const fpar_s_item *si, void *ctx) {
  (void)si;
  fpar_distribute_groups(ctx, ignore_group, NULL);
}

static void single_from_item(const fpar_s_item *si, void *ctx) {
  (void)si;
  fpar_single_item(ctx, ignore_single, NULL);
}

static void private_env_from_item(const fpar_s_item *si, void *ctx) {
  fpar_mem_request req = fpar_require_private_mem(sizeof(int), 0, NULL, 0);

  (void)si;
  fpar_memory_environment(ctx, &req, 1, ignore_env, NULL);
}

/* The group function of a rule-2 violation: args is the item body. */
static void item_loop_breaking_rule(fpar_group *g, void *args) {
  fpar_distribute_items(g, (fpar_s_item_fn)(uintptr_t)args, g);
}

/* Rule 1: operations on the parent (ctx) from within a sub-group. */
static void items_on_parent(fpar_group *sub, void *parent) {
  (void)sub;
  fpar_distribute_items(parent, ignore_item, NULL);
}

static void single_on_parent(fpar_group *sub, void *parent) {
  (void)sub;
  fpar_single_item(parent, ignore_single, NULL);
}

static void local_env_on_parent(fpar_group *sub, void *parent) {
  fpar_mem_request req = fpar_require_local_mem(64, 0, NULL, 0);

  (void)sub;
  fpar_memory_environment(parent, &req, 1, ignore_env, NULL);
}

static void barrier_on_parent(fpar_group *subsub, void *parent) {
  (void)subsub;
  fpar_group_barrier(parent);
}

static void split_again_then_barrier_on_parent(fpar_group *sub, void *ctx) {
  (void)ctx;
  fpar_distribute_groups(sub, barrier_on_parent, sub);
}

/* The group function of a rule-1 violation: args is the sub-group's
 * function, which gets the work group as its ctx. */
static void subgroups_breaking_rule(fpar_group *g, void *args) {
  fpar_distribute_groups(g, (fpar_group_fn)(uintptr_t)args, g);
}

/* Private memory of sub-group 0 used with an item of sub-group 1 (work
 * group item SUBGROUP + 4, copied from a loop over the work group). */
typedef struct foreign_state {
  fpar_s_item item;
  fpar_private_memory *pm;
} foreign_state;

static void save_item_of_subgroup_1(const fpar_s_item *si, void *p) {
  if (fpar_s_item_get_innermost_local_id(si, 0) == SUBGROUP + 4)
    ((foreign_state *)p)->item = *si;
}

static void touch_foreign_slot(const fpar_s_item *si, void *p) {
  foreign_state *s = p;

  (void)si;
  *(int *)fpar_private_at(s->pm, &s->item) = 1;
}

static void foreign_env(fpar_group *sub, void *const *mem, void *p) {
  ((foreign_state *)p)->pm = mem[0];
  fpar_distribute_items(sub, touch_foreign_slot, p);
}

static void foreign_subgroup(fpar_group *sub, void *p) {
  fpar_mem_request req = fpar_require_private_mem(sizeof(int), 0, NULL, 0);

  if (fpar_group_get_id(sub, 0) == 0)
    fpar_memory_environment(sub, &req, 1, foreign_env, p);
}

static void private_of_other_subgroup(fpar_group *g, void *args) {
  foreign_state s;

  (void)args;
  memset(&s, 0, sizeof s);
  /* What one item saves, another reads after the barrier. */
  fpar_distribute_items_and_wait(g, save_item_of_subgroup_1, &s);
  fpar_distribute_groups(g, foreign_subgroup, &s);
}

/* Memory requests the environment cannot serve: args is the request. */
static void env_with_request(fpar_group *g, void *args) {
  fpar_memory_environment(g, args, 1, ignore_env, NULL);
}

static const int three_bytes = 0x010203;

enum { RULE_GROUPS = 4, RULE_SIZE = 2 * SUBGROUP };

/* A launch that breaks a rule, and what its failure must say. */
typedef struct violation {
  const char *name;
  fpar_group_fn fn;
  void *args;
  int code;
  const char *what; /* the function and what was wrong */
  const char *rule; /* "rule 1", "rule 2" or NULL */
} violation;

/* Function pointers travel through void *args as uintptr_t. */
#define ITEM_FN(f) ((void *)(uintptr_t)(f))
#define GROUP_FN(f) ((void *)(uintptr_t)(f))

/* RULE_SIZE items of 64 KiB of private memory are the whole 1 MiB arena,
 * with no room for the environment's own records. */
static const fpar_mem_request over_arena_local = {.kind = FPAR_MEM_LOCAL,
                                                  .size = 2 * 1024 * 1024};
static const fpar_mem_request over_arena_private = {.kind = FPAR_MEM_PRIVATE,
                                                    .size = 64 * 1024};
static const fpar_mem_request init_not_dividing = {
    .kind = FPAR_MEM_LOCAL, .size = 8, .init = &three_bytes, .init_size = 3};
static const fpar_mem_request alignment_not_power_of_two = {
    .kind = FPAR_MEM_LOCAL, .size = 48, .align = 24};

static const violation violations[] = {
    {"group_barrier inside distribute_items", item_loop_breaking_rule,
     ITEM_FN(barrier_from_item), FPAR_ESCOPE,
     "fpar_group_barrier called inside fpar_distribute_items", "rule 2"},
    {"distribute_items inside distribute_items", item_loop_breaking_rule,
     ITEM_FN(items_from_item), FPAR_ESCOPE,
     "fpar_distribute_items called inside fpar_distribute_items", "rule 2"},
    {"distribute_items_and_wait inside distribute_items",
     item_loop_breaking_rule, ITEM_FN(items_and_wait_from_item), FPAR_ESCOPE,
     "fpar_distribute_items called inside fpar_distribute_items", "rule 2"},
    {"distribute_items_rows inside distribute_items", item_loop_breaking_rule,
     ITEM_FN(rows_from_item), FPAR_ESCOPE,
     "fpar_distribute_items_rows called inside fpar_distribute_items",
     "rule 2"},
    {"distribute_groups inside distribute_items", item_loop_breaking_rule,
     ITEM_FN(groups_from_item), FPAR_ESCOPE,
     "fpar_distribute_groups called inside fpar_distribute_items", "rule 2"},
    {"single_item inside distribute_items", item_loop_breaking_rule,
     ITEM_FN(single_from_item), FPAR_ESCOPE,
     "fpar_single_item called inside fpar_distribute_items", "rule 2"},
    {"private memory_environment inside distribute_items",
     item_loop_breaking_rule, ITEM_FN(private_env_from_item), FPAR_ESCOPE,
     "fpar_memory_environment called inside fpar_distribute_items", "rule 2"},
    {"distribute_items on the parent of a sub-group", subgroups_breaking_rule,
     GROUP_FN(items_on_parent), FPAR_ESCOPE,
     "fpar_distribute_items called on a work group", "rule 1"},
    {"single_item on the parent of a sub-group", subgroups_breaking_rule,
     GROUP_FN(single_on_parent), FPAR_ESCOPE,
     "fpar_single_item called on a work group", "rule 1"},
    {"memory_environment on the parent of a sub-group", subgroups_breaking_rule,
     GROUP_FN(local_env_on_parent), FPAR_ESCOPE,
     "fpar_memory_environment called on a work group", "rule 1"},
    {"group_barrier on the parent sub-group", subgroups_breaking_rule,
     GROUP_FN(split_again_then_barrier_on_parent), FPAR_ESCOPE,
     "fpar_group_barrier called on a sub-group", "rule 1"},
    {"private memory of sub-group 0 with an item of sub-group 1",
     private_of_other_subgroup, NULL, FPAR_ESCOPE, "fpar_private_at",
     "outside"},
    {"local memory over the arena", env_with_request, (void *)&over_arena_local,
     FPAR_ELOCALMEM, "local memory 0 needs", "arena"},
    {"private memory over the arena", env_with_request,
     (void *)&over_arena_private, FPAR_ELOCALMEM, "private memory 0 needs",
     "arena"},
    {"initial value that does not divide the size", env_with_request,
     (void *)&init_not_dividing, FPAR_EINVAL, "memory request 0 is malformed",
     NULL},
    {"alignment not a power of two", env_with_request,
     (void *)&alignment_not_power_of_two, FPAR_EINVAL,
     "memory request 0 is malformed", NULL},
};
#define NVIOLATIONS (sizeof violations / sizeof violations[0])

START_TEST(test_broken_rule_fails_launch) {
  const violation *v = &violations[_i];
  fpar_event *ev = NULL;
  fpar_test_env e;

  fpar_test_env_init_subgroup(&e, 2, SUBGROUP);
  ck_assert_fpar_ok(fpar_parallel(e.q, fpar_range1(RULE_GROUPS),
                                  fpar_range1(RULE_SIZE), v->fn, v->args, &ev));
  fpar_test_wait_fault(ev, v->code, v->what, v->rule);
  assert_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

/* A fault's message names the kernel given in fpar_launch_desc.name, and
 * the queue reports the fault once. */
START_TEST(test_fault_message_names_launch) {
  fpar_launch_desc d;
  fpar_event *ev = NULL;
  fpar_test_env e;

  fpar_test_env_init_subgroup(&e, 2, SUBGROUP);
  fpar_launch_desc_init(&d);
  d.name = "scoped_rule_breaker";
  d.scoped = item_loop_breaking_rule;
  d.args = ITEM_FN(barrier_from_item);
  d.global = fpar_range1(RULE_GROUPS);
  d.local = fpar_range1(RULE_SIZE);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_fault(ev, FPAR_ESCOPE, "kernel 'scoped_rule_breaker'",
                       "rule 2");
  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_ESCOPE);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  assert_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Group pointers outside their function ---------------------------- */

typedef struct stale_args {
  fpar_group *g; /* the work group of an earlier launch */
  int fault;     /* whether that launch failed */
} stale_args;

static void save_group(fpar_group *g, void *p) {
  stale_args *a = p;

  a->g = g;
  if (a->fault)
    fpar_memory_environment(g, &over_arena_local, 1, ignore_env, NULL);
}

static void barrier_on_saved_group(fpar_item *it, void *p) {
  (void)it;
  fpar_group_barrier(((stale_args *)p)->g);
}

/* A group operation from an nd_range kernel, on the group of an earlier
 * scoped launch that ended normally (_i = 0) or with a fault (_i = 1),
 * fails the kernel's launch.  One worker runs both launches. */
START_TEST(test_group_used_outside_its_function) {
  stale_args a = {NULL, _i};
  fpar_event *ev = NULL;
  fpar_test_env e;

  fpar_test_env_init_subgroup(&e, 1, SUBGROUP);
  ck_assert_fpar_ok(
      fpar_parallel(e.q, fpar_range1(1), fpar_range1(4), save_group, &a, &ev));
  if (a.fault)
    fpar_test_wait_fault(ev, FPAR_ELOCALMEM, "local memory 0 needs", NULL);
  else
    fpar_test_wait_ok(ev);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(4), fpar_range1(4),
                                      barrier_on_saved_group, &a, &ev));
  fpar_test_wait_fault(
      ev, FPAR_ESCOPE,
      "fpar_group_barrier called outside a scoped or hierarchical "
      "group function",
      NULL);
  assert_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Launches the library refuses -------------------------------------- */

static void never_run_kernel(fpar_item *it, void *args) {
  (void)it, (void)args;
}

/* fpar_parallel() must refuse the launch with `code` and leave *ev
 * alone. */
static void assert_parallel_refused(fpar_test_env *e, fpar_range groups,
                                    fpar_range size, fpar_group_fn fn,
                                    int code) {
  fpar_event *ev = (fpar_event *)&ev;

  ck_assert_fpar_err(fpar_parallel(e->q, groups, size, fn, NULL, &ev), code);
  ck_assert_msg(ev == (fpar_event *)&ev, "a refused launch wrote *ev");
}

/* Ranges of 0 and 4 dimensions. */
static const fpar_range bad_dims[2] = {{0, {4, 1, 1}}, {4, {4, 1, 1}}};

START_TEST(test_parallel_refuses_bad_launches) {
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  assert_parallel_refused(&e, fpar_range1(4), fpar_range1(8), NULL,
                          FPAR_ENULLKERNEL);
  assert_parallel_refused(&e, fpar_range1(4), fpar_range1(0), ignore_group,
                          FPAR_EEMPTY);
  assert_parallel_refused(&e, fpar_range2(4, 2), fpar_range2(8, 0),
                          ignore_group, FPAR_EEMPTY);
  assert_parallel_refused(&e, fpar_range1(0), fpar_range1(8), ignore_group,
                          FPAR_EEMPTY);
  assert_parallel_refused(&e, fpar_range1(4), fpar_range2(4, 4), ignore_group,
                          FPAR_EDIM);
  assert_parallel_refused(&e, fpar_range3(2, 2, 2), fpar_range2(4, 4),
                          ignore_group, FPAR_EDIM);
  assert_parallel_refused(&e, bad_dims[0], bad_dims[0], ignore_group,
                          FPAR_EDIM);
  assert_parallel_refused(&e, bad_dims[1], bad_dims[1], ignore_group,
                          FPAR_EDIM);
  fpar_test_env_fini(&e);
}
END_TEST

/* fpar_launch() with more than one of kernel, scoped and hierarchical
 * (or none) is refused and names the launch. */
START_TEST(test_launch_refuses_two_models) {
  fpar_launch_desc d;
  fpar_event *ev = NULL;
  fpar_test_env e;
  unsigned k;

  fpar_test_env_init(&e, 2);
  for (k = 0; k < 4; k++) {
    fpar_launch_desc_init(&d);
    d.name = "two_models";
    d.kernel = k == 1 ? NULL : never_run_kernel;
    d.scoped = k == 2 ? NULL : ignore_group;
    d.hierarchical = k == 0 ? NULL : ignore_group;
    d.global = fpar_range1(4);
    d.local = fpar_range1(8);
    ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_EINVAL);
    ck_assert_ptr_null(ev);
    ck_assert_msg(strstr(fpar_last_error(), "two_models") != NULL,
                  "\"%s\" does not name the launch", fpar_last_error());
  }
  fpar_launch_desc_init(&d);
  d.global = fpar_range1(4);
  d.local = fpar_range1(8);
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_ENULLKERNEL);
  ck_assert_ptr_null(ev);
  fpar_test_env_fini(&e);
}
END_TEST

/* A description with scoped alone runs like fpar_parallel(). */
START_TEST(test_launch_desc_scoped) {
  enum { GROUPS = 4, SIZE = 8, N = GROUPS * SIZE };
  unsigned calls[N];
  count_args a = {calls, N, 0};
  fpar_launch_desc d;
  fpar_event *ev = NULL;
  fpar_test_env e;
  size_t i;

  memset(calls, 0, sizeof calls);
  fpar_test_env_init(&e, 2);
  fpar_launch_desc_init(&d);
  d.name = "scoped_by_desc";
  d.scoped = count_items_group;
  d.args = &a;
  d.global = fpar_range1(GROUPS);
  d.local = fpar_range1(SIZE);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_ok(ev);
  ck_assert_uint_eq(a.stray, 0);
  for (i = 0; i < N; i++)
    ck_assert_msg(calls[i] == 1, "item %zu ran %u times", i, calls[i]);
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *scoped_suite(void) {
  Suite *s = suite_create("scoped");
  TCase *tc;

  tc = fpar_test_case("groups");
  tcase_add_loop_test(tc, test_group_function_once_per_work_group, 0,
                      2 * NSHAPES);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("items");
  tcase_add_loop_test(tc, test_distribute_items_once_per_item, 0,
                      NSHAPES * ITEMS_MODES);
  tcase_add_test(tc, test_logical_group_beyond_max_group_size);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("nesting");
  tcase_add_loop_test(tc, test_distribute_groups_nested, 0, 2 * NNEST);
  tcase_add_test(tc, test_distribute_groups_default_subgroup_size);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("memory");
  tcase_add_test(tc, test_memory_environment_requests);
  tcase_add_test(tc, test_local_memory_shared_and_per_group);
  tcase_add_test(tc, test_private_memory_persists_across_loops);
  tcase_add_test(tc, test_private_memory_of_subgroup);
  tcase_add_test(tc, test_nested_memory_environments);
  tcase_add_test(tc, test_memory_released_after_environment);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("example");
  tcase_add_test(tc, test_reduction_example);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("rules");
  tcase_add_loop_test(tc, test_broken_rule_fails_launch, 0, NVIOLATIONS);
  tcase_add_test(tc, test_fault_message_names_launch);
  tcase_add_loop_test(tc, test_group_used_outside_its_function, 0, 2);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("refusals");
  tcase_add_test(tc, test_parallel_refuses_bad_launches);
  tcase_add_test(tc, test_launch_refuses_two_models);
  tcase_add_test(tc, test_launch_desc_scoped);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(scoped_suite());
}
