/* SPDX-License-Identifier: MIT */
/* scoped.h - running the group function of a scoped (AdaptiveCpp) or
 * hierarchical (SYCL 1.2.1) launch on a worker (see scoped.c). */
#ifndef FPAR_SCHED_GROUP_SCOPED_H
#define FPAR_SCHED_GROUP_SCOPED_H

#include <stddef.h>

#include "sched/group/worker.h"

/* Run work group `linear` of the worker's scoped or hierarchical launch. */
void fpar__run_group_function(fpar__worker *w, size_t linear);

#endif
