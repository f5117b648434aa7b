/* SPDX-License-Identifier: MIT */
/* pu_usage.c - the process-wide count of workers per PU (see pu_usage.h). */
#include <stdlib.h>

#include "fiberpar.h"
#include "sched/base/sync.h"
#include "sched/machine/pu_usage.h"

static uv_once_t fpar__pu_usage_once = UV_ONCE_INIT;
static uv_mutex_t fpar__pu_usage_mutex;
static unsigned *fpar__pu_counts; /* indexed by OS PU index */
static unsigned fpar__pu_slots;
static int fpar__pu_usage_error;

static void fpar__pu_usage_init(void) {
  if (uv_mutex_init(&fpar__pu_usage_mutex) != 0)
    fpar__pu_usage_error = FPAR_ENOMEM;
}

int fpar__pu_usage_lock(void) {
  uv_once(&fpar__pu_usage_once, fpar__pu_usage_init);
  if (fpar__pu_usage_error == 0)
    uv_mutex_lock(&fpar__pu_usage_mutex);
  return fpar__pu_usage_error;
}

void fpar__pu_usage_unlock(void) {
  uv_mutex_unlock(&fpar__pu_usage_mutex);
}

unsigned fpar__pu_usage_get(unsigned pu) {
  return pu < fpar__pu_slots ? fpar__pu_counts[pu] : 0;
}

int fpar__pu_usage_reserve(unsigned max_pu) {
  unsigned slots = (max_pu | 63) + 1, k;
  unsigned *counts;

  if (max_pu < fpar__pu_slots)
    return 0;
  counts = realloc(fpar__pu_counts, slots * sizeof *counts);
  if (counts == NULL)
    return FPAR_ENOMEM;
  for (k = fpar__pu_slots; k < slots; k++)
    counts[k] = 0;
  fpar__pu_counts = counts;
  fpar__pu_slots = slots;
  return 0;
}

void fpar__pu_usage_add(unsigned pu, int delta) {
  fpar__pu_counts[pu] += (unsigned)delta;
}
