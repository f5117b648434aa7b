/* SPDX-License-Identifier: MIT */
/* barrier.c - fpar_barrier: the round-robin work-group barrier.
 *
 * All work-items of a group run on one thread, so a barrier needs no atomic
 * operation and no hardware fence: arriving is a switch to the next
 * work-item (the call into the switch routine is a full compiler barrier,
 * which orders local and global memory for the group).  One switch per
 * work-item per barrier; see group.c for the rendezvous rules and
 * promotion.
 *
 * A barrier is named by its source site ("file:line", passed by the
 * fpar_barrier macro).  Return addresses cannot serve: compilers duplicate
 * one call into several call instructions and merge several into one.
 */
#include <stdio.h>
#include <string.h>

#include "sched/base/error.h"
#include "sched/group/barrier.h"
#include "sched/group/collective_combine.h"
#include "sched/group/fpenv.h"
#include "sched/group/message.h"
#include "sched/group/phase.h"
#include "sched/group/race.h"
#include "sched/group/subgroup_site.h"

#undef fpar_barrier

/* Whether two arrivals are at the same barrier.  Site strings of one
 * barrier are usually one pointer; an unnamed site (NULL) matches any
 * barrier but never a return from the kernel, a collective or a pending
 * sub-group operation. */
static int fpar__same_site(const char *a, const char *b) {
  if (a == b)
    return 1;
  if (a == FPAR__SITE_EXIT || b == FPAR__SITE_EXIT ||
      a == FPAR__SITE_SUBGROUP || b == FPAR__SITE_SUBGROUP ||
      fpar__site_is_collective(a) || fpar__site_is_collective(b))
    return 0;
  return a == NULL || b == NULL || strcmp(a, b) == 0;
}

/* Work-item i reached a barrier while the group still runs as a loop:
 * promote the group, unless the work-item is alone or others already
 * returned without reaching the barrier. */
static void fpar__barrier_in_loop(fpar__worker *w, size_t i, const char *site) {
  char items[64], what[128];

  if (w->launch->spec.model == FPAR__PHASE)
    fpar__phase_barrier_misuse(w, i, site);
  if (w->run.size == 1)
    return;
  if (i != 0) {
    fpar__describe_items(items, sizeof items, 0, i - 1, "returned", "returned");
    fpar__group_abort(w, FPAR_EDIVERGENCE,
                      "work-item %zu reached %s after %s from the kernel "
                      "without reaching it",
                      i, fpar__site_what(what, sizeof what, site), items);
  }
  fpar__group_promote(w);
}

void fpar__barrier_mismatch(fpar__worker *w, size_t i, const char *site) {
  const fpar__group_run *g = &w->run;
  char items[64], what[128], first[128];

  fpar__site_what(what, sizeof what, site);
  if (g->site == FPAR__SITE_SUBGROUP) {
    char waits[160];
    snprintf(waits, sizeof waits, "waits at %s", what);
    fpar__subgroup_diverged(w, i, waits);
  }
  if (g->site == FPAR__SITE_EXIT) {
    fpar__describe_items(items, sizeof items, 0, i - 1, "returned", "returned");
    fpar__group_abort(w, FPAR_EDIVERGENCE,
                      "work-item %zu waits at %s but %s from the kernel "
                      "without reaching it",
                      i, what, items);
  }
  fpar__describe_items(items, sizeof items, 0, i - 1, "waits", "wait");
  fpar__group_abort(w, FPAR_EBARRIER,
                    "work-item %zu waits at %s while %s at %s", i, what, items,
                    fpar__site_what(first, sizeof first, g->site));
}

int fpar__barrier_slow(fpar__worker *w, fpar_item *it, const char *site) {
  fpar__group_run *g = &w->run;
  unsigned parity;

  if (w->launch == NULL || w->launch->spec.model == FPAR__SCOPED ||
      w->launch->spec.model == FPAR__HIERARCHICAL)
    fpar__group_abort(w, FPAR_ENOTKERNEL,
                      "fpar_barrier at %s called in a scoped or hierarchical "
                      "group function; use fpar_group_barrier",
                      fpar__site_name(site));
  if (g->fibers == FPAR__LOOP) {
    fpar__barrier_in_loop(w, fpar_local_linear_id(it), site);
    if (g->fibers == FPAR__LOOP) {
      g->barriers++; /* a group of one */
      fpar__collective_combine(w, it);
      return 0;
    }
  }
  if (g->cur != 0 && !fpar__same_site(g->site, site))
    fpar__barrier_mismatch(w, fpar__fiber_first_item(w, g->cur), site);
  g->site = site;
  /* The last arrival checks the state the group's fibers share (the end
   * of the group is checked by the runner), then combines the values of
   * a collective. */
  if (g->cur + 1 == g->size) {
    g->barriers++;
    fpar__fpenv_check(w, site);
    fpar__collective_combine(w, it);
  }
  parity = fpar__race_arrive(w);
  fpar__group_pass_on(w, &g->ctx[g->cur]);
  fpar__race_depart(w, parity);
  return 0;
}

static __attribute__((noinline, cold)) int
fpar__barrier_outside(const char *site) {
  return fpar__set_error(FPAR_ENOTKERNEL,
                         "fpar_barrier at %s called on a thread that runs no "
                         "kernel",
                         fpar__site_name(site));
}

int fpar_barrier_at(fpar_item *it, const char *site) {
  fpar__worker *w;

  /* The frame pointer is set before the first load (the thread-local one
   * is slow, and samples gather after it): perf's frame-pointer unwinding
   * then finds the kernel from any instruction but the first two. */
  __asm__ volatile("" : : "r"(__builtin_frame_address(0)) : "memory");
  w = fpar__self;
  if (__builtin_expect(w == NULL, 0))
    return fpar__barrier_outside(site);
  {
    FPAR__RACE_SCOPE(w);
    return fpar__rendezvous(w, it, site);
  }
}

int fpar_barrier(fpar_item *it) {
  return fpar_barrier_at(it, NULL);
}
