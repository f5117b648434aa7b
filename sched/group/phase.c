/* SPDX-License-Identifier: MIT */
/* phase.c - phase kernels run as loops: the loop fission of a barrier
 * kernel, cut at its barriers by its author (see <fiberpar/phase.h>).
 *
 * A group runs phase after phase.  In each, the kernel's row runner calls
 * the body once per work-item of a row (once per sub-group of a lane
 * kernel), resuming after the barrier where the previous phase stopped,
 * and records where each call stopped.  All calls of a phase must stop at
 * the same barrier, or all return from the kernel: each row runner tells
 * whether its row's stops differ, and the group compares each row's first
 * stop with work-item 0's.  Only when something differs is the record
 * searched for the first work-item that strayed, and the message says what
 * the fibers would say.  So the check costs a store and two logic
 * operations per call.  A scalar kernel has two row runners, which fold
 * the stops in the item loops or after them; the worker measures which
 * runs each phase faster (phase_choice.c).
 *
 * Before each phase after the first, the runtime learns whether the
 * states are all equal (then the calls start from copies of state 0):
 * from the note the previous phase's runner left after the stops
 * (<fiberpar/phase.h>, FPAR__PHASE_SAME), else by comparing them.
 *
 * The states (the values a call keeps across barriers) and the stop
 * records are the worker's, grown on demand and reused by every group.
 * The worker thread allocates them and touches them first, so they lie on
 * its NUMA node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/base/clock.h"
#include "sched/group/collective_combine.h"
#include "sched/group/group.h"
#include "sched/group/message.h"
#include "sched/group/phase.h"
#include "sched/group/phase_choice.h"

/* The worker's FPAR__SLOT_PHASE: one state and one stop record per call
 * of a group, grown on demand, reused by every group. */
typedef struct fpar__phase_mem {
  char *states;
  size_t state_bytes, state_align;
  const void *cleared_for; /* the launch whose states were zeroed */
  unsigned *stops;
  size_t num_stops;
  fpar__phase_choices *choices; /* which runner runs which phase */
} fpar__phase_mem;
_Static_assert(sizeof(fpar__phase_mem) <= FPAR__SLOT_BYTES,
               "the phase loops' state fits its slot");

/* Free the states and stops (the worker's end). */
static void fpar__phase_mem_free(void *state) {
  fpar__phase_mem *m = state;

  free(m->states);
  free(m->stops);
  fpar__phase_choices_free(m->choices);
}

/* Memory of the group being started, grown if the launch needs more. */
static fpar__phase_mem *fpar__phase_mem_for(fpar__worker *w) {
  const fpar__launch *l = w->launch;
  fpar__phase_mem *m = fpar__worker_slot(w, FPAR__SLOT_PHASE);
  size_t align = l->spec.state_align > 64 ? l->spec.state_align : 64;
  size_t bytes =
      (l->spec.group_fibers * l->spec.state_size + align - 1) / align * align;

  if (m->state_bytes < bytes || m->state_align < align) {
    fpar__worker_slot_owns(w, FPAR__SLOT_PHASE, fpar__phase_mem_free);
    free(m->states);
    m->state_bytes = 0;
    if ((m->states = aligned_alloc(align, bytes ? bytes : align)) == NULL)
      fpar__group_abort(w, FPAR_ENOMEM,
                        "no memory for the %zu-byte states of %zu calls",
                        l->spec.state_size, l->spec.group_fibers);
    m->state_bytes = bytes;
    m->state_align = align;
    m->cleared_for = NULL;
  }
  if (m->num_stops < l->spec.group_fibers) {
    free(m->stops);
    m->num_stops = 0;
    /* And the runner's states-equal entry after them. */
    if ((m->stops = malloc((l->spec.group_fibers + 1) * sizeof *m->stops)) ==
        NULL)
      fpar__group_abort(w, FPAR_ENOMEM,
                        "no memory to record the stops of %zu calls",
                        l->spec.group_fibers);
    m->num_stops = l->spec.group_fibers;
  }
  return m;
}

/* "file:line" of the barrier a stop names. */
static const char *fpar__phase_site(char *buf, size_t len,
                                    const fpar__launch *l, unsigned stop) {
  snprintf(buf, len, "%s:%u", l->spec.phase_file, stop >> 8);
  return buf;
}

/* The calls of a phase stopped at different places: name the first call
 * that differs from call 0, as the fibers' rendezvous would. */
static _Noreturn __attribute__((noinline, cold)) void
fpar__phase_mismatch(fpar__worker *w, const unsigned *stops) {
  const fpar__launch *l = w->launch;
  char items[64], site[256], first[256];
  size_t f = 1, i;

  while (f + 1 < w->run.size && stops[f] == stops[0])
    f++;
  i = fpar__fiber_first_item(w, f);
  fpar__phase_site(site, sizeof site, l, stops[f]);
  fpar__phase_site(first, sizeof first, l, stops[0]);
  if (stops[0] == 0) {
    fpar__describe_items(items, sizeof items, 0, i - 1, "returned", "returned");
    fpar__group_abort(w, FPAR_EDIVERGENCE,
                      "work-item %zu waits at the barrier at %s but %s from "
                      "the kernel without reaching it",
                      i, site, items);
  }
  fpar__describe_items(items, sizeof items, 0, i - 1, "waits", "wait");
  if (stops[f] == 0)
    fpar__group_abort(w, FPAR_EDIVERGENCE,
                      "work-item %zu returned from the kernel while %s at "
                      "the barrier at %s",
                      i, items, first);
  fpar__group_abort(w, FPAR_EBARRIER,
                    "work-item %zu waits at the barrier at %s while %s at "
                    "the barrier at %s",
                    i, site, items, first);
}

/* Whether the n states of `size` bytes at s are all equal: each equals
 * the next. */
static int fpar__phase_uniform(const char *s, size_t size, size_t n) {
  return n < 2 || memcmp(s, s + size, (n - 1) * size) == 0;
}

/* Run the phase that resumes after barrier `resume` (0: the start) for
 * every call of the group (rows and calls in reverse order in debug mode).
 * The first phase reads no state (it is uninitialised), so it runs as
 * uniform; later ones when the states are equal, which the previous
 * phase's runner noted after the stops, or else a comparison here tells.
 * Returns where the calls stopped. */
static unsigned fpar__phase_step(fpar__worker *w, const fpar_item *it,
                                 void *local, const fpar__phase_mem *m,
                                 fpar__phase_trial *t, unsigned resume) {
  const fpar__launch *l = w->launch;
  unsigned *same = &m->stops[w->run.size];
  int uniform =
      resume == 0 || *same == 1 ||
      (*same == FPAR__PHASE_SAME_UNKNOWN &&
       fpar__phase_uniform(m->states, l->spec.state_size, w->run.size));
  int by_value = l->spec.args == (const void *)l->arg_copy;
  fpar_phase_rows_fn rows = fpar__phase_trial_rows(t, &l->spec, resume);
  uint64_t start = 0;

  if (rows == NULL) {
    rows = fpar__phase_trial_tried(t, resume);
    start = fpar__now_ns();
  }
  *same = FPAR__PHASE_SAME_UNKNOWN;
  if (rows(it, l->spec.args, local, m->states, m->stops, resume, uniform,
           by_value) != 0)
    fpar__phase_mismatch(w, m->stops);
  if (start != 0)
    fpar__phase_trial_took(t, resume, fpar__now_ns() - start);
  return m->stops[0];
}

void fpar__phase_run_group(fpar__worker *w, size_t linear) {
  const fpar__launch *l = w->launch;
  fpar__phase_mem *m;
  fpar__phase_trial trial;
  void *local = NULL;
  fpar_item it;
  unsigned stop = 0;

  fpar__group_begin(w, linear, &it);
  m = fpar__phase_mem_for(w);
  fpar__phase_trial_begin(&m->choices, &l->spec, &trial);
  if (l->spec.phase_debug) {
    memset(m->states, 0xff, l->spec.group_fibers * l->spec.state_size);
    m->cleared_for = NULL;
  } else if (m->cleared_for != l) {
    /* Padding and fields a kernel never writes then hold the same bytes
     * in every state, which the uniform check compares. */
    memset(m->states, 0, l->spec.group_fibers * l->spec.state_size);
    m->cleared_for = l;
  }
  /* The local struct is the group's first object, as on fibers. */
  if (l->spec.local_size != 0)
    local =
        fpar_group_local_memory(&it, l->spec.local_size, l->spec.local_align);
  /* A phase that ends at a collective (FPAR_PHASE_GROUP) leaves its
   * values to combine before the next phase reads the results; the calls
   * store them in the slots themselves. */
  fpar__collective_reserve(w, fpar__group_items(&it));
  w->run.view.phase_slots =
      fpar__collective_slots(fpar__collective_of(w), FPAR_GROUP_I32);
  w->run.view.phase_wide_slots =
      fpar__collective_slots(fpar__collective_of(w), FPAR_GROUP_I64);
  for (;;) {
    stop = fpar__phase_step(w, &it, local, m, &trial, stop & 0xffu);
    fpar__collective_combine_phase(w, &it);
    if (stop == 0)
      break;
    w->run.barriers++;
  }
  fpar__phase_trial_end(&trial);
  fpar__group_end(w);
}

void fpar__phase_barrier_misuse(fpar__worker *w, size_t i, const char *site) {
  fpar__group_abort(w, FPAR_EINVAL,
                    "work-item %zu called fpar_barrier() at %s in a phase "
                    "kernel that runs as loops; the barrier of a phase "
                    "kernel is FPAR_PHASE_BARRIER()",
                    i, fpar__site_name(site));
}

void fpar_phase_nonuniform(size_t item, size_t ref, const char *site) {
  fpar__worker *w = fpar__self;

  /* Only a phase runner calls it, on a worker, inside a group. */
  if (w == NULL || w->launch == NULL)
    abort();
  fpar__group_abort(w, FPAR_EDIVERGENCE,
                    "work-item %zu leaves the group-uniform state different "
                    "from work-item %zu at the barrier at %s; values of "
                    "FPAR_PHASE_KERNEL_UNIFORM's uniform part must be the "
                    "same in every work-item",
                    item, ref, fpar__site_name(site));
}

void fpar_phase_poison_stack(void) {
  unsigned char area[4096];

  memset(area, 0xff, sizeof area);
  __asm__ volatile("" : : "r"(area) : "memory");
}
