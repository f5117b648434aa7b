/* SPDX-License-Identifier: MIT */
/* runner.h - the entry of a worker's runner fiber (see runner.c). */
#ifndef FPAR_SCHED_EXEC_RUNNER_H
#define FPAR_SCHED_EXEC_RUNNER_H

/* Entry of the runner fiber (arg: the worker): claims and runs groups
 * until the launch has none left, then switches to the scheduler. */
void fpar__runner_main(void *arg);

#endif
