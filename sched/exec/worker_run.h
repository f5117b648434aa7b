/* SPDX-License-Identifier: MIT */
/* worker_run.h - a worker's life as the scheduler's threads see it: its
 * memory, made and freed on its own thread (so that it lands on its NUMA
 * node), and its run through the groups of a launch. */
#ifndef FPAR_SCHED_EXEC_WORKER_RUN_H
#define FPAR_SCHED_EXEC_WORKER_RUN_H

#include "sched/exec/sched.h"
#include "sched/group/worker.h"

struct fpar__topo;

/* What every worker of a scheduler is made with. */
typedef struct fpar__worker_setup {
  struct fpar__sched *sched;
  const fpar__sched_config *cfg;
  struct fpar__topo *topo;
  unsigned workers;          /* worker threads; helpers are numbered after */
  size_t stack_limit;        /* fiber stacks it may hold (stack.h) */
  int stack_marks;           /* guards are page-table marks (guard.h) */
  struct fpar__trace *trace; /* FIBERPAR_TRACE, or NULL */
  fpar__claim *claims;       /* one chunk word per worker (group_claim.h) */
  /* The floating-point control state the worker threads inherited from
   * the thread that made them, which helpers' kernels start with too. */
  uint64_t fpu;
} fpar__worker_setup;

/* Make worker `index` on the calling thread: a worker thread's below
 * setup->workers (with its alternate signal stack), else a helper
 * (help.h), whose memory lies where worker index % workers has its.
 * Returns 0, FPAR_ENOMEM or FPAR_EINVAL. */
int fpar__worker_create(fpar__worker **w, const fpar__worker_setup *setup,
                        unsigned index);
void fpar__worker_destroy(fpar__worker *w);

/* Run groups of l, starting with those w took first
 * (fpar__worker_take_first), until it has none left; faults are recorded
 * in l. */
void fpar__worker_run_launch(fpar__worker *w, fpar__launch *l);

#endif
