/* SPDX-License-Identifier: MIT */
/* fork.h - telling a forked child from the process that made a runtime.
 *
 * A child of fork() has a copy of the parent's memory but none of its
 * threads: a runtime made before the fork has no workers in the child and
 * would hang its first launch.  Every fork increments a generation in the
 * child; an object made in one generation is unusable in another. */
#ifndef FPAR_SCHED_BASE_FORK_H
#define FPAR_SCHED_BASE_FORK_H

/* Start counting forks (once per process; later calls return the first
 * one's result).  Returns 0 or FPAR_ENOMEM. */
int fpar__fork_watch(void);

/* The calling process's generation: 0 in the process that first called
 * fpar__fork_watch(), one more in each generation of children. */
unsigned fpar__fork_generation(void);

#endif
