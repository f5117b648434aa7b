/* SPDX-License-Identifier: MIT */
/* collective_kernels.h - the benchmark's work-group reductions and scans:
 * each as a collective (<fiberpar/group.h>) and written by hand (values in
 * local memory, barriers, a loop by work-item 0 or a tree), in scalar
 * fiber kernels, lane kernels and phase kernels, on the same data.
 *
 * Each work-item runs `reps` rounds; round r's value of work-item lid is
 * (lid + r) & 15, and the work-item adds up its results, so every sum is
 * an exact small integer in float and all forms must agree exactly.  The
 * group size L is a power of two (for the trees).  out[global id]
 * receives the work-item's total. */
#ifndef FPAR_COLLECTIVE_KERNELS_H
#define FPAR_COLLECTIVE_KERNELS_H

#include <fiberpar/simd.h>

typedef struct cb_args {
  int reps;
  float *out;
} cb_args;

static inline float cb_value(size_t lid, int r) {
  return (float)((lid + (size_t)r) & 15);
}

/* ---- Scalar kernels on fibers ------------------------------------------- */

/* The floor: one barrier per round and the same per-item work. */
static void cb_barrier(fpar_item *it, void *p) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it);
  float acc = 0;

  for (int r = 0; r < a->reps; r++) {
    float x = cb_value(lid, r);
    fpar_barrier(it);
    acc += x;
  }
  a->out[fpar_global_linear_id(it)] = acc;
}

static void cb_reduce_coll(fpar_item *it, void *p) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it);
  float acc = 0;

  for (int r = 0; r < a->reps; r++)
    acc += fpar_group_reduce_add_f32(it, cb_value(lid, r));
  a->out[fpar_global_linear_id(it)] = acc;
}

/* By hand: two barriers around work-item 0's loop. */
static void cb_reduce_loop(fpar_item *it, void *p) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it), L = fpar_local_range(it, 0);
  float *tmp = fpar_group_local_memory_for_overwrite(it, (L + 1) * 4, 64);
  float acc = 0;

  for (int r = 0; r < a->reps; r++) {
    tmp[lid] = cb_value(lid, r);
    fpar_barrier(it);
    if (lid == 0) {
      float s = 0;
      for (size_t i = 0; i < L; i++)
        s += tmp[i];
      tmp[L] = s;
    }
    fpar_barrier(it);
    acc += tmp[L];
  }
  a->out[fpar_global_linear_id(it)] = acc;
}

/* By hand: the classic tree, log2(L) + 2 barriers per round. */
static void cb_reduce_tree(fpar_item *it, void *p) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it), L = fpar_local_range(it, 0);
  float *tmp = fpar_group_local_memory_for_overwrite(it, L * 4, 64);
  float acc = 0;

  for (int r = 0; r < a->reps; r++) {
    tmp[lid] = cb_value(lid, r);
    for (size_t s = L / 2; s > 0; s >>= 1) {
      fpar_barrier(it);
      if (lid < s)
        tmp[lid] += tmp[lid + s];
    }
    fpar_barrier(it);
    acc += tmp[0];
    fpar_barrier(it);
  }
  a->out[fpar_global_linear_id(it)] = acc;
}

static void cb_scan_coll(fpar_item *it, void *p) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it);
  float acc = 0;

  for (int r = 0; r < a->reps; r++)
    acc += fpar_group_scan_exclusive_add_f32(it, cb_value(lid, r));
  a->out[fpar_global_linear_id(it)] = acc;
}

/* By hand: two barriers around work-item 0's exclusive scan in place. */
static void cb_scan_loop(fpar_item *it, void *p) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it), L = fpar_local_range(it, 0);
  float *tmp = fpar_group_local_memory_for_overwrite(it, L * 4, 64);
  float acc = 0;

  for (int r = 0; r < a->reps; r++) {
    tmp[lid] = cb_value(lid, r);
    fpar_barrier(it);
    if (lid == 0) {
      float s = 0;
      for (size_t i = 0; i < L; i++) {
        float x = tmp[i];
        tmp[i] = s;
        s += x;
      }
    }
    fpar_barrier(it);
    acc += tmp[lid];
  }
  a->out[fpar_global_linear_id(it)] = acc;
}

/* By hand: Hillis-Steele in two buffers, log2(L) + 1 barriers per round. */
static void cb_scan_tree(fpar_item *it, void *p) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it), L = fpar_local_range(it, 0);
  float *buf = fpar_group_local_memory_for_overwrite(it, 2 * L * 4, 64);
  float acc = 0;

  for (int r = 0; r < a->reps; r++) {
    float *from = buf, *to = buf + L, x = cb_value(lid, r);
    from[lid] = x;
    for (size_t d = 1; d < L; d <<= 1) {
      float *t;
      fpar_barrier(it);
      to[lid] = lid >= d ? from[lid] + from[lid - d] : from[lid];
      t = from, from = to, to = t;
    }
    acc += from[lid] - x;
    fpar_barrier(it);
  }
  a->out[fpar_global_linear_id(it)] = acc;
}

/* ---- Lane kernels: one call per sub-group of W work-items ---------------- */

static inline fpar_vf32 cb_lane_value(const fpar_lanes *lk, int r) {
  return __builtin_convertvector((lk->local_id0 + r) & 15, fpar_vf32);
}

static inline void cb_lane_store(const fpar_lanes *lk, const cb_args *a,
                                 fpar_vf32 acc) {
  float *o = a->out + fpar_global_linear_id(lk->it);

  for (unsigned i = 0; i < lk->active; i++)
    o[i] = acc[i];
}

FPAR_LANE_KERNEL(cb_lane_barrier, lk, p) {
  const cb_args *a = p;
  fpar_vf32 acc = fpar_vf32_splat(0);

  for (int r = 0; r < a->reps; r++) {
    fpar_vf32 x = cb_lane_value(lk, r);
    fpar_barrier(lk->it);
    acc += x;
  }
  cb_lane_store(lk, a, acc);
}

FPAR_LANE_KERNEL(cb_lane_reduce_coll, lk, p) {
  const cb_args *a = p;
  fpar_vf32 acc = fpar_vf32_splat(0);

  for (int r = 0; r < a->reps; r++)
    acc += fpar_group_reduce_add_vf32(lk, cb_lane_value(lk, r));
  cb_lane_store(lk, a, acc);
}

FPAR_LANE_KERNEL(cb_lane_reduce_loop, lk, p) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(lk->it), L = fpar_local_range(lk->it, 0);
  float *tmp = fpar_group_local_memory_for_overwrite(lk->it, (L + 1) * 4, 64);
  fpar_vf32 acc = fpar_vf32_splat(0);

  for (int r = 0; r < a->reps; r++) {
    fpar_vf32 x = cb_lane_value(lk, r);
    memcpy(tmp + lid, &x, lk->active * 4);
    fpar_barrier(lk->it);
    if (lid == 0) {
      float s = 0;
      for (size_t i = 0; i < L; i++)
        s += tmp[i];
      tmp[L] = s;
    }
    fpar_barrier(lk->it);
    acc += tmp[L];
  }
  cb_lane_store(lk, a, acc);
}

FPAR_LANE_KERNEL(cb_lane_scan_coll, lk, p) {
  const cb_args *a = p;
  fpar_vf32 acc = fpar_vf32_splat(0);

  for (int r = 0; r < a->reps; r++)
    acc += fpar_group_scan_exclusive_add_vf32(lk, cb_lane_value(lk, r));
  cb_lane_store(lk, a, acc);
}

FPAR_LANE_KERNEL(cb_lane_scan_loop, lk, p) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(lk->it), L = fpar_local_range(lk->it, 0);
  float *tmp = fpar_group_local_memory_for_overwrite(lk->it, L * 4, 64);
  fpar_vf32 acc = fpar_vf32_splat(0);

  for (int r = 0; r < a->reps; r++) {
    fpar_vf32 x = cb_lane_value(lk, r);
    memcpy(tmp + lid, &x, lk->active * 4);
    fpar_barrier(lk->it);
    if (lid == 0) {
      float s = 0;
      for (size_t i = 0; i < L; i++) {
        float v = tmp[i];
        tmp[i] = s;
        s += v;
      }
    }
    fpar_barrier(lk->it);
    memcpy(&x, tmp + lid, lk->active * 4);
    acc += x;
  }
  cb_lane_store(lk, a, acc);
}

/* ---- Phase kernels --------------------------------------------------------
 */

typedef struct cb_state {
  int r;
  float acc, s;
  size_t step;
} cb_state;

FPAR_PHASE_KERNEL(cb_phase_barrier, it, p, cb_state, st) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it);

  FPAR_PHASE_BEGIN();
  st->acc = 0;
  for (st->r = 0; st->r < a->reps; st->r++) {
    st->s = cb_value(lid, st->r);
    FPAR_PHASE_BARRIER();
    st->acc += st->s;
  }
  a->out[fpar_global_linear_id(it)] = st->acc;
  FPAR_PHASE_END();
}

FPAR_PHASE_KERNEL(cb_phase_reduce_coll, it, p, cb_state, st) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it);

  FPAR_PHASE_BEGIN();
  st->acc = 0;
  for (st->r = 0; st->r < a->reps; st->r++) {
    FPAR_PHASE_GROUP(st->s, it, reduce_add_f32, cb_value(lid, st->r));
    st->acc += st->s;
  }
  a->out[fpar_global_linear_id(it)] = st->acc;
  FPAR_PHASE_END();
}

/* By hand: the tree, the group's values in its local struct. */
typedef struct cb_local {
  float tmp[1024];
} cb_local;

FPAR_PHASE_KERNEL_LOCAL(cb_phase_reduce_tree, it, p, cb_state, st, cb_local,
                        lm) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it);

  FPAR_PHASE_BEGIN();
  st->acc = 0;
  for (st->r = 0; st->r < a->reps; st->r++) {
    lm->tmp[lid] = cb_value(lid, st->r);
    for (st->step = fpar_local_range(it, 0) / 2; st->step > 0; st->step >>= 1) {
      FPAR_PHASE_BARRIER();
      if (lid < st->step)
        lm->tmp[lid] += lm->tmp[lid + st->step];
    }
    FPAR_PHASE_BARRIER();
    st->acc += lm->tmp[0];
    FPAR_PHASE_BARRIER();
  }
  a->out[fpar_global_linear_id(it)] = st->acc;
  FPAR_PHASE_END();
}

FPAR_PHASE_KERNEL(cb_phase_scan_coll, it, p, cb_state, st) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it);

  FPAR_PHASE_BEGIN();
  st->acc = 0;
  for (st->r = 0; st->r < a->reps; st->r++) {
    FPAR_PHASE_GROUP(st->s, it, scan_exclusive_add_f32, cb_value(lid, st->r));
    st->acc += st->s;
  }
  a->out[fpar_global_linear_id(it)] = st->acc;
  FPAR_PHASE_END();
}

/* By hand: two barriers around work-item 0's scan. */
FPAR_PHASE_KERNEL_LOCAL(cb_phase_scan_loop, it, p, cb_state, st, cb_local, lm) {
  const cb_args *a = p;
  size_t lid = fpar_local_linear_id(it);

  FPAR_PHASE_BEGIN();
  st->acc = 0;
  for (st->r = 0; st->r < a->reps; st->r++) {
    lm->tmp[lid] = cb_value(lid, st->r);
    FPAR_PHASE_BARRIER();
    if (lid == 0) {
      float s = 0;
      for (size_t i = 0; i < fpar_local_range(it, 0); i++) {
        float x = lm->tmp[i];
        lm->tmp[i] = s;
        s += x;
      }
    }
    FPAR_PHASE_BARRIER();
    st->acc += lm->tmp[lid];
  }
  a->out[fpar_global_linear_id(it)] = st->acc;
  FPAR_PHASE_END();
}

#endif
