/* SPDX-License-Identifier: MIT */
/* worker.h - one worker thread's state, seen by the code that runs groups
 * on it (worker.c: the calling thread's worker, taking groups, room for
 * fibers).  Its memory is made in worker_run.c; thread handles and locks
 * are the scheduler's (sched.c). */
#ifndef FPAR_SCHED_WORKER_H
#define FPAR_SCHED_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "fiberpar.h"
#include "sched/arena.h"
#include "sched/async_copy.h"
#include "sched/copystack.h"
#include "sched/launch.h"
#include "sched/sanitizer.h"
#include "sched/stack.h"
#include "sched/subgroup.h"

struct fpar__sched;

/* A group-local object (fpar_group_local_memory): the k-th request. */
typedef struct fpar__local_obj {
  void *ptr;
  size_t size;
  size_t align;
  size_t owner; /* local linear id of the work-item that allocated it */
} fpar__local_obj;

/* How the running group runs: a loop over its work-items (until work-item
 * 0 reaches a barrier), fibers on stacks of their own, or fibers 1.. that
 * take turns on one shared stack (copystack.h). */
#define FPAR__LOOP 0
#define FPAR__FIBERS_OWN 1
#define FPAR__FIBERS_COPIED 2

/* The group a worker is running.  The first members are the barrier's hot
 * state and share one cache line.  Fiber f carries work-item f, or the
 * f-th sub-group of a lane kernel (fpar__fiber_first_item()).  Fibers
 * reach every rendezvous in order, so the running one's index is also the
 * number of fibers that have arrived before it. */
typedef struct fpar__group_run {
  size_t cur;         /* index of the running fiber */
  size_t size;        /* fibers of the group */
  const char *site;   /* what the rendezvous' first arrival did */
  void **ctx;         /* ctx[f]: saved context of fiber f; 2 spare slots */
  int fibers;         /* FPAR__LOOP, FPAR__FIBERS_OWN or _COPIED */
  int shared_fpenv;   /* fibers switch without the FPU control words */
  uint64_t fpu;       /* floating-point control state kernels start with */
  size_t parked;      /* fibers 1..parked wait to start a work-item */
  size_t start_id[3]; /* local id of the next fiber to start */
  size_t group_id[3];
  void *local_buffers[FPAR_MAX_LOCAL_BUFFERS];
  const fpar_item *loop_item; /* work-item 0: the item a barrier-free group
                                 runs, and its fibers' template */
  fpar__local_obj *objects;
  unsigned num_objects, cap_objects;
  size_t arena_mark; /* arena level at group start */
  /* The running group's geometry (its work-items' fpar_item::geometry):
   * the launch's, or `edge` for a group smaller than the enqueued size
   * (the last one in a dimension the local range does not divide). */
  const fpar_nd_geometry *geo;
  fpar_nd_geometry edge;
  unsigned barriers; /* rendezvous passed since the trace's group began */
} fpar__group_run;

/* Rendezvous value of work-items that returned from the kernel. */
extern const char fpar__site_exit[];
#define FPAR__SITE_EXIT fpar__site_exit

/* Memory of phase kernels run as loops (sched/phase.c): one state and one
 * stop record per call of a group, grown on demand, reused by every
 * group. */
typedef struct fpar__phase_mem {
  char *states;
  size_t state_bytes, state_align;
  unsigned *stops;
  size_t num_stops;
} fpar__phase_mem;

/* The work-group collective of the running group's current rendezvous
 * (sched/collective.c): each arrival deposits its values in slots (one
 * per work-item, in local linear id order), the last one combines them.
 * The slots are the worker's, grown on demand, reused by every group. */
typedef struct fpar__collective {
  unsigned op;      /* FPAR_GROUP_OP of the pending collective; 0: none */
  const char *site; /* its rendezvous site, fpar__collective_name(op) */
  size_t src;       /* its broadcast source */
  uint64_t result;  /* a broadcast's, reduction's, any's or all's value */
  unsigned char *slots;
  size_t slot_bytes;
} fpar__collective;

/* A fault that ends the running group. */
typedef struct fpar__fault {
  int code;         /* 0 when there is none */
  int overflow;     /* a stack overflow: the scheduler writes the detail */
  const void *addr; /* faulting address of an overflow; NULL: seen at a
                       switch */
  char detail[384];
} fpar__fault;

typedef struct fpar__worker {
  fpar__group_run run;
  unsigned index;
  unsigned home; /* the chunk it takes groups from first */
  int helper;    /* a host thread's helper (help.h), not a worker thread */
  /* A helper stops taking groups once until(until_arg) holds: what its
   * host thread waits for has happened. */
  int (*until)(const void *arg);
  const void *until_arg;
  struct fpar__sched *sched;
  fpar__launch *launch; /* the launch whose groups the worker takes */
  size_t groups_done;   /* finished, not yet added to the launch */
  uint64_t last_seq;    /* seq of the last launch entered */
  void *sched_ctx;      /* the worker thread's own stack */
  void *dead_ctx;       /* save slot of contexts that never resume */
  void *runner_ctx;     /* work-item 0, which also takes the groups */
  fpar__stack_pool stacks;
  fpar__copystack copy;
  size_t cap_ctx; /* entries of run.ctx */
  fpar__arena arena;
  fpar__fault fault;
  void *altstack;
  size_t altstack_size;
  int in_kernels; /* the runner or a fiber runs, not the scheduler */
  /* ThreadSanitizer builds: the TSan fibers of the scheduler, the copier,
   * and fiber f (0: the runner) in tsan_fibers[f], cap_ctx of them. */
  void *tsan_sched, *tsan_copier;
  void **tsan_fibers;
  const void *thread_stack_lo; /* the scheduler's stack, for sanitizers */
  size_t thread_stack_size;
  /* Scoped and hierarchical groups: the innermost group, and the name of
   * the item loop being run (NULL outside one), for the rule checks. */
  const fpar_group *innermost;
  const char *inside;
  fpar__phase_mem phase;
  fpar__subgroup_run sg; /* sub-group operations of fiber kernels */
  fpar__async_run async; /* group copies of the running group */
  /* FIBERPAR_TRACE: the worker's recorder, NULL when tracing is off. */
  struct fpar__trace_worker *trace;
  fpar__collective coll;
} fpar__worker;

/* The TSan fiber of fiber f (NULL in builds without ThreadSanitizer). */
static inline void *fpar__worker_tsan_fiber(const fpar__worker *w, size_t f) {
  return fpar__tsan_enabled() ? w->tsan_fibers[f] : NULL;
}

/* fpar_barrier() finds the worker from the run state it is handed. */
_Static_assert(offsetof(fpar__worker, run) == 0,
               "the group run state must open the worker");

/* The worker running on this thread, NULL on other threads. */
extern __thread fpar__worker *fpar__self
    __attribute__((tls_model("initial-exec")));

/* Make room for the contexts of n fibers (and two spare entries).
 * Returns 0 or FPAR_ENOMEM. */
int fpar__worker_reserve_fibers(fpar__worker *w, size_t n);

/* Take the next group of the worker's launch: from its home chunk, else
 * from another's.  Returns 1 and the linear group id, or 0 (also for a
 * helper whose host has what it waits for). */
int fpar__worker_claim(fpar__worker *w, size_t *group);

/* Whether l has groups that no one has taken yet. */
int fpar__launch_unclaimed(const fpar__launch *l);

#endif
