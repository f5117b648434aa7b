/* SPDX-License-Identifier: MIT */
/* collective_combine.h - what the work-group collectives compute
 * (collective_combine.c): their op codes, their names, which are their
 * rendezvous sites, and the combining of the deposited values that the
 * last arrival of a rendezvous (barrier.c) or the phase runner does.
 * collective.c, which deposits values and reads results, sits above the
 * barrier; this sits below it. */
#ifndef FPAR_SCHED_GROUP_COLLECTIVE_COMBINE_H
#define FPAR_SCHED_GROUP_COLLECTIVE_COMBINE_H

#include <stddef.h>
#include <stdint.h>

#include "sched/group/worker.h"

/* The work-group collective of the running group's current rendezvous,
 * the worker's FPAR__SLOT_COLLECTIVE: each arrival deposits its values in
 * slots (one per work-item and value size, in local linear id order), the
 * last one combines them.  Slots deposited in local-id order from the
 * first may be folded as they come (fpar__collective_fold), the same
 * operations in the same order, so that the last arrival only folds the
 * rest.  The slots are grown on demand and reused by every group. */
typedef struct fpar__collective {
  unsigned op;      /* FPAR_GROUP_OP of the pending collective; 0: none */
  const char *site; /* its rendezvous site, fpar__collective_name(op) */
  size_t src;       /* its broadcast source */
  uint64_t result;  /* a broadcast's, reduction's, any's or all's value */
  uint64_t running; /* the value of the slots folded so far, which goes to
                       result once all are (work-items may still be reading
                       the last result while the next is folded) */
  size_t folded;    /* the slots folded so far, from the first */
  size_t in_order;  /* the slots deposited in local-id order from the first
                       by calls on the general path (lane calls; scalar
                       ones on copied fibers); set by the first arrival */
  /* The 4-byte types' slots, then from wide_at the 8-byte types': a
   * deposit never touches the slots of the other size, where work-items
   * may yet have to read their results of the collective before (a scan
   * of another size).  Room for slot_items work-items. */
  unsigned char *slots;
  size_t wide_at;
  size_t slot_items;
} fpar__collective;
_Static_assert(sizeof(fpar__collective) <= FPAR__SLOT_BYTES,
               "the collective's state fits its slot");

/* The collective state of worker w. */
static inline fpar__collective *fpar__collective_of(fpar__worker *w) {
  return fpar__worker_slot(w, FPAR__SLOT_COLLECTIVE);
}

/* Slots deposited in order are folded once at least this many wait: a
 * fold of fewer (a call of 8 or 16 lanes) costs its entry and the
 * store and reload of the running value for little work, one of many
 * more is a chain of dependent operations longer than the switches it
 * should overlap.  Measured with lane scans and reductions of floats at
 * W = 16 and W = 8 (docs/performance.md): 32 was fastest of 16, 32, 48
 * and 64. */
#define FPAR__COLLECTIVE_FOLD_MIN 32u

#define FPAR__COLLECTIVE_KINDS (FPAR_GROUP_ALL + 1)
#define FPAR__COLLECTIVE_TYPES (FPAR_GROUP_F64 + 1)

/* The parts of an FPAR_GROUP_OP code. */
static inline unsigned fpar__collective_kind(unsigned op) {
  return op >> 4 & 15u;
}
static inline unsigned fpar__collective_type(unsigned op) {
  return op & 15u;
}
/* Whether a kind's result is each work-item's own: the header's test,
 * which the inline FPAR_PHASE_GROUP reads by. */
static inline int fpar__collective_is_scan(unsigned kind) {
  return FPAR__GROUP_IS_SCAN(kind);
}
/* Bytes of one value of a type (i32, u32, i64, u64, f32, f64). */
static inline size_t fpar__collective_type_size(unsigned type) {
  return (type == FPAR_GROUP_I64 || type == FPAR_GROUP_U64 ||
          type == FPAR_GROUP_F64)
             ? 8
             : 4;
}

/* Work-items of the caller's group: the group's own range (a remainder
 * group of a non-uniform launch is smaller). */
static inline size_t fpar__group_items(const fpar_item *it) {
  return fpar_local_range(it, 0) * fpar_local_range(it, 1) *
         fpar_local_range(it, 2);
}

/* The collective's name: its scalar or its lane form.  It is also the
 * site of its rendezvous. */
const char *fpar__collective_name(unsigned op);

/* Fold the pending collective's slots from c->folded up to `to` (past
 * the caller's last): a reduction's result or a scan's prefix so far. */
void fpar__collective_fold(fpar__worker *w, size_t to);

/* Combine the values of the pending collective (its op is not 0): called
 * by the last arrival of a rendezvous, or by the phase runner between two
 * phases; it is the group's work-item that stands for all. */
void fpar__collective_run(fpar__worker *w, const fpar_item *it);

/* Combine the pending collective, if there is one. */
static inline void fpar__collective_combine(fpar__worker *w,
                                            const fpar_item *it) {
  if (__builtin_expect(fpar__collective_of(w)->op != 0, 0))
    fpar__collective_run(w, it);
}

/* The same between two phases of a group run as phase loops, whose calls
 * deposit inline and name their collective in the group's view: it
 * becomes the pending one, and a reduction's result goes to the view,
 * where the next phase's calls read it (<fiberpar/group.h>). */
static inline void fpar__collective_combine_phase(fpar__worker *w,
                                                  const fpar_item *it) {
  fpar__collective *c = fpar__collective_of(w);

  if (w->run.phase_op != 0) {
    c->op = w->run.phase_op;
    c->src = 0;
    w->run.phase_op = 0;
  }
  c->folded = 0; /* phase loops deposit without folding */
  if (__builtin_expect(c->op != 0, 0)) {
    fpar__collective_run(w, it);
    w->run.view.phase_result = c->result;
  }
}

/* Make room in the slots for the values of n work-items (8 and 4 bytes
 * each), or end the group (FPAR_ENOMEM). */
void fpar__collective_grow(fpar__worker *w, size_t n);

/* Make room in the slots for n work-items. */
static inline void fpar__collective_reserve(fpar__worker *w, size_t n) {
  if (__builtin_expect(fpar__collective_of(w)->slot_items < n, 0))
    fpar__collective_grow(w, n);
}

/* The slots of the values of a type (its local-id order array). */
static inline unsigned char *fpar__collective_slots(const fpar__collective *c,
                                                    unsigned type) {
  return c->slots + (fpar__collective_type_size(type) == 8 ? c->wide_at : 0);
}

/* Whether a rendezvous site is a collective's (the name of its function). */
int fpar__site_is_collective(const char *site);

/* Describe a rendezvous site for a message: "the barrier at file:line" or
 * "the collective fpar_group_reduce_add_f32".  Returns buf. */
const char *fpar__site_what(char *buf, size_t len, const char *site);

#endif
