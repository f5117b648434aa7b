/* group.h - running work-groups on a worker: the runner fiber, the loop
 * that runs barrier-free groups, promotion to fibers at the first barrier,
 * and the rendezvous every barrier and every kernel return goes through. */
#ifndef FPAR_SCHED_GROUP_H
#define FPAR_SCHED_GROUP_H

#include "sched/context.h"
#include "sched/sanitizer.h"
#include "sched/worker.h"

/* The running work-item has arrived at the rendezvous: save its context in
 * *save and resume the next work-item in round-robin order (the last
 * arrival resumes work-item 0, which opens the next phase).  While the next
 * work-item runs, the saved frame of the one after it is fetched into the
 * cache: with a thousand fibers the frames no longer fit in L1.  (Past the
 * end of the group the prefetch reads a spare slot: harmless.) */
static inline void fpar__group_pass_on(fpar__worker *w, void **save) {
  fpar__group_run *g = &w->run;
  size_t cur = g->cur, next = cur + 1 == g->size ? 0 : cur + 1;
  const char *frame;
  void *fake;

  g->cur = next;
  frame = g->ctx[cur + 2];
  __builtin_prefetch(frame);
  __builtin_prefetch(frame + 64);
  fpar__san_switch_out(save == &w->dead_ctx ? NULL : &fake,
                       fpar__stack_lo(&w->stacks, next), w->stacks.stack_size);
  if (g->shared_fpenv)
    fpar__ctx_switch_shared_fpenv(save, g->ctx[next]);
  else
    fpar__ctx_switch(save, g->ctx[next]);
  fpar__san_switch_in(fake, NULL, NULL);
}

/* The 3-D id of the launch's group with linear id `linear`. */
static inline void fpar__group_id(const fpar__launch *l, size_t linear,
                                  size_t id[3]) {
  const size_t *r = l->geo.group_range;

  id[0] = linear % r[0];
  id[1] = linear / r[0] % r[1];
  id[2] = linear / r[0] / r[1];
}

/* Local linear id of the first work-item of fiber f (fibers of a lane
 * kernel carry several work-items each). */
static inline size_t fpar__fiber_first_item(const fpar__launch *l, size_t f) {
  size_t per_row = (l->geo.local_range[0] + l->lanes - 1) / l->lanes;

  return f / per_row * l->geo.local_range[0] + f % per_row * l->lanes;
}

/* Start nd_range group `linear` of the worker's launch: its run state
 * reset, *it its work-item 0 (and the item a fault names). */
void fpar__group_begin(fpar__worker *w, size_t linear, fpar_item *it);

/* End the running group: its group-local memory is released. */
void fpar__group_end(fpar__worker *w);

/* Run one work group of a scoped or hierarchical launch (scoped.c). */
void fpar__run_group_function(fpar__worker *w, size_t linear);

/* Entry of the runner fiber (arg: the worker): claims and runs groups
 * until the launch has none left, then switches to the scheduler. */
void fpar__runner_main(void *arg);

/* Turn the group into fibers at work-item 0's first barrier.  Work-item 0
 * keeps running on the runner fiber. */
void fpar__group_promote(fpar__worker *w);

/* End the group with a fault: record it and switch to the scheduler.
 * detail is a printf format for the fault's description. */
_Noreturn void fpar__group_abort(fpar__worker *w, int code, size_t item,
                                 const char *detail, ...)
    __attribute__((format(printf, 4, 5)));

/* Write "work-item a <one>" or "work-items a-b <many>" into buf, e.g.
 * fpar__describe_items(buf, len, 0, 4, "waits", "wait"). */
void fpar__describe_items(char *buf, size_t len, size_t first, size_t last,
                          const char *one, const char *many);

/* Name a barrier site for a message. */
const char *fpar__site_name(const char *site);

#endif
