/* SPDX-License-Identifier: MIT */
/* memory_env.h - the memory of scoped and hierarchical groups (see
 * memory_env.c): private memory as hierarchical groups request it. */
#ifndef FPAR_SCHED_GROUP_MEMORY_ENV_H
#define FPAR_SCHED_GROUP_MEMORY_ENV_H

#include <stddef.h>

#include "fiberpar.h"
#include "sched/group/worker.h"

/* Private memory of request r (the k-th, for messages) in the arena: one
 * object per item of `range`, indexed by the items' physical id
 * (physical) or their local id in g.  Released with the group's arena
 * memory.  A request that does not fit ends the group. */
fpar_private_memory *fpar__private_alloc(fpar__worker *w, const fpar_group *g,
                                         const size_t range[3], int physical,
                                         const fpar_mem_request *r, unsigned k);

#endif
