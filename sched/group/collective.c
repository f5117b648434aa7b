/* SPDX-License-Identifier: MIT */
/* collective.c - work-group collectives (<fiberpar/group.h>) as one
 * rendezvous of the group's barrier.
 *
 * Each work-item deposits its values in the worker's slots of their size
 * (4 or 8 bytes), at its local linear id (a call of a lane kernel
 * deposits its lanes), and arrives at the rendezvous whose site is the
 * collective's name.  The first arrival records the operation; the slots
 * are combined in local-id order, a reduction or broadcast into one
 * result, a scan in place: those deposited in order as they come
 * (fpar__collective_meet), the rest by the last arrival (barrier.c's slow
 * path).  Each work-item reads its result when it resumes: the result, or
 * its own slots.  Neither is written again before every work-item has
 * read it: the next result is stored once every work-item has arrived at
 * the next collective, a deposit writes only the depositor's slots of its
 * size, and a fold only the slots of work-items that have arrived.  What
 * a collective computes is in collective_combine.c, below the barrier.
 *
 * Phase kernels run as loops deposit in one phase (fpar_group_phase_
 * arrive), the phase runner combines, and the next phase reads
 * (fpar_group_phase_result).  Run as fibers, a phase kernel deposits and
 * then meets the others at its barrier, whose last arrival combines.
 *
 * A work-item that reaches a different collective, a barrier or the end
 * of the kernel is reported by the rendezvous, which compares sites; a
 * work-item whose collective differs from the first arrival's deposits
 * nothing, so the slots never hold values of another type.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/base/error.h"
#include "sched/group/barrier.h"
#include "sched/group/collective_combine.h"
#include "sched/group/race.h"

/* ---- Arriving and reading ----------------------------------------------- */

static __attribute__((noinline, cold)) int fpar__collective_outside(void) {
  return fpar__set_error(FPAR_ENOTKERNEL,
                         "a work-group collective was called on a thread "
                         "that runs no kernel");
}

/* Whether the running work-item is the rendezvous' first arrival: in a
 * group that still runs as a loop (or as phase loops), the first to
 * deposit; on fibers, fiber 0. */
static inline int fpar__collective_first(fpar__worker *w) {
  return w->run.fibers == FPAR__LOOP ? fpar__collective_of(w)->op == 0
                                     : w->run.cur == 0;
}

/* Copy the values of a call: one (constant sizes become moves) or the
 * lanes of a lane kernel's call. */
static inline void fpar__copy_values(void *to, const void *from, size_t size,
                                     unsigned lanes) {
  if (lanes == 1 && size == 4)
    memcpy(to, from, 4);
  else if (lanes == 1)
    memcpy(to, from, 8);
  else
    memcpy(to, from, lanes * size);
}

/* Everything but a later arrival's deposit of the same collective: the
 * first arrival (which checks the call and records the operation),
 * another collective (which deposits nothing: the rendezvous reports it)
 * and another broadcast source.  phase: called by FPAR_PHASE_GROUP. */
static __attribute__((noinline, cold)) int
fpar__collective_arrive_slow(fpar__worker *w, fpar_item *it, unsigned op,
                             const void *in, size_t src, int phase) {
  fpar__collective *c = fpar__collective_of(w);
  unsigned kind = fpar__collective_kind(op), type = fpar__collective_type(op);
  size_t lid, n;

  if (w->launch == NULL || w->launch->spec.model == FPAR__SCOPED ||
      w->launch->spec.model == FPAR__HIERARCHICAL)
    fpar__group_abort(w, FPAR_ENOTKERNEL,
                      "a work-group collective was called in a scoped or "
                      "hierarchical group function, which has none (combine "
                      "the items' values with a loop)");
  lid = fpar_local_linear_id(it);
  n = fpar__group_items(it);
  if (it->lanes != 1 && !(op & FPAR_GROUP_LANE_FORM))
    fpar__group_abort(w, FPAR_EINVAL,
                      "work-items %zu-%zu, a call of a lane kernel, called "
                      "%s(), which takes one work-item's value; lane kernels "
                      "call the lane forms (fpar_group_..._vf32 and so on)",
                      lid, lid + it->lanes - 1, fpar__collective_name(op));
  if ((op & ~(FPAR_GROUP_LANE_FORM | 0xffu)) != 0 ||
      kind < FPAR_GROUP_BROADCAST || kind > FPAR_GROUP_ALL ||
      type >= FPAR__COLLECTIVE_TYPES ||
      (kind >= FPAR_GROUP_ANY && type != FPAR_GROUP_I32))
    fpar__group_abort(w, FPAR_EINVAL,
                      "work-item %zu called a work-group collective with op "
                      "%#x, which is not an FPAR_GROUP_OP(kind, type)",
                      lid, op);
  if (!phase && w->launch->spec.model == FPAR__PHASE)
    fpar__group_abort(w, FPAR_EINVAL,
                      "work-item %zu called %s() in a phase kernel that runs "
                      "as loops; there a collective is a phase boundary: "
                      "FPAR_PHASE_GROUP(dst, it, %s, ...)",
                      lid, fpar__collective_name(op),
                      fpar__collective_name(op) + strlen("fpar_group_"));
  if (!fpar__collective_first(w)) {
    if (c->op != op)
      return 0; /* the rendezvous reports the mismatch */
    fpar__group_abort(w, FPAR_EINVAL,
                      "work-item %zu broadcasts from local id %zu while the "
                      "work-items before it broadcast from local id %zu (%s)",
                      lid, src, c->src, fpar__collective_name(op));
  }
  if (kind == FPAR_GROUP_BROADCAST && src >= n)
    fpar__group_abort(w, FPAR_EINVAL,
                      "work-item %zu broadcasts from local id %zu, beyond its "
                      "group of %zu work-items (%s)",
                      lid, src, n, fpar__collective_name(op));
  fpar__collective_reserve(w, n);
  c->op = op;
  c->site = fpar__collective_name(op);
  c->src = kind == FPAR_GROUP_BROADCAST ? src : 0;
  c->folded = 0;
  c->in_order = 0;
  fpar__copy_values(fpar__collective_slots(c, type) +
                        lid * fpar__collective_type_size(type),
                    in, fpar__collective_type_size(type), it->lanes);
  return 1;
}

/* Whether the running work-item's deposit is the steady state: a later
 * arrival of the collective the first one recorded (which the first
 * arrival checked). */
static inline int fpar__collective_steady(fpar__worker *w, const fpar_item *it,
                                          unsigned op, size_t src) {
  const fpar__collective *c = fpar__collective_of(w);

  return !(
      fpar__collective_first(w) || op != c->op || op == 0 ||
      (src != c->src && fpar__collective_kind(op) == FPAR_GROUP_BROADCAST) ||
      (it->lanes != 1 && !(op & FPAR_GROUP_LANE_FORM)));
}

/* Store the caller's values in its slots (the steady state). */
static inline void fpar__collective_deposit(fpar__worker *w,
                                            const fpar_item *it, unsigned op,
                                            const void *in) {
  size_t size = fpar__collective_type_size(fpar__collective_type(op));

  fpar__copy_values(fpar__collective_slots(fpar__collective_of(w),
                                           fpar__collective_type(op)) +
                        fpar_local_linear_id(it) * size,
                    in, size, it->lanes);
}

/* Deposit the caller's values.  The steady state is a comparison and a
 * store.  Returns whether it deposited (a work-item at another collective
 * does not). */
static inline int fpar__collective_arrive(fpar__worker *w, fpar_item *it,
                                          unsigned op, const void *in,
                                          size_t src, int phase) {
  if (__builtin_expect(!fpar__collective_steady(w, it, op, src), 0))
    return fpar__collective_arrive_slow(w, it, op, in, src, phase);
  fpar__collective_deposit(w, it, op, in);
  return 1;
}

static __attribute__((noinline, cold)) void
fpar__collective_bad_result(fpar__worker *w, const fpar_item *it, unsigned op) {
  fpar__group_abort(w, FPAR_EINVAL,
                    "work-item %zu asked for the result of a work-group "
                    "collective (op %#x) it did not take part in",
                    fpar_local_linear_id(it), op);
}

/* Where the caller's result of the collective `op` is: the result, or
 * (a scan's) its own slots. */
static inline const unsigned char *
fpar__collective_result_at(fpar__worker *w, const fpar_item *it, unsigned op) {
  const fpar__collective *c = fpar__collective_of(w);

  if (!fpar__collective_is_scan(fpar__collective_kind(op)))
    return (const unsigned char *)&c->result;
  return fpar__collective_slots(c, fpar__collective_type(op)) +
         fpar_local_linear_id(it) *
             fpar__collective_type_size(fpar__collective_type(op));
}

/* Read the caller's result of the collective `op` just combined.
 * checked: whether op's type and the caller's place in the slots are
 * still to be checked (a phase's read, which deposited nothing); a call
 * that deposited has had both checked by its arrival. */
static inline void fpar__collective_read(fpar__worker *w, const fpar_item *it,
                                         unsigned op, void *out, int checked) {
  const fpar__collective *c = fpar__collective_of(w);
  unsigned type = fpar__collective_type(op), lanes;
  size_t size, at;

  if (checked && __builtin_expect(type >= FPAR__COLLECTIVE_TYPES, 0))
    fpar__collective_bad_result(w, it, op);
  size = fpar__collective_type_size(type);
  if (!fpar__collective_is_scan(fpar__collective_kind(op))) {
    fpar__copy_values(out, fpar__collective_result_at(w, it, op), size, 1);
    return;
  }
  /* A scalar form reads one value, whatever the call covers. */
  lanes = op & FPAR_GROUP_LANE_FORM ? it->lanes : 1;
  at = fpar_local_linear_id(it);
  if (checked && __builtin_expect(at + lanes > c->slot_items, 0))
    fpar__collective_bad_result(w, it, op);
  fpar__copy_values(out, fpar__collective_result_at(w, it, op), size, lanes);
}

/* Deposit the caller's values and meet the group's other work-items: a
 * collective but for its steady state and the read. */
static void fpar__collective_meet(fpar__worker *w, fpar_item *it, unsigned op,
                                  const void *in, size_t src) {
  fpar__collective *c = fpar__collective_of(w);

  /* Values that come in local-id order are folded as they come, a few
   * calls' at a time: a lane kernel's calls fold their lanes while the
   * switches to the next calls run, instead of the last arrival folding
   * all (a chain of dependent operations that nothing overlaps). */
  if (fpar__collective_arrive(w, it, op, in, src, 0) &&
      fpar_local_linear_id(it) == c->in_order) {
    c->in_order += it->lanes;
    if (c->in_order - c->folded >= FPAR__COLLECTIVE_FOLD_MIN)
      fpar__collective_fold(w, c->in_order);
  }
  fpar__rendezvous(w, it, fpar__collective_name(op));
}

/* Everything but the steady state of a collective: its first and last
 * arrivals, groups that run as loops or on copied fibers, misuse. */
static __attribute__((noinline, cold)) int
fpar__collective_slow(fpar__worker *w, fpar_item *it, unsigned op,
                      const void *in, void *out, size_t src) {
  if (__builtin_expect(w == NULL, 0))
    return fpar__collective_outside();
  fpar__collective_meet(w, it, op, in, src);
  fpar__collective_read(w, it, op, out, 0);
  return 0;
}

/* The lane forms read their result where it is, in the kernel's code: a
 * copy here would store a vector in pieces that the kernel then loads
 * whole, which the processor cannot forward from its store buffer
 * (measured: a lane scan at L = 256 took 1.9 instead of 1.5 ns per
 * work-item with the copy in four 16-byte moves). */
const void *fpar_group_collective_at(fpar_item *it, unsigned op, const void *in,
                                     size_t src) {
  fpar__worker *w = fpar__self;
  FPAR__RACE_SCOPE(w);

  if (__builtin_expect(w == NULL, 0)) {
    (void)fpar__collective_outside();
    return NULL;
  }
  fpar__collective_meet(w, it, op, in, src);
  return fpar__collective_result_at(w, it, op);
}

/* Whether a scalar call is in the steady state (a later arrival of one
 * work-item, neither the first nor the last, on fibers with stacks of their
 * own), the one path the scalar engines keep free of calls. */
static inline int fpar__collective_in_steady_state(fpar__worker *w,
                                                   fpar_item *it, unsigned op,
                                                   size_t src) {
  return w != NULL && it->lanes == 1 &&
         fpar__collective_steady(w, it, op, src) &&
         fpar__rendezvous_steady(w, fpar__collective_of(w)->site);
}

/* The generic engine: a call of one work-item passes its value through
 * fpar_group_collective_bits(), whose steady state is free of calls; a
 * lane call meets the group's other calls and reads its results. */
int fpar_group_collective(fpar_item *it, unsigned op, const void *in, void *out,
                          size_t src) {
  fpar__worker *w = fpar__self;
  size_t size = fpar__collective_type_size(fpar__collective_type(op));
  uint64_t bits = 0;

  if (w == NULL || it->lanes != 1) {
    FPAR__RACE_SCOPE(w);
    return fpar__collective_slow(w, it, op, in, out, src);
  }
  memcpy(&bits, in, size);
  bits = fpar_group_collective_bits(it, op, bits, src);
  memcpy(out, &bits, size);
  return 0;
}

/* The slow path of fpar_group_collective_bits(). */
static __attribute__((noinline, cold)) uint64_t
fpar__collective_bits_slow(fpar__worker *w, fpar_item *it, unsigned op,
                           uint64_t x, size_t src) {
  uint64_t r = 0;
  FPAR__RACE_SCOPE(w);

  fpar__collective_slow(w, it, op, &x, &r, src);
  return r;
}

/* The scalar forms' engine.  Its steady state (a later arrival of one
 * work-item, neither the first nor the last, on fibers with stacks of
 * their own) deposits the value and ends with the switch, a tail call as in the
 * barrier: the work-item's switch returns, when it is resumed, the 64 bits
 * where its result is (the result, or a scan's slot), so nothing of the
 * collective's crosses the switch in a frame of its own. */
uint64_t fpar_group_collective_bits(fpar_item *it, unsigned op, uint64_t x,
                                    size_t src) {
  fpar__worker *w = fpar__self;

  if (__builtin_expect(!fpar__collective_in_steady_state(w, it, op, src), 0))
    return fpar__collective_bits_slow(w, it, op, x, src);
  fpar__collective_deposit(w, it, op, &x);
  return fpar__group_pass_on_own_result(w, &w->run.ctx[w->run.cur],
                                        fpar__collective_result_at(w, it, op));
}

int fpar_group_phase_arrive(fpar_item *it, unsigned op, const void *in,
                            size_t src) {
  fpar__worker *w = fpar__self;
  FPAR__RACE_SCOPE(w);

  if (__builtin_expect(w == NULL, 0))
    return fpar__collective_outside();
  fpar__collective_arrive(w, it, op, in, src, 1);
  return 0;
}

int fpar_group_phase_result(fpar_item *it, unsigned op, void *out) {
  fpar__worker *w = fpar__self;
  FPAR__RACE_SCOPE(w);

  if (__builtin_expect(w == NULL, 0))
    return fpar__collective_outside();
  fpar__collective_read(w, it, op, out, 1);
  return 0;
}
