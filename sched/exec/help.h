/* SPDX-License-Identifier: MIT */
/* help.h - helpers: the worker records on which waiting host threads run
 * work-groups.
 *
 * A host thread that waits for a launch runs groups of the active launch
 * itself, as OpenMP's master thread joins its team and a TBB thread that
 * waits executes tasks: a small launch then needs no worker to wake, and
 * a host thread that shares a core with a worker does the groups that
 * worker would have done.  It runs them on a helper: a worker record (its
 * local-memory arena, fiber stacks, contexts, trace recorder) that is no
 * thread of its own, numbered after the worker threads.  A scheduler keeps
 * FPAR__HELPERS of them, each made when first taken and taken by one host
 * thread at a time; a thread that finds none free, or for which none can
 * be made, waits without helping. */
#ifndef FPAR_SCHED_EXEC_HELP_H
#define FPAR_SCHED_EXEC_HELP_H

#include "sched/exec/worker_run.h"

/* Host threads that may help one scheduler at the same time. */
#define FPAR__HELPERS 4

typedef struct fpar__helpers fpar__helpers;

/* The helpers of the workers made with setup (which must outlive them).
 * Returns 0 or FPAR_ENOMEM. */
int fpar__helpers_create(fpar__helpers **h, const fpar__worker_setup *setup);

/* A free helper for the calling thread, which must be no worker, made now
 * if it is the first use of its slot; NULL when all are taken, when one
 * cannot be made (then never again), when the thread cannot get an
 * alternate signal stack, or after fpar__helpers_close(). */
fpar__worker *fpar__helpers_acquire(fpar__helpers *h);

/* Give back a helper that has left its launch. */
void fpar__helpers_release(fpar__helpers *h, fpar__worker *w);

/* Wait until no helper is taken, free them, and refuse later
 * acquisitions (a thread may still wait on an event of a destroyed
 * runtime). */
void fpar__helpers_close(fpar__helpers *h);

/* Free what fpar__helpers_close() left; NULL is ignored. */
void fpar__helpers_free(fpar__helpers *h);

#endif
