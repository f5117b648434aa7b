/* SPDX-License-Identifier: MIT */
/* test_rows.c - the runners of barrier-free kernels: the loop over a
 * group's rows that FPAR_KERNEL, FPAR_LANE_KERNEL, FPAR_DEFINE_ITEMS_ROW
 * and FPAR_DEFINE_LANES_ROW make, in 1, 2 and 3 dimensions, against plain
 * C.
 *
 * The loops may be vectorised across work-items, so this file is built
 * three ways: tests/test_rows with the flags pkg-config gives kernels
 * (-fopenmp-simd -DFPAR_OPENMP_SIMD: `omp simd` loops, which GCC
 * vectorises at -O2), tests/test_rows_ivdep without them but with the
 * vectoriser's cost model of -O3 (`GCC ivdep` loops, vectorised), and
 * tests/test_rows_plain with neither (ordinary loops).  Kernels that
 * vectorise (pure stores), that cannot (atomics, group-local memory,
 * calls) and whose item stays in memory (indexed by a variable) must all
 * compute what plain C computes.  Runners of version 0.1 of the header
 * (one row per call), which programs built against it still pass, must
 * keep working. */
#include <fiberpar/simd.h>
#include <stdatomic.h>
#include <stdint.h>

#include "examples/rows_kernels.h"
#include "testutil.h"

/* ---- Launch shapes and what each work-item must see --------------------- */

/* A launch: global range, enqueued local range (all 0: FPAR_LOCAL_AUTO),
 * offset; 1 and 0 in unused dimensions. */
typedef struct shape {
  unsigned dims;
  size_t global[3], local[3], offset[3];
} shape;

static const shape shapes[] = {
    {1, {1000, 1, 1}, {64, 1, 1}, {5, 0, 0}}, /* smaller last group */
    {1, {4096, 1, 1}, {0, 0, 0}, {0, 0, 0}},  /* runtime's choice */
    {2, {37, 5, 1}, {16, 2, 1}, {1, 2, 0}},   /* both dims uneven */
    {2, {300, 17, 1}, {0, 0, 0}, {0, 0, 0}},  /* runtime's choice */
    {3, {13, 7, 5}, {4, 3, 2}, {3, 2, 1}},    /* all uneven */
    {3, {33, 9, 6}, {0, 0, 0}, {0, 0, 0}},    /* runtime's choice */
    {3, {64, 4, 3}, {64, 2, 3}, {0, 0, 0}},   /* whole rows */
};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

static fpar_range range_of(unsigned dims, const size_t r[3]) {
  fpar_range x = {dims, {r[0], r[1], r[2]}};
  return x;
}

/* A description of shape s for kernel k (smaller last groups allowed). */
static void shape_desc(const shape *s, const fpar_kernel *k, void *args,
                       fpar_launch_desc *d) {
  fpar_launch_desc_init(d);
  d->def = k;
  d->args = args;
  d->global = range_of(s->dims, s->global);
  d->local = range_of(s->dims, s->local);
  memcpy(d->global_offset, s->offset, sizeof d->global_offset);
  d->subgroup_size = 4;
}

static size_t ceil_div(size_t a, size_t b) {
  return a / b + (a % b != 0);
}

/* Where work-item idx (global linear id) of shape s with enqueued local
 * range `local` stands: group, local id, and its group's local range. */
typedef struct place {
  size_t rel[3], grp[3], lid[3], lr[3], groups[3];
} place;

static void place_of(const shape *s, const size_t local[3], size_t idx,
                     place *p) {
  fpar_test_id_of(idx, s->global, p->rel);
  for (unsigned d = 0; d < 3; d++) {
    p->grp[d] = p->rel[d] / local[d];
    p->lid[d] = p->rel[d] % local[d];
    p->lr[d] = s->global[d] - p->grp[d] * local[d];
    if (p->lr[d] > local[d])
      p->lr[d] = local[d];
    p->groups[d] = ceil_div(s->global[d], local[d]);
  }
}

/* ---- Ids, as a kernel the compiler can vectorise --------------------------
 */

/* What every work-item saw, one array per query and dimension, indexed by
 * global linear id: plain stores that do not depend on other work-items.
 * nd_range kernels record their global, local and group ids and local
 * range (q[GID] .. q[LR]), logical items of scoped and hierarchical groups
 * their global, innermost local, work-group local and physical ids
 * (q[S_GLOBAL] .. q[S_PHYSICAL]). */
enum { GID, LID, GRP, LR };
enum { S_GLOBAL, S_LOCAL, S_GROUP_LOCAL, S_PHYSICAL };
typedef struct ids {
  size_t n;
  uint32_t *q[4][3], *llin, *glin, *visits;
} ids;

static uint32_t *ids_column(size_t n) {
  uint32_t *c = calloc(n, sizeof *c);

  ck_assert_ptr_nonnull(c);
  return c;
}

static ids ids_alloc(size_t n) {
  ids r;

  r.n = n;
  for (unsigned k = 0; k < 4; k++)
    for (unsigned d = 0; d < 3; d++)
      r.q[k][d] = ids_column(n);
  r.llin = ids_column(n);
  r.glin = ids_column(n);
  r.visits = ids_column(n);
  return r;
}

static void ids_free(ids *r) {
  for (unsigned k = 0; k < 4; k++)
    for (unsigned d = 0; d < 3; d++)
      free(r->q[k][d]);
  free(r->llin), free(r->glin), free(r->visits);
}

/* The queries of dimension d, written out for each d (a loop over d would
 * index the item by a variable). */
#define IDS_RECORD(r, it, i, d)                                                \
  do {                                                                         \
    (r)->q[GID][d][i] = (uint32_t)fpar_global_id(it, d);                       \
    (r)->q[LID][d][i] = (uint32_t)fpar_local_id(it, d);                        \
    (r)->q[GRP][d][i] = (uint32_t)fpar_group_id(it, d);                        \
    (r)->q[LR][d][i] = (uint32_t)fpar_local_range(it, d);                      \
  } while (0)

static inline void ids_record(fpar_item *it, void *args) {
  const ids *r = args;
  size_t i = fpar_global_linear_id(it);

  IDS_RECORD(r, it, i, 0);
  IDS_RECORD(r, it, i, 1);
  IDS_RECORD(r, it, i, 2);
  r->llin[i] = (uint32_t)fpar_local_linear_id(it);
  r->glin[i] = (uint32_t)fpar_group_linear_id(it);
  r->visits[i] += 1;
}

FPAR_KERNEL(ids_kernel, it, args) {
  ids_record(it, args);
}

/* The same through the item indexed by a variable dimension: the item then
 * stays in memory, and the loop over a row must still compute each
 * work-item's own ids. */
FPAR_KERNEL(ids_indexed_kernel, it, args) {
  const ids *r = args;
  size_t i = fpar_global_linear_id(it);
  unsigned dims = fpar_work_dim(it);

  for (unsigned d = 0; d < dims && d < 3; d++) {
    r->q[GID][d][i] = (uint32_t)fpar_global_id(it, d);
    r->q[LID][d][i] = (uint32_t)fpar_local_id(it, d);
    r->q[GRP][d][i] = (uint32_t)fpar_group_id(it, d);
    r->q[LR][d][i] = (uint32_t)fpar_local_range(it, d);
  }
  for (unsigned d = dims; d < 3; d++) {
    r->q[GID][d][i] = r->q[LID][d][i] = r->q[GRP][d][i] = 0;
    r->q[LR][d][i] = 1;
  }
  r->llin[i] = (uint32_t)fpar_local_linear_id(it);
  r->glin[i] = (uint32_t)fpar_group_linear_id(it);
  r->visits[i] += 1;
}

/* The enqueued local range of a launch of s: its own, or the runtime's
 * choice as work-item 0 saw it (which must divide the global range). */
static void chosen_local(const shape *s, const ids *r, size_t local[3]) {
  for (unsigned d = 0; d < 3; d++) {
    local[d] = s->local[0] != 0 ? s->local[d] : r->q[LR][d][0];
    ck_assert_uint_ge(local[d], 1);
    if (s->local[0] == 0)
      ck_assert_uint_eq(s->global[d] % local[d], 0);
  }
}

static void ids_verify(const shape *s, const ids *r, const char *what) {
  size_t local[3];

  chosen_local(s, r, local);
  for (size_t idx = 0; idx < r->n; idx++) {
    place p;
    int bad = r->visits[idx] != 1;

    place_of(s, local, idx, &p);
    for (unsigned d = 0; d < 3; d++) {
      bad |= r->q[GID][d][idx] != s->offset[d] + p.rel[d];
      bad |= r->q[LID][d][idx] != p.lid[d] || r->q[GRP][d][idx] != p.grp[d];
      bad |= r->q[LR][d][idx] != p.lr[d];
    }
    bad |= r->llin[idx] != fpar_test_linear(p.lid, p.lr);
    bad |= r->glin[idx] != fpar_test_linear(p.grp, p.groups);
    if (bad)
      ck_abort_msg("%s: global (%zu,%zu,%zu) local (%zu,%zu,%zu): work-item "
                   "%zu saw global id (%u,%u,%u), local id (%u,%u,%u), "
                   "group (%u,%u,%u), local linear %u, visits %u",
                   what, s->global[0], s->global[1], s->global[2], local[0],
                   local[1], local[2], idx, r->q[GID][0][idx],
                   r->q[GID][1][idx], r->q[GID][2][idx], r->q[LID][0][idx],
                   r->q[LID][1][idx], r->q[LID][2][idx], r->q[GRP][0][idx],
                   r->q[GRP][1][idx], r->q[GRP][2][idx], r->llin[idx],
                   r->visits[idx]);
  }
}

/* Launch k over shape s and check every work-item's ids; with `row`, as
 * k's function and that runner of version 0.1 instead of k's own runner. */
static void run_ids(fpar_queue *q, const shape *s, const fpar_kernel *k,
                    fpar_row_fn row) {
  ids r = ids_alloc(fpar_test_volume(s->global));
  fpar_launch_desc d;
  fpar_event *ev;

  shape_desc(s, k, &r, &d);
  if (k->lanes > 1)
    d.subgroup_size = 0; /* the lanes */
  if (row != NULL) {
    d.def = NULL;
    d.kernel = k->fn;
    d.row = row;
  }
  ck_assert_fpar_ok(fpar_launch(q, &d, &ev));
  fpar_test_wait_ok(ev);
  ids_verify(s, &r, row != NULL ? "version 0.1 runner" : k->name);
  ids_free(&r);
}

/* FPAR_LOCAL_AUTO gives a kernel with a runner whole rows along
 * dimension 0 when the range has two rows per worker, and no rows shorter
 * than 16 work-items where a divisor allows longer ones. */
START_TEST(test_auto_local_rows) {
  static const struct {
    shape s;
    size_t want[3];
  } cases[] = {
      {{1, {1009, 1, 1}, {0, 0, 0}, {0, 0, 0}}, {1009, 1, 1}}, /* prime */
      {{2, {130, 7, 1}, {0, 0, 0}, {0, 0, 0}}, {130, 1, 1}},   /* few rows */
      {{2, {512, 512, 1}, {0, 0, 0}, {0, 0, 0}}, {512, 8, 1}},
      {{3, {64, 64, 64}, {0, 0, 0}, {0, 0, 0}}, {64, 64, 1}},
      {{2, {8192, 4, 1}, {0, 0, 0}, {0, 0, 0}}, {4096, 1, 1}}, /* > limit */
  };
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const shape *s = &cases[k].s;
    ids r = ids_alloc(fpar_test_volume(s->global));
    fpar_launch_desc d;
    fpar_event *ev;

    shape_desc(s, &ids_kernel, &r, &d);
    ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
    fpar_test_wait_ok(ev);
    for (unsigned dim = 0; dim < 3; dim++)
      ck_assert_msg(r.q[LR][dim][0] == cases[k].want[dim],
                    "global (%zu,%zu,%zu): local range %u in dimension %u, "
                    "expected %zu",
                    s->global[0], s->global[1], s->global[2], r.q[LR][dim][0],
                    dim, cases[k].want[dim]);
    ids_verify(s, &r, "FPAR_LOCAL_AUTO");
    ids_free(&r);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Sub-group queries ------------------------------------------------------
 */

typedef struct sg_seen {
  uint32_t *id, *local_id, *size, *count;
} sg_seen;

FPAR_KERNEL(sg_kernel, it, args) {
  const sg_seen *r = args;
  size_t i = fpar_global_linear_id(it);

  r->id[i] = (uint32_t)fpar_sub_group_id(it);
  r->local_id[i] = (uint32_t)fpar_sub_group_local_id(it);
  r->size[i] = (uint32_t)fpar_sub_group_size(it);
  r->count[i] = (uint32_t)fpar_num_sub_groups(it);
}

/* Sub-groups of 4 along dimension 0 of each group's rows, the last of a
 * row smaller (OpenCL's rule), in every shape with a given local range. */
START_TEST(test_sub_group_queries) {
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  for (size_t k = 0; k < NUM_SHAPES; k++) {
    const shape *s = &shapes[k];
    size_t n = fpar_test_volume(s->global);
    sg_seen r;
    fpar_launch_desc d;
    fpar_event *ev;

    if (s->local[0] == 0)
      continue; /* the runtime's choice (sizes unknown here) */
    r = (sg_seen){ids_column(n), ids_column(n), ids_column(n), ids_column(n)};
    shape_desc(s, &sg_kernel, &r, &d);
    ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
    fpar_test_wait_ok(ev);
    for (size_t idx = 0; idx < n; idx++) {
      place p;
      size_t per_row, sl;

      place_of(s, s->local, idx, &p);
      per_row = ceil_div(p.lr[0], 4);
      sl = p.lid[0] % 4;
      ck_assert_uint_eq(r.local_id[idx], sl);
      ck_assert_uint_eq(r.id[idx], (p.lid[1] + p.lr[1] * p.lid[2]) * per_row +
                                       p.lid[0] / 4);
      ck_assert_uint_eq(r.size[idx], p.lr[0] - (p.lid[0] - sl) < 4
                                         ? p.lr[0] - (p.lid[0] - sl)
                                         : 4);
      ck_assert_uint_eq(r.count[idx], per_row * p.lr[1] * p.lr[2]);
    }
    free(r.id), free(r.local_id), free(r.size), free(r.count);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Atomics and group-local memory inside the loop ------------------------
 */

typedef struct tickets {
  uint32_t *ticket;          /* the group counter's value each item got */
  uintptr_t *first, *second; /* its group-local objects 0 and 1 */
  atomic_size_t total;
} tickets;

/* Each work-item takes a ticket from a group-local counter (object 0) and
 * asks for a second object of another size: the k-th request of each
 * work-item is object k, counted per work-item. */
FPAR_KERNEL(tickets_kernel, it, args) {
  tickets *a = args;
  atomic_uint *counter = fpar_group_local_memory(it, sizeof *counter, 0);
  double *second = fpar_group_local_memory(it, 3 * sizeof(double), 8);
  size_t i = fpar_global_linear_id(it);

  a->ticket[i] = atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
  a->first[i] = (uintptr_t)counter;
  a->second[i] = (uintptr_t)second;
  atomic_fetch_add_explicit(&a->total, 1, memory_order_relaxed);
}

/* Within each group the tickets are 0 .. size - 1, each once, and every
 * work-item got its group's two objects (the runtime's choice of local
 * range is replaced by whole rows, so that plain C knows the groups). */
START_TEST(test_atomics_and_local_memory) {
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  for (size_t k = 0; k < NUM_SHAPES; k++) {
    shape s = shapes[k];
    size_t n = fpar_test_volume(s.global), groups, group_size;
    unsigned char *taken;
    uintptr_t *objects;
    tickets a;
    fpar_launch_desc d;
    fpar_event *ev;

    if (s.local[0] == 0) {
      s.local[0] = s.global[0];
      s.local[1] = s.local[2] = 1;
    }
    groups = ceil_div(s.global[0], s.local[0]) *
             ceil_div(s.global[1], s.local[1]) *
             ceil_div(s.global[2], s.local[2]);
    group_size = fpar_test_volume(s.local);
    taken = calloc(groups * group_size, 1);
    objects = calloc(2 * groups, sizeof *objects);
    a.ticket = calloc(n, sizeof *a.ticket);
    a.first = calloc(n, sizeof *a.first);
    a.second = calloc(n, sizeof *a.second);
    ck_assert(taken && objects && a.ticket && a.first && a.second);
    atomic_init(&a.total, 0);
    shape_desc(&s, &tickets_kernel, &a, &d);
    ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
    fpar_test_wait_ok(ev);
    ck_assert_uint_eq(atomic_load(&a.total), n);
    for (size_t idx = 0; idx < n; idx++) {
      place p;
      size_t g;

      place_of(&s, s.local, idx, &p);
      g = fpar_test_linear(p.grp, p.groups);
      ck_assert_uint_lt(a.ticket[idx], fpar_test_volume(p.lr));
      ck_assert_msg(!taken[g * group_size + a.ticket[idx]],
                    "ticket %u taken twice in group %zu", a.ticket[idx], g);
      taken[g * group_size + a.ticket[idx]] = 1;
      if (objects[2 * g] == 0) {
        objects[2 * g] = a.first[idx];
        objects[2 * g + 1] = a.second[idx];
      }
      ck_assert_msg(a.first[idx] == objects[2 * g] &&
                        a.second[idx] == objects[2 * g + 1] &&
                        a.first[idx] != a.second[idx],
                    "work-item %zu got other group-local objects than its "
                    "group %zu",
                    idx, g);
    }
    free(taken), free(objects);
    free(a.ticket), free(a.first), free(a.second);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Groups that reach a barrier, and faults inside the loop --------------
 */

typedef struct flip_args {
  const float *in;
  float *out;
} flip_args;

/* Odd groups reverse their work-items' values through local memory, with
 * a barrier (they run on fibers); even groups double them without one
 * (the runner runs them). */
FPAR_KERNEL(flip_kernel, it, args) {
  const flip_args *a = args;
  size_t i = fpar_global_linear_id(it), l = fpar_local_linear_id(it);
  size_t n = fpar_local_range(it, 0) * fpar_local_range(it, 1);

  if (fpar_group_linear_id(it) % 2 == 0) {
    a->out[i] = 2.0f * a->in[i];
    return;
  }
  float *lm = fpar_group_local_memory_for_overwrite(it, n * sizeof *lm, 0);
  lm[l] = a->in[i];
  fpar_barrier(it);
  a->out[i] = lm[n - 1 - l];
}

START_TEST(test_barrier_groups_beside_runner_groups) {
  const size_t gx = 48, gy = 12, lx = 16, ly = 3, n = gx * gy;
  float *in = malloc(n * sizeof *in), *out = calloc(n, sizeof *out);
  flip_args a = {in, out};
  fpar_test_env e;
  fpar_event *ev;

  for (size_t i = 0; i < n; i++)
    in[i] = (float)i;
  fpar_test_env_init(&e, 2);
  ck_assert_fpar_ok(fpar_parallel_for_kernel(
      e.q, fpar_range2(gx, gy), fpar_range2(lx, ly), &flip_kernel, &a, &ev));
  fpar_test_wait_ok(ev);
  for (size_t y = 0; y < gy; y++)
    for (size_t x = 0; x < gx; x++) {
      size_t g = x / lx + gx / lx * (y / ly), l = x % lx + lx * (y % ly);
      size_t mirror = lx * ly - 1 - l;
      size_t src =
          (x / lx) * lx + mirror % lx + gx * ((y / ly) * ly + mirror / lx);
      float want = g % 2 == 0 ? 2.0f * in[x + gx * y] : in[src];
      ck_assert_msg(out[x + gx * y] == want, "(%zu,%zu): %g, expected %g", x, y,
                    out[x + gx * y], want);
    }
  fpar_test_env_fini(&e);
  free(in), free(out);
}
END_TEST

/* Work-item 11 of each group reaches a barrier that work-items 0..10
 * returned without: the runner runs it, and the launch fails naming it. */
FPAR_KERNEL(late_barrier_kernel, it, args) {
  (void)args;
  if (fpar_local_linear_id(it) == 11)
    fpar_barrier(it);
}

/* Work-item 9 asks for a launch-time local buffer the launch does not
 * have. */
FPAR_KERNEL(bad_buffer_kernel, it, args) {
  (void)args;
  if (fpar_local_linear_id(it) == 9)
    (void)fpar_local_buffer(it, 3);
}

START_TEST(test_faults_in_runner_name_the_work_item) {
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 2);
  ck_assert_fpar_ok(fpar_parallel_for_kernel(e.q, fpar_range2(16, 8),
                                             fpar_range2(8, 4),
                                             &late_barrier_kernel, NULL, &ev));
  /* Under racecheck (TSan) the group is fibers from its start, which see
   * the divergence from the barrier's side. */
  fpar_test_wait_fault(ev, FPAR_EDIVERGENCE,
                       FPAR_TEST_TSAN ? "work-item 11 waits at the barrier"
                                      : "work-item 11 reached",
                       "late_barrier_kernel");
  ck_assert_fpar_ok(fpar_parallel_for_kernel(e.q, fpar_range3(8, 2, 2),
                                             fpar_range3(4, 2, 2),
                                             &bad_buffer_kernel, NULL, &ev));
  fpar_test_wait_fault(ev, FPAR_ELOCALBUF,
                       "work-item 9 asked for local buffer 3", NULL);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Lane kernels
 * ------------------------------------------------------------ */

/* Every active lane records its ids (dimension 0 from the lane vectors,
 * the others from lane 0's item) and counts its visit. */
FPAR_LANE_KERNEL(ids_lanes, lk, args) {
  const ids *r = args;
  int32_t gid[FPAR_SIMD_WIDTH], lid[FPAR_SIMD_WIDTH];
  fpar_item *it = lk->it;
  size_t base = fpar_global_linear_id(it);

  fpar_vi32_store(gid, lk->global_id0);
  fpar_vi32_store(lid, lk->local_id0);
  for (unsigned k = 0; k < lk->active; k++) {
    size_t i = base + k;
    r->q[GID][0][i] = (uint32_t)gid[k];
    r->q[LID][0][i] = (uint32_t)lid[k];
    r->q[GRP][0][i] = (uint32_t)fpar_group_id(it, 0);
    r->q[LR][0][i] = (uint32_t)fpar_local_range(it, 0);
    IDS_RECORD(r, it, i, 1);
    IDS_RECORD(r, it, i, 2);
    r->llin[i] = (uint32_t)fpar_local_linear_id(it) + k;
    r->glin[i] = (uint32_t)fpar_group_linear_id(it);
    r->visits[i] += 1;
  }
}

/* ---- Runners of version 0.1: one row per call ------------------------------
 */

/* The row runner FPAR_DEFINE_ROW made in version 0.1, as programs built
 * against that header have it: it runs one row, shares one item among the
 * row's work-items, and leaves the runtime's item as it was. */
static void ids_row_v01(fpar_item *fpar_it_, void *fpar_args_,
                        size_t fpar_x_end_) {
  fpar_item fpar_row_ = *fpar_it_;
  size_t fpar_x_;

  for (fpar_x_ = fpar_local_id(fpar_it_, 0); fpar_x_ < fpar_x_end_; fpar_x_++) {
    fpar_item_seek(&fpar_row_, fpar_x_, 1, 0);
    ids_record(&fpar_row_, fpar_args_);
  }
}

/* Every shape in every form (the vectorisable kernel, the one whose item
 * stays in memory, the lane kernel, a runner of version 0.1), with 1
 * worker and with 2 (loop index: workers - 1). */
START_TEST(test_ids) {
  fpar_test_env e;

  fpar_test_env_init(&e, (unsigned)_i + 1);
  for (size_t i = 0; i < NUM_SHAPES; i++) {
    run_ids(e.q, &shapes[i], &ids_kernel, NULL);
    run_ids(e.q, &shapes[i], &ids_indexed_kernel, NULL);
    run_ids(e.q, &shapes[i], &ids_lanes, NULL);
    run_ids(e.q, &shapes[i], &ids_kernel, ids_row_v01);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Scoped and hierarchical item loops -------------------------------------
 */

#define S_IDS_RECORD(r, si, i, d)                                              \
  do {                                                                         \
    (r)->q[S_GLOBAL][d][i] = (uint32_t)fpar_s_item_get_global_id(si, d);       \
    (r)->q[S_LOCAL][d][i] =                                                    \
        (uint32_t)fpar_s_item_get_innermost_local_id(si, d);                   \
    (r)->q[S_GROUP_LOCAL][d][i] = (uint32_t)(si)->group_local_id[d];           \
    (r)->q[S_PHYSICAL][d][i] =                                                 \
        (uint32_t)fpar_h_item_get_physical_local_id(si, d);                    \
  } while (0)

static inline void s_ids_item(const fpar_s_item *si, void *ctx) {
  const ids *r = ctx;
  size_t i = fpar_s_item_get_global_linear_id(si);

  S_IDS_RECORD(r, si, i, 0);
  S_IDS_RECORD(r, si, i, 1);
  S_IDS_RECORD(r, si, i, 2);
  r->visits[i] += 1;
}
FPAR_DEFINE_ITEMS_ROW(s_ids_row, s_ids_item)

/* A scoped work group's items, and again through the sub-groups
 * fpar_distribute_groups() makes (whose items' local ids count from
 * their sub-group's first). */
static void s_ids_sub(fpar_group *g, void *ctx) {
  fpar_distribute_items_rows(g, s_ids_row, ctx);
}

static void s_ids_group(fpar_group *g, void *ctx) {
  fpar_distribute_items_rows(g, s_ids_row, ctx);
  fpar_group_barrier(g);
  fpar_distribute_groups(g, s_ids_sub, ctx);
}

/* Check every item of a launch of `groups` groups of `size` items: seen
 * `visits` times, global ids in plain C; local ids within the group, or
 * (sub != 0) within sub-groups of `sub` items along dimension 0; physical
 * ids the local ids when `physical`, else 0. */
static void s_ids_verify(const ids *r, const size_t groups[3],
                         const size_t size[3], size_t sub, int physical,
                         unsigned visits) {
  size_t global[3] = {groups[0] * size[0], groups[1] * size[1],
                      groups[2] * size[2]};

  for (size_t idx = 0; idx < r->n; idx++) {
    size_t id[3];
    int bad = r->visits[idx] != visits;

    fpar_test_id_of(idx, global, id);
    for (unsigned d = 0; d < 3; d++) {
      size_t gl = id[d] % size[d];
      size_t lo = sub == 0 ? gl : d == 0 ? gl % sub : 0;

      bad |=
          r->q[S_GLOBAL][d][idx] != id[d] || r->q[S_GROUP_LOCAL][d][idx] != gl;
      bad |= r->q[S_LOCAL][d][idx] != lo;
      bad |= r->q[S_PHYSICAL][d][idx] != (physical ? gl : 0);
    }
    if (bad)
      ck_abort_msg("item %zu (global %zu,%zu,%zu): saw global (%u,%u,%u) "
                   "local (%u,%u,%u) physical (%u,%u,%u), visits %u",
                   idx, id[0], id[1], id[2], r->q[S_GLOBAL][0][idx],
                   r->q[S_GLOBAL][1][idx], r->q[S_GLOBAL][2][idx],
                   r->q[S_LOCAL][0][idx], r->q[S_LOCAL][1][idx],
                   r->q[S_LOCAL][2][idx], r->q[S_PHYSICAL][0][idx],
                   r->q[S_PHYSICAL][1][idx], r->q[S_PHYSICAL][2][idx],
                   r->visits[idx]);
  }
}

/* Shapes of scoped and hierarchical launches: `groups` groups of `size`
 * items (the last two with rows W does not divide). */
typedef struct s_shape {
  unsigned dims;
  size_t groups[3], size[3];
} s_shape;

static const s_shape s_shapes[] = {
    {1, {3, 1, 1}, {40, 1, 1}}, {2, {2, 3, 1}, {16, 5, 1}},
    {3, {2, 2, 2}, {8, 3, 4}},  {2, {2, 3, 1}, {19, 5, 1}},
    {3, {2, 2, 2}, {13, 3, 4}},
};
#define NUM_S_SHAPES (sizeof s_shapes / sizeof s_shapes[0])

/* fpar_parallel() or fpar_parallel_for_work_group(). */
typedef int (*s_launch_fn)(fpar_queue *q, fpar_range num_groups,
                           fpar_range group_size, fpar_group_fn fn, void *args,
                           fpar_event **ev);

/* Launch fn over shape s with args, which fill *r, and check *r (see
 * s_ids_verify()). */
static void s_run(fpar_queue *q, const s_shape *s, s_launch_fn launch,
                  fpar_group_fn fn, void *args, ids *r, size_t sub,
                  int physical, unsigned visits) {
  fpar_event *ev;

  *r = ids_alloc(fpar_test_volume(s->groups) * fpar_test_volume(s->size));
  ck_assert_fpar_ok(launch(q, range_of(s->dims, s->groups),
                           range_of(s->dims, s->size), fn, args, &ev));
  fpar_test_wait_ok(ev);
  s_ids_verify(r, s->groups, s->size, sub, physical, visits);
  ids_free(r);
}

START_TEST(test_scoped_rows) {
  fpar_test_env e;
  ids r;

  fpar_test_env_init_subgroup(&e, 2, 8);
  /* Each item runs twice, last in a sub-group of 8 along dimension 0. */
  for (unsigned k = 0; k < 3; k++)
    s_run(e.q, &s_shapes[k], fpar_parallel, s_ids_group, &r, &r, 8, 0, 2);
  fpar_test_env_fini(&e);
}
END_TEST

/* Hierarchical groups: physical ids follow local ids along every
 * dimension, and private memory keeps one object per physical work-item
 * from one parallel_for_work_item to the next. */
typedef struct h_args {
  ids *r;
  fpar_private_memory *pm;
  atomic_uint bad;
} h_args;

static inline void h_store(const fpar_s_item *hi, void *ctx) {
  h_args *a = ctx;
  uint32_t *slot = fpar_private_at(a->pm, hi);

  *slot = (uint32_t)fpar_s_item_get_global_linear_id(hi);
  s_ids_item(hi, a->r);
}
FPAR_DEFINE_ITEMS_ROW(h_store_row, h_store)

static inline void h_check(const fpar_s_item *hi, void *ctx) {
  h_args *a = ctx;
  const uint32_t *slot = fpar_private_at(a->pm, hi);

  if (*slot != (uint32_t)fpar_s_item_get_global_linear_id(hi))
    atomic_fetch_add(&a->bad, 1);
}
FPAR_DEFINE_ITEMS_ROW(h_check_row, h_check)

static void h_group(fpar_group *g, void *args) {
  h_args a = {((h_args *)args)->r, fpar_private_memory_create(g, 4), 0};

  fpar_parallel_for_work_item_rows(g, h_store_row, &a);
  fpar_parallel_for_work_item_rows(g, h_check_row, &a);
  atomic_fetch_add(&((h_args *)args)->bad, atomic_load(&a.bad));
}

START_TEST(test_hierarchical_rows_physical_ids) {
  fpar_test_env e;
  ids r;

  fpar_test_env_init(&e, 2);
  for (unsigned k = 0; k < NUM_S_SHAPES; k++) {
    h_args a = {&r, NULL, 0};

    s_run(e.q, &s_shapes[k], fpar_parallel_for_work_group, h_group, &a, &r, 0,
          1, 1);
    ck_assert_uint_eq(atomic_load(&a.bad), 0);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* FPAR_DEFINE_LANES_ROW over 2-D and 3-D scoped groups: every item once,
 * in blocks of W along dimension 0, the last of each row masked. */
static inline void lanes_block(const fpar_lane_block *b, void *ctx) {
  const ids *r = ctx;
  int32_t gid[FPAR_SIMD_WIDTH];
  uint32_t on = (uint32_t)fpar_vmask_count(b->mask);

  fpar_vi32_store(gid, b->global_id0);
  for (uint32_t k = 0; k < on; k++) {
    fpar_s_item si = *b->si;
    size_t i;

    si.local_id[0] = b->first + k;
    si.group_local_id[0] = b->si->group_local_id[0] + b->first + k;
    si.global_id[0] = (size_t)gid[k];
    ck_assert_uint_eq((size_t)gid[k], b->global_first + k);
    i = fpar_s_item_get_global_linear_id(&si);
    S_IDS_RECORD(r, &si, i, 0);
    S_IDS_RECORD(r, &si, i, 1);
    S_IDS_RECORD(r, &si, i, 2);
    r->visits[i] += 1;
  }
}
FPAR_DEFINE_LANES_ROW(lanes_block_row, lanes_block)

static void lanes_group(fpar_group *g, void *ctx) {
  fpar_distribute_items_rows(g, lanes_block_row, ctx);
}

START_TEST(test_scoped_lanes_rows) {
  fpar_test_env e;
  ids r;

  fpar_test_env_init(&e, 2);
  for (unsigned k = 0; k < NUM_S_SHAPES; k++)
    s_run(e.q, &s_shapes[k], fpar_parallel, lanes_group, &r, &r, 0, 0, 1);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Results of vectorised loops, bit for bit ------------------------------
 */

/* The bodies of examples/rows_bench (examples/rows_kernels.h): two grids
 * of floats whose interior is the range, or a 1-D output. */
FPAR_KERNEL(lcg8_kernel, it, args) {
  rb_lcg8(args, fpar_global_id(it, 0));
}

FPAR_KERNEL(rec64_kernel, it, args) {
  rb_rec64(args, fpar_global_id(it, 0));
}

FPAR_KERNEL(jacobi_kernel, it, args) {
  rb_jacobi(args, fpar_global_id(it, 0), fpar_global_id(it, 1));
}

FPAR_KERNEL(st7_kernel, it, args) {
  rb_st7(args, fpar_global_id(it, 0), fpar_global_id(it, 1),
         fpar_global_id(it, 2));
}

/* The same in plain C. */
static void grid_reference(unsigned c, const rb_args *a, const size_t n[3]) {
  for (size_t z = 0; z < n[2]; z++)
    for (size_t y = 0; y < n[1]; y++)
      for (size_t x = 0; x < n[0]; x++) {
        if (c == 0)
          rb_lcg8(a, x);
        else if (c == 1)
          rb_rec64(a, x);
        else if (c == 2)
          rb_jacobi(a, x, y);
        else
          rb_st7(a, x, y, z);
      }
}

/* Each body over an odd-sized range, in groups the runtime chooses and in
 * groups with a smaller last one, with 1 and 2 workers: every output bit
 * as in plain C. */
START_TEST(test_vectorised_results) {
  static const fpar_kernel *const kernels[] = {&lcg8_kernel, &rec64_kernel,
                                               &jacobi_kernel, &st7_kernel};
  static const unsigned dims[] = {1, 1, 2, 3};
  static const size_t sizes[][3] = {
      {10007, 1, 1}, {3001, 1, 1}, {203, 37, 1}, {45, 17, 11}};
  static const size_t locals[][3] = {
      {100, 1, 1}, {64, 1, 1}, {64, 5, 1}, {16, 4, 3}};
  fpar_test_env e;

  fpar_test_env_init(&e, (unsigned)_i + 1);
  for (unsigned c = 0; c < 4; c++) {
    size_t cells = (sizes[c][0] + 2) * (sizes[c][1] + 2) * (sizes[c][2] + 2);
    float *in = malloc(cells * 4), *out = calloc(cells, 4),
          *want = calloc(cells, 4);
    uint32_t *u = calloc(cells, 4), *uwant = calloc(cells, 4);
    rb_args a = {in, want, uwant, sizes[c][0] + 2,
                 (sizes[c][0] + 2) * (sizes[c][1] + 2)};

    ck_assert(in && out && want && u && uwant);
    for (size_t i = 0; i < cells; i++)
      in[i] = (float)(i * 7919 % 1000) * 0.001f;
    grid_reference(c, &a, sizes[c]);
    a.out = out;
    a.u = u;
    for (int uneven = 0; uneven < 2; uneven++) {
      fpar_launch_desc d;
      fpar_event *ev;

      memset(out, 0, cells * 4);
      memset(u, 0, cells * 4);
      fpar_launch_desc_init(&d);
      d.def = kernels[c];
      d.args = &a;
      d.global = range_of(dims[c], sizes[c]);
      if (uneven)
        d.local = range_of(dims[c], locals[c]);
      ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
      fpar_test_wait_ok(ev);
      ck_assert_msg(memcmp(out, want, cells * 4) == 0 &&
                        memcmp(u, uwant, cells * 4) == 0,
                    "%s (%s groups) differs from plain C", kernels[c]->name,
                    uneven ? "uneven" : "the runtime's");
    }
    free(in), free(out), free(want), free(u), free(uwant);
  }
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *rows_suite(void) {
  Suite *s = suite_create("rows");
  TCase *tc;

  tc = fpar_test_case("nd_range");
  tcase_add_loop_test(tc, test_ids, 0, 2);
  tcase_add_test(tc, test_auto_local_rows);
  tcase_add_test(tc, test_sub_group_queries);
  tcase_add_test(tc, test_atomics_and_local_memory);
  tcase_add_test(tc, test_barrier_groups_beside_runner_groups);
  tcase_add_test(tc, test_faults_in_runner_name_the_work_item);
  tcase_add_loop_test(tc, test_vectorised_results, 0, 2);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("scoped");
  tcase_add_test(tc, test_scoped_rows);
  tcase_add_test(tc, test_hierarchical_rows_physical_ids);
  tcase_add_test(tc, test_scoped_lanes_rows);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(rows_suite());
}
