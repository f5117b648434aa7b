/* SPDX-License-Identifier: MIT */
/* scoped.c - scoped parallelism (AdaptiveCpp) and hierarchical parallelism
 * (SYCL 1.2.1) on a worker: a work group's function runs once on the
 * runner fiber; distribute_items and parallel_for_work_item are loops over
 * logical items; groups nest on the runner's stack; memory environments
 * and private memory come from the worker's arena.
 *
 * The scoped rules are checked here: a group operation, distribute_*,
 * single_item or memory_environment inside an item loop (rule 2 and 3), or
 * an operation on a group that is not the innermost one (rule 1), fails
 * the launch with FPAR_ESCOPE and names the rule.
 */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "sched/error.h"
#include "sched/group.h"
#include "sched/scoped.h"

struct fpar_private_memory {
  char *base;
  size_t stride;
  const fpar_group *group; /* scoped: the group it was requested in */
  size_t range[3];         /* items it has one object for */
  int physical;            /* hierarchical: indexed by physical id */
};

/* ---- Rule checks -------------------------------------------------------- */

/* The worker running the calling group function.  Only a worker running
 * a scoped or hierarchical group gets here with a group; on a worker
 * anything else is a group pointer used outside its kernel (which fails
 * that kernel's launch), and on another thread the call returns NULL with
 * FPAR_ENOTKERNEL set. */
static fpar__worker *fpar__scoped_worker(const char *op) {
  fpar__worker *w = fpar__self;

  if (w == NULL) {
    fpar__set_error(FPAR_ENOTKERNEL,
                    "%s called on a thread that runs no group function", op);
    return NULL;
  }
  if (w->innermost == NULL)
    fpar__group_abort(w, FPAR_ESCOPE,
                      "%s called outside a scoped or hierarchical group "
                      "function",
                      op);
  return w;
}

/* Rules 1 and 2: group operations run outside item loops, on the innermost
 * group. */
static fpar__worker *fpar__check_group_op(const fpar_group *g, const char *op) {
  fpar__worker *w = fpar__scoped_worker(op);

  if (w == NULL)
    return NULL;
  if (w->inside != NULL)
    fpar__group_abort(w, FPAR_ESCOPE,
                      "%s called inside %s (scoped rule 2: group "
                      "operations, distribute_*, single_item and memory "
                      "requests must not be made from within "
                      "distribute_items)",
                      op, w->inside);
  if (g != w->innermost)
    fpar__group_abort(w, FPAR_ESCOPE,
                      "%s called on a %s that is not the innermost group "
                      "(scoped rule 1: operate on the group closest in the "
                      "nesting)",
                      op,
                      g->scope == FPAR_FENCE_WORK_GROUP  ? "work group"
                      : g->scope == FPAR_FENCE_SUB_GROUP ? "sub-group"
                                                         : "scalar group");
  return w;
}

/* ---- Running a work group ---------------------------------------------- */

void fpar__run_group_function(fpar__worker *w, size_t linear) {
  const fpar__launch *l = w->launch;
  fpar_group wg;
  unsigned d;

  wg.dims = l->spec.geo.dims;
  wg.scope = FPAR_FENCE_WORK_GROUP;
  fpar__group_id(l, linear, w->run.group_id); /* for fault messages */
  memcpy(wg.id, w->run.group_id, sizeof wg.id);
  for (d = 0; d < 3; d++) {
    wg.range[d] = l->spec.geo.group_range[d];
    wg.local_range[d] = l->spec.geo.local_range[d];
    wg.offset[d] = 0;
    wg.physical_range[d] = l->spec.physical_size[d];
    wg.global_origin[d] = wg.id[d] * wg.local_range[d];
    wg.global_range[d] = l->spec.geo.global_range[d];
  }
  wg.parent = NULL;
  w->innermost = &wg;
  w->inside = NULL;
  l->spec.group_fn(&wg, l->spec.args);
  w->innermost = NULL;
  fpar__arena_release(&w->arena, w->run.arena_mark);
}

/* ---- Item loops ---------------------------------------------------------- */

/* The logical item with local id `local` of group g; physical: it is its
 * own physical work-item (hierarchical), else physical id 0. */
static void fpar__s_item_set(fpar_s_item *si, const fpar_group *g,
                             const size_t local[3], int physical) {
  unsigned d;

  for (d = 0; d < 3; d++) {
    si->local_id[d] = local[d];
    si->group_local_id[d] = g->offset[d] + local[d];
    si->global_id[d] = g->global_origin[d] + si->group_local_id[d];
    si->physical_id[d] = physical ? local[d] : 0;
  }
  si->group = g;
}

/* Call fn for every item of g, or the runner row from each row of g it
 * has not run yet. */
static void fpar__items_loop(fpar__worker *w, const fpar_group *g,
                             const char *op, fpar_s_item_fn fn,
                             fpar_s_row_fn row, void *ctx, int physical) {
  size_t local[3];
  fpar_s_item si;

  w->inside = op;
  for (local[2] = 0; local[2] < g->local_range[2]; local[2]++) {
    for (local[1] = 0; local[1] < g->local_range[1]; local[1]++) {
      local[0] = 0;
      if (row != NULL) {
        /* A runner may go on past this row; it returns naming the last
         * row it ran (see fpar_s_row_fn). */
        fpar__s_item_set(&si, g, local, physical);
        row(&si, ctx, g->local_range[0]);
        local[1] = si.local_id[1];
        local[2] = si.local_id[2];
        continue;
      }
      for (; local[0] < g->local_range[0]; local[0]++) {
        fpar__s_item_set(&si, g, local, physical);
        fn(&si, ctx);
      }
    }
  }
  w->inside = NULL;
}

int fpar_distribute_items(fpar_group *g, fpar_s_item_fn fn, void *ctx) {
  fpar__worker *w = fpar__check_group_op(g, "fpar_distribute_items");

  if (w == NULL)
    return FPAR_ENOTKERNEL;
  fpar__items_loop(w, g, "fpar_distribute_items", fn, NULL, ctx, 0);
  return 0;
}

int fpar_distribute_items_and_wait(fpar_group *g, fpar_s_item_fn fn,
                                   void *ctx) {
  int err = fpar_distribute_items(g, fn, ctx);

  return err ? err : fpar_group_barrier(g);
}

int fpar_distribute_items_rows(fpar_group *g, fpar_s_row_fn row, void *ctx) {
  fpar__worker *w = fpar__check_group_op(g, "fpar_distribute_items_rows");

  if (w == NULL)
    return FPAR_ENOTKERNEL;
  fpar__items_loop(w, g, "fpar_distribute_items_rows", NULL, row, ctx, 0);
  return 0;
}

/* ---- Nested groups ------------------------------------------------------- */

/* The shape of the groups g splits into (see fpar_distribute_groups). */
static fpar_fence_scope fpar__split(const fpar_group *g, unsigned width,
                                    size_t sub[3]) {
  size_t n = g->local_range[0];

  sub[0] = sub[1] = sub[2] = 1;
  if (g->scope == FPAR_FENCE_WORK_GROUP && width > 1 && n % width == 0) {
    sub[0] = width;
    return FPAR_FENCE_SUB_GROUP;
  }
  if (g->scope == FPAR_FENCE_SUB_GROUP && n >= 4 && n % 2 == 0) {
    sub[0] = n / 2;
    return FPAR_FENCE_SUB_GROUP;
  }
  return FPAR_FENCE_WORK_ITEM;
}

int fpar_distribute_groups(fpar_group *g, fpar_group_fn fn, void *ctx) {
  fpar__worker *w = fpar__check_group_op(g, "fpar_distribute_groups");
  size_t size[3], id[3];
  fpar_group sub;
  unsigned d;

  if (w == NULL)
    return FPAR_ENOTKERNEL;
  sub = *g;
  sub.scope = fpar__split(g, w->launch->spec.subgroup_size, size);
  sub.parent = g;
  for (d = 0; d < 3; d++) {
    sub.local_range[d] = size[d];
    sub.range[d] = g->local_range[d] / size[d];
    sub.physical_range[d] = 1;
  }
  for (id[2] = 0; id[2] < sub.range[2]; id[2]++)
    for (id[1] = 0; id[1] < sub.range[1]; id[1]++)
      for (id[0] = 0; id[0] < sub.range[0]; id[0]++) {
        for (d = 0; d < 3; d++) {
          sub.id[d] = id[d];
          sub.offset[d] = g->offset[d] + id[d] * size[d];
        }
        w->innermost = &sub;
        fn(&sub, ctx);
      }
  w->innermost = g;
  return 0;
}

int fpar_distribute_groups_and_wait(fpar_group *g, fpar_group_fn fn,
                                    void *ctx) {
  int err = fpar_distribute_groups(g, fn, ctx);

  return err ? err : fpar_group_barrier(g);
}

int fpar_single_item(fpar_group *g, fpar_single_fn fn, void *ctx) {
  if (fpar__check_group_op(g, "fpar_single_item") == NULL)
    return FPAR_ENOTKERNEL;
  fn(ctx);
  return 0;
}

int fpar_single_item_and_wait(fpar_group *g, fpar_single_fn fn, void *ctx) {
  int err = fpar_single_item(g, fn, ctx);

  return err ? err : fpar_group_barrier(g);
}

int fpar_group_barrier(fpar_group *g) {
  fpar__worker *w = fpar__check_group_op(g, "fpar_group_barrier");

  if (w == NULL)
    return FPAR_ENOTKERNEL;
  w->run.barriers++;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return 0;
}

/* ---- Memory -------------------------------------------------------------- */

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

static fpar_private_memory *
fpar__private_alloc(fpar__worker *w, const fpar_group *g, const size_t range[3],
                    int physical, const fpar_mem_request *r, unsigned k) {
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

/* ---- Hierarchical parallelism -------------------------------------------- */

int fpar_parallel_for_work_item_range(fpar_group *g, fpar_range logical,
                                      fpar_s_item_fn fn, void *ctx) {
  const char *op = "fpar_parallel_for_work_item";
  fpar__worker *w = fpar__check_group_op(g, op);
  size_t l[3];
  fpar_group view;
  fpar_s_item si;
  unsigned d;

  if (w == NULL)
    return FPAR_ENOTKERNEL;
  if (logical.dims != g->dims)
    fpar__group_abort(w, FPAR_EDIM,
                      "%s: logical range of %u dimensions in a %u-dimensional "
                      "group",
                      op, logical.dims, g->dims);
  /* The items see a group whose logical range is this call's; their
   * global id and range stay those of the physical work-item running them
   * and of the launch (SYCL 1.2.1, 4.8.1.7: h_item::get_global() is "the
   * work-item's position in the global iteration space as provided upon
   * kernel invocation"). */
  view = *g;
  for (d = 0; d < 3; d++)
    view.local_range[d] = d < logical.dims ? logical.size[d] : 1;
  w->inside = op;
  for (l[2] = 0; l[2] < view.local_range[2]; l[2]++)
    for (l[1] = 0; l[1] < view.local_range[1]; l[1]++)
      for (l[0] = 0; l[0] < view.local_range[0]; l[0]++) {
        for (d = 0; d < 3; d++) {
          si.local_id[d] = si.group_local_id[d] = l[d];
          si.physical_id[d] = l[d] % g->physical_range[d];
          si.global_id[d] = g->global_origin[d] + si.physical_id[d];
        }
        si.group = &view;
        fn(&si, ctx);
      }
  w->inside = NULL;
  __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the implicit barrier */
  return 0;
}

int fpar_parallel_for_work_item_rows(fpar_group *g, fpar_s_row_fn row,
                                     void *ctx) {
  fpar__worker *w = fpar__check_group_op(g, "fpar_parallel_for_work_item");
  fpar_group view;
  unsigned d;

  if (w == NULL)
    return FPAR_ENOTKERNEL;
  /* The physical work-items, each its own logical item. */
  view = *g;
  for (d = 0; d < 3; d++) {
    view.local_range[d] = g->physical_range[d];
    view.global_origin[d] = g->id[d] * view.local_range[d];
    view.global_range[d] = g->range[d] * view.local_range[d];
  }
  fpar__items_loop(w, &view, "fpar_parallel_for_work_item", NULL, row, ctx, 1);
  __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the implicit barrier */
  return 0;
}

int fpar_parallel_for_work_item(fpar_group *g, fpar_s_item_fn fn, void *ctx) {
  fpar_range r = {
      g->dims,
      {g->physical_range[0], g->physical_range[1], g->physical_range[2]}};

  return fpar_parallel_for_work_item_range(g, r, fn, ctx);
}

fpar_private_memory *fpar_private_memory_create(fpar_group *g, size_t size) {
  fpar__worker *w = fpar__check_group_op(g, "fpar_private_memory_create");
  fpar_mem_request r = fpar_require_private_mem(size, 16, NULL, 0);

  if (w == NULL)
    return NULL;
  /* Released with the group's arena memory when the group function
   * returns. */
  return fpar__private_alloc(w, g, g->physical_range, 1, &r, 0);
}
