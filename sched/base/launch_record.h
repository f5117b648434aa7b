/* SPDX-License-Identifier: MIT */
/* launch_record.h - what the scheduler executes: one submitted launch,
 * and the pool its records come from.
 *
 * An event is the launch it completes, so struct fpar_event is defined
 * here.  A launch is reference counted: one reference for the scheduler
 * from submission to completion, one while it is the last of the
 * scheduler's list, and one for the user's event handle.  The workers
 * and helping host threads that run its groups hold none: the groups they
 * took (base/group_claim.h) keep it from completing, and so its record from
 * being released, until they report them done.
 *
 * Records are never freed while their pool lives: a released record goes
 * back to its pool and serves a later launch, with no lock and no
 * allocation.
 */
#ifndef FPAR_SCHED_BASE_LAUNCH_RECORD_H
#define FPAR_SCHED_BASE_LAUNCH_RECORD_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "fiberpar.h"
#include "sched/base/order.h"

#define FPAR__NAME_MAX 64

/* Room for a launch's error message (kernel, group, work-items, what
 * happened): inline, so that a launch that failed for want of memory
 * still says why. */
#define FPAR__ERROR_MAX 512

/* A launch's status before it has a result (0 or a negative code). */
#define FPAR__LAUNCH_QUEUED 2
#define FPAR__LAUNCH_RUNNING 1

typedef struct fpar_event fpar__launch;
struct fpar__worker;

/* The programming model of a launch. */
typedef enum fpar__model {
  FPAR__ND_RANGE,     /* kernel per work-item, fibers at barriers */
  FPAR__SCOPED,       /* group function, one physical work-item */
  FPAR__HIERARCHICAL, /* group function, physical work-items are loops */
  FPAR__PHASE         /* phase kernel run as one loop per phase */
} fpar__model;

/* What to run: built by the API layer (lib/launch.c) before submission,
 * read-only after. */
typedef struct fpar__launch_spec {
  fpar__model model;
  fpar_group_fn group_fn;  /* scoped and hierarchical launches */
  size_t physical_size[3]; /* hierarchical: physical work-items per group */
  unsigned subgroup_size;  /* scoped: items per sub-group */
  fpar_kernel_fn kernel;
  fpar_row_fn row;     /* NULL: work-items of barrier-free groups one by one */
  unsigned lanes;      /* > 1: lane kernel, one call per sub-group of lanes */
  size_t group_fibers; /* calls (and fibers) per group: work-items, or
                          sub-groups of a lane kernel */
  int nonuniform;      /* some dimension ends with a smaller group */
  /* FPAR__PHASE: runs one work group (sched/group/phase.c), set by the API
   * layer so that the scheduler need not know phase kernels. */
  void (*run_group)(struct fpar__worker *w, size_t linear);
  fpar_phase_rows_fn phase_rows;        /* FPAR__PHASE: one phase of a group */
  fpar_phase_rows_fn phase_split_rows;  /* FPAR__PHASE: phase_rows' other
                                           form, or NULL: phase_rows alone */
  fpar_phase_rows_fn phase_scalar_rows; /* FPAR__PHASE: its third, or NULL */
  size_t state_size, state_align;       /* FPAR__PHASE: each call's state */
  size_t local_size, local_align; /* FPAR__PHASE: the group's local struct */
  const char *phase_file;         /* FPAR__PHASE: file of the barriers */
  int phase_debug;                /* FPAR__PHASE: poison the states */
  int subgroup_ops;     /* an nd_range kernel of one work-item per call, not
                           a phase kernel: it may use sub-group operations */
  size_t subgroup_mask; /* with subgroup_ops and a sub-group size S that is
                           a power of two above 1, S - 1 (the operations'
                           fast path); else 0 */
  int subgroups_whole;  /* every sub-group has S work-items */
  void *args;
  fpar_nd_geometry geo;
  size_t group_size; /* work-items per group */
  size_t num_groups;
  unsigned num_local_buffers;
  size_t local_buffer_bytes[FPAR_MAX_LOCAL_BUFFERS];
  size_t local_buffer_align[FPAR_MAX_LOCAL_BUFFERS];
  char name[FPAR__NAME_MAX];
  fpar__order order; /* the runtime's FIBERPAR_SCHEDULE */
} fpar__launch_spec;

/* The API layer's part of a launch.  The engine only calls complete(), on
 * the completing worker after the status is final and before waiters
 * wake; the rest is the API layer's own.  complete() returns nonzero when
 * the completion may end a wait (fpar__sched_wait's condition): sleeping
 * waiters are woken only then, not at every launch of a long queue. */
typedef struct fpar__launch_hooks {
  int (*complete)(fpar__launch *l);
  void *queue;              /* the queue it was submitted to */
  _Atomic(void *) uv_async; /* uv_async_t to signal on completion */
} fpar__launch_hooks;

/* The bit of fpar_event::groups_done that a waiting host thread sets
 * when it takes the launch's completion over (exec/sched.c). */
#define FPAR__LAUNCH_COMPLETER ((size_t)1 << (sizeof(size_t) * 8 - 1))

/* Marks fpar_event::next of a launch that completed before a successor
 * was linked to it. */
#define FPAR__LAUNCH_DONE ((fpar__launch *)&fpar__launch_done_mark)
extern const char fpar__launch_done_mark;

typedef struct fpar__launch_pool fpar__launch_pool;

/* The record's cache lines fall in three groups: what to run, which every
 * thread that runs groups reads; the count and fault that those threads
 * write; and the host's side (list, references, status, times), which a
 * worker touches only when it completes the launch. */
struct fpar_event {
  /* What to run.  A record serves launch after launch, and
   * fpar__launch_create() rewrites only the lines of these that change:
   * the workers' copies of the others stay valid. */
  fpar__launch_spec spec;
  /* The launch's own copy of its arguments (fpar_launch_desc::args_size),
   * which spec.args then points to. */
  alignas(64) unsigned char arg_copy[FPAR_MAX_ARGS_SIZE];

  /* Groups finished, added by each thread as it leaves; with
   * FPAR__LAUNCH_COMPLETER while a waiting host thread will complete the
   * launch when the count is whole. */
  alignas(64) atomic_size_t groups_done;
  /* The lowest linear id of a group that faulted (FPAR__NO_FAULT: none);
   * groups above it are skipped, those below still run. */
  atomic_size_t failed_group;
  int fault_code; /* that group's fault */

  alignas(64) fpar__launch_hooks hooks;
  struct fpar__sched *sched; /* the scheduler that runs it */
  fpar__launch_pool *pool;   /* where the record returns */
  /* Activation order (from 1), set when the launch starts; 0 while it
   * waits. */
  atomic_uint_fast64_t seq;
  /* The scheduler's list: the next launch, FPAR__LAUNCH_DONE once this
   * one completed with none linked yet. */
  _Atomic(fpar__launch *) next;
  atomic_int status; /* FPAR__LAUNCH_QUEUED, _RUNNING, then the result: 0
                        or the fault's negative code */
  atomic_int refs;
  uint64_t submit_ns, start_ns, end_ns;
  atomic_uint pool_next; /* the next free record's index + 1, in the pool */
  unsigned pool_index;   /* the record's own index in its pool */
  char error[FPAR__ERROR_MAX]; /* the fault's message */
};

/* Start a pool of records.  Returns 0 or FPAR_ENOMEM. */
int fpar__launch_pool_init(fpar__launch_pool **pool);

/* Free the pool and every record it made: none may be in use. */
void fpar__launch_pool_destroy(fpar__launch_pool *pool);

/* A launch of spec (copied, with args_size bytes of spec->args copied too
 * when args_size is not 0) with one reference, or NULL without memory.
 * Takes no lock while the pool has free records. */
fpar__launch *fpar__launch_create(fpar__launch_pool *pool,
                                  const fpar__launch_spec *spec,
                                  size_t args_size);
void fpar__launch_ref(fpar__launch *l);
void fpar__launch_unref(fpar__launch *l);

/* failed_group of a launch none of whose groups faulted. */
#define FPAR__NO_FAULT SIZE_MAX

/* Record the fault of group `group` (linear id) of a launch, unless a
 * group below it faulted too: a launch reports the lowest group that
 * faults, whatever the order in which workers reach them, since groups
 * below a fault still run (fpar__launch_skips).  message is copied (up
 * to FPAR__ERROR_MAX - 1 bytes). */
void fpar__launch_fail(fpar__launch *l, size_t group, int code,
                       const char *message);

/* 1 if a group of the launch faulted; its fault_code and error are then
 * set (once the launch's groups are done). */
static inline int fpar__launch_failed(const fpar__launch *l) {
  return atomic_load_explicit(&l->failed_group, memory_order_acquire) !=
         FPAR__NO_FAULT;
}

/* 1 if group `group` (linear id) is to be skipped: a group below it
 * faulted. */
static inline int fpar__launch_skips(const fpar__launch *l, size_t group) {
  return group > atomic_load_explicit(&l->failed_group, memory_order_relaxed);
}

/* The 3-D id of the launch's group with linear id `linear`. */
static inline void fpar__group_id(const fpar__launch *l, size_t linear,
                                  size_t id[3]) {
  const size_t *r = l->spec.geo.group_range;

  id[0] = linear % r[0];
  id[1] = linear / r[0] % r[1];
  id[2] = linear / r[0] / r[1];
}

/* Advance a 3-D id within `range` by `step` along dimension 0, carrying
 * into dimensions 1 and 2 (dimension-0-fastest order): a call's first
 * local id (step: the lanes of a lane kernel, else 1), or a group's id. */
static inline void fpar__next_id(size_t id[3], const size_t range[3],
                                 unsigned step) {
  if ((id[0] += step) < range[0])
    return;
  id[0] = 0;
  if (++id[1] < range[1])
    return;
  id[1] = 0;
  ++id[2];
}

/* The linear id of the launch's group with 3-D id `id`. */
static inline size_t fpar__group_linear(const fpar__launch *l,
                                        const size_t id[3]) {
  const size_t *r = l->spec.geo.group_range;

  return id[0] + r[0] * (id[1] + r[1] * id[2]);
}

/* Kernel calls (and fibers) of a group of local range lr: a lane kernel
 * runs once per sub-group of `lanes` work-items along dimension 0, the
 * last one of a row masked. */
static inline size_t fpar__group_calls(const size_t lr[3], unsigned lanes) {
  return (lr[0] + lanes - 1) / lanes * lr[1] * lr[2];
}

#endif
