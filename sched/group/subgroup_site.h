/* SPDX-License-Identifier: MIT */
/* subgroup_site.h - a pending sub-group operation as the group's other
 * rendezvous see it (subgroup_site.c): its site value, its name, and the
 * divergence report of a work-item that meets it at a barrier, a
 * collective or the end of the kernel.  Below the barrier and the group
 * runner, which call it; subgroup.c, which runs the operations, sits
 * above them. */
#ifndef FPAR_SCHED_GROUP_SUBGROUP_SITE_H
#define FPAR_SCHED_GROUP_SUBGROUP_SITE_H

#include <stddef.h>

#include "sched/group/worker.h"

/* The group's rendezvous value (fpar__group_run.site) while a sub-group
 * operation waits for members: a barrier or a return then compares
 * unequal and takes its slow path, which reports the divergence. */
extern const char fpar__site_subgroup[];
#define FPAR__SITE_SUBGROUP fpar__site_subgroup

/* The operations and types, in the order of their names. */
enum {
  FPAR__SG_SHUFFLE,
  FPAR__SG_XOR,
  FPAR__SG_UP,
  FPAR__SG_DOWN,
  FPAR__SG_BROADCAST,
  FPAR__SG_BALLOT,
  FPAR__SG_ADD,
  FPAR__SG_MIN,
  FPAR__SG_MAX
};
enum { FPAR__SG_FLOAT, FPAR__SG_DOUBLE, FPAR__SG_INT, FPAR__SG_UINT };

/* "fpar_sub_group_KIND_TYPE" of an operation (FPAR__SG_*) and type. */
const char *fpar__subgroup_name(unsigned kind, unsigned type);

/* Work-item `item` did `what` ("returned from the kernel", "waits at the
 * barrier at x") while the members of its sub-group before it wait at a
 * sub-group operation: fail the group with FPAR_EDIVERGENCE. */
_Noreturn void fpar__subgroup_diverged(fpar__worker *w, size_t item,
                                       const char *what);

#endif
