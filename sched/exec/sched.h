/* SPDX-License-Identifier: MIT */
/* sched.h - the scheduler as the API layer sees it: a set of pinned
 * workers that execute submitted launches in submission order. */
/* Room exec of sched/ (docs/layout.md): the worker threads, the launch
 * FIFO, the runner fiber, a worker's life, the helpers of waiting host
 * threads.  The rooms, in the order they may include one another: base,
 * machine, fiber, group, diag, exec; a room includes its own headers and
 * those of the rooms before it, never one after it (tests/test_layout.sh
 * checks).  exec includes base, machine, fiber, group and diag; lib/
 * includes it. */
#ifndef FPAR_SCHED_EXEC_SCHED_H
#define FPAR_SCHED_EXEC_SCHED_H

#include <stddef.h>

#include "fiberpar.h"
#include "sched/base/config.h"
#include "sched/base/launch_record.h"

typedef struct fpar__sched fpar__sched;

struct fpar__topo;

/* Start the workers and wait until each has its memory.  Returns 0,
 * FPAR_ETOPOLOGY, FPAR_ETHREAD or FPAR_ENOMEM (with fpar_last_error set). */
int fpar__sched_create(fpar__sched **s, const fpar__sched_config *cfg);

/* Join the workers and drop the creator's reference; every submitted
 * launch must have completed. */
void fpar__sched_destroy(fpar__sched *s);

/* References that keep the scheduler's record (what fpar__sched_wait and
 * fpar__sched_usable read) alive after fpar__sched_destroy(): each event
 * handle holds one. */
void fpar__sched_ref(fpar__sched *s);
void fpar__sched_unref(fpar__sched *s);

unsigned fpar__sched_num_workers(const fpar__sched *s);

/* Where the workers run (see topo.h). */
const struct fpar__topo *fpar__sched_topo(const fpar__sched *s);

/* 0 when s can be used from this process; FPAR_EFORK in a child forked
 * after s was created (s has no workers there). */
int fpar__sched_usable(const fpar__sched *s);

/* A launch of spec for s (see fpar__launch_create()), from s's pool of
 * records: no lock and no allocation while the pool has free records.
 * NULL without memory. */
fpar__launch *fpar__sched_launch_create(fpar__sched *s,
                                        const fpar__launch_spec *spec,
                                        size_t args_size);

/* Queue a launch behind the earlier ones; the scheduler takes its own
 * references and records itself as l->sched.  Takes no lock; starts l at
 * once when the list was empty. */
void fpar__sched_submit(fpar__sched *s, fpar__launch *l);

/* Block until done(arg) is true; done must become true in the completion
 * of a launch whose hooks.complete returns nonzero or is NULL (a waiter
 * asleep is woken by no other).  Meanwhile a calling thread that runs no
 * kernel runs groups of the active launch itself (help.h), which is the
 * one it waits for or one queued before it; then it spins for spin_us,
 * then sleeps.  Returns 0 once done, or at once FPAR_EFORK (see
 * fpar__sched_usable) or FPAR_EDEADLOCK when the caller is a kernel
 * running on one of s's workers or helpers and done is still false. */
int fpar__sched_wait(fpar__sched *s, int (*done)(const void *arg),
                     const void *arg);

#endif
