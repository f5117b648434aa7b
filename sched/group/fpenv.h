/* SPDX-License-Identifier: MIT */
/* fpenv.h - the floating-point control state that a group's work-items
 * share (FIBERPAR_FPENV=shared): checked where they meet. */
#ifndef FPAR_SCHED_GROUP_FPENV_H
#define FPAR_SCHED_GROUP_FPENV_H

#include "sched/group/worker.h"

/* At the rendezvous of site (a barrier's, or FPAR__SITE_EXIT): end the
 * group if the floating-point control state its work-items share differs
 * from the one they started with. */
void fpar__fpenv_check(fpar__worker *w, const char *site);

#endif
