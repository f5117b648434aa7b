/* SPDX-License-Identifier: MIT */
/* collective.h - work-group collectives inside the barrier's rendezvous
 * (collective.c): what the barrier, the group runner and the phase runner
 * ask of them. */
#ifndef FPAR_SCHED_COLLECTIVE_H
#define FPAR_SCHED_COLLECTIVE_H

#include "sched/worker.h"

/* Combine the values of the pending collective (w->coll.op != 0): called
 * by the last arrival of a rendezvous, or by the phase runner between two
 * phases; it is the group's work-item that stands for all. */
void fpar__collective_run(fpar__worker *w, const fpar_item *it);

/* Combine the pending collective, if there is one. */
static inline void fpar__collective_combine(fpar__worker *w,
                                            const fpar_item *it) {
  if (__builtin_expect(w->coll.op != 0, 0))
    fpar__collective_run(w, it);
}

/* Whether a rendezvous site is a collective's (the name of its function). */
int fpar__site_is_collective(const char *site);

/* Describe a rendezvous site for a message: "the barrier at file:line" or
 * "the collective fpar_group_reduce_add_f32".  Returns buf. */
const char *fpar__site_what(char *buf, size_t len, const char *site);

#endif
