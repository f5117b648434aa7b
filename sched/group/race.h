/* SPDX-License-Identifier: MIT */
/* race.h - racecheck: what ThreadSanitizer is told about the work-items of
 * a group, so that it reports races between work-items (docs/racecheck.md).
 *
 * In a TSan build every work-item runs on a TSan fiber of its own (groups
 * are fibers from their start, sched/group/group.c) and switches between
 * them order nothing.  Work-items are ordered where the kernel model
 * orders them:
 *   - at a group rendezvous (barrier, collective, phase boundary, return
 *     from the kernel) each arrival releases one of two sync words and,
 *     resumed, acquires it.  Two words, chosen by the parity of the
 *     rendezvous, because the rendezvous is round-robin: work-item i + 1
 *     leaves rendezvous k when work-item i arrives at rendezvous k + 1,
 *     and must not acquire what the earlier work-items did after k;
 *   - at a sub-group operation the members release and acquire a word of
 *     their sub-group;
 *   - the runner releases a group-start word once the group is set up,
 *     and each fiber acquires it when it starts a work-item; the runner
 *     leaves the group's last rendezvous having acquired every work-item's
 *     return (so reuse of local memory and stacks by the next group, and
 *     the launch's completion, are ordered after the group).
 * The runtime's own code that runs on a work-item's fiber reads and writes
 * state every fiber of the group shares (the rendezvous' bookkeeping,
 * collective and sub-group values, group-local objects): it runs between
 * fpar__race_enter and fpar__race_leave, which tell TSan to ignore its
 * accesses.  The fibers are named after their kernel, group and local id.
 *
 * Scoped and hierarchical groups run their group function on the runner;
 * the logical items of an item loop (distribute_items, a hierarchical
 * work-item loop) each run under an identity of their own: a TSan fiber
 * and a stack of its own, switched to for the item and back (stacks of
 * their own, because items that shared the runner's stack would write one
 * another's frames, which TSan would report).  A scoped item is named
 * after its local id in the work group, a hierarchical one after its
 * physical work-item, which runs all the logical items mapped to it in
 * order.  The runner releases the group-start word before each item and
 * each item acquires it; each item releases the switch word when it
 * returns, and the runner acquires it where the model orders the items
 * before what follows: a group barrier (fpar_group_barrier, the _and_wait
 * forms), the end of a hierarchical loop (its implicit barrier), and the
 * runtime's own hand-offs, the end of a memory environment (whose local
 * memory the next one reuses) and of the group function.  The end of a
 * scoped distribute_items loop orders nothing (as in AdaptiveCpp): an
 * item of the next loop that reads what another item wrote, with no
 * barrier in between, is reported.  (A call of a lanes runner, or of a
 * runner built against an older header, is one identity for several
 * items, so the end of such a loop still orders them.)  The
 * group function's own code from there to the next of those points is
 * not checked: it is not ordered after the items, and it reuses the
 * frames of its stack whose variables the items read (a context struct),
 * which are the group function's own (private to each work-item on a
 * GPU), so checking it would report that reuse.
 *
 * Everything here compiles to nothing in builds without TSan.
 */
#ifndef FPAR_SCHED_GROUP_RACE_H
#define FPAR_SCHED_GROUP_RACE_H

#include "sched/group/worker.h"

/* Largest group whose work-items are fibers from the group's start. */
#define FPAR__RACE_MAX_FIBERS 1024

#ifdef FPAR__TSAN

/* The running fiber enters runtime code: its accesses are ignored until
 * the matching fpar__race_leave (calls nest).  w may be NULL. */
void fpar__race_enter(fpar__worker *w);
void fpar__race_leave(fpar__worker *w);

/* A context starts afresh on the running fiber slot (whose TSan fiber may have
 * been left inside runtime code by a fiber that died or was abandoned). */
void fpar__race_fresh(fpar__worker *w);

/* The running fiber arrives at a group rendezvous; returns the parity
 * that fpar__race_depart takes when it is resumed. */
unsigned fpar__race_arrive(fpar__worker *w);
void fpar__race_depart(fpar__worker *w, unsigned parity);

/* The running fiber arrives at (leaves) an operation of the sub-group
 * whose first member is fiber `first`. */
void fpar__race_sg_arrive(fpar__worker *w, size_t first);
void fpar__race_sg_depart(fpar__worker *w, size_t first);

/* The running fiber leaves for another fiber of the group (any switch):
 * what it did is ordered before what the scheduler does once it has the
 * worker back (fpar__race_sched_back), after the launch's groups or a
 * fault that abandoned the group's fibers where they stood. */
void fpar__race_switch_out(fpar__worker *w);
void fpar__race_sched_back(fpar__worker *w);

/* The runner has set the group up (and runs its work-item 0); items
 * names what fiber 0 carries ("work-item 5"), for TSan's reports. */
void fpar__race_group_start(fpar__worker *w, const char *items);

/* The running fiber starts a work-item of the group; items names it. */
void fpar__race_item_start(fpar__worker *w, const char *items);

/* Room for the racecheck state of n fiber slots.  Returns 0 or
 * FPAR_ENOMEM. */
int fpar__race_reserve(fpar__worker *w, size_t n);

/* The runner makes the call of logical items `item` to `last` (SIZE_MAX:
 * to the end of the group) of an item loop: fn(si, arg), or
 * row(si, arg, x_end) when fn is NULL, as the identity of `item`, named
 * after its items and `kind` ("logical item 5", "logical items 0-15";
 * item n shares the identity of item n mod the number of identities, at
 * most FPAR__RACE_MAX_FIBERS; where no stack can be had for it, the call
 * is the group function's). */
void fpar__race_item_run(fpar__worker *w, size_t item, size_t last,
                         const char *kind, fpar_s_item_fn fn, fpar_s_row_fn row,
                         fpar_s_item *si, void *arg, size_t x_end);

/* The runner is at the end of an item loop of `kind` (FPAR__ITEMS_*;
 * grouped: its calls ran several items each as one identity): a scoped
 * loop of one item per call orders nothing (and the runner's accesses are
 * ignored until the next synchronising point), others order their items
 * before what follows. */
void fpar__race_items_end(fpar__worker *w, int kind, int grouped);

/* The runner is at a point that orders what the items of the group's
 * item loops did so far before what follows (see above). */
void fpar__race_items_sync(fpar__worker *w);

/* If the code running on w is an item's call on its identity's stack,
 * store that stack's pool and slot and return 1; else return 0.  The
 * fault handler's question (async-signal-safe): a guard of those stacks
 * is an item's overflow. */
static inline int fpar__race_item_stack(const fpar__worker *w,
                                        const fpar__stack_pool **pool,
                                        size_t *slot) {
  if (w->race.items.running == 0)
    return 0;
  *pool = &w->race.items.stacks;
  *slot = w->race.items.running - 1;
  return 1;
}

/* The items whose call the last fault cut short ("logical item 5"), or
 * NULL when it struck outside item calls. */
static inline const char *fpar__race_faulted(const fpar__worker *w) {
  return w->race.items.faulted[0] != '\0' ? w->race.items.faulted : NULL;
}

/* Free the racecheck state (the worker's end). */
void fpar__race_destroy(fpar__worker *w);

static inline void fpar__race_scope_end(fpar__worker **w) {
  fpar__race_leave(*w);
}

static inline fpar__worker *fpar__race_scope_begin(fpar__worker *w) {
  fpar__race_enter(w);
  return w;
}

/* The rest of the enclosing block is runtime code run by a work-item of
 * w (NULL: by no worker). */
#define FPAR__RACE_SCOPE(w)                                                    \
  fpar__worker *fpar__race_scope                                               \
      __attribute__((cleanup(fpar__race_scope_end), unused)) =                 \
          fpar__race_scope_begin(w)

#else

static inline void fpar__race_enter(fpar__worker *w) {
  (void)w;
}
static inline void fpar__race_leave(fpar__worker *w) {
  (void)w;
}
static inline void fpar__race_fresh(fpar__worker *w) {
  (void)w;
}
static inline unsigned fpar__race_arrive(fpar__worker *w) {
  (void)w;
  return 0;
}
static inline void fpar__race_depart(fpar__worker *w, unsigned parity) {
  (void)w, (void)parity;
}
static inline void fpar__race_sg_arrive(fpar__worker *w, size_t first) {
  (void)w, (void)first;
}
static inline void fpar__race_sg_depart(fpar__worker *w, size_t first) {
  (void)w, (void)first;
}
static inline void fpar__race_switch_out(fpar__worker *w) {
  (void)w;
}
static inline void fpar__race_sched_back(fpar__worker *w) {
  (void)w;
}
static inline void fpar__race_group_start(fpar__worker *w, const char *items) {
  (void)w, (void)items;
}
static inline void fpar__race_item_start(fpar__worker *w, const char *items) {
  (void)w, (void)items;
}
static inline int fpar__race_reserve(fpar__worker *w, size_t n) {
  (void)w, (void)n;
  return 0;
}
static inline void fpar__race_item_run(fpar__worker *w, size_t item,
                                       size_t last, const char *kind,
                                       fpar_s_item_fn fn, fpar_s_row_fn row,
                                       fpar_s_item *si, void *arg,
                                       size_t x_end) {
  (void)w, (void)item, (void)last, (void)kind;
  if (fn != NULL)
    fn(si, arg);
  else
    row(si, arg, x_end);
}
static inline void fpar__race_items_end(fpar__worker *w, int kind,
                                        int grouped) {
  (void)w, (void)kind, (void)grouped;
}
static inline void fpar__race_items_sync(fpar__worker *w) {
  (void)w;
}
static inline int fpar__race_item_stack(const fpar__worker *w,
                                        const fpar__stack_pool **pool,
                                        size_t *slot) {
  (void)w, (void)pool, (void)slot;
  return 0;
}
static inline const char *fpar__race_faulted(const fpar__worker *w) {
  (void)w;
  return NULL;
}
static inline void fpar__race_destroy(fpar__worker *w) {
  (void)w;
}
#define FPAR__RACE_SCOPE(w) (void)0

#endif

#endif
