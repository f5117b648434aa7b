/* SPDX-License-Identifier: MIT */
/* launch_record.c - lifetime and failure record of a launch (see
 * launch_record.h). */
#include <stdlib.h>
#include <string.h>

#include "sched/base/launch_record.h"

fpar__launch *fpar__launch_create(const fpar__launch_spec *spec,
                                  unsigned num_workers) {
  size_t size = sizeof(fpar__launch) + num_workers * sizeof(fpar__chunk);
  fpar__launch *l = aligned_alloc(alignof(fpar__chunk), (size + 63) / 64 * 64);

  if (l == NULL)
    return NULL;
  memset(l, 0, size);
  l->spec = *spec;
  l->num_chunks = num_workers;
  atomic_init(&l->status, FPAR__LAUNCH_QUEUED);
  atomic_init(&l->failed, 0);
  atomic_init(&l->refs, 1);
  atomic_init(&l->groups_done, 0);
  return l;
}

void fpar__launch_ref(fpar__launch *l) {
  atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
}

void fpar__launch_unref(fpar__launch *l) {
  if (atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) != 1)
    return;
  free(l->error);
  free(l);
}

void fpar__launch_fail(fpar__launch *l, int code, const char *message) {
  int expected = 0;

  if (!atomic_compare_exchange_strong(&l->failed, &expected, 1))
    return;
  l->fault_code = code;
  l->error = strdup(message);
}
