/* SPDX-License-Identifier: MIT */
/* abort.h - ending the running group for good: a fault is recorded and
 * the worker's scheduler context takes over (fpar__worker_to_sched),
 * leaving the group's fibers where they stand (their stacks serve the
 * next group).  Every file that detects a fault in a kernel calls these;
 * they call nothing above them. */
#ifndef FPAR_SCHED_GROUP_ABORT_H
#define FPAR_SCHED_GROUP_ABORT_H

#include "sched/group/worker.h"

/* End the group with a fault: record it and switch to the scheduler.
 * detail is a printf format for the fault's description, which names the
 * work-items involved. */
_Noreturn void fpar__group_abort(fpar__worker *w, int code, const char *detail,
                                 ...) __attribute__((format(printf, 3, 4)));

/* End the group because the running fiber overflowed its stack (addr: the
 * faulting address, or NULL when the overflow was seen at a switch).  It
 * calls nothing that needs stack, since the stack may be used up; the
 * scheduler composes the message, naming the running work-items. */
_Noreturn void fpar__stack_overflow(fpar__worker *w, const void *addr);

#endif
