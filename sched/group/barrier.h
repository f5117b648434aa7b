/* SPDX-License-Identifier: MIT */
/* barrier.h - the rendezvous of a work-group barrier (barrier.c), shared
 * by fpar_barrier() and the work-group collectives (collective.c). */
#ifndef FPAR_SCHED_GROUP_BARRIER_H
#define FPAR_SCHED_GROUP_BARRIER_H

#include "sched/group/group.h"

/* Everything but the steady state of a rendezvous: promotion, groups of
 * one, another pointer for the same site, the last arrival (which also
 * combines a pending collective), copied fibers, faults and misuse. */
int fpar__barrier_slow(fpar__worker *w, fpar_item *it, const char *site)
    __attribute__((noinline, cold));

/* Work-item i waits at `site` while the work-items before it did what the
 * group's site says: fail the group with FPAR_EBARRIER, or
 * FPAR_EDIVERGENCE when they returned from the kernel. */
_Noreturn void fpar__barrier_mismatch(fpar__worker *w, size_t i,
                                      const char *site);

/* Whether the running work-item's arrival at the rendezvous `site` is
 * the steady state: fibers on stacks of their own, the site of the
 * arrivals before it (if any), and not the last arrival. */
static inline int fpar__rendezvous_steady(const fpar__worker *w,
                                          const char *site) {
  const fpar__group_run *g = &w->run;
  size_t cur = g->cur;

  /* Under racecheck every arrival takes the slow path, which tells TSan. */
  return !(fpar__tsan_enabled() || g->fibers != FPAR__FIBERS_OWN ||
           (cur != 0 && g->site != site) || cur + 1 == g->size);
}

/* The running work-item of w's group arrives at the rendezvous `site`.
 * The steady state is kept free of calls other than the final switch, so
 * that it saves no registers of its own; the last arrival of a rendezvous
 * (one in a group) and fibers that share a stack take the slow path. */
static inline int fpar__rendezvous(fpar__worker *w, fpar_item *it,
                                   const char *site) {
  fpar__group_run *g = &w->run;
  size_t cur = g->cur;

  if (__builtin_expect(!fpar__rendezvous_steady(w, site), 0))
    return fpar__barrier_slow(w, it, site);
  if (cur == 0)
    g->site = site;
  return (int)fpar__group_pass_on_own_u32(w, &g->ctx[cur], NULL);
}

#endif
