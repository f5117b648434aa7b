/* SPDX-License-Identifier: MIT */
/* spin.h - waiting by spinning for a budget of time, not of PAUSEs.
 *
 * A PAUSE costs about 140 cycles on Intel Skylake and later, a few on
 * older Intel parts, and 50 ns under this project's KVM guests: a budget in
 * PAUSE counts means a different wait on every machine.  A spin here reads
 * the clock every ~250 ns of pausing (the number of PAUSEs per read is
 * measured once per process) and counts the time it spent spinning, not
 * the time it was descheduled: a thread that shares its core (a worker
 * beside the host thread, or two processes on one node) and is preempted
 * for milliseconds still spins its whole budget once it runs again, rather
 * than falling asleep at once.  It gives the core away (sched_yield) at a
 * fixed interval of its own spinning, so that a thread on the same core
 * that has work gets it within microseconds. */
#ifndef FPAR_SCHED_BASE_SPIN_H
#define FPAR_SCHED_BASE_SPIN_H

#include <stdint.h>

/* One wait's spin.  Zero it (FPAR__SPIN_INIT) to start. */
typedef struct fpar__spin {
  uint64_t last;    /* the clock at the last read; 0 before the first */
  uint64_t spent;   /* nanoseconds spun, descheduled time left out */
  uint64_t yielded; /* spent when the core was last yielded */
  unsigned pauses;  /* since the last read */
} fpar__spin;

#define FPAR__SPIN_INIT                                                        \
  { 0, 0, 0, 0 }

/* Measure the PAUSEs per clock read (once per process; cheap). */
void fpar__spin_calibrate(void);

/* Pause once.  Returns 0 once budget_ns of spinning have been counted
 * (at once for a budget of 0), else 1; every yield_ns of spinning it
 * yields the core. */
int fpar__spin_step(fpar__spin *sp, uint64_t budget_ns, uint64_t yield_ns);

#endif
