/* SPDX-License-Identifier: MIT */
/* test_combined.c - where the features meet: work-group collectives (fiber,
 * phase and lane forms), sub-group operations and queries, and group
 * copies in non-uniform launches (the last group smaller, its last
 * sub-group partial) and with global offsets, each against a plain C loop
 * over every group's actual work-items; divergence between a sub-group
 * operation and a collective; all of them in one kernel on copied stacks
 * and with a floating-point state per work-item; and FIBERPAR_TRACE over
 * such launches. */
#include <fiberpar/async_copy.h>
#include <fiberpar/group.h>
#include <fiberpar/group_lanes.h>
#include <fiberpar/phase.h>
#include <fiberpar/subgroup.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil_phase.h"
#include "testutil_ranges.h"

/* Non-uniform shapes, with and without offsets.  1000 / 64: the last group
 * has 40 work-items; 17 x 9 x 5 / 6 x 4 x 2: smaller last groups in every
 * dimension (rows of 5 in the last groups of dimension 0). */
static const shape shapes[] = {
    {1, {1000, 1, 1}, {64, 1, 1}, {0, 0, 0}},
    {1, {1000, 1, 1}, {64, 1, 1}, {77, 0, 0}},
    {3, {17, 9, 5}, {4, 4, 2}, {0, 0, 0}},
    {3, {17, 9, 5}, {6, 4, 2}, {5, 1000, 3}},
};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

/* ---- The plain C view of a launch --------------------------------------- */

/* Where the work-item of global linear id k (offset removed) sits: its
 * group, its local linear id, the group's size and its first sub-group
 * member's linear id (sub-groups of sg work-items along dimension 0). */
typedef struct place {
  size_t group, local, volume;
  size_t sg_lid, sg_size, sg_id, sg_count;
} place;

static void place_of(const shape *s, size_t k, size_t sg, place *p) {
  size_t gid[3], grp[3], lid[3], L[3], groups[3], d;

  fpar_test_id_of(k, s->global, gid);
  for (d = 0; d < 3; d++) {
    grp[d] = gid[d] / s->local[d];
    lid[d] = gid[d] % s->local[d];
    L[d] = s->global[d] - grp[d] * s->local[d];
    if (L[d] > s->local[d])
      L[d] = s->local[d];
    groups[d] = ceil_div(s->global[d], s->local[d]);
  }
  p->group = fpar_test_linear(grp, groups);
  p->local = fpar_test_linear(lid, L);
  p->volume = fpar_test_volume(L);
  if (sg != 0) {
    size_t per_row = ceil_div(L[0], sg);
    p->sg_lid = lid[0] % sg;
    p->sg_size = L[0] - lid[0] / sg * sg < sg ? L[0] - lid[0] / sg * sg : sg;
    p->sg_id = (lid[1] + L[1] * lid[2]) * per_row + lid[0] / sg;
    p->sg_count = per_row * L[1] * L[2];
  }
}

static size_t num_groups(const shape *s) {
  size_t d, n = 1;

  for (d = 0; d < 3; d++)
    n *= ceil_div(s->global[d], s->local[d]);
  return n;
}

static size_t group_volume(const fpar_item *it) {
  return fpar_local_range(it, 0) * fpar_local_range(it, 1) *
         fpar_local_range(it, 2);
}

static size_t enqueued_volume(const fpar_item *it) {
  return fpar_enqueued_local_range(it, 0) * fpar_enqueued_local_range(it, 1) *
         fpar_enqueued_local_range(it, 2);
}

static int32_t input_i32(size_t k) {
  return (int32_t)(k * 7919 % 201) - 100;
}

/* ---- Collectives ----------------------------------------------------------
 */

typedef struct coll_args {
  const int32_t *in;
  const int *pred;
  int32_t *sum, *scan, *bcast;
  int *any, *all;
} coll_args;

/* Broadcast from the group's last work-item: it exists only if the
 * group's own size is used. */
static void coll_kernel(fpar_item *it, void *p) {
  const coll_args *a = p;
  size_t g = fpar_global_linear_id(it), last = group_volume(it) - 1;
  int32_t x = a->in[g];

  a->sum[g] = fpar_group_reduce_add_i32(it, x);
  a->scan[g] = fpar_group_scan_exclusive_add_i32(it, x);
  a->bcast[g] = fpar_group_broadcast_i32(it, x, last);
  a->any[g] = fpar_group_any(it, a->pred[g]);
  a->all[g] = fpar_group_all(it, a->pred[g]);
}

typedef struct coll_state {
  int32_t r;
} coll_state;

FPAR_PHASE_KERNEL(coll_phase, it, p, coll_state, st) {
  const coll_args *a = p;
  size_t g = fpar_global_linear_id(it);

  FPAR_PHASE_BEGIN();
  FPAR_PHASE_GROUP(st->r, it, reduce_add_i32, a->in[g]);
  a->sum[g] = st->r;
  FPAR_PHASE_GROUP(st->r, it, scan_exclusive_add_i32, a->in[g]);
  a->scan[g] = st->r;
  FPAR_PHASE_GROUP(st->r, it, broadcast_i32, a->in[g], group_volume(it) - 1);
  a->bcast[g] = st->r;
  FPAR_PHASE_GROUP(st->r, it, any, a->pred[g]);
  a->any[g] = st->r;
  FPAR_PHASE_GROUP(st->r, it, all, a->pred[g]);
  a->all[g] = st->r;
  FPAR_PHASE_END();
}

FPAR_LANE_KERNEL(coll_lanes, lk, p) {
  const coll_args *a = p;
  size_t g = fpar_global_linear_id(lk->it), j;
  fpar_vi32 x = fpar_vi32_load_mask(a->in + g, lk->mask);
  fpar_vi32 pred = fpar_vi32_load_mask(a->pred + g, lk->mask);
  fpar_vmask on = (pred != 0) & lk->mask;
  int32_t sum = fpar_group_reduce_add_vi32(lk, x);
  fpar_vi32 scan = fpar_group_scan_exclusive_add_vi32(lk, x);
  int32_t bcast = fpar_group_broadcast_vi32(lk, x, group_volume(lk->it) - 1);
  int any = fpar_group_any_vmask(lk, on);
  int all = fpar_group_all_vmask(lk, on | ~lk->mask);

  fpar_vi32_store_mask(a->scan + g, scan, lk->mask);
  for (j = 0; j < lk->active; j++) {
    a->sum[g + j] = sum;
    a->bcast[g + j] = bcast;
    a->any[g + j] = any;
    a->all[g + j] = all;
  }
}

/* The same as a phase lane kernel: each collective a phase boundary. */
typedef struct coll_lane_state {
  fpar_vi32 v;
  int32_t e;
} coll_lane_state;

static void fill_i32(int32_t *o, int32_t v, const fpar_lanes *lk) {
  size_t j;

  for (j = 0; j < lk->active; j++)
    o[j] = v;
}

FPAR_PHASE_LANE_KERNEL(coll_phase_lanes, lk, p, coll_lane_state, st) {
  const coll_args *a = p;
  size_t g = fpar_global_linear_id(lk->it);

  FPAR_PHASE_BEGIN();
  FPAR_PHASE_GROUP(st->e, lk, reduce_add_vi32,
                   fpar_vi32_load_mask(a->in + g, lk->mask));
  fill_i32(a->sum + g, st->e, lk);
  FPAR_PHASE_GROUP(st->v, lk, scan_exclusive_add_vi32,
                   fpar_vi32_load_mask(a->in + g, lk->mask));
  fpar_vi32_store_mask(a->scan + g, st->v, lk->mask);
  FPAR_PHASE_GROUP(st->e, lk, broadcast_vi32,
                   fpar_vi32_load_mask(a->in + g, lk->mask),
                   group_volume(lk->it) - 1);
  fill_i32(a->bcast + g, st->e, lk);
  FPAR_PHASE_GROUP(st->e, lk, any_vmask,
                   (fpar_vi32_load_mask(a->pred + g, lk->mask) != 0) &
                       lk->mask);
  fill_i32(a->any + g, st->e, lk);
  FPAR_PHASE_GROUP(st->e, lk, all_vmask,
                   (fpar_vi32_load_mask(a->pred + g, lk->mask) != 0) |
                       ~lk->mask);
  fill_i32(a->all + g, st->e, lk);
  FPAR_PHASE_END();
}

enum coll_form {
  COLL_FIBERS,
  COLL_LOOPS,
  COLL_DEBUG,
  COLL_PHASE_FIBERS,
  COLL_LANES,
  COLL_PHASE_LANES_LOOPS,
  COLL_PHASE_LANES_FIBERS,
  COLL_FORMS
};

/* Predicates by group: none set, only the last, all but the first, all. */
static int pred_of(const place *p) {
  switch (p->group % 4) {
  case 0:
    return 0;
  case 1:
    return p->local == p->volume - 1;
  case 2:
    return p->local != 0 ? 3 : 0;
  default:
    return (int)p->local + 1;
  }
}

/* The loop index is shape * COLL_FORMS + form. */
START_TEST(test_collectives) {
  const shape *s = &shapes[_i / COLL_FORMS];
  enum coll_form f = (enum coll_form)(_i % COLL_FORMS);
  size_t n = fpar_test_volume(s->global), ng = num_groups(s), k;
  int32_t *in = malloc(n * sizeof *in), *sum = malloc(n * sizeof *sum);
  int32_t *scan = malloc(n * sizeof *scan), *bcast = malloc(n * sizeof *bcast);
  int *pred = malloc(n * sizeof *pred), *any = malloc(n * sizeof *any);
  int *all = malloc(n * sizeof *all);
  uint32_t *gsum = calloc(ng, sizeof *gsum), *run = calloc(ng, sizeof *run);
  int32_t *glast = calloc(ng, sizeof *glast);
  int *gany = calloc(ng, sizeof *gany), *gall = malloc(ng * sizeof *gall);
  coll_args a = {in, pred, sum, scan, bcast, any, all};
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;
  place pl;

  for (k = 0; k < ng; k++)
    gall[k] = 1;
  for (k = 0; k < n; k++) {
    place_of(s, k, 0, &pl);
    in[k] = input_i32(k);
    pred[k] = pred_of(&pl);
    gsum[pl.group] += (uint32_t)in[k];
    if (pl.local == pl.volume - 1)
      glast[pl.group] = in[k];
    gany[pl.group] |= pred[k] != 0;
    gall[pl.group] &= pred[k] != 0;
  }
  memset(sum, 0x5a, n * sizeof *sum);
  memset(scan, 0x5a, n * sizeof *scan);
  memset(bcast, 0x5a, n * sizeof *bcast);
  memset(any, 0x5a, n * sizeof *any);
  memset(all, 0x5a, n * sizeof *all);
  fpar_test_env_init(&e, 2);
  shape_desc(s, &d, &a);
  if (f == COLL_FIBERS)
    d.kernel = coll_kernel;
  else if (f == COLL_LANES)
    d.def = &coll_lanes;
  else if (f >= COLL_PHASE_LANES_LOOPS) {
    d.def = &coll_phase_lanes;
    d.phase_mode =
        f == COLL_PHASE_LANES_LOOPS ? FPAR_PHASE_LOOPS : FPAR_PHASE_FIBERS;
  } else {
    d.def = &coll_phase;
    d.phase_mode = modes[f - COLL_LOOPS];
  }
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_ok(ev);
  fpar_test_env_fini(&e);
  /* The scan in local linear order: the work-items of a group come in
   * global order, but local order differs in 3-D, so add up by rank. */
  for (size_t rank = 0;; rank++) {
    int more = 0;
    for (k = 0; k < n; k++) {
      place_of(s, k, 0, &pl);
      if (pl.local != rank)
        continue;
      more = 1;
      ck_assert_msg(scan[k] == (int32_t)run[pl.group],
                    "form %d: item %zu (group %zu, local %zu): scan %d, want "
                    "%d",
                    (int)f, k, pl.group, pl.local, scan[k],
                    (int32_t)run[pl.group]);
      run[pl.group] += (uint32_t)in[k];
    }
    if (!more)
      break;
  }
  for (k = 0; k < n; k++) {
    place_of(s, k, 0, &pl);
    ck_assert_msg(sum[k] == (int32_t)gsum[pl.group] &&
                      bcast[k] == glast[pl.group] && any[k] == gany[pl.group] &&
                      all[k] == gall[pl.group],
                  "form %d: item %zu (group %zu of %zu items): sum %d bcast "
                  "%d any %d all %d, want %d %d %d %d",
                  (int)f, k, pl.group, pl.volume, sum[k], bcast[k], any[k],
                  all[k], (int32_t)gsum[pl.group], glast[pl.group],
                  gany[pl.group], gall[pl.group]);
  }
  free(in), free(sum), free(scan), free(bcast), free(pred), free(any);
  free(all), free(gsum), free(run), free(glast), free(gany), free(gall);
}
END_TEST

/* ---- Sub-groups ------------------------------------------------------------
 */

/* The sub-group size of each shape: partial last sub-groups in the last
 * groups (40 = 16 + 16 + 8; rows of 5 or 6 in 4s, rows of 4 or 1 in 3s). */
static const unsigned sg_sizes[NUM_SHAPES] = {16, 16, 3, 4};

typedef struct sg_args {
  const float *in;
  const int *pred;
  float *shuf, *red;
  uint64_t *ballot;
  size_t *q; /* size, local id, id, count per work-item */
} sg_args;

static void sg_kernel(fpar_item *it, void *p) {
  const sg_args *a = p;
  size_t g = fpar_global_linear_id(it);
  size_t n = fpar_sub_group_size(it), l = fpar_sub_group_local_id(it);
  float x = a->in[g];

  a->shuf[g] = fpar_sub_group_shuffle_f32(it, x, (l + 1) % n);
  a->red[g] = fpar_sub_group_reduce_add_f32(it, x);
  a->ballot[g] = fpar_sub_group_ballot(it, a->pred[g]);
  a->q[4 * g] = n;
  a->q[4 * g + 1] = l;
  a->q[4 * g + 2] = fpar_sub_group_id(it);
  a->q[4 * g + 3] = fpar_num_sub_groups(it);
}

START_TEST(test_subgroups) {
  const shape *s = &shapes[_i];
  size_t sg = sg_sizes[_i], n = fpar_test_volume(s->global), k, j;
  float *in = malloc(n * sizeof *in), *shuf = malloc(n * sizeof *shuf);
  float *red = malloc(n * sizeof *red);
  int *pred = malloc(n * sizeof *pred);
  uint64_t *ballot = malloc(n * sizeof *ballot);
  size_t *q = malloc(4 * n * sizeof *q);
  sg_args a = {in, pred, shuf, red, ballot, q};
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;
  place pl;

  for (k = 0; k < n; k++) {
    in[k] = (float)(k % 37);
    pred[k] = k % 3 == 0 || k % 7 == 0;
  }
  memset(q, 0xff, 4 * n * sizeof *q);
  fpar_test_env_init(&e, 2);
  shape_desc(s, &d, &a);
  d.kernel = sg_kernel;
  d.subgroup_size = (unsigned)sg;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_ok(ev);
  fpar_test_env_fini(&e);
  for (k = 0; k < n; k++) {
    size_t first;
    float want_red = 0;
    uint64_t want_ballot = 0;
    place_of(s, k, sg, &pl);
    first = k - pl.sg_lid;
    for (j = 0; j < pl.sg_size; j++) {
      want_red += in[first + j];
      want_ballot |= (uint64_t)(pred[first + j] != 0) << j;
    }
    ck_assert_msg(q[4 * k] == pl.sg_size && q[4 * k + 1] == pl.sg_lid &&
                      q[4 * k + 2] == pl.sg_id && q[4 * k + 3] == pl.sg_count,
                  "item %zu: sub-group size %zu id %zu/%zu local %zu, want "
                  "%zu %zu/%zu %zu",
                  k, q[4 * k], q[4 * k + 2], q[4 * k + 3], q[4 * k + 1],
                  pl.sg_size, pl.sg_id, pl.sg_count, pl.sg_lid);
    ck_assert_msg(shuf[k] == in[first + (pl.sg_lid + 1) % pl.sg_size] &&
                      red[k] == want_red && ballot[k] == want_ballot,
                  "item %zu (sub-group of %zu): shuffle %g reduce %g ballot "
                  "%#llx, want %g %g %#llx",
                  k, pl.sg_size, shuf[k], red[k], (unsigned long long)ballot[k],
                  in[first + (pl.sg_lid + 1) % pl.sg_size], want_red,
                  (unsigned long long)want_ballot);
  }
  free(in), free(shuf), free(red), free(pred), free(ballot), free(q);
}
END_TEST

/* The lane form: each call is a sub-group of W lanes (masked where a row
 * is no multiple of W); its queries work on lane 0's item. */
FPAR_LANE_KERNEL(sg_lanes, lk, p) {
  const sg_args *a = p;
  size_t g = fpar_global_linear_id(lk->it), j;
  fpar_vf32 x = fpar_vf32_load_mask(a->in + g, lk->mask);
  fpar_vi32 pred = fpar_vi32_load_mask(a->pred + g, lk->mask);
  float red = fpar_sub_group_reduce_add_vf32(lk, x);
  uint64_t ballot = fpar_sub_group_ballot_vmask(lk, pred != 0);

  for (j = 0; j < lk->active; j++) {
    a->shuf[g + j] = (float)fpar_sub_group_max_size(lk->it);
    a->red[g + j] = red;
    a->ballot[g + j] = ballot;
    a->q[4 * (g + j)] = fpar_sub_group_size(lk->it);
    a->q[4 * (g + j) + 1] = j;
    a->q[4 * (g + j) + 2] = fpar_sub_group_id(lk->it);
    a->q[4 * (g + j) + 3] = fpar_num_sub_groups(lk->it);
  }
}

START_TEST(test_subgroups_lanes) {
  const shape *s = &shapes[_i];
  size_t sg = FPAR_SIMD_WIDTH, n = fpar_test_volume(s->global), k, j;
  float *in = malloc(n * sizeof *in), *maxsz = malloc(n * sizeof *maxsz);
  float *red = malloc(n * sizeof *red);
  int *pred = malloc(n * sizeof *pred);
  uint64_t *ballot = malloc(n * sizeof *ballot);
  size_t *q = malloc(4 * n * sizeof *q);
  sg_args a = {in, pred, maxsz, red, ballot, q};
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;
  place pl;

  for (k = 0; k < n; k++) {
    in[k] = (float)(k % 37);
    pred[k] = k % 3 == 0 || k % 7 == 0;
  }
  memset(q, 0xff, 4 * n * sizeof *q);
  fpar_test_env_init(&e, 2);
  shape_desc(s, &d, &a);
  d.def = &sg_lanes;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_ok(ev);
  fpar_test_env_fini(&e);
  for (k = 0; k < n; k++) {
    size_t first;
    float want_red = 0;
    uint64_t want_ballot = 0;
    place_of(s, k, sg, &pl);
    first = k - pl.sg_lid;
    for (j = 0; j < pl.sg_size; j++) {
      want_red += in[first + j];
      want_ballot |= (uint64_t)(pred[first + j] != 0) << j;
    }
    ck_assert_msg(q[4 * k] == pl.sg_size && q[4 * k + 1] == pl.sg_lid &&
                      q[4 * k + 2] == pl.sg_id && q[4 * k + 3] == pl.sg_count &&
                      maxsz[k] == (float)sg,
                  "item %zu: sub-group size %zu id %zu/%zu local %zu max %g, "
                  "want %zu %zu/%zu %zu %zu",
                  k, q[4 * k], q[4 * k + 2], q[4 * k + 3], q[4 * k + 1],
                  maxsz[k], pl.sg_size, pl.sg_id, pl.sg_count, pl.sg_lid, sg);
    ck_assert_msg(red[k] == want_red && ballot[k] == want_ballot,
                  "item %zu (sub-group of %zu): reduce %g ballot %#llx, want "
                  "%g %#llx",
                  k, pl.sg_size, red[k], (unsigned long long)ballot[k],
                  want_red, (unsigned long long)want_ballot);
  }
  free(in), free(maxsz), free(red), free(pred), free(ballot), free(q);
}
END_TEST

/* ---- Group copies ----------------------------------------------------------
 */

typedef struct copy_args {
  const float *in;
  float *out;
} copy_args;

/* Each group copies its own work-items' inputs into local memory (the
 * enqueued size), reverses them, and copies them back: both copies sized
 * by the group's actual size. */
static void copy_kernel(fpar_item *it, void *p) {
  const copy_args *a = p;
  size_t L = fpar_local_range(it, 0), lid = fpar_local_id(it, 0);
  size_t first = fpar_global_linear_id(it) - lid;
  float *tmp =
      fpar_group_local_memory(it, enqueued_volume(it) * sizeof *tmp, 0);
  fpar_copy_event ev;
  float v;

  ev = fpar_async_work_group_copy(it, tmp, a->in + first, L, sizeof *tmp, 0);
  fpar_wait_group_events(it, 1, &ev);
  v = tmp[L - 1 - lid];
  fpar_barrier(it);
  tmp[lid] = 2 * v;
  fpar_barrier(it);
  ev = fpar_async_work_group_copy(it, a->out + first, tmp, L, sizeof *tmp, 0);
  fpar_wait_group_events(it, 1, &ev);
}

/* 1-D shapes only (a group's work-items are contiguous), on 1 and 2
 * workers; the words after the output stay untouched. */
START_TEST(test_async_copy) {
  const shape *s = &shapes[_i / 2];
  size_t n = fpar_test_volume(s->global), k, pad = 64;
  float *in = malloc(n * sizeof *in), *out = malloc((n + pad) * sizeof *out);
  copy_args a = {in, out};
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;

  for (k = 0; k < n; k++)
    in[k] = (float)k;
  for (k = 0; k < n + pad; k++)
    out[k] = -1;
  fpar_test_env_init(&e, 1 + _i % 2);
  shape_desc(s, &d, &a);
  d.kernel = copy_kernel;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_ok(ev);
  fpar_test_env_fini(&e);
  for (k = 0; k < n; k++) {
    size_t l = s->local[0], first = k / l * l;
    size_t L = n - first < l ? n - first : l;
    float want = 2 * in[first + L - 1 - (k - first)];
    ck_assert_msg(out[k] == want, "item %zu: %g, want %g", k, out[k], want);
  }
  for (k = n; k < n + pad; k++)
    ck_assert_msg(out[k] == -1, "word %zu after the output written", k - n);
  free(in), free(out);
}
END_TEST

/* ---- Divergence between a sub-group operation and a collective ----------
 */

/* In every sub-group of 16, the first half calls one, the second half the
 * other (which first: args). */
static void diverge_kernel(fpar_item *it, void *p) {
  int sub_first = *(const int *)p;
  int first_half = fpar_sub_group_local_id(it) < 8;

  if (first_half == sub_first)
    fpar_sub_group_reduce_add_f32(it, 1.0f);
  else
    fpar_group_reduce_add_i32(it, 1);
}

static void count_kernel(fpar_item *it, void *p) {
  int32_t *out = p;

  out[fpar_global_linear_id(it)] =
      fpar_group_reduce_add_i32(it, 1) +
      (int32_t)fpar_sub_group_reduce_add_f32(it, 1.0f);
}

START_TEST(test_divergence) {
  int sub_first = _i % 2;
  const shape *s = &shapes[_i / 2];
  size_t n = fpar_test_volume(s->global), k;
  int32_t *out = malloc(n * sizeof *out);
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;
  const char *msg;
  place pl;

  fpar_test_env_init(&e, 2);
  shape_desc(s, &d, &sub_first);
  d.kernel = diverge_kernel;
  d.subgroup_size = 16;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  ck_assert_int_eq(fpar_event_wait(ev), FPAR_EDIVERGENCE);
  msg = fpar_event_error(ev);
  ck_assert_msg(msg != NULL && strstr(msg, "fpar_sub_group_reduce_add_f32") &&
                    strstr(msg, "fpar_group_reduce_add_i32") &&
                    strstr(msg, "work-item 8 "),
                "%s", msg != NULL ? msg : "(none)");
  fpar_event_release(ev);
  /* The runtime and queue work on. */
  shape_desc(s, &d, out);
  d.kernel = count_kernel;
  d.subgroup_size = 16;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_ok(ev);
  for (k = 0; k < n; k++) {
    place_of(s, k, 16, &pl);
    ck_assert_int_eq(out[k], (int32_t)(pl.volume + pl.sg_size));
  }
  fpar_test_env_fini(&e);
  free(out);
}
END_TEST

/* Only the partial last sub-group of the smaller last group diverges:
 * 1000 / 64 leaves 40 work-items, sub-groups 16 + 16 + 8; members 4 to 7
 * of the last call the collective. */
static void diverge_last_kernel(fpar_item *it, void *p) {
  size_t lid = fpar_local_id(it, 0);

  (void)p;
  if (fpar_group_id(it, 0) == fpar_group_range(it, 0) - 1 && lid >= 36)
    fpar_group_reduce_add_i32(it, 1);
  else
    fpar_sub_group_reduce_add_f32(it, 1.0f);
}

START_TEST(test_divergence_partial) {
  const shape *s = &shapes[_i];
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;
  const char *msg;

  fpar_test_env_init(&e, 2);
  shape_desc(s, &d, NULL);
  d.kernel = diverge_last_kernel;
  d.subgroup_size = 16;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  ck_assert_int_eq(fpar_event_wait(ev), FPAR_EDIVERGENCE);
  msg = fpar_event_error(ev);
  ck_assert_msg(msg != NULL && strstr(msg, "fpar_sub_group_reduce_add_f32") &&
                    strstr(msg, "fpar_group_reduce_add_i32") &&
                    strstr(msg, "work-item 36 ") && strstr(msg, "32-35"),
                "%s", msg != NULL ? msg : "(none)");
  fpar_event_release(ev);
  fpar_test_env_fini(&e);
}
END_TEST

/* A broadcast source within the enqueued size but beyond the smaller last
 * group (40 work-items of 64) is refused there. */
static void bcast_kernel(fpar_item *it, void *p) {
  int32_t *out = p;

  out[fpar_global_linear_id(it)] = fpar_group_broadcast_i32(it, 1, 50);
}

START_TEST(test_broadcast_beyond_last_group) {
  const shape *s = &shapes[_i];
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;
  int32_t *out = malloc(1000 * sizeof *out);

  fpar_test_env_init(&e, 2);
  shape_desc(s, &d, out);
  d.kernel = bcast_kernel;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_fault(ev, FPAR_EINVAL,
                       "broadcasts from local id 50, beyond its group of 40 "
                       "work-items",
                       "fpar_group_broadcast_i32");
  fpar_test_env_fini(&e);
  free(out);
}
END_TEST

/* ---- Everything in one kernel, in every fiber mode ------------------------
 */

typedef struct mixed_args {
  const float *in;
  float *sg_sum, *next;
  int32_t *total;
} mixed_args;

/* A sub-group sum into local memory, a barrier, the neighbour's sum, a
 * collective over those, another barrier and a shuffle. */
static void mixed_kernel(fpar_item *it, void *p) {
  const mixed_args *a = p;
  size_t g = fpar_global_linear_id(it), lid = fpar_local_linear_id(it);
  size_t L = group_volume(it), l = fpar_sub_group_local_id(it);
  float *tmp =
      fpar_group_local_memory(it, enqueued_volume(it) * sizeof *tmp, 0);
  float s = fpar_sub_group_reduce_add_f32(it, a->in[g]), nb;

  tmp[lid] = s;
  fpar_barrier(it);
  nb = tmp[(lid + 1) % L];
  a->total[g] = fpar_group_reduce_add_i32(it, (int32_t)nb);
  fpar_barrier(it);
  a->sg_sum[g] =
      fpar_sub_group_shuffle_f32(it, s, (l + 1) % fpar_sub_group_size(it));
  a->next[g] = nb;
}

typedef struct mixed_ref {
  float *sg_sum, *next;
  int32_t *total;
} mixed_ref;

/* The plain C results of mixed_kernel over shape s. */
static void mixed_reference(const shape *s, size_t sg, const float *in,
                            mixed_ref *r) {
  size_t n = fpar_test_volume(s->global), ng = num_groups(s), k, j;
  size_t *by_local = malloc(n * sizeof *by_local), *start = calloc(ng + 1, 8);
  uint32_t *tot = calloc(ng, sizeof *tot);
  place pl;

  /* Work-items of each group by local linear id. */
  for (k = 0; k < n; k++) {
    place_of(s, k, sg, &pl);
    start[pl.group + 1] = pl.volume;
  }
  for (k = 0; k < ng; k++)
    start[k + 1] += start[k];
  for (k = 0; k < n; k++) {
    float sum = 0;
    place_of(s, k, sg, &pl);
    by_local[start[pl.group] + pl.local] = k;
    for (j = 0; j < pl.sg_size; j++)
      sum += in[k - pl.sg_lid + j];
    r->sg_sum[k] = sum; /* the sub-group sum, shuffled below */
  }
  for (k = 0; k < n; k++) {
    place_of(s, k, sg, &pl);
    r->next[k] =
        r->sg_sum[by_local[start[pl.group] + (pl.local + 1) % pl.volume]];
    tot[pl.group] += (uint32_t)(int32_t)r->next[k];
  }
  for (k = 0; k < n; k++) {
    place_of(s, k, sg, &pl);
    r->total[k] = (int32_t)tot[pl.group];
  }
  /* Every member of a sub-group has its sum: the shuffle changes none. */
  free(by_local), free(start), free(tot);
}

/* Modes: default, copied stacks (max_stacks 3), a floating-point state per
 * work-item, copied stacks with FIBERPAR_STACK_GUARD=mprotect.  The loop
 * index is shape * 4 + mode. */
START_TEST(test_mixed) {
  const shape *s = &shapes[_i / 4];
  int mode = _i % 4;
  size_t sg = sg_sizes[_i / 4], n = fpar_test_volume(s->global), k;
  float *in = malloc(n * sizeof *in);
  mixed_args a;
  mixed_ref r;
  fpar_runtime_opts o;
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_launch_desc d;
  fpar_event *ev;

  a.in = in;
  a.sg_sum = malloc(n * sizeof *a.sg_sum);
  a.next = malloc(n * sizeof *a.next);
  a.total = malloc(n * sizeof *a.total);
  r.sg_sum = malloc(n * sizeof *r.sg_sum);
  r.next = malloc(n * sizeof *r.next);
  r.total = malloc(n * sizeof *r.total);
  for (k = 0; k < n; k++)
    in[k] = (float)(k % 11);
  mixed_reference(s, sg, in, &r);
  if (mode == 3)
    ck_assert_int_eq(setenv("FIBERPAR_STACK_GUARD", "mprotect", 1), 0);
  fpar_runtime_opts_init(&o);
  o.num_threads = 2;
  if (mode == 1 || mode == 3)
    o.max_stacks = 3;
  if (mode == 2)
    o.fpenv = FPAR_FPENV_ITEM;
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(rt, 0, &q));
  shape_desc(s, &d, &a);
  d.kernel = mixed_kernel;
  d.subgroup_size = (unsigned)sg;
  ck_assert_fpar_ok(fpar_launch(q, &d, &ev));
  fpar_test_wait_ok(ev);
  fpar_queue_destroy(q);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  for (k = 0; k < n; k++)
    ck_assert_msg(a.sg_sum[k] == r.sg_sum[k] && a.next[k] == r.next[k] &&
                      a.total[k] == r.total[k],
                  "mode %d item %zu: %g %g %d, want %g %g %d", mode, k,
                  a.sg_sum[k], a.next[k], a.total[k], r.sg_sum[k], r.next[k],
                  r.total[k]);
  free(in), free(a.sg_sum), free(a.next), free(a.total);
  free(r.sg_sum), free(r.next), free(r.total);
}
END_TEST

/* ---- FIBERPAR_TRACE --------------------------------------------------------
 */

/* The mixed kernel (collectives, sub-group operations, barriers) and the
 * collectives of every form over each shape, traced: one record per
 * launch and per group, each group once, the launch's group count. */
START_TEST(test_trace) {
  char path[256], key[64];
  size_t total = 0, i, k;
  fpar_test_env e;
  char *json;
  static const char head[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";

  snprintf(path, sizeof path, "%s/fpar_trace_%ld_combined.json",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
  ck_assert_int_eq(setenv("FIBERPAR_TRACE", path, 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_DISPLAY", "0", 1), 0);
  fpar_test_env_init(&e, 2);
  for (i = 0; i < NUM_SHAPES; i++) {
    const shape *s = &shapes[i];
    size_t n = fpar_test_volume(s->global);
    float *in = calloc(n, sizeof *in), *f1 = malloc(n * sizeof *f1);
    float *f2 = malloc(n * sizeof *f2);
    int32_t *t = malloc(n * sizeof *t);
    mixed_args a = {in, f1, f2, t};
    fpar_launch_desc d;

    shape_desc(s, &d, &a);
    d.name = "mixed";
    d.kernel = mixed_kernel;
    d.subgroup_size = sg_sizes[i];
    ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
    ck_assert_fpar_ok(fpar_queue_wait(e.q));
    for (k = 0; k < n; k++)
      ck_assert_int_eq(t[k], 0);
    total += num_groups(s);
    free(in), free(f1), free(f2), free(t);
  }
  /* The phase form of the collectives (five group operations) in loops
   * and on fibers, over 17 x 9 x 5 / 4 x 4 x 2 (its corner group has one
   * work-item). */
  for (i = 0; i < 2; i++) {
    const shape *s = &shapes[2];
    size_t n = fpar_test_volume(s->global);
    int32_t *in = calloc(n, sizeof *in), *o = malloc(3 * n * sizeof *o);
    int *pred = calloc(n, sizeof *pred), *b = malloc(2 * n * sizeof *b);
    coll_args a = {in, pred, o, o + n, o + 2 * n, b, b + n};
    fpar_launch_desc d;

    shape_desc(s, &d, &a);
    d.name = "phase";
    d.def = &coll_phase;
    d.phase_mode = i == 0 ? FPAR_PHASE_LOOPS : FPAR_PHASE_FIBERS;
    ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
    ck_assert_fpar_ok(fpar_queue_wait(e.q));
    free(in), free(o), free(pred), free(b);
  }
  fpar_test_env_fini(&e);
  json = fpar_test_read_file(path);
  unlink(path);
  ck_assert_msg(strncmp(json, head, sizeof head - 1) == 0, "not a trace: %.80s",
                json);
  ck_assert_msg(strstr(json, "\n]") != NULL && json[strlen(json) - 2] == '}',
                "unterminated trace");
  ck_assert_int_eq(fpar_test_count(json, "\"cat\":\"launch\""),
                   (int)NUM_SHAPES + 2);
  ck_assert_int_eq(fpar_test_count(json, "\"cat\":\"group\""),
                   (int)total + 2 * 45);
  ck_assert_int_eq(fpar_test_count(json, "\"name\":\"phase\""), 2 + 2 * 45);
  ck_assert_int_eq(fpar_test_count(json, "\"barriers\":5}"), 2 * 45);
  ck_assert_int_eq(fpar_test_count(json, "\"name\":\"mixed\""),
                   (int)(NUM_SHAPES + total));
  ck_assert_int_eq(fpar_test_count(json, "\"failed\""), 0);
  /* Two barriers and a collective in every group, the group of one too
   * (sub-group operations are no group barriers). */
  ck_assert_int_eq(fpar_test_count(json, "\"barriers\":3}"), (int)total);
  ck_assert_int_eq(fpar_test_count(json, "\"result\":\"ok\""),
                   (int)NUM_SHAPES + 2);
  /* 1000 / 64: 16 groups, the last one [15]; 17 x 9 x 5 / 4 x 4 x 2 (three
   * launches): 5 x 3 x 3 groups, the last [4,2,2]; with 6 x 4 x 2: 3 x 3 x
   * 3, the last [2,2,2]. */
  ck_assert_int_eq(fpar_test_count(json, "\"groups\":16,"), 2);
  ck_assert_int_eq(fpar_test_count(json, "\"groups\":45,"), 3);
  ck_assert_int_eq(fpar_test_count(json, "\"groups\":27,"), 1);
  ck_assert_int_eq(fpar_test_count(json, "\"group\":[15]"), 2);
  ck_assert_int_eq(fpar_test_count(json, "\"group\":[4,2,2]"), 3);
  ck_assert_int_eq(fpar_test_count(json, "\"group\":[2,2,2]"), 4);
  snprintf(key, sizeof key, "\"global\":[1000],\"local\":[64]");
  ck_assert_int_eq(fpar_test_count(json, key), 2);
  free(json);
}
END_TEST

int main(void) {
  Suite *s = suite_create("combined");
  TCase *tc = fpar_test_case("combined");

  tcase_add_loop_test(tc, test_collectives, 0, (int)(NUM_SHAPES * COLL_FORMS));
  tcase_add_loop_test(tc, test_subgroups, 0, (int)NUM_SHAPES);
  tcase_add_loop_test(tc, test_async_copy, 0, 4);
  tcase_add_loop_test(tc, test_subgroups_lanes, 0, (int)NUM_SHAPES);
  tcase_add_loop_test(tc, test_divergence, 0, 4);
  tcase_add_loop_test(tc, test_divergence_partial, 0, 2);
  tcase_add_loop_test(tc, test_broadcast_beyond_last_group, 0, 2);
  tcase_add_loop_test(tc, test_mixed, 0, (int)(NUM_SHAPES * 4));
  tcase_add_test(tc, test_trace);
  suite_add_tcase(s, tc);
  return fpar_test_run(s);
}
