/* SPDX-License-Identifier: MIT */
/* sched.h - the scheduler as the API layer sees it: a set of pinned
 * workers that execute submitted launches in submission order. */
#ifndef FPAR_SCHED_SCHED_H
#define FPAR_SCHED_SCHED_H

#include <stddef.h>

#include "fiberpar.h"
#include "sched/launch.h"

typedef struct fpar__sched fpar__sched;

typedef struct fpar__sched_config {
  unsigned num_threads; /* 0: one per core (or PU) */
  fpar_pin pin;         /* resolved: never FPAR_PIN_DEFAULT */
  size_t stack_size;
  size_t local_mem_size;
  size_t max_group_size;
  unsigned spin_us;
  fpar_fpenv fpenv;       /* resolved: never FPAR_FPENV_DEFAULT */
  unsigned subgroup_size; /* resolved: never 0 */
  size_t max_stacks;      /* fiber stacks per worker; 0: from the budget */
  int stack_guard_prot;   /* PROT_NONE guards even where marks exist */
  /* Placement (see topo.h).  places is read only at creation. */
  const char *places;      /* FPAR_PIN_LIST: "0,2,4-7" */
  const char *places_name; /* names the list in messages */
  int places_error;        /* FPAR_EENV or FPAR_EINVAL for a bad list */
  unsigned local_rank;     /* the launcher's rank on this node */
  unsigned local_ranks;    /* ranks on this node; 0 = no launcher */
  fpar_display display;    /* resolved: never FPAR_DISPLAY_DEFAULT */
  const char *trace_path;  /* FIBERPAR_TRACE file; NULL: no trace.  Read
                              only at creation. */
} fpar__sched_config;

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

/* Block until done(arg) is true; done must become true in a launch's
 * on_complete or status change.  Meanwhile a calling thread that runs no
 * kernel runs groups of the active launch itself (help.h), which is the
 * one it waits for or one queued before it; then it spins for spin_us,
 * then sleeps.  Returns 0 once done, or at once FPAR_EFORK (see
 * fpar__sched_usable) or FPAR_EDEADLOCK when the caller is a kernel
 * running on one of s's workers or helpers and done is still false. */
int fpar__sched_wait(fpar__sched *s, int (*done)(const void *arg),
                     const void *arg);

#endif
