/* SPDX-License-Identifier: MIT */
/* subgroup.c - sub-group operations of fiber kernels (<fiberpar/subgroup.h>).
 *
 * A sub-group is a run of consecutive fibers (consecutive work-items along
 * dimension 0 of one row), so an operation is a round-robin rendezvous of
 * those fibers alone, nested in the group's: the first member records the
 * operation, puts FPAR__SITE_SUBGROUP in the group's rendezvous value and
 * switches to the next member; each member stores its value and switches
 * on; the last one combines the values of a reduction or a ballot, puts
 * the group's value back and resumes the first member; each member then
 * reads its result from the values.  The members then run on in order to
 * their next rendezvous, as they would after a barrier, and the fiber
 * after the sub-group is still the next to arrive at the group's: the
 * barrier's invariant (the running fiber's index is the number of fibers
 * that have arrived before it) holds throughout.  One switch per member.
 *
 * While an operation waits for members, the group's rendezvous value
 * matches no barrier and no return, so a member that arrives at one of
 * those takes the barrier's (or the return's) slow path, which reports
 * the divergence (subgroup_site.c).  The barrier's fast path is
 * unchanged.  The values' arithmetic is value.h's, shared with the
 * work-group collectives; the faults of the calls are subgroup_check.c's.
 */
#include <stdint.h>
#include <stdlib.h>

#include "sched/group/group.h"
#include "sched/group/race.h"
#include "sched/group/subgroup_check.h"
#include "sched/group/subgroup_site.h"
#include "sched/group/value.h"

/* ---- Results ------------------------------------------------------------ */

/* The reduction of in[0..n-1] in member order, of type T (t), whose
 * values' bits are in the low end of in[]. */
#define FPAR__SG_REDUCE(T, t)                                                  \
  static uint64_t fpar__sg_reduce_##t(unsigned kind, const uint64_t *in,       \
                                      size_t n) {                              \
    T r = fpar__##t##_bits(in[0]);                                             \
    size_t k;                                                                  \
                                                                               \
    for (k = 1; k < n; k++) {                                                  \
      T x = fpar__##t##_bits(in[k]);                                           \
      r = kind == FPAR__SG_ADD   ? fpar__add_##t(r, x)                         \
          : kind == FPAR__SG_MIN ? fpar__min_##t(r, x)                         \
                                 : fpar__max_##t(r, x);                        \
    }                                                                          \
    return fpar__bits_##t(r);                                                  \
  }
FPAR__SG_REDUCE(float, f32)
FPAR__SG_REDUCE(double, f64)
FPAR__SG_REDUCE(int32_t, i32)
FPAR__SG_REDUCE(uint32_t, u32)

/* The reduction `kind` of in[0..n-1] of `type`. */
static inline __attribute__((always_inline)) uint64_t
fpar__sg_reduce(unsigned kind, unsigned type, const uint64_t *in, size_t n) {
  switch (type) {
  case FPAR__SG_FLOAT:
    return fpar__sg_reduce_f32(kind, in, n);
  case FPAR__SG_DOUBLE:
    return fpar__sg_reduce_f64(kind, in, n);
  case FPAR__SG_INT:
    return fpar__sg_reduce_i32(kind, in, n);
  default:
    return fpar__sg_reduce_u32(kind, in, n);
  }
}

/* The last of n members has stored its value: the result all members
 * share, for the operations that have one (the shuffles and the broadcast
 * read each other's values). */
static inline __attribute__((always_inline)) void
fpar__sg_combine(fpar__subgroup_values *v, unsigned kind, unsigned type,
                 size_t n) {
  uint64_t all = 0;
  size_t k;

  if (kind == FPAR__SG_BALLOT) {
    for (k = 0; k < n; k++)
      all |= (uint64_t)(v->in[k] != 0) << k;
    v->all = all;
  } else if (kind >= FPAR__SG_ADD) {
    v->all = fpar__sg_reduce(kind, type, v->in, n);
  }
}

/* Where member j of n, with argument a, finds its result once every
 * member has stored its value (its own value is in[j]).  Known before the
 * member is suspended, so that the switch can read it there when the
 * member is resumed (fpar__ctx_switch_result). */
static inline __attribute__((always_inline)) const uint64_t *
fpar__sg_result_at(const fpar__subgroup_values *v, unsigned kind, size_t j,
                   size_t n, uint64_t a) {
  const uint64_t *in = v->in;

  switch (kind) {
  case FPAR__SG_SHUFFLE:
  case FPAR__SG_BROADCAST:
    return &in[a];
  case FPAR__SG_XOR:
    return &in[(j ^ a) < n ? j ^ a : j];
  case FPAR__SG_UP:
    return &in[j >= a ? j - a : j];
  case FPAR__SG_DOWN:
    return &in[j + a < n ? j + a : j];
  default:
    return &v->all;
  }
}

/* Free the values (the worker's end). */
static void fpar__sg_free(void *state) {
  fpar__subgroup_run *sg = state;

  free(sg->v);
}

static __attribute__((noinline, cold)) void fpar__sg_alloc(fpar__worker *w) {
  fpar__subgroup_run *sg = fpar__subgroup_of(w);

  if ((sg->v = malloc(2 * sizeof *sg->v)) == NULL)
    fpar__group_abort(w, FPAR_ENOMEM,
                      "no memory for the values of sub-group operations");
  fpar__worker_slot_owns(w, FPAR__SLOT_SUBGROUP, fpar__sg_free);
}

/* The pending operation of sub-group state sg ends: the group's
 * rendezvous value back, and no operation pending. */
static inline void fpar__subgroup_end(fpar__subgroup_run *sg,
                                      fpar__group_run *g) {
  g->site = sg->group_site;
  sg->op = 0;
}

/* The last member, fiber f of a sub-group of n, has stored its value
 * and the shared result: the operation ended, and the first member
 * resumed. */
static inline __attribute__((always_inline)) void
fpar__sg_resume_first(fpar__worker *w, size_t f, size_t n) {
  fpar__group_run *g = &w->run;
  size_t first = f + 1 - n;

  fpar__subgroup_end(fpar__subgroup_of(w), g);
  g->cur = first;
  if (g->fibers == FPAR__FIBERS_COPIED && first != 0)
    fpar__group_switch(w, &g->ctx[f], fpar__fiber_slot(g, f),
                       w->copy.copier_ctx, FPAR__COPY_COPIER_SLOT,
                       w->tsan_copier);
  else
    fpar__group_switch(w, &g->ctx[f], fpar__fiber_slot(g, f), g->ctx[first],
                       fpar__fiber_slot(g, first),
                       fpar__worker_tsan_fiber(w, first));
}

/* The first member of a sub-group records the operation of key `key` and
 * holds the group's rendezvous until the last member arrives; returns
 * the values the operation uses. */
static inline fpar__subgroup_values *fpar__sg_record(fpar__worker *w,
                                                     uint64_t key) {
  fpar__group_run *g = &w->run;
  fpar__subgroup_run *sg = fpar__subgroup_of(w);

  sg->group_site = g->site;
  g->site = FPAR__SITE_SUBGROUP;
  sg->op = key;
  sg->parity ^= 1;
  return sg->values = &sg->v[sg->parity];
}

/* Whether member j > 0 arrives at the operation the first member
 * recorded, with the same uniform argument (whichever path the first
 * member took). */
static inline int fpar__sg_matches(fpar__worker *w, unsigned kind,
                                   unsigned type, uint64_t a) {
  const fpar__subgroup_run *sg = fpar__subgroup_of(w);

  return w->run.site == FPAR__SITE_SUBGROUP &&
         (sg->op & ~FPAR__SG_KEY_SLOW) == fpar__sg_op_key(kind, type, a);
}

/* Let the running group's next operations take the fast path when its
 * fibers have stacks of their own and its sub-groups a power-of-two size
 * (under racecheck every member takes the slow path, which tells TSan).
 * Checked on the slow path, which a group's first operation takes, so
 * that the fast path compares the group's serial and reads the mask from
 * the worker instead of following the launch.  Returns whether it may. */
static int fpar__sg_permit(fpar__worker *w, fpar__subgroup_run *sg) {
  const fpar__launch_spec *spec = &w->launch->spec;

  if (fpar__tsan_enabled() || spec->subgroup_mask == 0 ||
      w->run.fibers != FPAR__FIBERS_OWN)
    return 0;
  if (spec->subgroups_whole) {
    sg->fast_group = w->run.serial;
    sg->fast_mask = spec->subgroup_mask;
  } else {
    sg->ragged_group = w->run.serial;
    sg->fast_mask = 0; /* the inline path's index is then 0, its permit
                          not this group's */
  }
  return 1;
}

/* How a member on the fast path leaves: the switch from fiber cur to
 * fiber next, and where its result will be when it is resumed. */
typedef struct fpar__sg_step {
  fpar__worker *w;
  size_t cur, next;
  const uint64_t *at;
} fpar__sg_step;

/* The steady state of member j of a sub-group whose last member is
 * `last` > 0 (its size less one, so that the inline path's mask serves),
 * in a group the slow path has permitted (fpar__sg_permit: fibers with
 * stacks of their own, sub-groups of a power of two; the permit's serial
 * is *permit), every member at the operation the first recorded.  A later
 * member checks only that the pending operation's key is its own
 * (fpar__subgroup_run says why that suffices).  A member stores its value
 * and is done but for the switch in *s, which the caller makes as its
 * last act (a tail call, as the barrier's); so is the last member, after
 * it combines the values of an operation with one result for all.
 * Returns 0 for everything else, and every fault: fpar__sg_op_slow's. */
static inline __attribute__((always_inline)) int
fpar__sg_arrive_as(fpar__worker *w, unsigned kind, unsigned type, uint64_t v,
                   uint64_t a, size_t j, size_t last, const size_t *permit,
                   fpar__sg_step *s) {
  fpar__subgroup_run *sg = fpar__subgroup_of(w);
  fpar__group_run *g = &w->run;
  fpar__subgroup_values *o;
  uint64_t key = fpar__sg_op_key(kind, type, a);

  if ((kind == FPAR__SG_SHUFFLE || kind == FPAR__SG_BROADCAST) && a > last)
    return 0;
  if (j == 0) {
    if (__builtin_expect(*permit != g->serial, 0))
      return 0;
    o = fpar__sg_record(w, key);
  } else {
    if (__builtin_expect(sg->op != key, 0))
      return 0;
    o = sg->values;
  }
  o->in[j] = v;
  s->w = w;
  s->at = fpar__sg_result_at(o, kind, j, last + 1, a);
  s->cur = g->cur;
  if (__builtin_expect(j != last, 1)) {
    s->next = s->cur + 1;
  } else {
    fpar__sg_combine(o, kind, type, last + 1);
    fpar__subgroup_end(sg, g);
    s->next = s->cur - last;
  }
  g->cur = s->next;
  return 1;
}

/* The steady state of a member of a group permitted with sub-groups not
 * all of S work-items (fpar__sg_permit), its index and sub-group's size
 * from its local id: as fpar__sg_arrive_as(), kind and type variables. */
static inline __attribute__((always_inline)) int
fpar__sg_arrive_ragged(fpar__worker *w, fpar_item *it, unsigned kind,
                       unsigned type, uint64_t v, uint64_t a,
                       fpar__sg_step *s) {
  const fpar__subgroup_run *sg = fpar__subgroup_of(w);
  size_t n;

  if (sg->ragged_group != w->run.serial)
    return 0;
  n = fpar_sub_group_size(it);
  return n > 1 &&
         fpar__sg_arrive_as(w, kind, type, v, a, fpar_sub_group_local_id(it),
                            n - 1, &sg->ragged_group, s);
}

/* The operation `kind` on `type` of work-item it, with its value v and
 * argument a (uniform where fpar__sg_uniform_name() names it), in any
 * state: its names are looked up only on the way to a fault. */
static __attribute__((noinline)) uint64_t
fpar__sg_op_slow(fpar_item *it, unsigned kind, unsigned type, uint64_t v,
                 uint64_t a) {
  fpar__worker *w = fpar__self;
  fpar__group_run *g;
  fpar__subgroup_run *sg;
  fpar__subgroup_values *o;
  size_t j, n, f;
  int permitted;
  FPAR__RACE_SCOPE(w);

  if (__builtin_expect(w == NULL, 0))
    return fpar__sg_outside(fpar__subgroup_name(kind, type));
  if (__builtin_expect(w->launch == NULL || !w->launch->spec.subgroup_ops, 0))
    fpar__sg_refused(w, it, fpar__subgroup_name(kind, type));
  j = fpar_sub_group_local_id(it);
  n = fpar_sub_group_size(it);
  if ((kind == FPAR__SG_SHUFFLE || kind == FPAR__SG_BROADCAST) && a >= n)
    fpar__sg_bad_lane(w, fpar_local_linear_id(it), a,
                      fpar__subgroup_name(kind, type), n);
  if (n == 1) /* every operation of one value is that value */
    return kind == FPAR__SG_BALLOT ? v != 0 : v;
  g = &w->run;
  sg = fpar__subgroup_of(w);
  if (__builtin_expect(g->fibers == FPAR__LOOP, 0)) {
    /* Work-item 0 turns the group into fibers; any other comes after
     * work-items that returned. */
    if (fpar_local_linear_id(it) != 0)
      fpar__sg_after_loop(w, fpar_local_linear_id(it), j,
                          fpar__subgroup_name(kind, type));
    fpar__group_promote(w);
  }
  f = g->cur;
  if (__builtin_expect(sg->v == NULL, 0))
    fpar__sg_alloc(w);
  permitted = fpar__sg_permit(w, sg);
  if (j == 0) {
    o = fpar__sg_record(w, fpar__sg_op_key(kind, type, a) |
                               (permitted ? 0 : FPAR__SG_KEY_SLOW));
  } else {
    if (__builtin_expect(!fpar__sg_matches(w, kind, type, a), 0))
      fpar__sg_check_member(w, fpar_local_linear_id(it), j, kind, type, a,
                            fpar__subgroup_name(kind, type));
    o = sg->values;
  }
  o->in[j] = v;
  fpar__race_sg_arrive(w, f - j);
  if (j + 1 < n) {
    fpar__group_pass_on(w, &g->ctx[f]);
  } else {
    fpar__sg_combine(o, kind, type, n);
    fpar__sg_resume_first(w, f, n);
  }
  fpar__race_sg_depart(w, f - j);
  return *fpar__sg_result_at(o, kind, j, n, a);
}

/* The steady state where every sub-group has S work-items, inlined into
 * each public function so that kind and type are constants: the member's
 * index and the sub-group's size come from the fiber's index.  (A group
 * permitted with sub-groups of other sizes has a mask of 0 here, so that
 * each call goes on to fpar__sg_other*(), which has their steady state:
 * their index arithmetic here would make every call save registers, and
 * cost a third of the operation.) */
static inline __attribute__((always_inline)) int
fpar__sg_arrive(unsigned kind, unsigned type, uint64_t v, uint64_t a,
                fpar__sg_step *s) {
  fpar__worker *w = fpar__self;
  const fpar__subgroup_run *sg;
  size_t mask;

  if (__builtin_expect(w == NULL, 0))
    return 0;
  sg = fpar__subgroup_of(w);
  /* Fiber f runs work-item f, or under FIBERPAR_SCHEDULE one in the same
   * place of another sub-group (they move as wholes).  A mask left from
   * another launch fails the checks of fpar__sg_arrive_as(). */
  mask = sg->fast_mask;
  return fpar__sg_arrive_as(w, kind, type, v, a, w->run.cur & mask, mask,
                            &sg->fast_group, s);
}

/* The switch that ends a member's arrival on a steady path (T and
 * `suffix` the result's C type and switch form). */
#define FPAR__SG_SWITCH(T, suffix, s)                                          \
  (T) fpar__group_switch##suffix(                                              \
      (s).w, &(s).w->run.ctx[(s).cur], (s).cur, (s).w->run.ctx[(s).next],      \
      (s).next, fpar__worker_tsan_fiber((s).w, (s).next), (s).at)

/* Each operation (and each of its ways out of line) starts on a cache line, so
 * that its steady path spans as few of the processor's fetch blocks as it can:
 * measured on an Intel Xeon, a shuffle_xor took 5.2-5.5 ns per work-item at the
 * 16-byte alignment GCC gave it and 4.6 ns at 64. */
#define FPAR__SG_ENTRY __attribute__((aligned(64)))

/* The way of the calls the inline path does not take, for results of C
 * type T (the switch's result form `suffix`, FROM converting the slow
 * path's bits), entered by a tail call: the steady state of groups whose
 * sub-groups are not all whole, with its switch a tail call too, else
 * fpar__sg_op_slow(). */
#define FPAR__SG_OTHER(T, suffix, FROM)                                        \
  static FPAR__SG_ENTRY __attribute__((noinline)) T fpar__sg_other##suffix(    \
      fpar_item *it, unsigned kind, unsigned type, uint64_t v, uint64_t a) {   \
    fpar__worker *w = fpar__self;                                              \
    fpar__sg_step s;                                                           \
                                                                               \
    if (w != NULL && fpar__sg_arrive_ragged(w, it, kind, type, v, a, &s))      \
      return FPAR__SG_SWITCH(T, suffix, s);                                    \
    return FROM(fpar__sg_op_slow(it, kind, type, v, a));                       \
  }

/* The bits of a ballot's mask, unchanged. */
static inline uint64_t fpar__sg_mask_bits(uint64_t b) {
  return b;
}

FPAR__SG_OTHER(uint64_t, _result, fpar__sg_mask_bits)
FPAR__SG_OTHER(uint32_t, _u32, fpar__u32_bits)
FPAR__SG_OTHER(float, _f32, fpar__f32_bits)
FPAR__SG_OTHER(double, _f64, fpar__f64_bits)
#undef FPAR__SG_OTHER

/* The operation `kind` on `type` (its C type T, the switch's result form
 * `suffix`) of work-item it with value v and argument a.  Every member
 * switches from the same call, the last one's too: a member resumed by
 * the call it was suspended at returns by `ret`, which the processor
 * predicts. */
#define FPAR__SG_OP(T, suffix, it, kind, type, v, a)                           \
  do {                                                                         \
    fpar__sg_step s;                                                           \
                                                                               \
    if (fpar__sg_arrive(kind, type, v, a, &s))                                 \
      return FPAR__SG_SWITCH(T, suffix, s);                                    \
    return (T)fpar__sg_other##suffix(it, kind, type, v, a);                    \
  } while (0)

/* ---- The public operations ------------------------------------------------
 */

FPAR__SG_ENTRY uint64_t fpar_sub_group_ballot(fpar_item *it, int pred) {
  FPAR__SG_OP(uint64_t, _result, it, FPAR__SG_BALLOT, FPAR__SG_INT,
              (uint64_t)(pred != 0), 0);
}

#define FPAR__SG_TYPE(t, T, TYPE, TO, R)                                       \
  FPAR__SG_ENTRY T fpar_sub_group_shuffle_##t(fpar_item *it, T v,              \
                                              size_t lane) {                   \
    FPAR__SG_OP(T, R, it, FPAR__SG_SHUFFLE, TYPE, TO(v), lane);                \
  }                                                                            \
  FPAR__SG_ENTRY T fpar_sub_group_shuffle_xor_##t(fpar_item *it, T v,          \
                                                  unsigned mask) {             \
    FPAR__SG_OP(T, R, it, FPAR__SG_XOR, TYPE, TO(v), mask);                    \
  }                                                                            \
  FPAR__SG_ENTRY T fpar_sub_group_shuffle_up_##t(fpar_item *it, T v,           \
                                                 unsigned delta) {             \
    FPAR__SG_OP(T, R, it, FPAR__SG_UP, TYPE, TO(v), delta);                    \
  }                                                                            \
  FPAR__SG_ENTRY T fpar_sub_group_shuffle_down_##t(fpar_item *it, T v,         \
                                                   unsigned delta) {           \
    FPAR__SG_OP(T, R, it, FPAR__SG_DOWN, TYPE, TO(v), delta);                  \
  }                                                                            \
  FPAR__SG_ENTRY T fpar_sub_group_broadcast_##t(fpar_item *it, T v,            \
                                                size_t lane) {                 \
    FPAR__SG_OP(T, R, it, FPAR__SG_BROADCAST, TYPE, TO(v), lane);              \
  }                                                                            \
  FPAR__SG_ENTRY T fpar_sub_group_reduce_add_##t(fpar_item *it, T v) {         \
    FPAR__SG_OP(T, R, it, FPAR__SG_ADD, TYPE, TO(v), 0);                       \
  }                                                                            \
  FPAR__SG_ENTRY T fpar_sub_group_reduce_min_##t(fpar_item *it, T v) {         \
    FPAR__SG_OP(T, R, it, FPAR__SG_MIN, TYPE, TO(v), 0);                       \
  }                                                                            \
  FPAR__SG_ENTRY T fpar_sub_group_reduce_max_##t(fpar_item *it, T v) {         \
    FPAR__SG_OP(T, R, it, FPAR__SG_MAX, TYPE, TO(v), 0);                       \
  }

FPAR__SG_TYPE(f32, float, FPAR__SG_FLOAT, fpar__bits_f32, _f32)
FPAR__SG_TYPE(f64, double, FPAR__SG_DOUBLE, fpar__bits_f64, _f64)
FPAR__SG_TYPE(i32, int32_t, FPAR__SG_INT, fpar__bits_i32, _u32)
FPAR__SG_TYPE(u32, uint32_t, FPAR__SG_UINT, fpar__bits_u32, _u32)
