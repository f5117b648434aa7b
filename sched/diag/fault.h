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
/* Room diag of sched/ (docs/layout.md): what the runtime tells of itself:
 * stack-overflow faults, FIBERPAR_TRACE, FIBERPAR_DISPLAY.  The rooms, in
 * the order they may include one another: base, machine, fiber, group,
 * diag, exec; a room includes its own headers and those of the rooms before
 * it, never one after it (tests/test_layout.sh checks).  diag includes
 * base, machine, fiber and group; exec and lib/ include it. */
#ifndef FPAR_SCHED_DIAG_FAULT_H
#define FPAR_SCHED_DIAG_FAULT_H

/* Put the handler in front of the one installed now, unless it is there
 * already (a user's handler installed after an earlier runtime gets it
 * chained behind).  Returns 0, FPAR_EINVAL or FPAR_ENOMEM. */
int fpar__fault_install(void);

/* Give the calling worker thread its alternate signal stack.  Returns 0 or
 * FPAR_ENOMEM. */
int fpar__fault_thread_init(void);

/* Take the calling thread's alternate signal stack away, if it has one
 * from fpar__fault_thread_init(). */
void fpar__fault_thread_destroy(void);

/* Make sure the calling thread, which is no worker, has an alternate
 * signal stack, so that it can run kernels as a helper (exec/help.h): its
 * own, or one the library maps once and frees when the thread exits.
 * Returns 0 or FPAR_ENOMEM. */
int fpar__fault_host_init(void);

/* After a fault raised by a signal the scheduler resumes with SIGSEGV
 * still blocked: unblock it. */
void fpar__fault_after_signal(void);

#endif
