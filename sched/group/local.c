/* SPDX-License-Identifier: MIT */
/* local.c - group-local memory inside a running group: objects requested by
 * the kernel (fpar_group_local_memory) and launch-time local buffers. */
#include <stdlib.h>
#include <string.h>

#include "sched/base/error.h"
#include "sched/group/group.h"
#include "sched/group/race.h"

/* Room for the next object description; the table only grows, it is
 * reused by every group the worker runs. */
static fpar__local_obj *fpar__local_obj_slot(fpar__worker *w) {
  fpar__group_run *g = &w->run;
  fpar__group_view *v = &g->view;

  if (v->num_objects == g->cap_objects) {
    unsigned cap = g->cap_objects ? 2 * g->cap_objects : 8;
    fpar__local_obj *n = realloc(v->objects, cap * sizeof *n);
    if (n == NULL)
      fpar__group_abort(w, FPAR_ENOMEM,
                        "no memory to track %u group-local objects", cap);
    v->objects = n;
    g->cap_objects = cap;
  }
  return &v->objects[v->num_objects++];
}

/* The worker running the calling kernel, or NULL (with the error set) on
 * a thread that runs none; fn names the call for the message. */
static fpar__worker *fpar__local_worker(const char *fn) {
  fpar__worker *w = fpar__self;

  if (w == NULL)
    fpar__set_error(FPAR_ENOTKERNEL,
                    "%s called on a thread that runs no kernel", fn);
  return w;
}

static void *fpar__group_local(fpar_item *it, size_t size, size_t align,
                               int zero, const char *fn) {
  fpar__worker *w = fpar__local_worker(fn);
  FPAR__RACE_SCOPE(w);
  fpar__group_view *v;
  unsigned k;
  size_t i;
  fpar__local_obj *o;

  if (w == NULL)
    return NULL;
  v = &w->run.view;
  k = it->local_calls++;
  i = fpar_local_linear_id(it);

  if (align == 0)
    align = FPAR__LOCAL_ALIGN_DEFAULT;
  if ((align & (align - 1)) != 0 || align > FPAR_MAX_LOCAL_ALIGN)
    fpar__group_abort(w, FPAR_EGROUPLOCAL,
                      "work-item %zu asked for group-local object %u with "
                      "alignment %zu, which is not a power of two up to %d",
                      i, k, align, FPAR_MAX_LOCAL_ALIGN);
  if (k < v->num_objects) {
    o = &v->objects[k];
    if (o->size != size || o->align != align)
      fpar__group_abort(w, FPAR_EGROUPLOCAL,
                        "work-item %zu asked for group-local object %u with "
                        "%zu bytes (alignment %zu) but work-item %zu created "
                        "it with %zu bytes (alignment %zu)",
                        i, k, size, align, o->owner, o->size, o->align);
    return o->ptr;
  }
  /* The first work-item to make its k-th request creates object k. */
  o = fpar__local_obj_slot(w);
  o->ptr = fpar__arena_alloc(&w->arena, size, align);
  if (o->ptr == NULL) {
    v->num_objects--;
    fpar__group_abort(w, FPAR_ELOCALMEM,
                      "group-local object %u of %zu bytes does not fit in "
                      "the %zu bytes left of the %zu-byte local-memory "
                      "arena; raise FIBERPAR_LOCAL_MEM_SIZE",
                      k, size, fpar__arena_free_bytes(&w->arena),
                      w->arena.size);
  }
  o->size = size;
  o->align = align;
  o->owner = i;
  if (zero)
    memset(o->ptr, 0, size);
  return o->ptr;
}

void *(fpar_group_local_memory)(fpar_item *it, size_t size, size_t align) {
  return fpar__group_local(it, size, align, 1, "fpar_group_local_memory");
}

void *(fpar_group_local_memory_for_overwrite)(fpar_item *it, size_t size,
                                              size_t align) {
  return fpar__group_local(it, size, align, 0,
                           "fpar_group_local_memory_for_overwrite");
}

void *(fpar_local_buffer)(fpar_item *it, unsigned k) {
  fpar__worker *w = fpar__local_worker("fpar_local_buffer");
  FPAR__RACE_SCOPE(w);

  if (w == NULL)
    return NULL;

  if (k >= w->launch->spec.num_local_buffers)
    fpar__group_abort(w, FPAR_ELOCALBUF,
                      "work-item %zu asked for local buffer %u but the "
                      "launch has %u",
                      fpar_local_linear_id(it), k,
                      w->launch->spec.num_local_buffers);
  return w->run.view.local_buffers[k];
}
