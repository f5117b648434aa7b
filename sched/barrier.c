/* barrier.c - fpar_barrier: the round-robin work-group barrier.
 *
 * All work-items of a group run on one thread, so a barrier needs no atomic
 * operation and no hardware fence: arriving is a counter increment and a
 * switch to the next work-item (the call into the switch routine is a full
 * compiler barrier, which orders local and global memory for the group).
 * One switch per work-item per barrier; see group.c for the rendezvous
 * rules and promotion.
 */
#include "sched/group.h"

/* Work-item i reached a barrier while the group still runs as a loop:
 * promote the group, unless the work-item is alone or others already
 * returned without reaching the barrier. */
static void fpar__barrier_in_loop(fpar__worker *w, size_t i,
                                  const void *site) {
  char items[64], where[160];

  if (w->run.size == 1)
    return;
  if (i != 0) {
    fpar__describe_items(items, sizeof items, 0, i - 1);
    fpar__describe_site(where, sizeof where, site);
    fpar__group_abort(w, FPAR_EDIVERGENCE, i,
                      "work-item %zu reached the barrier called from %s "
                      "after %s returned from the kernel without reaching "
                      "it",
                      i, where, items);
  }
  fpar__group_promote(w);
}

static _Noreturn void fpar__barrier_mismatch(fpar__worker *w, size_t i,
                                             const void *site) {
  const fpar__group_run *g = &w->run;
  char items[64], mine[160], theirs[160];

  fpar__describe_items(items, sizeof items, 0, i - 1);
  fpar__describe_site(mine, sizeof mine, site);
  if (g->site == FPAR__SITE_EXIT)
    fpar__group_abort(w, FPAR_EDIVERGENCE, i,
                      "work-item %zu waits at the barrier called from %s "
                      "but %s returned from the kernel without reaching it",
                      i, mine, items);
  fpar__describe_site(theirs, sizeof theirs, g->site);
  fpar__group_abort(w, FPAR_EBARRIER, i,
                    "work-item %zu waits at the barrier called from %s "
                    "while %s wait at the barrier called from %s",
                    i, mine, items, theirs);
}

/* Everything but the steady state: promotion, groups of one, faults. */
static __attribute__((noinline, cold)) void
fpar__barrier_slow(fpar_item *it, const void *site) {
  fpar__worker *w = fpar__self;
  fpar__group_run *g = &w->run;

  if (!g->fibers) {
    fpar__barrier_in_loop(w, fpar_local_linear_id(it), site);
    if (!g->fibers)
      return;
  }
  if (g->cur == 0)
    g->site = site;
  else if (g->site != site)
    fpar__barrier_mismatch(w, g->cur, site);
  fpar__group_pass_on(g, &g->ctx[g->cur]);
}

/* The steady state is kept free of calls other than the final switch, so
 * that it needs no stack frame of its own. */
void fpar_barrier(fpar_item *it) {
  fpar__group_run *g = &fpar__self->run;
  const void *site = __builtin_return_address(0);
  size_t cur = g->cur;

  if (__builtin_expect(!g->fibers || (cur != 0 && g->site != site), 0)) {
    fpar__barrier_slow(it, site);
    return;
  }
  if (cur == 0)
    g->site = site;
  fpar__group_pass_on(g, &g->ctx[cur]);
}
