/* SPDX-License-Identifier: MIT */
/* claim.c - giving a runtime's workers their places: the least used
 * first, counting the workers of the process's other runtimes
 * (pu_usage.h), so that runtimes do not pin on top of each other while
 * places are free. */
#include <stdlib.h>

#include "sched/base/error.h"
#include "sched/machine/pu_usage.h"
#include "sched/machine/topo_internal.h"

/* Most workers of the process's runtimes bound to one PU of p. */
static unsigned fpar__place_usage(const fpar__place *p) {
  unsigned most = 0;
  int pu;

  hwloc_bitmap_foreach_begin(pu, p->claim) {
    unsigned u = fpar__pu_usage_get((unsigned)pu);
    most = u > most ? u : most;
  }
  hwloc_bitmap_foreach_end();
  return most;
}

/* Count (delta = 1) or uncount (-1) our workers in pu_usage; the caller
 * holds its lock. */
static void fpar__topo_claim(struct fpar__topo *t, int delta) {
  unsigned w;
  int pu;

  for (w = 0; w < t->num_workers; w++) {
    hwloc_bitmap_foreach_begin(pu, t->places[t->worker_place[w]].claim) {
      fpar__pu_usage_add((unsigned)pu, delta);
    }
    hwloc_bitmap_foreach_end();
  }
}

/* Each worker takes the least used place (the first of equals, so a lone
 * runtime puts worker w on place w), counting the other runtimes'
 * workers; then ours are counted. */
int fpar__topo_claim_places(struct fpar__topo *t, unsigned num_threads) {
  unsigned *load = calloc(t->num_places, sizeof *load);
  unsigned w, k;
  int err;

  t->num_workers = num_threads ? num_threads : t->num_places;
  t->worker_place = calloc(t->num_workers, sizeof *t->worker_place);
  if (load == NULL || t->worker_place == NULL) {
    free(load);
    return fpar__set_error(FPAR_ENOMEM, "no memory for the worker places");
  }
  if ((err = fpar__pu_usage_lock()) != 0) {
    free(load);
    return fpar__set_error(err, "no memory for the place registry");
  }
  if (t->pin != FPAR_PIN_NONE &&
      (err = fpar__pu_usage_reserve((unsigned)hwloc_bitmap_last(t->set))) !=
          0) {
    fpar__pu_usage_unlock();
    free(load);
    return fpar__set_error(err, "no memory for the place registry");
  }
  for (k = 0; t->pin != FPAR_PIN_NONE && k < t->num_places; k++) {
    load[k] = fpar__place_usage(&t->places[k]);
    t->shared |= load[k] != 0;
  }
  for (w = 0; w < t->num_workers; w++) {
    unsigned best = 0;
    for (k = 1; k < t->num_places; k++)
      if (load[k] < load[best])
        best = k;
    t->worker_place[w] = best;
    load[best]++;
  }
  for (k = 0; k < t->num_places; k++)
    t->per_place = load[k] > t->per_place ? load[k] : t->per_place;
  if (t->pin != FPAR_PIN_NONE) {
    fpar__topo_claim(t, 1);
    t->claimed = 1;
  }
  fpar__pu_usage_unlock();
  free(load);
  return 0;
}

void fpar__topo_release_places(struct fpar__topo *t) {
  if (t->claimed && fpar__pu_usage_lock() == 0) {
    fpar__topo_claim(t, -1);
    fpar__pu_usage_unlock();
  }
}
