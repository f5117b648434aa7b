/* SPDX-License-Identifier: MIT */
/* hierarchical.c - hierarchical parallelism (SYCL 1.2.1) on a worker: a
 * work group's function runs once (scoped.c runs it);
 * parallel_for_work_item is a loop over the logical items, each mapped to
 * a physical work-item, with the implicit barrier after it; private
 * memory is one object per physical work-item (memory_env.c). */
#include "sched/group/abort.h"
#include "sched/group/memory_env.h"
#include "sched/group/scoped.h"

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
  fpar__nesting(w)->inside = op;
  /* Another order than local-id order, or racecheck's identities. */
  if (__builtin_expect(fpar__tsan_enabled() ||
                           !fpar__order_is_forward(&w->launch->spec.order),
                       0))
    fpar__items_each(w, &view, fn, NULL, ctx, FPAR__ITEMS_LOGICAL);
  else
    for (l[2] = 0; l[2] < view.local_range[2]; l[2]++)
      for (l[1] = 0; l[1] < view.local_range[1]; l[1]++)
        for (l[0] = 0; l[0] < view.local_range[0]; l[0]++) {
          fpar__s_item_logical(&si, &view, l);
          fn(&si, ctx);
        }
  fpar__nesting(w)->inside = NULL;
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
  fpar__items_loop(w, &view, "fpar_parallel_for_work_item", NULL, row, ctx,
                   FPAR__ITEMS_PHYSICAL);
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
