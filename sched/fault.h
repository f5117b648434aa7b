/* fault.h - turning a fiber stack overflow into a launch error.
 *
 * A process-wide SIGSEGV/SIGBUS handler runs on each worker's alternate
 * signal stack.  A fault in the guard page of one of the worker's fiber
 * stacks abandons the running group: the handler records the fault and
 * switches to the worker's scheduler context.  Any other fault goes to the
 * handler that was installed before ours (or the default action). */
#ifndef FPAR_SCHED_FAULT_H
#define FPAR_SCHED_FAULT_H

#include "sched/worker.h"

/* Install the handler (once per process).  Returns 0 or FPAR_EINVAL. */
int fpar__fault_install(void);

/* Give the calling worker thread its alternate signal stack.  Returns 0 or
 * FPAR_ENOMEM. */
int fpar__fault_thread_init(fpar__worker *w);
void fpar__fault_thread_destroy(fpar__worker *w);

/* After a fault raised by a signal the scheduler resumes with SIGSEGV and
 * SIGBUS still blocked: unblock them. */
void fpar__fault_after_signal(void);

#endif
