/* SPDX-License-Identifier: MIT */
/* help.c - the helpers of a scheduler (see help.h): slots taken by one
 * compare-and-swap, helpers made on first use. */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "sched/diag/fault.h"
#include "sched/exec/help.h"
#include "sched/fiber/sanitizer.h"

/* A slot's state. */
#define FPAR__HELPER_FREE 0
#define FPAR__HELPER_TAKEN 1
#define FPAR__HELPER_CLOSED 2

struct fpar__helpers {
  const fpar__worker_setup *setup;
  atomic_int broken; /* a helper could not be made */
  struct {
    atomic_int state;
    fpar__worker *w; /* made by the first thread that takes the slot */
  } slot[FPAR__HELPERS];
};

int fpar__helpers_create(fpar__helpers **out, const fpar__worker_setup *setup) {
  fpar__helpers *h = calloc(1, sizeof *h);
  unsigned k;

  if (h == NULL)
    return FPAR_ENOMEM;
  h->setup = setup;
  atomic_init(&h->broken, 0);
  for (k = 0; k < FPAR__HELPERS; k++)
    atomic_init(&h->slot[k].state, FPAR__HELPER_FREE);
  *out = h;
  return 0;
}

fpar__worker *fpar__helpers_acquire(fpar__helpers *h) {
  unsigned k;

  if (atomic_load_explicit(&h->broken, memory_order_relaxed) ||
      fpar__fault_host_init() != 0)
    return NULL;
  for (k = 0; k < FPAR__HELPERS; k++) {
    int expected = FPAR__HELPER_FREE;
    fpar__worker *w;
    if (!atomic_compare_exchange_strong_explicit(
            &h->slot[k].state, &expected, FPAR__HELPER_TAKEN,
            memory_order_acquire, memory_order_relaxed))
      continue;
    if (h->slot[k].w == NULL &&
        fpar__worker_create(&h->slot[k].w, h->setup, h->setup->workers + k) !=
            0) {
      h->slot[k].w = NULL;
      atomic_store(&h->broken, 1);
      atomic_store_explicit(&h->slot[k].state, FPAR__HELPER_FREE,
                            memory_order_release);
      return NULL;
    }
    w = h->slot[k].w;
    w->tsan_sched = fpar__tsan_fiber_current();
    return w;
  }
  return NULL;
}

void fpar__helpers_release(fpar__helpers *h, fpar__worker *w) {
  atomic_store_explicit(&h->slot[w->index - h->setup->workers].state,
                        FPAR__HELPER_FREE, memory_order_release);
}

void fpar__helpers_close(fpar__helpers *h) {
  unsigned k;

  for (k = 0; k < FPAR__HELPERS; k++) {
    int expected = FPAR__HELPER_FREE;
    /* A helper still taken is about to be given back: its launches have
     * completed. */
    while (!atomic_compare_exchange_weak_explicit(
        &h->slot[k].state, &expected, FPAR__HELPER_CLOSED, memory_order_acquire,
        memory_order_relaxed)) {
      expected = FPAR__HELPER_FREE;
      sched_yield();
    }
    if (h->slot[k].w != NULL)
      fpar__worker_destroy(h->slot[k].w);
    h->slot[k].w = NULL;
  }
}

void fpar__helpers_free(fpar__helpers *h) {
  free(h);
}
