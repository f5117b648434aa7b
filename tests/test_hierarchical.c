/* SPDX-License-Identifier: MIT */
/* test_hierarchical.c - SYCL 1.2.1 hierarchical parallelism
 * (<fiberpar/scoped.h>): fpar_parallel_for_work_group with an explicit or
 * runtime-chosen group size, parallel_for_work_item in its plain and
 * flexible forms with the h_item queries, sycl::private_memory
 * (fpar_private_memory_create) and the example of its documentation, and
 * the faults and refusals of hierarchical launches.
 *
 * Group functions run on worker threads, so they only record what they
 * see; the checks run on the test's thread against arithmetic of their
 * own (dimension 0 fastest, linear ids x + X * (y + Y * z)).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Sub-group size of most runtimes made here: the group size that
 * FPAR_LOCAL_AUTO stands for. */
#define SUBGROUP 8

/* Queries are made for the three dimensions and one beyond them. */
#define QDIMS 4

/* ---- Ranges ------------------------------------------------------------ */

/* A vector of the three dimensions and one beyond, which queries report
 * as `beyond`. */
static void vec4(size_t out[QDIMS], const size_t v[3], size_t beyond) {
  memcpy(out, v, 3 * sizeof *v);
  out[3] = beyond;
}

static void assert_ids_eq(const size_t *got, const size_t *want,
                          const char *field, const char *where) {
  unsigned d;

  for (d = 0; d < QDIMS; d++)
    ck_assert_msg(got[d] == want[d], "%s: %s(%u) is %zu, expected %zu", where,
                  field, d, got[d], want[d]);
}

/* ---- Environment and launches ------------------------------------------ */

/* fpar_parallel_for_work_group() and wait for success. */
static void run_hierarchical(fpar_test_env *e, fpar_range groups,
                             fpar_range size, fpar_group_fn fn, void *args) {
  fpar_event *ev = NULL;

  ck_assert_fpar_ok(
      fpar_parallel_for_work_group(e->q, groups, size, fn, args, &ev));
  fpar_test_wait_ok(ev);
}

/* ---- Work groups and their work-items ---------------------------------- */

/* A launch: its groups, their physical size, and the logical range of the
 * parallel_for_work_item call (flexible: fpar_parallel_for_work_item_range
 * with that range; else the plain form, whose range is the group size). */
typedef struct hier_config {
  fpar_range groups, size, logical;
  int flexible;
} hier_config;

static const hier_config plain_configs[] = {
    {{1, {5, 1, 1}}, {1, {6, 1, 1}}, {1, {6, 1, 1}}, 0},
    {{2, {3, 2, 1}}, {2, {4, 3, 1}}, {2, {4, 3, 1}}, 0},
    {{3, {2, 2, 3}}, {3, {2, 3, 2}}, {3, {2, 3, 2}}, 0},
};
#define NPLAIN (sizeof plain_configs / sizeof plain_configs[0])

/* Logical ranges larger and smaller than the group, in each
 * dimensionality. */
static const hier_config flexible_configs[] = {
    {{1, {3, 1, 1}}, {1, {4, 1, 1}}, {1, {10, 1, 1}}, 1},
    {{1, {3, 1, 1}}, {1, {4, 1, 1}}, {1, {3, 1, 1}}, 1},
    {{2, {2, 3, 1}}, {2, {3, 2, 1}}, {2, {5, 4, 1}}, 1},
    {{2, {2, 3, 1}}, {2, {3, 2, 1}}, {2, {2, 1, 1}}, 1},
    {{3, {2, 1, 2}}, {3, {2, 2, 2}}, {3, {3, 3, 3}}, 1},
    {{3, {2, 1, 2}}, {3, {2, 2, 2}}, {3, {1, 2, 1}}, 1},
};
#define NFLEXIBLE (sizeof flexible_configs / sizeof flexible_configs[0])

/* What the group queries say about a hierarchical work group. */
typedef struct wg_record {
  unsigned calls, dims;
  fpar_fence_scope scope;
  size_t id[QDIMS], range[QDIMS], logical[QDIMS], physical[QDIMS];
  size_t physical_id[QDIMS], physical_linear;
} wg_record;

/* What the h_item queries say about one logical work-item. */
typedef struct h_record {
  unsigned calls;
  size_t global_id[QDIMS], global_range[QDIMS], local_id[QDIMS];
  size_t logical_id[QDIMS], physical_id[QDIMS];
  size_t logical_range[QDIMS], physical_range[QDIMS];
  size_t global_linear;
} h_record;

typedef struct hier_args {
  const hier_config *c;
  wg_record *groups; /* per work group */
  h_record *items;   /* per work group and logical item */
  unsigned stray;    /* ids beyond the launch or the logical range */
} hier_args;

typedef struct hier_ctx {
  hier_args *a;
  size_t wg; /* linear id of the work group */
} hier_ctx;

static void record_h_item(const fpar_h_item *hi, void *p) {
  hier_ctx *c = p;
  const size_t *logical = c->a->c->logical.size;
  size_t lid[3] = {fpar_h_item_get_logical_local_id(hi, 0),
                   fpar_h_item_get_logical_local_id(hi, 1),
                   fpar_h_item_get_logical_local_id(hi, 2)};
  h_record *r;
  unsigned d;

  if (!fpar_test_id_in_range(lid, logical)) {
    __atomic_add_fetch(&c->a->stray, 1, __ATOMIC_RELAXED);
    return;
  }
  r = &c->a->items[c->wg * fpar_test_volume(logical) +
                   fpar_test_linear(lid, logical)];
  __atomic_add_fetch(&r->calls, 1, __ATOMIC_RELAXED);
  for (d = 0; d < QDIMS; d++) {
    r->global_id[d] = fpar_h_item_get_global_id(hi, d);
    r->global_range[d] = fpar_h_item_get_global_range(hi, d);
    r->local_id[d] = fpar_h_item_get_local_id(hi, d);
    r->logical_id[d] = fpar_h_item_get_logical_local_id(hi, d);
    r->physical_id[d] = fpar_h_item_get_physical_local_id(hi, d);
    r->logical_range[d] = fpar_h_item_get_logical_local_range(hi, d);
    r->physical_range[d] = fpar_h_item_get_physical_local_range(hi, d);
  }
  r->global_linear = fpar_s_item_get_global_linear_id(hi);
}

static void record_hier_group(fpar_group *g, void *p) {
  hier_args *a = p;
  size_t id[3] = {fpar_group_get_id(g, 0), fpar_group_get_id(g, 1),
                  fpar_group_get_id(g, 2)};
  hier_ctx c = {a, 0};
  wg_record *r;
  unsigned d;

  if (!fpar_test_id_in_range(id, a->c->groups.size)) {
    __atomic_add_fetch(&a->stray, 1, __ATOMIC_RELAXED);
    return;
  }
  c.wg = fpar_test_linear(id, a->c->groups.size);
  r = &a->groups[c.wg];
  r->calls++;
  r->dims = fpar_group_dims(g);
  r->scope = fpar_group_fence_scope(g);
  for (d = 0; d < QDIMS; d++) {
    r->id[d] = fpar_group_get_id(g, d);
    r->range[d] = fpar_group_get_range(g, d);
    r->logical[d] = fpar_group_get_logical_local_range(g, d);
    r->physical[d] = fpar_group_get_physical_local_range(g, d);
    r->physical_id[d] = fpar_group_get_physical_local_id(g, d);
  }
  r->physical_linear = fpar_group_get_physical_local_linear_range(g);
  if (a->c->flexible)
    fpar_parallel_for_work_item_range(g, a->c->logical, record_h_item, &c);
  else
    fpar_parallel_for_work_item(g, record_h_item, &c);
}

static void check_wg_record(const hier_config *c, const wg_record *r,
                            size_t wg) {
  size_t id[3], want[QDIMS];
  char where[64];

  snprintf(where, sizeof where, "work group %zu", wg);
  ck_assert_msg(r->calls == 1, "%s ran %u times", where, r->calls);
  ck_assert_uint_eq(r->dims, c->groups.dims);
  ck_assert_int_eq(r->scope, FPAR_FENCE_WORK_GROUP);
  fpar_test_id_of(wg, c->groups.size, id);
  vec4(want, id, 0);
  assert_ids_eq(r->id, want, "id", where);
  vec4(want, c->groups.size, 1);
  assert_ids_eq(r->range, want, "range", where);
  vec4(want, c->size.size, 1);
  assert_ids_eq(r->logical, want, "logical local range", where);
  assert_ids_eq(r->physical, want, "physical local range", where);
  memset(want, 0, sizeof want);
  assert_ids_eq(r->physical_id, want, "physical local id", where);
  ck_assert_uint_eq(r->physical_linear, fpar_test_volume(c->size.size));
}

/* Logical item l of work group w runs on physical item p = l mod the
 * group size.  Its global id and range are SYCL's (1.2.1, 4.8.1.7, which
 * the SYCL CTS hierarchical non_uniform_local_range test relies on): the
 * physical work-item's, w * group size + p among groups * group size,
 * whatever the logical range. */
static void check_h_record(const hier_config *c, const h_record *r, size_t wg,
                           size_t l) {
  const size_t *size = c->size.size, *logical = c->logical.size;
  size_t w[3], lid[3], phys[3], gid[3], global[3], want[QDIMS];
  char where[128];
  unsigned d;

  fpar_test_id_of(wg, c->groups.size, w);
  fpar_test_id_of(l, logical, lid);
  for (d = 0; d < 3; d++) {
    phys[d] = lid[d] % size[d];
    gid[d] = w[d] * size[d] + phys[d];
    global[d] = c->groups.size[d] * size[d];
  }
  snprintf(where, sizeof where, "work group %zu, logical item (%zu,%zu,%zu)",
           wg, lid[0], lid[1], lid[2]);
  ck_assert_msg(r->calls == 1, "%s ran %u times", where, r->calls);
  vec4(want, lid, 0);
  assert_ids_eq(r->local_id, want, "local id", where);
  assert_ids_eq(r->logical_id, want, "logical local id", where);
  vec4(want, phys, 0);
  assert_ids_eq(r->physical_id, want, "physical local id", where);
  vec4(want, logical, 1);
  assert_ids_eq(r->logical_range, want, "logical local range", where);
  vec4(want, size, 1);
  assert_ids_eq(r->physical_range, want, "physical local range", where);
  vec4(want, gid, 0);
  assert_ids_eq(r->global_id, want, "global id", where);
  vec4(want, global, 1);
  assert_ids_eq(r->global_range, want, "global range", where);
  ck_assert_msg(r->global_linear == fpar_test_linear(gid, global),
                "%s: global linear id %zu, expected %zu", where,
                r->global_linear, fpar_test_linear(gid, global));
}

/* Whatever the convention, an h_item's global id lies within the global
 * range it reports (checked first: it says more than a wrong value).
 * Records of items that never ran are left to check_h_record(). */
static void assert_global_id_within_range(const h_record *r, size_t n) {
  size_t i;
  unsigned d;

  for (i = 0; i < n; i++)
    for (d = 0; d < QDIMS && r[i].calls != 0; d++)
      ck_assert_msg(
          r[i].global_id[d] < r[i].global_range[d],
          "item record %zu: global id(%u) %zu is not below the global "
          "range %zu it reports",
          i, d, r[i].global_id[d], r[i].global_range[d]);
}

/* Launch c on e (with `launch_size` as the group size, which may be
 * FPAR_LOCAL_AUTO) and check every group and logical item. */
static void run_hier_config(fpar_test_env *e, const hier_config *c,
                            fpar_range launch_size) {
  size_t ngroups = fpar_test_volume(c->groups.size);
  size_t per_group = fpar_test_volume(c->logical.size), wg, l;
  hier_args a = {c, NULL, NULL, 0};

  a.groups = calloc(ngroups, sizeof *a.groups);
  a.items = calloc(ngroups * per_group, sizeof *a.items);
  run_hierarchical(e, c->groups, launch_size, record_hier_group, &a);
  ck_assert_uint_eq(a.stray, 0);
  assert_global_id_within_range(a.items, ngroups * per_group);
  for (wg = 0; wg < ngroups; wg++) {
    check_wg_record(c, &a.groups[wg], wg);
    for (l = 0; l < per_group; l++)
      check_h_record(c, &a.items[wg * per_group + l], wg, l);
  }
  free(a.groups);
  free(a.items);
}

START_TEST(test_work_item_once_per_physical_item) {
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  run_hier_config(&e, &plain_configs[_i], plain_configs[_i].size);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_flexible_work_item_range) {
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  run_hier_config(&e, &flexible_configs[_i], flexible_configs[_i].size);
  fpar_test_env_fini(&e);
}
END_TEST

/* FPAR_LOCAL_AUTO (or a range of zeros) makes groups of the runtime's
 * sub-group size along dimension 0. _i: 0-1 with SUBGROUP, 2 with the
 * runtime's default. */
START_TEST(test_auto_group_size_is_subgroup_size) {
  hier_config c1 = {{1, {3, 1, 1}}, {1, {0, 1, 1}}, {1, {0, 1, 1}}, 0};
  hier_config c2 = {{2, {2, 3, 1}}, {2, {0, 1, 1}}, {2, {0, 1, 1}}, 0};
  fpar_test_env e;
  size_t sg;

  fpar_test_env_init_subgroup(&e, 2, _i < 2 ? SUBGROUP : 0);
  sg = fpar_runtime_subgroup_size(e.rt);
  ck_assert_msg(sg == 4 || sg == 8 || sg == 16,
                "sub-group size %zu is not a SIMD width", sg);
  c1.size.size[0] = c1.logical.size[0] = sg;
  c2.size.size[0] = c2.logical.size[0] = sg;
  run_hier_config(&e, &c1, _i == 1 ? fpar_range1(0) : FPAR_LOCAL_AUTO);
  run_hier_config(&e, &c2, _i == 1 ? fpar_range2(0, 0) : FPAR_LOCAL_AUTO);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- private_memory: the documentation's example ----------------------- */

enum { EX_GROUPS = 8, EX_ITEMS = 8 };

typedef struct example_args {
  int out[EX_GROUPS][EX_ITEMS]; /* per group, by local linear id */
  uintptr_t addr[EX_GROUPS][EX_ITEMS];
  unsigned stray;
} example_args;

typedef struct example_ctx {
  example_args *a;
  fpar_private_memory *my_private;
  size_t group;
} example_ctx;

static size_t h_local_linear_id(const fpar_h_item *hi) {
  size_t lid[3] = {fpar_h_item_get_local_id(hi, 0),
                   fpar_h_item_get_local_id(hi, 1),
                   fpar_h_item_get_local_id(hi, 2)};
  size_t range[3] = {fpar_h_item_get_logical_local_range(hi, 0),
                     fpar_h_item_get_logical_local_range(hi, 1),
                     fpar_h_item_get_logical_local_range(hi, 2)};

  return fpar_test_linear(lid, range);
}

static void set_private_to_sum_of_ids(const fpar_h_item *my_item, void *p) {
  example_ctx *c = p;
  int *mine = fpar_private_at(c->my_private, my_item);

  *mine = (int)(fpar_h_item_get_local_id(my_item, 0) +
                fpar_h_item_get_local_id(my_item, 1) +
                fpar_h_item_get_local_id(my_item, 2));
}

static void print_private(const fpar_h_item *my_item, void *p) {
  example_ctx *c = p;
  size_t l = h_local_linear_id(my_item);
  int *mine = fpar_private_at(c->my_private, my_item);

  if (l >= EX_ITEMS) {
    __atomic_add_fetch(&c->a->stray, 1, __ATOMIC_RELAXED);
    return;
  }
  c->a->out[c->group][l] = *mine;
  c->a->addr[c->group][l] = (uintptr_t)mine;
}

static void example_group(fpar_group *my_group, void *p) {
  example_ctx c = {p, NULL, fpar_group_get_linear_id(my_group)};

  if (c.group >= EX_GROUPS) {
    __atomic_add_fetch(&c.a->stray, 1, __ATOMIC_RELAXED);
    return;
  }
  c.my_private = fpar_private_memory_create(my_group, sizeof(int));
  fpar_parallel_for_work_item(my_group, set_private_to_sum_of_ids, &c);
  fpar_parallel_for_work_item(my_group, print_private, &c);
}

/* 2x2x2 groups of 2x2x2: every group prints 0 1 1 2 1 2 2 3, from one
 * 16-aligned object per work-item. */
START_TEST(test_private_memory_example) {
  static const int expected[EX_ITEMS] = {0, 1, 1, 2, 1, 2, 2, 3};
  example_args a;
  fpar_test_env e;
  size_t g, i, j;

  memset(&a, 0, sizeof a);
  memset(a.out, 0xff, sizeof a.out);
  fpar_test_env_init(&e, 2);
  run_hierarchical(&e, fpar_range3(2, 2, 2), fpar_range3(2, 2, 2),
                   example_group, &a);
  ck_assert_uint_eq(a.stray, 0);
  for (g = 0; g < EX_GROUPS; g++)
    for (i = 0; i < EX_ITEMS; i++) {
      ck_assert_msg(a.out[g][i] == expected[i],
                    "group %zu printed %d at position %zu, expected %d", g,
                    a.out[g][i], i, expected[i]);
      ck_assert_msg(a.addr[g][i] % 16 == 0,
                    "group %zu, item %zu: %p is not 16-aligned", g, i,
                    (void *)a.addr[g][i]);
      for (j = i + 1; j < EX_ITEMS; j++)
        ck_assert_msg(a.addr[g][i] != a.addr[g][j],
                      "group %zu: work-items %zu and %zu share %p", g, i, j,
                      (void *)a.addr[g][i]);
    }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- private_memory with a flexible range ------------------------------ */

enum { SHARE_MAX_PHYSICAL = 8, SHARE_MAX_LOGICAL = 32, SHARE_MAX_GROUPS = 4 };

/* One object per physical work-item: logical items that run on the same
 * physical item share it. */
typedef struct share_config {
  fpar_range groups, size, logical;
} share_config;

static const share_config share_configs[] = {
    {{1, {3, 1, 1}}, {1, {4, 1, 1}}, {1, {10, 1, 1}}},
    {{2, {2, 2, 1}}, {2, {2, 2, 1}}, {2, {3, 5, 1}}},
};
#define NSHARE (sizeof share_configs / sizeof share_configs[0])

typedef struct share_args {
  const share_config *c;
  int count[SHARE_MAX_GROUPS][SHARE_MAX_PHYSICAL]; /* per physical item */
  uintptr_t physical_addr[SHARE_MAX_GROUPS][SHARE_MAX_PHYSICAL];
  uintptr_t logical_addr[SHARE_MAX_GROUPS][SHARE_MAX_LOGICAL];
  unsigned stray;
} share_args;

typedef struct share_ctx {
  share_args *a;
  fpar_private_memory *pm;
  size_t group;
} share_ctx;

/* The h_item's linear id in `range` by the ids `get` reports. */
static size_t h_linear(const fpar_h_item *hi, const size_t range[3],
                       size_t (*get)(const fpar_h_item *, unsigned)) {
  size_t id[3] = {get(hi, 0), get(hi, 1), get(hi, 2)};

  return fpar_test_id_in_range(id, range) ? fpar_test_linear(id, range)
                                          : SIZE_MAX;
}

static void zero_private(const fpar_h_item *hi, void *p) {
  share_ctx *c = p;

  *(int *)fpar_private_at(c->pm, hi) = 0;
}

static void count_logical_item(const fpar_h_item *hi, void *p) {
  share_ctx *c = p;
  size_t l =
      h_linear(hi, c->a->c->logical.size, fpar_h_item_get_logical_local_id);
  int *mine = fpar_private_at(c->pm, hi);

  if (l >= SHARE_MAX_LOGICAL) {
    __atomic_add_fetch(&c->a->stray, 1, __ATOMIC_RELAXED);
    return;
  }
  (*mine)++;
  c->a->logical_addr[c->group][l] = (uintptr_t)mine;
}

static void read_count(const fpar_h_item *hi, void *p) {
  share_ctx *c = p;
  size_t l =
      h_linear(hi, c->a->c->size.size, fpar_h_item_get_physical_local_id);
  int *mine = fpar_private_at(c->pm, hi);

  if (l >= SHARE_MAX_PHYSICAL) {
    __atomic_add_fetch(&c->a->stray, 1, __ATOMIC_RELAXED);
    return;
  }
  c->a->count[c->group][l] = *mine;
  c->a->physical_addr[c->group][l] = (uintptr_t)mine;
}

static void share_group(fpar_group *g, void *p) {
  share_ctx c = {p, NULL, fpar_group_get_linear_id(g)};

  if (c.group >= SHARE_MAX_GROUPS) {
    __atomic_add_fetch(&c.a->stray, 1, __ATOMIC_RELAXED);
    return;
  }
  c.pm = fpar_private_memory_create(g, sizeof(int));
  fpar_parallel_for_work_item(g, zero_private, &c);
  fpar_parallel_for_work_item_range(g, c.a->c->logical, count_logical_item, &c);
  fpar_parallel_for_work_item(g, read_count, &c);
}

/* How many logical items of `logical` have physical id p in `size`. */
static int logical_items_on(const size_t p[3], const size_t size[3],
                            const size_t logical[3]) {
  size_t n = fpar_test_volume(logical), l, id[3];
  int count = 0;

  for (l = 0; l < n; l++) {
    fpar_test_id_of(l, logical, id);
    count += id[0] % size[0] == p[0] && id[1] % size[1] == p[1] &&
             id[2] % size[2] == p[2];
  }
  return count;
}

START_TEST(test_private_memory_shared_by_logical_items) {
  const share_config *c = &share_configs[_i];
  const size_t *size = c->size.size, *logical = c->logical.size;
  size_t ngroups = fpar_test_volume(c->groups.size), g, p, l, q;
  size_t nphys = fpar_test_volume(size), nlog = fpar_test_volume(logical);
  size_t pid[3], lid[3];
  share_args a;
  fpar_test_env e;

  ck_assert(ngroups <= SHARE_MAX_GROUPS && nphys <= SHARE_MAX_PHYSICAL &&
            nlog <= SHARE_MAX_LOGICAL);
  memset(&a, 0, sizeof a);
  a.c = c;
  fpar_test_env_init(&e, 2);
  run_hierarchical(&e, c->groups, c->size, share_group, &a);
  ck_assert_uint_eq(a.stray, 0);
  for (g = 0; g < ngroups; g++) {
    for (p = 0; p < nphys; p++) {
      int want;
      fpar_test_id_of(p, size, pid);
      want = logical_items_on(pid, size, logical);
      ck_assert_msg(a.count[g][p] == want,
                    "group %zu, physical item %zu: %d logical items counted, "
                    "expected %d",
                    g, p, a.count[g][p], want);
      for (q = p + 1; q < nphys; q++)
        ck_assert_msg(a.physical_addr[g][p] != a.physical_addr[g][q],
                      "group %zu: physical items %zu and %zu share %p", g, p, q,
                      (void *)a.physical_addr[g][p]);
    }
    for (l = 0; l < nlog; l++) {
      fpar_test_id_of(l, logical, lid);
      lid[0] %= size[0];
      lid[1] %= size[1];
      lid[2] %= size[2];
      p = fpar_test_linear(lid, size);
      ck_assert_msg(a.logical_addr[g][l] == a.physical_addr[g][p],
                    "group %zu: logical item %zu used %p, physical item %zu "
                    "has %p",
                    g, l, (void *)a.logical_addr[g][l], p,
                    (void *)a.physical_addr[g][p]);
    }
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- private_memory: release ------------------------------------------- */

#define BIG_PRIVATE (4 * 1024)

static void write_big_private(const fpar_h_item *hi, void *p) {
  unsigned char *mine = fpar_private_at(p, hi);

  mine[0] = 1;
  mine[BIG_PRIVATE - 1] = 2;
}

static void big_private_group(fpar_group *g, void *p) {
  unsigned *done = p;

  fpar_parallel_for_work_item(g, write_big_private,
                              fpar_private_memory_create(g, BIG_PRIVATE));
  __atomic_add_fetch(done, 1, __ATOMIC_RELAXED);
}

/* 400 groups of 64 work-items with 4 KiB each (256 KiB per group): the
 * 1 MiB arena only holds them if a group's private memory is released
 * when its function returns. */
START_TEST(test_private_memory_released_with_group) {
  enum { GROUPS = 400 };
  unsigned done = 0;
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  ck_assert_uint_eq(fpar_runtime_local_mem_size(e.rt), 1024 * 1024);
  run_hierarchical(&e, fpar_range1(GROUPS), fpar_range1(64), big_private_group,
                   &done);
  ck_assert_uint_eq(done, GROUPS);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Faults and refusals ----------------------------------------------- */

typedef struct count_args {
  unsigned *calls; /* per global linear id */
  size_t n;
  unsigned stray;
} count_args;

static void count_h_item(const fpar_h_item *hi, void *p) {
  count_args *a = p;
  size_t at = fpar_s_item_get_global_linear_id(hi);

  if (at < a->n)
    __atomic_add_fetch(&a->calls[at], 1, __ATOMIC_RELAXED);
  else
    __atomic_add_fetch(&a->stray, 1, __ATOMIC_RELAXED);
}

static void count_items_group(fpar_group *g, void *args) {
  fpar_parallel_for_work_item(g, count_h_item, args);
}

/* A correct launch on the queue still runs every work-item once (after a
 * failed one). */
static void assert_queue_still_works(fpar_test_env *e) {
  enum { GROUPS = 4, SIZE = 8, N = GROUPS * SIZE };
  unsigned calls[N];
  count_args a = {calls, N, 0};
  size_t i;

  memset(calls, 0, sizeof calls);
  run_hierarchical(e, fpar_range1(GROUPS), fpar_range1(SIZE), count_items_group,
                   &a);
  ck_assert_uint_eq(a.stray, 0);
  for (i = 0; i < N; i++)
    ck_assert_msg(calls[i] == 1, "after a fault, work-item %zu ran %u times", i,
                  calls[i]);
}

static void ignore_h_item(const fpar_h_item *hi, void *ctx) {
  (void)hi, (void)ctx;
}

/* Inside a work-item loop over the group ctx. */
static void nested_work_item_loop(const fpar_h_item *hi, void *ctx) {
  (void)hi;
  fpar_parallel_for_work_item(ctx, ignore_h_item, NULL);
}

static void nested_flexible_loop(const fpar_h_item *hi, void *ctx) {
  (void)hi;
  fpar_parallel_for_work_item_range(ctx, fpar_range1(3), ignore_h_item, NULL);
}

static void private_memory_in_loop(const fpar_h_item *hi, void *ctx) {
  (void)hi;
  fpar_private_memory_create(ctx, sizeof(int));
}

/* The group function of a fault inside a work-item loop: args is the
 * work-item's body. */
static void work_item_loop_breaking_rule(fpar_group *g, void *args) {
  fpar_parallel_for_work_item(g, (fpar_s_item_fn)(uintptr_t)args, g);
}

static void flexible_range_of_other_dims(fpar_group *g, void *args) {
  (void)args;
  fpar_parallel_for_work_item_range(g, fpar_range2(2, 2), ignore_h_item, NULL);
}

/* A launch that must fail, and what its failure must say. */
typedef struct hier_fault {
  fpar_group_fn fn;
  void *args;
  int code;
  const char *what;
  const char *rule;
} hier_fault;

#define ITEM_FN(f) ((void *)(uintptr_t)(f))

static const hier_fault hier_faults[] = {
    {work_item_loop_breaking_rule, ITEM_FN(nested_work_item_loop), FPAR_ESCOPE,
     "fpar_parallel_for_work_item called inside fpar_parallel_for_work_item",
     "rule 2"},
    {work_item_loop_breaking_rule, ITEM_FN(nested_flexible_loop), FPAR_ESCOPE,
     "fpar_parallel_for_work_item called inside fpar_parallel_for_work_item",
     "rule 2"},
    {work_item_loop_breaking_rule, ITEM_FN(private_memory_in_loop), FPAR_ESCOPE,
     "fpar_private_memory_create called inside fpar_parallel_for_work_item",
     "rule 2"},
    {flexible_range_of_other_dims, NULL, FPAR_EDIM,
     "logical range of 2 dimensions in a 1-dimensional group", NULL},
};
#define NFAULTS (sizeof hier_faults / sizeof hier_faults[0])

START_TEST(test_fault_fails_launch) {
  const hier_fault *f = &hier_faults[_i];
  fpar_event *ev = NULL;
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  ck_assert_fpar_ok(fpar_parallel_for_work_group(
      e.q, fpar_range1(4), fpar_range1(8), f->fn, f->args, &ev));
  fpar_test_wait_fault(ev, f->code, f->what, f->rule);
  assert_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

/* A fault's message names the kernel given in fpar_launch_desc.name. */
START_TEST(test_fault_message_names_launch) {
  fpar_launch_desc d;
  fpar_event *ev = NULL;
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  fpar_launch_desc_init(&d);
  d.name = "hierarchical_rule_breaker";
  d.hierarchical = work_item_loop_breaking_rule;
  d.args = ITEM_FN(nested_work_item_loop);
  d.global = fpar_range1(4);
  d.local = fpar_range1(8);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_fault(ev, FPAR_ESCOPE, "kernel 'hierarchical_rule_breaker'",
                       "rule 2");
  assert_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

/* fpar_parallel_for_work_group() must refuse the launch with `code` and
 * leave *ev alone. */
static void assert_refused(fpar_test_env *e, fpar_range groups, fpar_range size,
                           fpar_group_fn fn, int code) {
  fpar_event *ev = (fpar_event *)&ev;

  ck_assert_fpar_err(
      fpar_parallel_for_work_group(e->q, groups, size, fn, NULL, &ev), code);
  ck_assert_msg(ev == (fpar_event *)&ev, "a refused launch wrote *ev");
}

START_TEST(test_refuses_bad_launches) {
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  assert_refused(&e, fpar_range1(4), fpar_range1(8), NULL, FPAR_ENULLKERNEL);
  assert_refused(&e, fpar_range2(4, 2), fpar_range2(8, 0), count_items_group,
                 FPAR_EEMPTY);
  assert_refused(&e, fpar_range1(0), fpar_range1(8), count_items_group,
                 FPAR_EEMPTY);
  assert_refused(&e, fpar_range1(4), fpar_range2(4, 4), count_items_group,
                 FPAR_EDIM);
  assert_refused(&e, fpar_range3(2, 2, 2), fpar_range2(4, 4), count_items_group,
                 FPAR_EDIM);
  assert_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *hierarchical_suite(void) {
  Suite *s = suite_create("hierarchical");
  TCase *tc;

  tc = fpar_test_case("work items");
  tcase_add_loop_test(tc, test_work_item_once_per_physical_item, 0, NPLAIN);
  tcase_add_loop_test(tc, test_flexible_work_item_range, 0, NFLEXIBLE);
  tcase_add_loop_test(tc, test_auto_group_size_is_subgroup_size, 0, 3);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("private memory");
  tcase_add_test(tc, test_private_memory_example);
  tcase_add_loop_test(tc, test_private_memory_shared_by_logical_items, 0,
                      NSHARE);
  tcase_add_test(tc, test_private_memory_released_with_group);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("faults");
  tcase_add_loop_test(tc, test_fault_fails_launch, 0, NFAULTS);
  tcase_add_test(tc, test_fault_message_names_launch);
  tcase_add_test(tc, test_refuses_bad_launches);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(hierarchical_suite());
}
