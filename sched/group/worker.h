/* SPDX-License-Identifier: MIT */
/* worker.h - one worker thread's state, seen by the code that runs groups
 * on it (worker.c: the calling thread's worker, taking groups, room for
 * fibers, the way back to the scheduler).  Its memory is made in
 * exec/worker_run.c; thread handles and locks are the scheduler's
 * (exec/sched.c).  Features that keep state of their own in a worker
 * (collectives, sub-groups, group copies, phase loops, scoped nesting) each
 * own a slot of it, which this header does not look into. */
/* Room group of sched/ (docs/layout.md): running a work-group on a worker:
 * the worker's state and feature slots, the nd_range runner, barrier, local
 * memory and arena, copied stacks, phase loops, collectives, sub-groups,
 * group copies, scoped and hierarchical groups, ending a group.  The rooms,
 * in the order they may include one another: base, machine, fiber, group,
 * diag, exec; a room includes its own headers and those of the rooms before
 * it, never one after it (tests/test_layout.sh checks).  group includes
 * base, machine and fiber; diag, exec and lib/ include it. */
#ifndef FPAR_SCHED_GROUP_WORKER_H
#define FPAR_SCHED_GROUP_WORKER_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "fiberpar.h"
#include "sched/base/group_claim.h"
#include "sched/base/launch_record.h"
#include "sched/fiber/sanitizer.h"
#include "sched/fiber/stack.h"
#include "sched/group/arena.h"
#include "sched/group/copystack.h"

struct fpar__sched;

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
  /* First: the objects and buffers inline code reads (<fiberpar.h>). */
  fpar__group_view view;
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
  size_t next_linear;         /* the group after group_id's; SIZE_MAX: none */
  const fpar_item *loop_item; /* work-item 0: the item a barrier-free group
                                 runs, and its fibers' template */
  unsigned cap_objects;       /* room in view.objects */
  size_t arena_mark;          /* arena level at group start */
  /* The running group's geometry (its work-items' fpar_item::geometry):
   * the launch's, or `edge` for a group smaller than the enqueued size
   * (the last one in a dimension the local range does not divide). */
  const fpar_nd_geometry *geo;
  fpar_nd_geometry edge;
  unsigned barriers; /* rendezvous passed since the trace's group began */
  size_t serial;     /* steps at each nd_range group's start and end,
                        from 1: a feature that keeps a record per group
                        (its first state 0) tells by it the group that
                        made it from any other, or none running */
  uint16_t phase_op; /* *view.phase_op: a phase's collective, or 0 */
} fpar__group_run;
_Static_assert(offsetof(fpar__group_run, view) == 0,
               "inline code finds the group view at it->run (<fiberpar.h>)");

/* Rendezvous value of work-items that returned from the kernel. */
extern const char fpar__site_exit[];
#define FPAR__SITE_EXIT fpar__site_exit

/* The features that keep state in a worker, one slot each. */
enum {
  FPAR__SLOT_PHASE,      /* phase.c: states and stops of phase loops */
  FPAR__SLOT_COLLECTIVE, /* collective.c: the pending work-group collective */
  FPAR__SLOT_SUBGROUP,   /* subgroup.c: the pending sub-group operation */
  FPAR__SLOT_ASYNC,      /* async_copy.c: the running group's copies */
  FPAR__SLOT_SCOPED,     /* scoped.c: the nesting of scoped groups */
  FPAR__SLOTS
};

/* Bytes of state a slot holds. */
#define FPAR__SLOT_BYTES 112

/* A feature's state inside the worker, so that its hot paths reach it at
 * a constant offset from the worker, as they would a member, and on the
 * worker's NUMA node.  Its type is the feature's own (its header has the
 * accessor, fpar__worker_slot() with the feature's id).  The state starts
 * zeroed; a feature that allocates memory for it sets `destroy`, which
 * the worker's end calls (fpar__worker_slots_destroy). */
typedef struct fpar__slot {
  void (*destroy)(void *state);
  alignas(16) unsigned char state[FPAR__SLOT_BYTES];
} fpar__slot;

/* A fault that ends the running group. */
typedef struct fpar__fault {
  int code;         /* 0 when there is none */
  int overflow;     /* a stack overflow: the scheduler writes the detail */
  const void *addr; /* faulting address of an overflow; NULL: seen at a
                       switch */
  char detail[384];
} fpar__fault;

#ifdef FPAR__TSAN
/* Racecheck's state of a fiber slot (sched/group/race.h). */
typedef struct fpar__race_slot {
  size_t depth;   /* runtime calls the slot's fiber is in */
  long sub_group; /* sync word of the sub-group the slot's fiber leads */
} fpar__race_slot;

/* Racecheck's identity of the logical items of item loops (scoped and
 * hierarchical groups) that fall on it: a TSan fiber and a context on a
 * stack of its own. */
typedef struct fpar__race_item {
  void *fiber;       /* its TSan fiber */
  void *ctx;         /* its saved context; NULL: to be made */
  unsigned groups;   /* w->race.groups when it was named, and for which */
  size_t item, last; /* items */
} fpar__race_item;

/* Racecheck's state of the item loops of a worker (race.c). */
typedef struct fpar__race_items {
  fpar__stack_pool stacks; /* stack i: identity i's; unused while limit is 0 */
  size_t limit;            /* most identities: item n takes n % limit */
  fpar__race_item *ids;
  size_t cap;
  size_t running;     /* identity + 1 of the item that runs; 0: none */
  size_t unsynced;    /* 1: the runner's accesses are ignored, since a
                         scoped loop ended without synchronising */
  const char *kind;   /* what it runs ("logical item", "work-item") */
  void *back;         /* the runner's context while an item runs */
  void *runner_fiber; /* its TSan fiber */
  /* The call the running item makes. */
  fpar_s_item_fn fn;
  fpar_s_row_fn row;
  fpar_s_item *si;
  void *arg;
  size_t x_end;
  /* The items whose call a fault cut short (a stack overflow on its
   * identity's stack), for the fault's message; "" after other faults. */
  char faulted[64];
} fpar__race_items;

/* Racecheck's state of a worker. */
typedef struct fpar__race {
  unsigned phase;         /* group rendezvous opened (by work-item 0) */
  unsigned groups;        /* groups begun on the worker */
  long words[4];          /* sync words: rendezvous of each parity, group start,
                             any switch (for the scheduler) */
  fpar__race_slot *slots; /* one per fiber slot */
  size_t cap;
  fpar__race_items items;
} fpar__race;
#endif

typedef struct fpar__worker {
  fpar__group_run run;
  unsigned index;
  unsigned home; /* the chunk it takes groups from first */
  int helper;    /* a host thread's helper (exec/help.h), not a worker */
  /* A helper stops taking groups once until(until_arg) holds: what its
   * host thread waits for has happened. */
  int (*until)(const void *arg);
  const void *until_arg;
  struct fpar__sched *sched;
  fpar__launch *launch; /* the launch whose groups the worker takes */
  /* That launch as the chunk words know it (group_claim.h). */
  fpar__claim_launch launch_claim;
  fpar__claim *claims; /* the scheduler's chunk words, one per worker */
  unsigned num_chunks;
  size_t groups_done; /* finished, not yet added to the launch */
  uint64_t last_seq;  /* seq of the last launch looked at */
  void *sched_ctx;    /* the worker thread's own stack */
  void *dead_ctx;     /* save slot of contexts that never resume */
  void *runner_ctx;   /* work-item 0, which also takes the groups */
  /* Positions it claimed in one take and has not run yet: [next, end). */
  size_t batch_next, batch_end;
  /* The most positions a take of launch batch_seq may claim, and when the
   * batch being run was taken (worker.c: FPAR__BATCH_*); reset at a
   * launch's second take. */
  size_t batch_cap;
  uint64_t batch_since, batch_seq;
  /* A scoped or hierarchical launch's work group but for its id and
   * origin, built for launch group_template_seq (0: none yet) and copied
   * for each group (scoped.c). */
  fpar_group group_template;
  uint64_t group_template_seq;
  fpar__stack_pool stacks;
  fpar__copystack copy;
  size_t cap_ctx; /* entries of run.ctx */
  fpar__arena arena;
  fpar__fault fault;
  int in_kernels; /* the runner or a fiber runs, not the scheduler */
  /* ThreadSanitizer builds: the TSan fibers of the scheduler, the copier,
   * and fiber f (0: the runner) in tsan_fibers[f], cap_ctx of them. */
  void *tsan_sched, *tsan_copier;
  void **tsan_fibers;
  const void *thread_stack_lo; /* the scheduler's stack, for sanitizers */
  size_t thread_stack_size;
  /* FIBERPAR_TRACE: the worker's recorder (diag/trace.h), NULL when
   * tracing is off. */
  struct fpar__trace_worker *trace;
  fpar__slot slots[FPAR__SLOTS];
#ifdef FPAR__TSAN
  fpar__race race; /* racecheck (sched/group/race.h) */
#endif
} fpar__worker;

/* The state of feature `id` (FPAR__SLOT_*) in w. */
static inline void *fpar__worker_slot(fpar__worker *w, unsigned id) {
  return w->slots[id].state;
}

/* The state of feature `id` holds memory: destroy(state) frees it at the
 * worker's end. */
static inline void fpar__worker_slot_owns(fpar__worker *w, unsigned id,
                                          void (*destroy)(void *state)) {
  w->slots[id].destroy = destroy;
}

/* Free what the features' states hold. */
void fpar__worker_slots_destroy(fpar__worker *w);

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

/* Leave the running fiber (or the runner) for good and resume the
 * worker's scheduler context: the end of a launch's groups, or of a
 * group that faulted. */
_Noreturn void fpar__worker_to_sched(fpar__worker *w);

/* Make room for the contexts of n fibers (and two spare entries).
 * Returns 0 or FPAR_ENOMEM. */
int fpar__worker_reserve_fibers(fpar__worker *w, size_t n);

/* Take the first groups of launch `seq` of `groups` groups for w, before
 * w reads anything of the launch's record: returns 1 when w took some
 * (they hold the launch open until w reports them done, so the record is
 * then that launch's), 0 when none were left. */
int fpar__worker_take_first(fpar__worker *w, uint64_t seq, size_t groups);

/* Take the next group of the worker's launch: from the positions it took
 * last, else from its home chunk, else from another's.  Returns 1 and the
 * linear group id, or 0 (also for a helper whose host thread has what it
 * waits for). */
int fpar__worker_claim(fpar__worker *w, size_t *group);

/* Set w->run.group_id to the 3-D id of group `linear` of w's launch: a
 * step from the group before when `linear` follows it (the positions of a
 * take are consecutive), else two divisions. */
static inline void fpar__worker_locate(fpar__worker *w, size_t linear) {
  fpar__group_run *g = &w->run;

  if (linear == g->next_linear)
    fpar__next_id(g->group_id, w->launch->spec.geo.group_range, 1);
  else
    fpar__group_id(w->launch, linear, g->group_id);
  g->next_linear = linear + 1;
}

#endif
