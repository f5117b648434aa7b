/* SPDX-License-Identifier: MIT */
/* race.c - racecheck under ThreadSanitizer (see race.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/fiber/context.h"
#include "sched/group/race.h"
#include "sched/group/scoped.h"

#ifdef FPAR__TSAN

/* The bookkeeping of the ignores is not itself checked: a fiber's depth
 * is read before its accesses are ignored. */
#define FPAR__RACE_UNCHECKED __attribute__((no_sanitize_thread, noinline))

static FPAR__RACE_UNCHECKED void fpar__race_ignore(int begin) {
  if (begin) {
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  } else {
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
  }
}

FPAR__RACE_UNCHECKED void fpar__race_enter(fpar__worker *w) {
  if (w != NULL && w->race.slots[w->run.cur].depth++ == 0)
    fpar__race_ignore(1);
}

FPAR__RACE_UNCHECKED void fpar__race_leave(fpar__worker *w) {
  if (w != NULL && --w->race.slots[w->run.cur].depth == 0)
    fpar__race_ignore(0);
}

FPAR__RACE_UNCHECKED void fpar__race_fresh(fpar__worker *w) {
  size_t f = w->run.cur;

  if (w->race.slots[f].depth != 0) {
    w->race.slots[f].depth = 0;
    fpar__race_ignore(0);
  }
}

FPAR__RACE_UNCHECKED unsigned fpar__race_arrive(fpar__worker *w) {
  unsigned parity;

  /* Work-item 0 is the first arrival of every rendezvous. */
  if (w->run.cur == 0)
    w->race.phase++;
  parity = w->race.phase & 1;
  __tsan_release(&w->race.words[parity]);
  return parity;
}

void fpar__race_depart(fpar__worker *w, unsigned parity) {
  __tsan_acquire(&w->race.words[parity]);
}

void fpar__race_sg_arrive(fpar__worker *w, size_t first) {
  __tsan_release(&w->race.slots[first].sub_group);
}

void fpar__race_sg_depart(fpar__worker *w, size_t first) {
  __tsan_acquire(&w->race.slots[first].sub_group);
}

void fpar__race_switch_out(fpar__worker *w) {
  __tsan_release(&w->race.words[3]);
}

/* End the ignores of TSan fiber `fiber`, which is parked inside runtime
 * code *depth calls deep (or, for the runner, in code after a scoped loop
 * while *depth is 1), with TSan told for the moment that it runs (TSan
 * checks that a fiber it destroys ignores nothing). */
static FPAR__RACE_UNCHECKED void fpar__race_unignore(void *fiber,
                                                     size_t *depth) {
  void *self = __tsan_get_current_fiber();

  if (*depth == 0 || fiber == NULL)
    return;
  __tsan_switch_to_fiber(fiber, __tsan_switch_to_fiber_no_sync);
  fpar__race_ignore(0);
  __tsan_switch_to_fiber(self, __tsan_switch_to_fiber_no_sync);
  *depth = 0;
}

static void fpar__race_item_fault(fpar__worker *w);

void fpar__race_sched_back(fpar__worker *w) {
  __tsan_acquire(&w->race.words[3]);
  w->race.items.faulted[0] = '\0';
  if (w->race.items.running != 0)
    fpar__race_item_fault(w);
  /* The runner's context is abandoned too. */
  fpar__race_unignore(w->tsan_fibers[0], &w->race.items.unsynced);
}

/* Name TSan fiber `fiber` after the work-items it runs. */
static FPAR__RACE_UNCHECKED void
fpar__race_name_fiber(fpar__worker *w, void *fiber, const char *items) {
  const fpar__group_run *g = &w->run;
  char name[160];

  snprintf(name, sizeof name, "kernel %s group (%zu,%zu,%zu) %s",
           w->launch->spec.name, g->group_id[0], g->group_id[1], g->group_id[2],
           items);
  __tsan_set_fiber_name(fiber, name);
}

/* Name fiber f after the work-items it runs. */
static FPAR__RACE_UNCHECKED void fpar__race_name(fpar__worker *w, size_t f,
                                                 const char *items) {
  fpar__race_name_fiber(w, w->tsan_fibers[f], items);
}

FPAR__RACE_UNCHECKED void fpar__race_group_start(fpar__worker *w,
                                                 const char *items) {
  w->race.groups++;
  fpar__race_name(w, 0, items);
  __tsan_release(&w->race.words[2]);
}

FPAR__RACE_UNCHECKED void fpar__race_item_start(fpar__worker *w,
                                                const char *items) {
  __tsan_acquire(&w->race.words[2]);
  fpar__race_name(w, w->run.cur, items);
}

FPAR__RACE_UNCHECKED int fpar__race_reserve(fpar__worker *w, size_t n) {
  fpar__race_slot *slots;

  if (n <= w->race.cap)
    return 0;
  slots = realloc(w->race.slots, n * sizeof *slots);
  if (slots == NULL)
    return FPAR_ENOMEM;
  memset(slots + w->race.cap, 0, (n - w->race.cap) * sizeof *slots);
  w->race.slots = slots;
  w->race.cap = n;
  return 0;
}

/* ---- Logical items of item loops ---------------------------------------- */

/* Entry of the contexts of item identities: one call of an item per
 * resumption, made on the identity's own stack with a copy of the item
 * there (only this identity ever touches it), then back to the runner.
 * Unchecked, as the switches are: the call's frames are balanced on the
 * identity's TSan fiber. */
static FPAR__RACE_UNCHECKED void fpar__race_item_main(void *arg) {
  fpar__worker *w = arg;
  fpar__race_items *r = &w->race.items;

  for (;;) {
    fpar_s_item si = *r->si;
    size_t id;

    __tsan_acquire(&w->race.words[2]);
    if (r->fn != NULL)
      r->fn(&si, r->arg);
    else {
      r->row(&si, r->arg, r->x_end);
      *r->si = si; /* the row the runner reached */
    }
    __tsan_release(&w->race.words[3]);
    id = r->running - 1;
    r->running = 0;
    __tsan_switch_to_fiber(r->runner_fiber, __tsan_switch_to_fiber_no_sync);
    fpar__ctx_switch_shared_fpenv(&r->ids[id].ctx, r->back);
  }
}

/* The name of a call of items `item` to `last` (SIZE_MAX: to the end of
 * the group) of kind `kind`: "logical item 5", "logical items 0-15". */
static void fpar__race_items_name(char *buf, size_t len, const char *kind,
                                  size_t item, size_t last) {
  if (last == item)
    snprintf(buf, len, "%s %zu", kind, item);
  else if (last == SIZE_MAX)
    snprintf(buf, len, "%ss from %zu on", kind, item);
  else
    snprintf(buf, len, "%ss %zu-%zu", kind, item, last);
}

/* Identity id with its stack.  Returns 0 or FPAR_ENOMEM. */
static FPAR__RACE_UNCHECKED int fpar__race_item_reserve(fpar__worker *w,
                                                        size_t id) {
  fpar__race_items *r = &w->race.items;
  fpar__race_item *ids;
  size_t n = id + 1, k;

  if (n <= r->cap)
    return 0;
  if (fpar__stack_pool_reserve(&r->stacks, n) != 0)
    return FPAR_ENOMEM;
  ids = realloc(r->ids, n * sizeof *ids);
  if (ids == NULL)
    return FPAR_ENOMEM;
  for (k = r->cap; k < n; k++) {
    ids[k].fiber = __tsan_create_fiber(0);
    ids[k].ctx = NULL;
    ids[k].groups = 0;
    ids[k].item = SIZE_MAX;
  }
  r->ids = ids;
  r->cap = n;
  return 0;
}

FPAR__RACE_UNCHECKED void
fpar__race_item_run(fpar__worker *w, size_t item, size_t last, const char *kind,
                    fpar_s_item_fn fn, fpar_s_row_fn row, fpar_s_item *si,
                    void *arg, size_t x_end) {
  fpar__race_items *r = &w->race.items;
  fpar__race_item *it;
  size_t id;

  if (r->limit == 0) {
    /* First use: the identities' stacks are as the worker's fibers'. */
    r->limit = w->stacks.limit < FPAR__RACE_MAX_FIBERS ? w->stacks.limit
                                                       : FPAR__RACE_MAX_FIBERS;
    fpar__stack_pool_init(&r->stacks, w->stacks.topo, w->stacks.worker,
                          w->stacks.stack_size, r->limit, w->stacks.marks);
  }
  id = item % r->limit;
  if (fpar__race_item_reserve(w, id) != 0) {
    /* No stack for it: the call is the group function's. */
    if (fn != NULL)
      fn(si, arg);
    else
      row(si, arg, x_end);
    return;
  }
  it = &r->ids[id];
  if (it->groups != w->race.groups || it->item != item || it->last != last) {
    char name[64];
    fpar__race_items_name(name, sizeof name, kind, item, last);
    fpar__race_name_fiber(w, it->fiber, name);
    it->groups = w->race.groups;
    it->item = item;
    it->last = last;
  }
  if (it->ctx == NULL)
    it->ctx = fpar__ctx_make(fpar__stack_lo(&r->stacks, id),
                             fpar__stack_hi(&r->stacks, id),
                             fpar__race_item_main, w, w->run.fpu);
  r->kind = kind;
  r->fn = fn;
  r->row = row;
  r->si = si;
  r->arg = arg;
  r->x_end = x_end;
  r->running = id + 1;
  r->runner_fiber = __tsan_get_current_fiber();
  r->back = w->runner_ctx; /* the record a ucontext switch saves into */
  __tsan_release(&w->race.words[2]);
  __tsan_switch_to_fiber(it->fiber, __tsan_switch_to_fiber_no_sync);
  fpar__ctx_switch_shared_fpenv(&r->back, it->ctx);
}

FPAR__RACE_UNCHECKED void fpar__race_items_sync(fpar__worker *w) {
  __tsan_acquire(&w->race.words[3]);
  if (w->race.items.unsynced) {
    w->race.items.unsynced = 0;
    fpar__race_ignore(0);
  }
}

FPAR__RACE_UNCHECKED void fpar__race_items_end(fpar__worker *w, int kind,
                                               int grouped) {
  if (kind != FPAR__ITEMS_SCOPED || grouped)
    fpar__race_items_sync(w);
  else if (!w->race.items.unsynced) {
    w->race.items.unsynced = 1;
    fpar__race_ignore(1);
  }
}

/* A fault ended the group while an item ran (the scheduler has the
 * worker back): its context is abandoned mid-call, and its TSan fiber may
 * be inside runtime code with the runner's count of calls (and, after a
 * stack overflow, inside the fault handler, which never returned).  The
 * identity starts afresh; the fault's message names the items. */
static FPAR__RACE_UNCHECKED void fpar__race_item_fault(fpar__worker *w) {
  fpar__race_items *r = &w->race.items;
  fpar__race_item *it = &r->ids[r->running - 1];

  fpar__race_items_name(r->faulted, sizeof r->faulted, r->kind, it->item,
                        it->last);
  fpar__race_unignore(it->fiber, &w->race.slots[0].depth);
  __tsan_destroy_fiber(it->fiber);
  it->fiber = __tsan_create_fiber(0);
  it->ctx = NULL;
  it->item = SIZE_MAX;
  r->running = 0;
}

FPAR__RACE_UNCHECKED void fpar__race_destroy(fpar__worker *w) {
  fpar__race_items *r = &w->race.items;
  size_t f;

  for (f = 0; f < w->race.cap && f < w->cap_ctx; f++)
    fpar__race_unignore(w->tsan_fibers[f], &w->race.slots[f].depth);
  free(w->race.slots);
  w->race.slots = NULL;
  w->race.cap = 0;
  for (f = 0; f < r->cap; f++)
    __tsan_destroy_fiber(r->ids[f].fiber);
  free(r->ids);
  r->ids = NULL;
  r->cap = 0;
  if (r->limit != 0)
    fpar__stack_pool_destroy(&r->stacks);
  r->limit = 0;
}

#else

/* Builds without TSan have nothing here (race.h's functions are empty). */
typedef int fpar__race_none;

#endif
