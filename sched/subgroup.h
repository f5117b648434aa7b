/* SPDX-License-Identifier: MIT */
/* subgroup.h - sub-group operations of fiber kernels (see subgroup.c): the
 * state of the pending operation, and what the barrier and the kernel's
 * return ask when they meet one. */
#ifndef FPAR_SCHED_SUBGROUP_H
#define FPAR_SCHED_SUBGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "fiberpar.h"

struct fpar__worker;

/* The group's rendezvous value (fpar__group_run.site) while a sub-group
 * operation waits for members: a barrier or a return then compares
 * unequal and takes its slow path, which reports the divergence. */
extern const char fpar__site_subgroup[];
#define FPAR__SITE_SUBGROUP fpar__site_subgroup

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

/* Work-item `item` did `what` ("returned from the kernel", "waits at the
 * barrier at x") while the members of its sub-group before it wait at a
 * sub-group operation: fail the group with FPAR_EDIVERGENCE. */
_Noreturn void fpar__subgroup_diverged(struct fpar__worker *w, size_t item,
                                       const char *what);

#endif
