/* SPDX-License-Identifier: MIT */
/* testutil_ranges.h - what the suites of global offsets and non-uniform
 * work-groups share: a launch shape (global range, enqueued local range,
 * offset), the view of the launch every work-item must have worked out in
 * plain C, and kernels in each form (plain, row runner, fibers, lanes,
 * phases) that record what their work-items saw. */
#ifndef FPAR_TESTUTIL_RANGES_H
#define FPAR_TESTUTIL_RANGES_H

#include <fiberpar/simd.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "testutil.h"

/* A launch: global range, enqueued local range, offset (3-D, 1 and 0 in
 * unused dimensions) and dimensionality. */
typedef struct shape {
  unsigned dims;
  size_t global[3], local[3], offset[3];
} shape;

/* What one work-item saw, in the slot of its global linear id. */
typedef struct seen {
  size_t global_id[3], local_id[3], group_id[3], offset[3];
  size_t local_range[3], enqueued[3], group_range[3], global_range[3];
  size_t local_linear, group_linear;
  atomic_uint visits;
} seen;

typedef struct seen_args {
  seen *slots;
  size_t count;
  atomic_size_t outside; /* linear ids beyond the slots */
} seen_args;

static inline fpar_range shape_range(unsigned dims, const size_t r[3]) {
  fpar_range x = {dims, {r[0], r[1], r[2]}};
  return x;
}

/* The description of a launch of shape s (no kernel yet). */
static inline void shape_desc(const shape *s, fpar_launch_desc *d, void *args) {
  fpar_launch_desc_init(d);
  d->args = args;
  d->global = shape_range(s->dims, s->global);
  d->local = shape_range(s->dims, s->local);
  memcpy(d->global_offset, s->offset, sizeof d->global_offset);
}

/* Record work-item `it` as the work-item whose dimension-0 ids are
 * shifted by `lane` (lane kernels record each lane through lane 0). */
static inline void seen_record(fpar_item *it, seen_args *a, size_t lane) {
  size_t idx = fpar_global_linear_id(it) + lane;
  seen *r;
  unsigned d;

  if (idx >= a->count) {
    atomic_fetch_add(&a->outside, 1);
    return;
  }
  r = &a->slots[idx];
  for (d = 0; d < 3; d++) {
    r->global_id[d] = fpar_global_id(it, d) + (d == 0 ? lane : 0);
    r->local_id[d] = fpar_local_id(it, d) + (d == 0 ? lane : 0);
    r->group_id[d] = fpar_group_id(it, d);
    r->offset[d] = fpar_global_offset(it, d);
    r->local_range[d] = fpar_local_range(it, d);
    r->enqueued[d] = fpar_enqueued_local_range(it, d);
    r->group_range[d] = fpar_group_range(it, d);
    r->global_range[d] = fpar_global_range(it, d);
  }
  r->local_linear = fpar_local_linear_id(it) + lane;
  r->group_linear = fpar_group_linear_id(it);
  atomic_fetch_add(&r->visits, 1);
}

static void seen_kernel(fpar_item *it, void *args) {
  seen_record(it, args, 0);
}

/* The same with its runner (FPAR_KERNEL). */
FPAR_KERNEL(seen_rows, it, args) {
  seen_record(it, args, 0);
}

/* Recorded after a barrier: the group runs on fibers. */
static void seen_barrier_kernel(fpar_item *it, void *args) {
  fpar_barrier(it);
  seen_record(it, args, 0);
}

/* Lane form: every active lane is recorded, and the lanes' vector ids
 * must agree with the scalar ones. */
FPAR_LANE_KERNEL(seen_lanes, lk, args) {
  int32_t gid[FPAR_SIMD_WIDTH], lid[FPAR_SIMD_WIDTH];
  unsigned i;

  fpar_vi32_store(gid, lk->global_id0);
  fpar_vi32_store(lid, lk->local_id0);
  for (i = 0; i < lk->active; i++) {
    if ((size_t)gid[i] != lk->global_first + i ||
        (size_t)lid[i] != fpar_local_id(lk->it, 0) + i)
      atomic_fetch_add(&((seen_args *)args)->outside, 1);
    seen_record(lk->it, args, i);
  }
  if (fpar_vmask_count(lk->mask) != lk->active)
    atomic_fetch_add(&((seen_args *)args)->outside, 1);
}

/* Phase form: recorded in the first phase and again after a barrier. */
typedef struct seen_state {
  int unused;
} seen_state;

FPAR_PHASE_KERNEL(seen_phases, it, args, seen_state, st) {
  FPAR_PHASE_BEGIN();
  seen_record(it, args, 0);
  FPAR_PHASE_BARRIER();
  seen_record(it, args, 0);
  FPAR_PHASE_END();
}

static inline size_t ceil_div(size_t a, size_t b) {
  return a / b + (a % b != 0);
}

/* Check every slot against plain C: each work-item of shape s was seen
 * `visits` times and saw the ids and ranges OpenCL 2.0 gives it. */
static inline void seen_verify(const shape *s, const seen_args *a,
                               unsigned visits, const char *what) {
  size_t n = fpar_test_volume(s->global), idx, groups[3];
  unsigned d;

  ck_assert_uint_eq(atomic_load(&a->outside), 0);
  for (d = 0; d < 3; d++)
    groups[d] = ceil_div(s->global[d], s->local[d]);
  for (idx = 0; idx < n; idx++) {
    const seen *r = &a->slots[idx];
    size_t rel[3], grp[3], lid[3], lr[3];
    int bad = atomic_load(&r->visits) != visits;

    fpar_test_id_of(idx, s->global, rel);
    for (d = 0; d < 3; d++) {
      grp[d] = rel[d] / s->local[d];
      lid[d] = rel[d] % s->local[d];
      lr[d] = s->global[d] - grp[d] * s->local[d];
      if (lr[d] > s->local[d])
        lr[d] = s->local[d];
      bad |= r->global_id[d] != s->offset[d] + rel[d];
      bad |= r->local_id[d] != lid[d] || r->group_id[d] != grp[d];
      bad |= r->offset[d] != s->offset[d] || r->local_range[d] != lr[d];
      bad |= r->enqueued[d] != s->local[d] || r->group_range[d] != groups[d];
      bad |= r->global_range[d] != s->global[d];
    }
    bad |= r->local_linear != fpar_test_linear(lid, lr);
    bad |= r->group_linear != fpar_test_linear(grp, groups);
    if (bad)
      ck_abort_msg("%s: global (%zu,%zu,%zu) local (%zu,%zu,%zu) offset "
                   "(%zu,%zu,%zu): work-item %zu (global id %zu,%zu,%zu, "
                   "visits %u, local range %zu,%zu,%zu) is wrong",
                   what, s->global[0], s->global[1], s->global[2], s->local[0],
                   s->local[1], s->local[2], s->offset[0], s->offset[1],
                   s->offset[2], idx, r->global_id[0], r->global_id[1],
                   r->global_id[2], atomic_load(&r->visits), r->local_range[0],
                   r->local_range[1], r->local_range[2]);
  }
}

/* The kernel forms a shape runs in. */
enum seen_form {
  SEEN_PLAIN,
  SEEN_ROW,
  SEEN_BARRIER,
  SEEN_LANES,
  SEEN_PHASE_LOOPS,
  SEEN_PHASE_DEBUG,
  SEEN_PHASE_FIBERS,
  SEEN_FORMS
};
static const char *const seen_form_names[] = {
    "plain",       "row runner",  "barrier (fibers)", "lanes",
    "phase loops", "phase debug", "phase fibers"};

/* Launch shape s in form f and check what every work-item saw. */
static inline void seen_check(fpar_queue *q, const shape *s, enum seen_form f) {
  seen_args a;
  fpar_launch_desc d;
  fpar_event *ev;
  char what[64];

  a.count = fpar_test_volume(s->global);
  a.slots = calloc(a.count, sizeof *a.slots);
  ck_assert_ptr_nonnull(a.slots);
  atomic_init(&a.outside, 0);
  shape_desc(s, &d, &a);
  switch (f) {
  case SEEN_PLAIN:
    d.kernel = seen_kernel;
    break;
  case SEEN_ROW:
    d.def = &seen_rows;
    break;
  case SEEN_BARRIER:
    d.kernel = seen_barrier_kernel;
    break;
  case SEEN_LANES:
    d.def = &seen_lanes;
    break;
  default:
    d.def = &seen_phases;
    d.phase_mode = f == SEEN_PHASE_LOOPS   ? FPAR_PHASE_LOOPS
                   : f == SEEN_PHASE_DEBUG ? FPAR_PHASE_DEBUG
                                           : FPAR_PHASE_FIBERS;
    break;
  }
  ck_assert_fpar_ok(fpar_launch(q, &d, &ev));
  fpar_test_wait_ok(ev);
  snprintf(what, sizeof what, "%s", seen_form_names[f]);
  seen_verify(s, &a, f >= SEEN_PHASE_LOOPS ? 2 : 1, what);
  free(a.slots);
}

#endif
