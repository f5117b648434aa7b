/* SPDX-License-Identifier: MIT */
/* worker.c - what a worker's running groups ask of it: the worker of the
 * calling thread, the next group of its launch, room for the contexts of
 * a group's fibers, and the way back to the worker's scheduler context.
 *
 * Work distribution (base/group_claim.h): a worker takes groups from the front
 * of its own chunk, a few at a time when the chunk is long, then from the
 * others'.  A helping host thread (exec/help.h) has no chunk: it starts
 * with the chunk of the worker whose core it runs on, which cannot run
 * while the host does.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/base/clock.h"
#include "sched/fiber/context.h"
#include "sched/fiber/sanitizer.h"
#include "sched/group/race.h"
#include "sched/group/worker.h"

__thread fpar__worker *fpar__self __attribute__((tls_model("initial-exec")));

/* A worker takes a share of what is left of a chunk at once (group_claim.h),
 * up to batch_cap positions: the cap bounds what a worker can hold back
 * from the others, descheduled or running groups that turned long.  It is
 * FPAR__BATCH_MIN at a launch's start and doubles, up to FPAR__BATCH_MAX,
 * while a batch of twice as many would still run in less than
 * FPAR__BATCH_NS: a launch of short groups costs one atomic take per tens
 * of groups instead of one per few, one of long groups keeps the small
 * batches.  The clock is read at the takes around a batch of a whole cap,
 * from a launch's second batch until the cap settles. */
#define FPAR__BATCH_MIN 4u
#define FPAR__BATCH_MAX 32u
#define FPAR__BATCH_NS 4000u
/* batch_since while the batch being run is not timed, and once the cap
 * has stopped growing. */
#define FPAR__BATCH_UNTIMED 0u
#define FPAR__BATCH_SETTLED UINT64_MAX

/* Take positions of the worker's launch into its batch, from its home
 * chunk first; 0 when none are left.  Helpers take batches too: a helper
 * looks whether its host has what it waits for only between batches, and
 * runs what it took.  A host waits for the launch helped or a later one,
 * which cannot complete while the helper holds groups of it; only a
 * launch that completes between the look and the take costs the host a
 * batch of the next launch before it returns. */
static int fpar__worker_take(fpar__worker *w, size_t most) {
  unsigned n = w->num_chunks, i, k;
  size_t got, first;

  for (i = 0, k = w->home; i < n; i++, k = k + 1 == n ? 0 : k + 1)
    if ((got =
             fpar__claim_take(w->claims, &w->launch_claim, k, most, &first))) {
      w->batch_next = first;
      w->batch_end = first + got;
      return 1;
    }
  return 0;
}

/* A take after a launch's first: with the cap doubled if the batch just
 * run was timed and short, settled if it was timed and not.  Only a batch
 * of a whole cap after the first is timed, so that a launch whose takes
 * are smaller (a chunk's share, a stolen group) reads no clock.  The cap
 * is reset here, not at the first take, which a worker makes as it finds
 * the launch: two more stores there cost a launch of two short groups
 * about 70 ns when launches queue up. */
static int fpar__worker_take_more(fpar__worker *w) {
  uint64_t now = 0;

  if (w->batch_seq != w->launch_claim.seq) {
    w->batch_seq = w->launch_claim.seq;
    w->batch_cap = FPAR__BATCH_MIN;
    w->batch_since = FPAR__BATCH_UNTIMED;
  }
  if (w->batch_since != FPAR__BATCH_UNTIMED &&
      w->batch_since != FPAR__BATCH_SETTLED) {
    now = fpar__now_ns();
    if (2 * (now - w->batch_since) < FPAR__BATCH_NS &&
        w->batch_cap < FPAR__BATCH_MAX)
      w->batch_cap *= 2;
    else
      w->batch_since = FPAR__BATCH_SETTLED;
  }
  if (!fpar__worker_take(w, w->batch_cap))
    return 0;
  if (w->batch_since == FPAR__BATCH_SETTLED)
    return 1;
  if (w->batch_end - w->batch_next < w->batch_cap)
    w->batch_since = FPAR__BATCH_UNTIMED;
  else
    w->batch_since = now != 0 ? now : fpar__now_ns();
  return 1;
}

int fpar__worker_take_first(fpar__worker *w, uint64_t seq, size_t groups) {
  fpar__claim_launch_init(&w->launch_claim, seq, groups, w->num_chunks);
  return fpar__worker_take(w, FPAR__BATCH_MIN);
}

/* The next position the worker runs: from its batch, else from a new
 * take. */
static int fpar__worker_next_position(fpar__worker *w, size_t *pos) {
  if (w->batch_next == w->batch_end &&
      ((w->until != NULL && w->until(w->until_arg)) ||
       !fpar__worker_take_more(w)))
    return 0;
  *pos = w->batch_next++;
  return 1;
}

int fpar__worker_claim(fpar__worker *w, size_t *group) {
  const fpar__launch *l = w->launch;

  if (!fpar__worker_next_position(w, group))
    return 0;
  /* FIBERPAR_SCHEDULE: the claimed position names a group of its order
   * (the identity when forward). */
  if (!fpar__order_is_forward(&l->spec.order))
    *group = fpar__order_at(&l->spec.order, FPAR__ORDER_GROUPS,
                            l->spec.num_groups, *group);
  return 1;
}

void fpar__worker_to_sched(fpar__worker *w) {
  fpar__san_switch_out(NULL, w->thread_stack_lo, w->thread_stack_size);
  fpar__tsan_fiber_switch(w->tsan_sched);
  fpar__ctx_switch(&w->dead_ctx, w->sched_ctx);
  __builtin_unreachable();
}

void fpar__worker_slots_destroy(fpar__worker *w) {
  unsigned k;

  for (k = 0; k < FPAR__SLOTS; k++)
    if (w->slots[k].destroy != NULL)
      w->slots[k].destroy(w->slots[k].state);
}

int fpar__worker_reserve_fibers(fpar__worker *w, size_t n) {
  size_t want = n + 2, f;
  void **ctx;

  if (want <= w->cap_ctx)
    return 0;
  if (fpar__race_reserve(w, want) != 0)
    return FPAR_ENOMEM;
  ctx = realloc(w->run.ctx, want * sizeof *ctx);
  if (ctx == NULL)
    return FPAR_ENOMEM;
  memset(ctx + w->cap_ctx, 0, (want - w->cap_ctx) * sizeof *ctx);
  w->run.ctx = ctx;
  if (fpar__tsan_enabled()) {
    void **fibers = realloc(w->tsan_fibers, want * sizeof *fibers);
    if (fibers == NULL)
      return FPAR_ENOMEM;
    for (f = w->cap_ctx; f < want; f++)
      fibers[f] = fpar__tsan_fiber_create();
    w->tsan_fibers = fibers;
  }
  w->cap_ctx = want;
  return 0;
}
