/* barrier.c - fpar_barrier: the round-robin work-group barrier.
 *
 * All work-items of a group run on one thread, so a barrier needs no atomic
 * operation and no hardware fence: arriving is a counter increment and a
 * switch to the next work-item (the call into the switch routine is a full
 * compiler barrier, which orders local and global memory for the group).
 * One switch per work-item per barrier; see group.c for the rendezvous
 * rules and promotion.
 */
#include "sched/context.h"
#include "sched/group.h"

/* Work-item i reached a barrier while the group still runs as a loop. */
static void fpar__barrier_in_loop(fpar__worker *w, size_t i,
                                  const void *site) {
  char items[64], where[160];

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

void fpar_barrier(fpar_item *it) {
  fpar__group_run *g = it->run;
  fpar__worker *w = (fpar__worker *)g; /* run is the worker's first member */
  const void *site = __builtin_return_address(0);
  size_t i = it->local_linear_id;
  size_t next = i + 1;

  if (__builtin_expect(g->size == 1, 0))
    return;
  if (__builtin_expect(!g->fibers, 0))
    fpar__barrier_in_loop(w, i, site);
  if (g->arrived == 0)
    g->site = site;
  else if (__builtin_expect(g->site != site, 0))
    fpar__barrier_mismatch(w, i, site);
  if (++g->arrived == g->size) {
    g->arrived = 0;
    next = 0;
  }
  fpar__ctx_switch(&g->ctx[i], g->ctx[next]);
}
