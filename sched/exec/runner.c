/* SPDX-License-Identifier: MIT */
/* runner.c - a worker's runner fiber: it takes the groups of the running
 * launch one after another and runs each as its model says (nd_range
 * work-items, phase loops, or a scoped or hierarchical group function),
 * checking after each group that the floating-point state the group's
 * work-items shared is as it was. */
#include "sched/exec/runner.h"
#include "sched/diag/trace.h"
#include "sched/fiber/sanitizer.h"
#include "sched/group/fpenv.h"
#include "sched/group/group.h"
#include "sched/group/race.h"
#include "sched/group/scoped.h"

/* Run group `group` of the worker's launch as its model says. */
static void fpar__runner_group(fpar__worker *w, size_t group) {
  if (w->launch->spec.model == FPAR__ND_RANGE)
    fpar__run_nd_group(w, group);
  else if (w->launch->spec.model == FPAR__PHASE)
    w->launch->spec.run_group(w, group);
  else
    fpar__run_group_function(w, group);
}

void fpar__runner_main(void *arg) {
  fpar__worker *w = arg;
  size_t group;

  fpar__san_switch_in(NULL, &w->thread_stack_lo, &w->thread_stack_size);
  fpar__race_fresh(w);
  while (fpar__worker_claim(w, &group)) {
    if (fpar__launch_skips(w->launch, group))
      ; /* a group below faulted: this one is skipped */
    else if (__builtin_expect(w->trace == NULL, 1))
      fpar__runner_group(w, group);
    else {
      fpar__trace_group_begin(w, group);
      fpar__runner_group(w, group);
      fpar__trace_group_end(w, 0);
    }
    /* One check per group: a shared state changed by one group would be
     * the next group's start. */
    fpar__fpenv_check(w, FPAR__SITE_EXIT);
    w->groups_done++;
  }
  fpar__worker_to_sched(w);
}
