/* SPDX-License-Identifier: MIT */
/* memory_env.c - the memory of scoped and hierarchical groups:
 * memory_environment's local and private requests (with their initial
 * values) and private memory, all from the worker's local-memory arena,
 * released when the environment or the group function ends. */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "sched/group/abort.h"
#include "sched/group/arena.h"
#include "sched/group/memory_env.h"
#include "sched/group/race.h"
#include "sched/group/scoped.h"

struct fpar_private_memory {
  char *base;
  size_t stride;
  const fpar_group *group; /* scoped: the group it was requested in */
  size_t range[3];         /* items it has one object for */
  int physical;            /* hierarchical: indexed by physical id */
};

/* Arena memory for request k of the current group, or a fault. */
static void *fpar__env_alloc(fpar__worker *w, size_t size, size_t align,
                             const char *what, unsigned k) {
  void *p = fpar__arena_alloc(&w->arena, size, align);

  if (p == NULL)
    fpar__group_abort(w, FPAR_ELOCALMEM,
                      "%s %u needs %zu bytes but %zu of the %zu-byte "
                      "local-memory arena are left; raise "
                      "FIBERPAR_LOCAL_MEM_SIZE",
                      what, k, size, fpar__arena_free_bytes(&w->arena),
                      w->arena.size);
  return p;
}

/* Fill [p, p + size) with copies of the init_size-byte value init. */
static void fpar__fill(char *p, size_t size, const void *init,
                       size_t init_size) {
  size_t i;

  for (i = 0; i + init_size <= size; i += init_size)
    memcpy(p + i, init, init_size);
}

fpar_private_memory *fpar__private_alloc(fpar__worker *w, const fpar_group *g,
                                         const size_t range[3], int physical,
                                         const fpar_mem_request *r,
                                         unsigned k) {
  size_t align = r->align ? r->align : 16, slots, stride, i;
  fpar_private_memory *pm;
  int overflow;

  slots = range[0] * range[1] * range[2];
  pm = fpar__env_alloc(w, sizeof *pm, alignof(fpar_private_memory),
                       "private memory record", k);
  overflow = __builtin_add_overflow(r->size, align - 1, &stride);
  stride &= ~(align - 1);
  if (overflow || (stride != 0 && slots > SIZE_MAX / stride))
    fpar__group_abort(w, FPAR_ELOCALMEM,
                      "private memory %u: %zu items x %zu bytes overflow", k,
                      slots, r->size);
  pm->base = fpar__env_alloc(w, slots * stride, align, "private memory", k);
  pm->stride = stride;
  pm->group = g;
  memcpy(pm->range, range, sizeof pm->range);
  pm->physical = physical;
  if (r->init != NULL)
    for (i = 0; i < slots; i++)
      fpar__fill(pm->base + i * stride, r->size, r->init, r->init_size);
  return pm;
}

static void fpar__check_request(fpar__worker *w, const fpar_mem_request *r,
                                unsigned k) {
  size_t align = r->align ? r->align : 16;

  if ((align & (align - 1)) != 0 || align > FPAR_MAX_LOCAL_ALIGN ||
      (r->kind != FPAR_MEM_LOCAL && r->kind != FPAR_MEM_PRIVATE) ||
      (r->init != NULL && (r->init_size == 0 || r->size % r->init_size != 0)))
    fpar__group_abort(w, FPAR_EINVAL,
                      "memory request %u is malformed: kind %d, %zu bytes, "
                      "alignment %zu (a power of two up to %d), initial "
                      "value of %zu bytes (it must divide the size)",
                      k, (int)r->kind, r->size, align, FPAR_MAX_LOCAL_ALIGN,
                      r->init_size);
}

int fpar_memory_environment(fpar_group *g, const fpar_mem_request *reqs,
                            unsigned n, fpar_env_fn fn, void *ctx) {
  fpar__worker *w = fpar__check_group_op(g, "fpar_memory_environment");
  size_t mark;
  void **mem;
  unsigned k;

  if (w == NULL)
    return FPAR_ENOTKERNEL;
  mark = fpar__arena_mark(&w->arena);
  mem = fpar__env_alloc(w, (n ? n : 1) * sizeof *mem, alignof(void *),
                        "memory request table", n);
  for (k = 0; k < n; k++) {
    const fpar_mem_request *r = &reqs[k];
    fpar__check_request(w, r, k);
    if (r->kind == FPAR_MEM_PRIVATE) {
      mem[k] = fpar__private_alloc(w, g, g->local_range, 0, r, k);
      continue;
    }
    mem[k] = fpar__env_alloc(w, r->size, r->align ? r->align : 16,
                             "local memory", k);
    if (r->init != NULL)
      fpar__fill(mem[k], r->size, r->init, r->init_size);
  }
  fn(g, mem, ctx);
  /* The next environment reuses the memory: the runtime's hand-off. */
  fpar__race_items_sync(w);
  fpar__arena_release(&w->arena, mark);
  return 0;
}

void *fpar_private_at(const fpar_private_memory *pm, const fpar_s_item *si) {
  fpar__worker *w = fpar__scoped_worker("fpar_private_at");
  size_t id[3];
  unsigned d;

  if (w == NULL)
    return NULL;
  for (d = 0; d < 3; d++) {
    id[d] = pm->physical ? si->physical_id[d]
                         : si->group_local_id[d] - pm->group->offset[d];
    if (id[d] >= pm->range[d])
      fpar__group_abort(w, FPAR_ESCOPE,
                        "fpar_private_at: item (%zu,%zu,%zu) of the work "
                        "group is outside the group its private memory "
                        "belongs to",
                        si->group_local_id[0], si->group_local_id[1],
                        si->group_local_id[2]);
  }
  return pm->base +
         pm->stride * (id[0] + pm->range[0] * (id[1] + pm->range[1] * id[2]));
}
