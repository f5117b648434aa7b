/* SPDX-License-Identifier: MIT */
/* phase.h - running phase kernels (FPAR_PHASE_KERNEL) as loops: each
 * phase of the kernel for all work-items of a group, then the next. */
#ifndef FPAR_SCHED_GROUP_PHASE_H
#define FPAR_SCHED_GROUP_PHASE_H

#include "sched/group/worker.h"

/* Run work group `linear` of the worker's FPAR__PHASE launch. */
void fpar__phase_run_group(fpar__worker *w, size_t linear);

/* fpar_barrier() was called by work-item i of a group that runs as phase
 * loops: fail the group. */
_Noreturn void fpar__phase_barrier_misuse(fpar__worker *w, size_t i,
                                          const char *site);

#endif
