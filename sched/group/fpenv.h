/* SPDX-License-Identifier: MIT */
/* fpenv.h - the floating-point control state that a group's work-items
 * share (FIBERPAR_FPENV=shared): checked where they meet. */
#ifndef FPAR_SCHED_GROUP_FPENV_H
#define FPAR_SCHED_GROUP_FPENV_H

#include "sched/fiber/context.h"
#include "sched/group/worker.h"

/* End the group: its shared floating-point control state changed by site. */
_Noreturn void fpar__fpenv_changed(fpar__worker *w, const char *site);

/* At the rendezvous of site (a barrier's, or FPAR__SITE_EXIT): end the
 * group if the floating-point control state its work-items share differs
 * from the one they started with.  Inline: it runs once per group. */
static inline void fpar__fpenv_check(fpar__worker *w, const char *site) {
  if (w->run.shared_fpenv && !fpar__ctx_fpu_unchanged(w->run.fpu))
    fpar__fpenv_changed(w, site);
}

#endif
