/* SPDX-License-Identifier: MIT */
/* pu_usage.h - how many workers of this process's live runtimes are bound
 * to each processing unit (by OS index), so that a runtime created while
 * another one runs takes the places the other one left free instead of
 * pinning on top of it.
 *
 * A caller holds the lock across the reads and the updates that depend on
 * them.  The counts are process-wide and not reset in a forked child. */
#ifndef FPAR_SCHED_MACHINE_PU_USAGE_H
#define FPAR_SCHED_MACHINE_PU_USAGE_H

/* Returns 0, or FPAR_ENOMEM (not locked) if the lock could not be made. */
int fpar__pu_usage_lock(void);
void fpar__pu_usage_unlock(void);

/* Workers bound to a place that contains PU pu. */
unsigned fpar__pu_usage_get(unsigned pu);

/* Make room for the counts of PUs 0 .. max_pu.  Returns 0 or FPAR_ENOMEM. */
int fpar__pu_usage_reserve(unsigned max_pu);

/* Add delta to the count of PU pu, which reserve covered. */
void fpar__pu_usage_add(unsigned pu, int delta);

#endif
