/* SPDX-License-Identifier: MIT */
/* race.c - racecheck under ThreadSanitizer (see race.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/group/race.h"

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

void fpar__race_sched_back(fpar__worker *w) {
  __tsan_acquire(&w->race.words[3]);
}

/* Name fiber f after the work-items it runs. */
static FPAR__RACE_UNCHECKED void fpar__race_name(fpar__worker *w, size_t f,
                                                 const char *items) {
  const fpar__group_run *g = &w->run;
  char name[160];

  snprintf(name, sizeof name, "kernel %s group (%zu,%zu,%zu) %s",
           w->launch->spec.name, g->group_id[0], g->group_id[1], g->group_id[2],
           items);
  __tsan_set_fiber_name(w->tsan_fibers[f], name);
}

FPAR__RACE_UNCHECKED void fpar__race_group_start(fpar__worker *w,
                                                 const char *items) {
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

/* TSan checks that a fiber it destroys ignores nothing: fibers parked
 * inside the runtime (at a rendezvous, or left there by a fault) end
 * their ignores first, with TSan told for the moment that they run. */
FPAR__RACE_UNCHECKED void fpar__race_destroy(fpar__worker *w) {
  void *self = __tsan_get_current_fiber();
  size_t f;

  for (f = 0; f < w->race.cap && f < w->cap_ctx; f++)
    if (w->race.slots[f].depth != 0 && w->tsan_fibers[f] != NULL) {
      __tsan_switch_to_fiber(w->tsan_fibers[f], __tsan_switch_to_fiber_no_sync);
      fpar__race_ignore(0);
      __tsan_switch_to_fiber(self, __tsan_switch_to_fiber_no_sync);
      w->race.slots[f].depth = 0;
    }
  free(w->race.slots);
  w->race.slots = NULL;
  w->race.cap = 0;
}

#else

/* Builds without TSan have nothing here (race.h's functions are empty). */
typedef int fpar__race_none;

#endif
