/* SPDX-License-Identifier: MIT */
/* fault.h - turning a fiber stack overflow into a launch error.
 *
 * A process-wide SIGSEGV handler runs on each worker's alternate signal
 * stack.  A fault the kernel raises in the guard of one of the worker's
 * fiber stacks abandons the running group: the handler records the fault
 * and switches to the worker's scheduler context.  Everything else (faults
 * elsewhere, faults on other threads, SIGSEGV sent by kill()) goes to the
 * action installed before ours, exactly as if ours were not there: the
 * user's handler (with its mask and flags), SIG_IGN for sent signals, or
 * the default action, which ends the process.  SIGBUS is left alone. */
#ifndef FPAR_SCHED_FAULT_H
#define FPAR_SCHED_FAULT_H

#include "sched/worker.h"

/* Put the handler in front of the one installed now, unless it is there
 * already (a user's handler installed after an earlier runtime gets it
 * chained behind).  Returns 0, FPAR_EINVAL or FPAR_ENOMEM. */
int fpar__fault_install(void);

/* Give the calling worker thread its alternate signal stack.  Returns 0 or
 * FPAR_ENOMEM. */
int fpar__fault_thread_init(fpar__worker *w);
void fpar__fault_thread_destroy(fpar__worker *w);

/* Make sure the calling thread, which is no worker, has an alternate
 * signal stack, so that it can run kernels as a helper (help.h): its own,
 * or one the library maps once and frees when the thread exits.  Returns
 * 0 or FPAR_ENOMEM. */
int fpar__fault_host_init(void);

/* After a fault raised by a signal the scheduler resumes with SIGSEGV
 * still blocked: unblock it. */
void fpar__fault_after_signal(void);

#endif
