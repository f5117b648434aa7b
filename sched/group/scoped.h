/* SPDX-License-Identifier: MIT */
/* scoped.h - running the group function of a scoped (AdaptiveCpp) or
 * hierarchical (SYCL 1.2.1) launch on a worker (see scoped.c), and what
 * the hierarchical calls (hierarchical.c) and the memory requests
 * (memory_env.c) share with it: the nesting of groups, the rule checks
 * and the loop over a group's logical items. */
#ifndef FPAR_SCHED_GROUP_SCOPED_H
#define FPAR_SCHED_GROUP_SCOPED_H

#include <stddef.h>

#include "fiberpar.h"
#include "sched/group/worker.h"

/* The worker's FPAR__SLOT_SCOPED: the innermost group of the running
 * group function, and the name of the item loop being run (NULL outside
 * one), for the rule checks. */
typedef struct fpar__scoped_nesting {
  const fpar_group *innermost;
  const char *inside;
} fpar__scoped_nesting;
_Static_assert(sizeof(fpar__scoped_nesting) <= FPAR__SLOT_BYTES,
               "the scoped nesting fits its slot");

/* The nesting state of worker w. */
static inline fpar__scoped_nesting *fpar__nesting(fpar__worker *w) {
  return fpar__worker_slot(w, FPAR__SLOT_SCOPED);
}

/* Run work group `linear` of the worker's scoped or hierarchical launch. */
void fpar__run_group_function(fpar__worker *w, size_t linear);

/* The worker running the calling group function, for the operation op.
 * Only a worker running a scoped or hierarchical group gets here with a
 * group; on a worker anything else is a group pointer used outside its
 * kernel (which fails that kernel's launch), and on another thread the
 * call returns NULL with FPAR_ENOTKERNEL set. */
fpar__worker *fpar__scoped_worker(const char *op);

/* The same for a group operation op on g, which must be made outside item
 * loops (scoped rule 2) on the innermost group (rule 1). */
fpar__worker *fpar__check_group_op(const fpar_group *g, const char *op);

/* Kinds of item loop: scoped (every item is physical id 0), hierarchical
 * over the physical work-items (each item its own), and hierarchical over
 * a logical range (item l runs on physical work-item l mod the group's
 * physical range, whose global id it has). */
#define FPAR__ITEMS_SCOPED 0
#define FPAR__ITEMS_PHYSICAL 1
#define FPAR__ITEMS_LOGICAL 2

/* The logical item with local id `local` of a hierarchical loop over a
 * logical range of g (FPAR__ITEMS_LOGICAL): it runs on physical work-item
 * local mod the physical range, whose global id it has.  Inline: the
 * forward loop of hierarchical.c makes one per item. */
static inline void fpar__s_item_logical(fpar_s_item *si, const fpar_group *g,
                                        const size_t local[3]) {
  unsigned d;

  for (d = 0; d < 3; d++) {
    si->local_id[d] = si->group_local_id[d] = local[d];
    si->physical_id[d] = local[d] % g->physical_range[d];
    si->global_id[d] = g->global_origin[d] + si->physical_id[d];
  }
  si->group = g;
}

/* Call fn for every logical item of g, or row once per row of g (the
 * other NULL), as the item loop `op`; physical: FPAR__ITEMS_SCOPED or
 * FPAR__ITEMS_PHYSICAL. */
void fpar__items_loop(fpar__worker *w, const fpar_group *g, const char *op,
                      fpar_s_item_fn fn, fpar_s_row_fn row, void *ctx,
                      int physical);

/* The item loop under another FIBERPAR_SCHEDULE than forward, or under
 * racecheck: fn for every logical item of g in the schedule's order, each
 * as its own racecheck identity (sched/group/race.h), or row's calls as
 * in local-id order, each call one identity; then the end of the loop
 * orders its items before what follows, but for a scoped function loop's
 * (fpar__race_items_end).  kind: FPAR__ITEMS_*. */
void fpar__items_each(fpar__worker *w, const fpar_group *g, fpar_s_item_fn fn,
                      fpar_s_row_fn row, void *ctx, int kind);

#endif
