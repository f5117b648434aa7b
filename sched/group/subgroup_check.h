/* SPDX-License-Identifier: MIT */
/* subgroup_check.h - the faults of sub-group operations (subgroup.c):
 * calls where they do not belong, bad lanes, and members that diverge.
 * name is the operation's function.  All are off the operations' steady
 * state. */
#ifndef FPAR_SCHED_GROUP_SUBGROUP_CHECK_H
#define FPAR_SCHED_GROUP_SUBGROUP_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "fiberpar.h"
#include "sched/group/worker.h"

/* The launch's kernel may not use sub-group operations (it is not one
 * work-item per call on fibers): fail the group, saying why. */
_Noreturn void fpar__sg_refused(fpar__worker *w, const fpar_item *it,
                                const char *name)
    __attribute__((noinline, cold));

/* Called on a thread that runs no kernel: FPAR_ENOTKERNEL is set and the
 * operation returns 0. */
uint64_t fpar__sg_outside(const char *name) __attribute__((noinline, cold));

/* Work-item i passed lane a, outside its sub-group of n. */
_Noreturn void fpar__sg_bad_lane(fpar__worker *w, size_t i, uint64_t a,
                                 const char *name, size_t n)
    __attribute__((noinline, cold));

/* Work-item i > 0 (member j of its sub-group) reached an operation while
 * its group runs as a loop: it comes after work-items that returned. */
_Noreturn void fpar__sg_after_loop(fpar__worker *w, size_t i, size_t j,
                                   const char *name)
    __attribute__((noinline, cold));

/* Member j > 0 (work-item i) arrives at operation kind on type with
 * uniform argument u, but the members before it are not all waiting at
 * that operation with that argument. */
_Noreturn void fpar__sg_check_member(fpar__worker *w, size_t i, size_t j,
                                     unsigned kind, unsigned type, uint64_t u,
                                     const char *name)
    __attribute__((noinline, cold));

#endif
