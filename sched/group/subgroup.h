/* SPDX-License-Identifier: MIT */
/* subgroup.h - sub-group operations of fiber kernels (see subgroup.c): the
 * state of the pending operation (subgroup_site.h has what the barrier
 * and the kernel's return ask when they meet one). */
#ifndef FPAR_SCHED_GROUP_SUBGROUP_H
#define FPAR_SCHED_GROUP_SUBGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "fiberpar.h"

/* The members' values and results. */
typedef struct fpar__subgroup_values {
  uint64_t in[FPAR_MAX_SUB_GROUP_SIZE];
  uint64_t arg[FPAR_MAX_SUB_GROUP_SIZE];
  uint64_t out[FPAR_MAX_SUB_GROUP_SIZE];
} fpar__subgroup_values;

/* The operation the running sub-group meets at.  The values of member k
 * (its sub-group local id) are in[k] and arg[k]; the last arrival writes
 * every member's result to out[k], which each member reads when resumed,
 * before it can arrive anywhere else. */
typedef struct fpar__subgroup_run {
  const char *group_site;   /* fpar__group_run.site, put back at the end */
  size_t first_item;        /* local linear id of the first member */
  unsigned kind, type;      /* the operation */
  uint64_t uniform;         /* the first member's uniform argument */
  fpar__subgroup_values *v; /* allocated at the worker's first operation,
                               so that idle workers do not hold it */
} fpar__subgroup_run;

/* Free what a worker's sub-group operations allocated. */
void fpar__subgroup_destroy(fpar__subgroup_run *sg);

#endif
