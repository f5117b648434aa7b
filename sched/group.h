/* group.h - running work-groups on a worker: the runner fiber, the loop
 * that runs barrier-free groups, promotion to fibers at the first barrier,
 * and the rendezvous every barrier and every kernel return goes through. */
#ifndef FPAR_SCHED_GROUP_H
#define FPAR_SCHED_GROUP_H

#include "sched/worker.h"

/* Entry of the runner fiber (arg: the worker): claims and runs groups
 * until the launch has none left, then switches to the scheduler. */
void fpar__runner_main(void *arg);

/* Turn the group into fibers at work-item 0's first barrier.  Work-item 0
 * keeps running on the runner fiber. */
void fpar__group_promote(fpar__worker *w);

/* End the group with a fault: record it and switch to the scheduler.
 * detail is a printf format for the fault's description. */
_Noreturn void fpar__group_abort(fpar__worker *w, int code, size_t item,
                                 const char *detail, ...)
    __attribute__((format(printf, 4, 5)));

/* Write "work-items a-b" / "work-item a" for [first, last] into buf. */
void fpar__describe_items(char *buf, size_t len, size_t first, size_t last);

/* Write a code address as "symbol+0xoff" (or the raw address). */
void fpar__describe_site(char *buf, size_t len, const void *site);

#endif
