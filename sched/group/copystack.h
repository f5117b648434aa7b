/* SPDX-License-Identifier: MIT */
/* copystack.h - running a group's fibers on one shared stack.
 *
 * A worker holds a bounded number of stack slots (stack.h).  A group with
 * more fibers runs its fibers 1..n-1 in turn on one shared slot: at each
 * switch into one of them, a copier context on a slot of its own moves the
 * live frames of the slot's previous occupant into that fiber's save area
 * and puts back the frames of the next one.  Every fiber runs at the same
 * addresses, so pointers into its own stack stay valid across barriers,
 * and any group size runs within any mapping budget.  A switch then costs
 * two context switches and two copies of the live frames instead of one
 * switch.  Fiber 0 keeps the runner's slot.
 */
#ifndef FPAR_SCHED_GROUP_COPYSTACK_H
#define FPAR_SCHED_GROUP_COPYSTACK_H

#include <stddef.h>
#include <stdint.h>

struct fpar__worker;

/* The slots copy mode uses besides the runner's. */
#define FPAR__COPY_SHARED_SLOT 1
#define FPAR__COPY_COPIER_SLOT 2

/* No fiber occupies the shared slot. */
#define FPAR__COPY_NO_OWNER ((size_t)-1)

/* The frames of a fiber while it is off the shared slot. */
typedef struct fpar__saved_stack {
  char *bytes;
  size_t len, cap;
} fpar__saved_stack;

typedef struct fpar__copystack {
  void *copier_ctx;         /* the copier between its turns */
  size_t owner;             /* the fiber whose frames are on the shared slot */
  void (*entry)(void *arg); /* entry of fresh fibers (arg: the worker) */
  uint64_t fpu;             /* their floating-point control state */
  fpar__saved_stack *saved; /* saved[f]: fiber f's frames */
  size_t cap_saved;
} fpar__copystack;

/* Run the fibers 1..size-1 of w's group, whose contexts must be NULL (not
 * started yet), on the shared slot: a fresh fiber starts with
 * entry(w) and floating-point control state fpu.  Slots 0-2 must exist.
 * Returns 0 or FPAR_ENOMEM. */
int fpar__copystack_begin(struct fpar__worker *w, void (*entry)(void *arg),
                          uint64_t fpu);

/* The fiber on the shared slot has returned: its frames need no saving. */
static inline void fpar__copystack_vacate(fpar__copystack *c) {
  c->owner = FPAR__COPY_NO_OWNER;
}

void fpar__copystack_destroy(fpar__copystack *c);

#endif
