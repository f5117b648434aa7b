/* SPDX-License-Identifier: MIT */
/* trace_record.c - FIBERPAR_TRACE on the worker threads (see trace.h):
 * each worker appends its groups' and launches' records to its own
 * lists, without a lock, publishing each by a release store, so that
 * the writer (trace.c) may read while workers still run. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sched/base/clock.h"
#include "sched/diag/trace_internal.h"
#include "sched/group/worker.h"

fpar__trace_worker *fpar__trace_worker_get(fpar__trace *t, unsigned w) {
  return t != NULL ? &t->w[w] : NULL;
}

void fpar__trace_group_begin(fpar__worker *w, size_t group) {
  fpar__trace_worker *tw = w->trace;

  w->run.barriers = 0;
  tw->group = group;
  tw->open = 1;
  tw->start_ns = fpar__now_ns();
}

/* Append r to the worker's records, or count it as dropped. */
static void fpar__trace_record(fpar__trace_worker *tw,
                               const fpar__trace_group_rec *r) {
  fpar__trace_chunk *c = tw->last;
  size_t n = c != NULL ? atomic_load_explicit(&c->used, memory_order_relaxed)
                       : FPAR__TRACE_CHUNK;

  if (n == FPAR__TRACE_CHUNK) {
    if (tw->chunks == FPAR__TRACE_MAX_CHUNKS ||
        (c = malloc(sizeof *c)) == NULL) {
      atomic_fetch_add_explicit(&tw->dropped, 1, memory_order_relaxed);
      return;
    }
    atomic_init(&c->next, NULL);
    atomic_init(&c->used, 0);
    if (tw->last != NULL)
      atomic_store_explicit(&tw->last->next, c, memory_order_release);
    else
      atomic_store_explicit(&tw->first, c, memory_order_release);
    tw->last = c;
    tw->chunks++;
    n = 0;
  }
  c->recs[n] = *r;
  atomic_store_explicit(&c->used, n + 1, memory_order_release);
}

void fpar__trace_group_end(fpar__worker *w, int failed) {
  fpar__trace_worker *tw = w->trace;
  fpar__trace_group_rec r;

  if (!tw->open)
    return;
  tw->open = 0;
  r.start_ns = tw->start_ns;
  r.end_ns = fpar__now_ns();
  r.seq = w->launch->seq;
  r.group = tw->group;
  r.barriers = w->run.barriers;
  r.failed = failed != 0;
  fpar__trace_record(tw, &r);
}

void fpar__trace_launch(fpar__worker *w, const fpar__launch *l) {
  fpar__trace_worker *tw = w->trace;
  fpar__trace_launch_rec *r = malloc(sizeof *r);

  if (r == NULL) {
    atomic_fetch_add_explicit(&tw->dropped, 1, memory_order_relaxed);
    return;
  }
  r->seq = l->seq;
  r->submit_ns = l->submit_ns;
  r->start_ns = l->start_ns;
  r->end_ns = fpar__now_ns();
  r->groups = l->spec.num_groups;
  r->geo = l->spec.geo;
  r->model = l->spec.model;
  r->result = fpar__launch_failed(l) ? l->fault_code : 0;
  memcpy(r->name, l->spec.name, sizeof r->name);
  r->next = atomic_load_explicit(&tw->launches, memory_order_relaxed);
  atomic_store_explicit(&tw->launches, r, memory_order_release);
}
