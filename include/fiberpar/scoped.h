/* SPDX-License-Identifier: MIT */
/** \file
 * fiberpar/scoped.h - group-level programming models: AdaptiveCpp scoped
 * parallelism (fpar_parallel, distribute_items/groups, memory_environment),
 * SYCL 1.2.1 hierarchical parallelism (parallel_for_work_group/item,
 * private_memory) and with them OCCA's shared/exclusive memory.
 *
 * Part of <fiberpar.h>, which includes it (including it alone brings
 * <fiberpar.h> too).
 *
 * Where C cannot say what C++ says, the plainest C form is used:
 *  - a lambda is a function pointer plus a `void *ctx` handed through;
 *  - the generic `auto` group types are one type, fpar_group, whose kind
 *    is a run-time value (fpar_group_fence_scope());
 *  - require_local_mem<T>(x) / require_private_mem<T>(x) are
 *    fpar_mem_request values: bytes, alignment and an optional element
 *    value; the environment's function receives one pointer per request,
 *    the memory itself for local requests and an fpar_private_memory * for
 *    private ones;
 *  - s_item<D> and h_item<D> are fpar_s_item (fpar_h_item is the same
 *    type); private memory's operator() is fpar_private_at().
 * Dimensions follow <fiberpar.h>: dimension 0 varies fastest.
 *
 * Execution: each work group runs once on one worker thread.  A scoped
 * group has one physical work-item (as in AdaptiveCpp's CPU backend):
 * distribute_items is a loop over the logical items, leader() is always
 * true and group_barrier() is a memory fence.  The scoped rules are checked
 * at run time and a broken rule fails the launch with FPAR_ESCOPE and a
 * message naming the rule, instead of silently doing something else (such
 * a call does not return).  Group operations return 0; called on a thread
 * that runs no group function they do nothing and return FPAR_ENOTKERNEL.
 */
#ifndef FIBERPAR_SCOPED_H
#define FIBERPAR_SCOPED_H

/* Part of <fiberpar.h>, which includes it; included on its own, it brings
 * the rest of <fiberpar.h>. */
#include <fiberpar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a group is (SYCL memory_scope of its fence). */
typedef enum fpar_fence_scope {
  FPAR_FENCE_WORK_ITEM = 0, /**< a scalar group: one logical item */
  FPAR_FENCE_SUB_GROUP = 1, /**< a sub-group of a work group */
  FPAR_FENCE_WORK_GROUP = 2 /**< a whole work group */
} fpar_fence_scope;

/** A group at some nesting level.  The library fills it; read it through
 *  the query functions. */
struct fpar_group {
  unsigned dims;            /**< 1, 2 or 3 */
  fpar_fence_scope scope;   /**< what the group is */
  size_t id[3];             /**< within the parent; work group: in the launch */
  size_t range[3];          /**< groups in the parent; work group: launch */
  size_t local_range[3];    /**< logical items */
  size_t offset[3];         /**< first logical item, within the work group */
  size_t physical_range[3]; /**< physical work-items */
  size_t global_origin[3];  /**< global id of the work group's item 0 */
  size_t global_range[3];   /**< logical items of the launch (hierarchical:
                                 physical work-items) */
  const fpar_group *parent; /**< NULL for the work group */
};

/** A logical work-item (sycl::s_item and, for hierarchical kernels,
 *  sycl::h_item).  Read it through the query functions. */
typedef struct fpar_s_item {
  size_t local_id[3];       /**< within the innermost group */
  size_t group_local_id[3]; /**< within the work group */
  size_t global_id[3];      /**< within the launch */
  size_t physical_id[3];    /**< hierarchical: the physical work-item running
                                 it */
  const fpar_group *group;  /**< the innermost group */
} fpar_s_item;
/** A logical work-item of a hierarchical kernel (sycl::h_item). */
typedef fpar_s_item fpar_h_item;

/** Per-logical-item (scoped) or per-physical-item (hierarchical) memory. */
typedef struct fpar_private_memory fpar_private_memory;

/** Body run once per logical item. */
typedef void (*fpar_s_item_fn)(const fpar_s_item *si, void *ctx);
/** Body of fpar_single_item(). */
typedef void (*fpar_single_fn)(void *ctx);
/** A row runner made by FPAR_DEFINE_ITEMS_ROW or FPAR_DEFINE_LANES_ROW:
 *  runs its body for the items of the innermost group from si's local id
 *  (x, y, z) to (x_end - 1, y, z), then for the rows after it, to the end
 *  of the group or of the rows it covers; on return si names the first
 *  item of the last row it ran.  (A runner of version 0.1 of this header
 *  ran one row and left si unchanged; the runtime calls it again for each
 *  row.)
 *
 *  x_end 0 asks for one call alone, which the runtime makes under a
 *  FIBERPAR_SCHEDULE other than forward and under racecheck: the runners
 *  the macros of this header make then run the body for the call at si's
 *  local id (x, y, z) only (the item, or the block of W items from x, the
 *  last block of a row masked), nothing where x is past the row, and
 *  leave FPAR__S_ROW_MARK(n) in si's local id 0, n being the items of
 *  their calls (1, or W).  A runner that does not (built against an
 *  older header, or written by hand) runs nothing, as for any empty
 *  range, and the runtime gives it rows in order. */
typedef void (*fpar_s_row_fn)(fpar_s_item *si, void *ctx, size_t x_end);

/* What a runner answering x_end 0 leaves in si's local id 0 (see
 * fpar_s_row_fn): calls of n items, 1 <= n <= 64.  No item has such an
 * id. */
#define FPAR__S_ROW_MARK(n) ((size_t)0 - 1 - (size_t)(n))

/* ---- Queries ----------------------------------------------------------- */

/** \brief Number of dimensions. \param g a group. \return 1, 2 or 3. */
FPAR_QUERY unsigned fpar_group_dims(const fpar_group *g) {
  return g->dims;
}
/** \brief Kind of group. \param g a group. \return its fence scope. */
FPAR_QUERY fpar_fence_scope fpar_group_fence_scope(const fpar_group *g) {
  return g->scope;
}
/** \brief Id within the parent group (work group: within the launch).
 *  \param g a group. \param dim 0..2. \return the id (0 beyond). */
FPAR_QUERY size_t fpar_group_get_id(const fpar_group *g, unsigned dim) {
  return dim < 3 ? g->id[dim] : 0;
}
/** \brief Number of groups in the parent (work group: in the launch).
 *  \param g a group. \param dim 0..2. \return the count (1 beyond). */
FPAR_QUERY size_t fpar_group_get_range(const fpar_group *g, unsigned dim) {
  return dim < 3 ? g->range[dim] : 1;
}
/** \brief Logical items of the group. \param g a group. \param dim 0..2.
 *  \return the extent (1 beyond). */
FPAR_QUERY size_t fpar_group_get_logical_local_range(const fpar_group *g,
                                                     unsigned dim) {
  return dim < 3 ? g->local_range[dim] : 1;
}
/** \brief Physical work-items of the group (1 for scoped groups).
 *  \param g a group. \param dim 0..2. \return the extent (1 beyond). */
FPAR_QUERY size_t fpar_group_get_physical_local_range(const fpar_group *g,
                                                      unsigned dim) {
  return dim < 3 ? g->physical_range[dim] : 1;
}
/** \brief Id of the calling physical work-item: always 0, since a group
 *  function runs once per group. \param g a group. \param dim 0..2.
 *  \return 0. */
FPAR_QUERY size_t fpar_group_get_physical_local_id(const fpar_group *g,
                                                   unsigned dim) {
  (void)g, (void)dim;
  return 0;
}
/** \brief Linear id within the parent. \param g a group. \return the id. */
FPAR_QUERY size_t fpar_group_get_linear_id(const fpar_group *g) {
  return g->id[0] + g->range[0] * (g->id[1] + g->range[1] * g->id[2]);
}
/** \brief Number of groups in the parent, linear. \param g a group.
 *  \return the count. */
FPAR_QUERY size_t fpar_group_get_linear_range(const fpar_group *g) {
  return g->range[0] * g->range[1] * g->range[2];
}
/** \brief Logical items, linear. \param g a group. \return the count. */
FPAR_QUERY size_t
fpar_group_get_logical_local_linear_range(const fpar_group *g) {
  return g->local_range[0] * g->local_range[1] * g->local_range[2];
}
/** \brief Physical work-items, linear. \param g a group.
 *  \return the count. */
FPAR_QUERY size_t
fpar_group_get_physical_local_linear_range(const fpar_group *g) {
  return g->physical_range[0] * g->physical_range[1] * g->physical_range[2];
}
/** \brief Linear id of the calling physical work-item. \param g a group.
 *  \return 0. */
FPAR_QUERY size_t fpar_group_get_physical_local_linear_id(const fpar_group *g) {
  (void)g;
  return 0;
}
/** \brief Whether the caller is the group's leader: always, with one
 *  physical work-item. \param g a group. \return 1. */
FPAR_QUERY int fpar_group_leader(const fpar_group *g) {
  (void)g;
  return 1;
}

/** \brief Global id of a logical item. \param si the item.
 *  \param dim 0..2. \return the id (0 beyond). */
FPAR_QUERY size_t fpar_s_item_get_global_id(const fpar_s_item *si,
                                            unsigned dim) {
  return dim < 3 ? si->global_id[dim] : 0;
}
/** \brief Logical items of the launch. \param si the item.
 *  \param dim 0..2. \return the extent (1 beyond). */
FPAR_QUERY size_t fpar_s_item_get_global_range(const fpar_s_item *si,
                                               unsigned dim) {
  return dim < 3 ? si->group->global_range[dim] : 1;
}
/** \brief Linear global id. \param si the item. \return the id. */
FPAR_QUERY size_t fpar_s_item_get_global_linear_id(const fpar_s_item *si) {
  const size_t *r = si->group->global_range;
  return si->global_id[0] + r[0] * (si->global_id[1] + r[1] * si->global_id[2]);
}
/** \brief Id within the innermost group. \param si the item.
 *  \param dim 0..2. \return the id (0 beyond). */
FPAR_QUERY size_t fpar_s_item_get_innermost_local_id(const fpar_s_item *si,
                                                     unsigned dim) {
  return dim < 3 ? si->local_id[dim] : 0;
}
/** \brief Logical items of the innermost group. \param si the item.
 *  \param dim 0..2. \return the extent (1 beyond). */
FPAR_QUERY size_t fpar_s_item_get_innermost_local_range(const fpar_s_item *si,
                                                        unsigned dim) {
  return dim < 3 ? si->group->local_range[dim] : 1;
}
/** \brief Linear id within the innermost group. \param si the item.
 *  \return the id. */
FPAR_QUERY size_t
fpar_s_item_get_innermost_local_linear_id(const fpar_s_item *si) {
  const size_t *r = si->group->local_range;
  return si->local_id[0] + r[0] * (si->local_id[1] + r[1] * si->local_id[2]);
}
/** \brief Logical items of the innermost group, linear. \param si the item.
 *  \return the count. */
FPAR_QUERY size_t
fpar_s_item_get_innermost_local_linear_range(const fpar_s_item *si) {
  return fpar_group_get_logical_local_linear_range(si->group);
}
/** \brief Id with respect to an enclosing group \p g (any nesting level).
 *  \param si the item. \param g a group that contains it. \param dim 0..2.
 *  \return the id (0 beyond). */
FPAR_QUERY size_t fpar_s_item_get_local_id(const fpar_s_item *si,
                                           const fpar_group *g, unsigned dim) {
  return dim < 3 ? si->group_local_id[dim] - g->offset[dim] : 0;
}
/** \brief Linear id with respect to an enclosing group. \param si the item.
 *  \param g a group that contains it. \return the id. */
FPAR_QUERY size_t fpar_s_item_get_local_linear_id(const fpar_s_item *si,
                                                  const fpar_group *g) {
  return fpar_s_item_get_local_id(si, g, 0) +
         g->local_range[0] *
             (fpar_s_item_get_local_id(si, g, 1) +
              g->local_range[1] * fpar_s_item_get_local_id(si, g, 2));
}
/** \brief Logical items of an enclosing group. \param si the item.
 *  \param g a group that contains it. \param dim 0..2.
 *  \return the extent (1 beyond). */
FPAR_QUERY size_t fpar_s_item_get_local_range(const fpar_s_item *si,
                                              const fpar_group *g,
                                              unsigned dim) {
  (void)si;
  return fpar_group_get_logical_local_range(g, dim);
}

/** \brief h_item: global id: the physical work-item's, also under a
 *  logical range (SYCL 1.2.1 h_item::get_global_id()).  \param hi the
 *  item. \param dim 0..2. \return the id. */
FPAR_QUERY size_t fpar_h_item_get_global_id(const fpar_h_item *hi,
                                            unsigned dim) {
  return fpar_s_item_get_global_id(hi, dim);
}
/** \brief h_item: logical local id. \param hi the item. \param dim 0..2.
 *  \return the id. */
FPAR_QUERY size_t fpar_h_item_get_local_id(const fpar_h_item *hi,
                                           unsigned dim) {
  return fpar_s_item_get_innermost_local_id(hi, dim);
}
/** \brief h_item: logical local id (same as fpar_h_item_get_local_id).
 *  \param hi the item. \param dim 0..2. \return the id. */
FPAR_QUERY size_t fpar_h_item_get_logical_local_id(const fpar_h_item *hi,
                                                   unsigned dim) {
  return fpar_s_item_get_innermost_local_id(hi, dim);
}
/** \brief h_item: the physical work-item that runs it. \param hi the item.
 *  \param dim 0..2. \return the id (0 beyond). */
FPAR_QUERY size_t fpar_h_item_get_physical_local_id(const fpar_h_item *hi,
                                                    unsigned dim) {
  return dim < 3 ? hi->physical_id[dim] : 0;
}
/** \brief h_item: logical range of this parallel_for_work_item.
 *  \param hi the item. \param dim 0..2. \return the extent. */
FPAR_QUERY size_t fpar_h_item_get_logical_local_range(const fpar_h_item *hi,
                                                      unsigned dim) {
  return fpar_s_item_get_innermost_local_range(hi, dim);
}
/** \brief h_item: physical work-items of the group. \param hi the item.
 *  \param dim 0..2. \return the extent. */
FPAR_QUERY size_t fpar_h_item_get_physical_local_range(const fpar_h_item *hi,
                                                       unsigned dim) {
  return fpar_group_get_physical_local_range(hi->group, dim);
}
/** \brief h_item: global range: the launch's (work groups times physical
 *  work-items), also under a logical range.  \param hi the item.
 *  \param dim 0..2. \return the extent. */
FPAR_QUERY size_t fpar_h_item_get_global_range(const fpar_h_item *hi,
                                               unsigned dim) {
  return fpar_s_item_get_global_range(hi, dim);
}

/* ---- Scoped parallelism ------------------------------------------------ */

/**
 * \brief Launch fn(g, args) once per work group (AdaptiveCpp
 *        handler::parallel); returns at once.
 * \param q the queue.
 * \param num_groups number of work groups (1-3 dimensions).
 * \param group_size logical items per work group (same dimensions).
 * \param fn the work group's function.
 * \param args passed to every call.
 * \param ev receives an event the caller must release, or NULL.
 * \return 0, FPAR_EINVAL, FPAR_EDIM, FPAR_EEMPTY, FPAR_ENULLKERNEL or
 *         FPAR_ENOMEM.
 */
FPAR_EXTERN int fpar_parallel(fpar_queue *q, fpar_range num_groups,
                              fpar_range group_size, fpar_group_fn fn,
                              void *args, fpar_event **ev);

/**
 * \brief Run fn once for each logical item of \p g (no synchronisation
 *        afterwards).  Inside fn no group operation, no distribute_* and
 *        no memory_environment is allowed (FPAR_ESCOPE).
 * \param g the innermost group.
 * \param fn the body.
 * \param ctx passed to fn.
 * \return 0; FPAR_ENOTKERNEL on a thread that runs no group function.
 */
FPAR_EXTERN int fpar_distribute_items(fpar_group *g, fpar_s_item_fn fn,
                                      void *ctx);
/** \brief fpar_distribute_items() followed by fpar_group_barrier().
 *  \param g the innermost group. \param fn the body.
 *  \param ctx passed to fn.
 *  \return 0; FPAR_ENOTKERNEL on a thread that runs no group
 *  function. */
FPAR_EXTERN int fpar_distribute_items_and_wait(fpar_group *g, fpar_s_item_fn fn,
                                               void *ctx);

/**
 * \brief fpar_distribute_items() with a runner from FPAR_DEFINE_ITEMS_ROW
 *        or FPAR_DEFINE_LANES_ROW, which runs the items of \p g in one
 *        loop per row into which the body inlines (and may vectorise).
 * \param g the innermost group.
 * \param row the runner.
 * \param ctx passed to the body.
 * \return 0; FPAR_ENOTKERNEL on a thread that runs no group function.
 */
FPAR_EXTERN int fpar_distribute_items_rows(fpar_group *g, fpar_s_row_fn row,
                                           void *ctx);

/* Move logical item *si by `by` along dimension d (modulo 2^N: a step
 * back wraps around); its physical id moves with it only in a group of
 * several physical work-items along d (a hierarchical one: a scoped
 * group has one). */
static inline void fpar__s_item_move(fpar_s_item *si, unsigned d, size_t by) {
  si->local_id[d] += by;
  si->group_local_id[d] += by;
  si->global_id[d] += by;
  if (si->group->physical_range[d] > 1)
    si->physical_id[d] += by;
}

/* Make *si the logical item at local id x of the row `row` stands for,
 * one member at a time (see FPAR__DEFINE_ROWS); phys0 is all ones when
 * physical ids move with local ids along dimension 0, else 0. */
static inline void fpar__s_item_at(fpar_s_item *si, const fpar_s_item *row,
                                   size_t x, size_t phys0) {
  size_t dx = x - row->local_id[0];

  si->local_id[0] = x;
  si->local_id[1] = row->local_id[1];
  si->local_id[2] = row->local_id[2];
  si->group_local_id[0] = row->group_local_id[0] + dx;
  si->group_local_id[1] = row->group_local_id[1];
  si->group_local_id[2] = row->group_local_id[2];
  si->global_id[0] = row->global_id[0] + dx;
  si->global_id[1] = row->global_id[1];
  si->global_id[2] = row->global_id[2];
  si->physical_id[0] = row->physical_id[0] + (dx & phys0);
  si->physical_id[1] = row->physical_id[1];
  si->physical_id[2] = row->physical_id[2];
  si->group = row->group;
}

/* Move `row` to the first item of the next row of its group, whose local
 * range is lr (or what stops a runner's call alone: zeros); 0 (and `row`
 * unchanged) after the last row. */
static inline int fpar__s_row_next(fpar_s_item *row, const size_t *lr) {
  if (row->local_id[1] + 1 < lr[1])
    fpar__s_item_move(row, 1, 1);
  else if (row->local_id[2] + 1 < lr[2]) {
    fpar__s_item_move(row, 1, 0 - row->local_id[1]);
    fpar__s_item_move(row, 2, 1);
  } else
    return 0;
  fpar__s_item_move(row, 0, 0 - row->local_id[0]);
  return 1;
}

/* The loop over the rows of the innermost group that a runner makes, from
 * the row of the runtime's item `at` on (see FPAR__ROWS_BEGIN): `row` is
 * the row's first item, `x0` its local id; afterwards `at` is the first
 * item of the last row.  With x_end 0 (the runner's parameter, a call
 * alone: see fpar_s_row_fn) the loop makes one row from x0 to x_end =
 * x0 + width (less at the row's end), `row` is moved to the row's first
 * item, and `at` gets the mark instead.  So the body has one call site
 * in the runner, and is inlined as it was before calls alone. */
#define FPAR__S_ROWS_BEGIN(at, row, x0, x_end, width)                          \
  {                                                                            \
    static const size_t fpar_no_rows_[3] = {0, 0, 0};                          \
    fpar_s_item row = *(at), fpar_mark_, *fpar_at_ = (at);                     \
    const size_t *fpar_lr_ = row.group->local_range;                           \
    size_t x0 = row.local_id[0];                                               \
    if (__builtin_expect((x_end) == 0, 0)) {                                   \
      (x_end) = x0 >= fpar_lr_[0]             ? x0                             \
                : fpar_lr_[0] - x0 <= (width) ? fpar_lr_[0]                    \
                                              : x0 + (width);                  \
      fpar__s_item_move(&row, 0, 0 - x0);                                      \
      fpar_lr_ = fpar_no_rows_;                                                \
      fpar_at_->local_id[0] = FPAR__S_ROW_MARK(width);                         \
      fpar_at_ = &fpar_mark_;                                                  \
    }                                                                          \
    do {
#define FPAR__S_ROWS_END(row, x0)                                              \
  x0 = 0;                                                                      \
  }                                                                            \
  while (fpar__s_row_next(&row, fpar_lr_))                                     \
    ;                                                                          \
  *fpar_at_ = row;                                                             \
  }

/** Define `static void name(fpar_s_item *, void *, size_t)`, the runner of
 *  `body`, an fpar_s_item_fn visible in this file (best `static inline`),
 *  for fpar_distribute_items_rows() and fpar_parallel_for_work_item_rows():
 *  one loop per row of the group, each item with an item of its own, into
 *  which `body` inlines.  Items of a distribute_items run in no particular
 *  order and may not depend on each other but through atomics (as
 *  work-items without a barrier): the loop is marked so (see
 *  FPAR_OPENMP_SIMD in <fiberpar.h>), and the compiler may vectorise it
 *  across items.  Given x_end 0 it runs one item alone, so that
 *  FIBERPAR_SCHEDULE and racecheck move and check each item on its own
 *  (see fpar_s_row_fn). */
#define FPAR_DEFINE_ITEMS_ROW(name, body)                                      \
  FPAR__ALWAYS_INLINE void name##_fpar_at_(const fpar_s_item *fpar_row_,       \
                                           size_t fpar_x_, size_t fpar_phys0_, \
                                           void *fpar_ctx_) {                  \
    fpar_s_item fpar_one_;                                                     \
    fpar__s_item_at(&fpar_one_, fpar_row_, fpar_x_, fpar_phys0_);              \
    body(&fpar_one_, fpar_ctx_);                                               \
  }                                                                            \
  static void name(fpar_s_item *fpar_si_, void *fpar_ctx_,                     \
                   size_t fpar_x_end_) {                                       \
    const size_t fpar_phys0_ =                                                 \
        0 - (size_t)(fpar_si_->group->physical_range[0] > 1);                  \
    FPAR__S_ROWS_BEGIN(fpar_si_, fpar_row_, fpar_x0_, fpar_x_end_, 1)          \
    size_t fpar_x_;                                                            \
    FPAR__ITEMS_LOOP                                                           \
    for (fpar_x_ = fpar_x0_; fpar_x_ < fpar_x_end_; fpar_x_++)                 \
      name##_fpar_at_(&fpar_row_, fpar_x_, fpar_phys0_, fpar_ctx_);            \
    FPAR__S_ROWS_END(fpar_row_, fpar_x0_)                                      \
  }

/**
 * \brief Split \p g into smaller groups and run fn once for each (no
 *        synchronisation afterwards).  A work group splits into sub-groups
 *        of the runtime's sub-group size along dimension 0 where that
 *        divides it (see fpar_runtime_subgroup_size()), else into scalar
 *        groups; a sub-group of n items into two sub-groups of n/2 while n
 *        is even and at least 4, else into scalar groups; a scalar group
 *        into one scalar group.  Nests to any depth.
 * \param g the innermost group.
 * \param fn called with each smaller group, which is then the innermost.
 * \param ctx passed to fn.
 * \return 0; FPAR_ENOTKERNEL on a thread that runs no group function.
 */
FPAR_EXTERN int fpar_distribute_groups(fpar_group *g, fpar_group_fn fn,
                                       void *ctx);
/** \brief fpar_distribute_groups() followed by fpar_group_barrier().
 *  \param g the innermost group. \param fn the body.
 *  \param ctx passed to fn.
 *  \return 0; FPAR_ENOTKERNEL on a thread that runs no group
 *  function. */
FPAR_EXTERN int fpar_distribute_groups_and_wait(fpar_group *g, fpar_group_fn fn,
                                                void *ctx);

/** \brief Run fn once for the group (by its leader).
 *  \param g the innermost group. \param fn the body.
 *  \param ctx passed to fn.
 *  \return 0; FPAR_ENOTKERNEL on a thread that runs no group
 *  function. */
FPAR_EXTERN int fpar_single_item(fpar_group *g, fpar_single_fn fn, void *ctx);
/** \brief fpar_single_item() followed by fpar_group_barrier().
 *  \param g the innermost group. \param fn the body.
 *  \param ctx passed to fn.
 *  \return 0; FPAR_ENOTKERNEL on a thread that runs no group
 *  function. */
FPAR_EXTERN int fpar_single_item_and_wait(fpar_group *g, fpar_single_fn fn,
                                          void *ctx);

/** \brief Barrier of the group: a memory fence, since the group's logical
 *  items run in order on one thread.  \param g the innermost group.
 *  \return 0; FPAR_ENOTKERNEL on a thread that runs no group
 *  function. */
FPAR_EXTERN int fpar_group_barrier(fpar_group *g);

/** Kind of a memory_environment request. */
typedef enum fpar_mem_kind {
  FPAR_MEM_LOCAL = 0,  /**< one object shared by the group */
  FPAR_MEM_PRIVATE = 1 /**< one object per logical item of the group */
} fpar_mem_kind;

/** A memory_environment request (require_local_mem /
 *  require_private_mem). */
typedef struct fpar_mem_request {
  fpar_mem_kind kind; /**< local or private */
  size_t size;        /**< bytes of one object (an array: all its elements) */
  size_t align;       /**< power of two up to FPAR_MAX_LOCAL_ALIGN; 0: 16 */
  const void *init;   /**< NULL: uninitialised; else every init_size-byte
                           element of the object is set to *init */
  size_t init_size;   /**< bytes of *init; must divide size */
} fpar_mem_request;

/** \brief A local-memory request. \param size bytes.
 *  \param align alignment (0: 16). \param init element value or NULL.
 *  \param init_size bytes of *init. \return the request. */
static inline fpar_mem_request fpar_require_local_mem(size_t size, size_t align,
                                                      const void *init,
                                                      size_t init_size) {
  fpar_mem_request r = {FPAR_MEM_LOCAL, size, align, init, init_size};
  return r;
}
/** \brief A private-memory request (one object per logical item).
 *  \param size bytes per item. \param align alignment (0: 16).
 *  \param init element value or NULL. \param init_size bytes of *init.
 *  \return the request. */
static inline fpar_mem_request fpar_require_private_mem(size_t size,
                                                        size_t align,
                                                        const void *init,
                                                        size_t init_size) {
  fpar_mem_request r = {FPAR_MEM_PRIVATE, size, align, init, init_size};
  return r;
}

/** Body of fpar_memory_environment(): mem[k] is the memory of request k
 *  (local) or its fpar_private_memory * (private). */
typedef void (*fpar_env_fn)(fpar_group *g, void *const *mem, void *ctx);

/**
 * \brief Allocate the requested memory from the worker's local-memory
 *        arena, initialise it, run fn, release it.  The memory stays valid
 *        across any number of distribute_items calls inside fn.  A request
 *        the arena cannot hold fails the launch with FPAR_ELOCALMEM.
 * \param g the innermost group.
 * \param reqs the requests.
 * \param n number of requests.
 * \param fn the body.
 * \param ctx passed to fn.
 * \return 0; FPAR_ENOTKERNEL on a thread that runs no group function.
 */
FPAR_EXTERN int fpar_memory_environment(fpar_group *g,
                                        const fpar_mem_request *reqs,
                                        unsigned n, fpar_env_fn fn, void *ctx);

/**
 * \brief The object of private memory \p pm that belongs to \p item:
 *        scoped memory has one per logical item of the group it was
 *        requested in, hierarchical memory one per physical work-item.
 * \param pm the private memory.
 * \param item a logical item of the group (or h_item).
 * \return the object; an item outside the group fails the launch with
 *         FPAR_ESCOPE; NULL (FPAR_ENOTKERNEL in fpar_last_error()) on a
 *         thread that runs no group function.
 */
FPAR_EXTERN void *fpar_private_at(const fpar_private_memory *pm,
                                  const fpar_s_item *item);

/* ---- Hierarchical parallelism (SYCL 1.2.1) ----------------------------- */

/**
 * \brief Launch fn(g, args) once per work group (parallel_for_work_group);
 *        returns at once.
 * \param q the queue.
 * \param num_groups number of work groups (1-3 dimensions).
 * \param group_size physical work-items per group, or FPAR_LOCAL_AUTO for
 *        the runtime's choice (its sub-group size along dimension 0).
 * \param fn the work group's function.
 * \param args passed to every call.
 * \param ev receives an event the caller must release, or NULL.
 * \return as fpar_parallel().
 */
FPAR_EXTERN int fpar_parallel_for_work_group(fpar_queue *q,
                                             fpar_range num_groups,
                                             fpar_range group_size,
                                             fpar_group_fn fn, void *args,
                                             fpar_event **ev);

/**
 * \brief Run fn once per physical work-item of \p g, then an implicit
 *        barrier.
 * \param g the work group.
 * \param fn the body (an fpar_h_item is an fpar_s_item).
 * \param ctx passed to fn.
 * \return 0; FPAR_ENOTKERNEL on a thread that runs no group function.
 */
FPAR_EXTERN int fpar_parallel_for_work_item(fpar_group *g, fpar_s_item_fn fn,
                                            void *ctx);

/**
 * \brief The flexible form: run fn once per item of a logical range that
 *        may differ from the group size; logical item l runs on physical
 *        work-item l mod group size (per dimension).  Implicit barrier.
 * \param g the work group.
 * \param logical the logical range (same dimensions as the group).
 * \param fn the body.
 * \param ctx passed to fn.
 * \return 0; FPAR_ENOTKERNEL on a thread that runs no group function.
 */
FPAR_EXTERN int fpar_parallel_for_work_item_range(fpar_group *g,
                                                  fpar_range logical,
                                                  fpar_s_item_fn fn, void *ctx);

/**
 * \brief fpar_parallel_for_work_item() with a row runner (see
 *        FPAR_DEFINE_ITEMS_ROW and FPAR_DEFINE_LANES_ROW), which runs the
 *        physical work-items of \p g in one loop per row into which the
 *        body inlines (and may vectorise).  Implicit barrier.
 * \param g the work group.
 * \param row the row runner.
 * \param ctx passed to the body.
 * \return 0; FPAR_ENOTKERNEL on a thread that runs no group function.
 */
FPAR_EXTERN int fpar_parallel_for_work_item_rows(fpar_group *g,
                                                 fpar_s_row_fn row, void *ctx);

/**
 * \brief sycl::private_memory: one object of \p size bytes (16-byte
 *        aligned, uninitialised) per physical work-item of \p g, carried
 *        across parallel_for_work_item calls and released when the group
 *        function returns.
 * \param g the work group.
 * \param size bytes per work-item.
 * \return the memory, read with fpar_private_at(pm, h_item); NULL
 *         (FPAR_ENOTKERNEL in fpar_last_error()) on a thread that runs no
 *         group function.
 */
FPAR_EXTERN fpar_private_memory *fpar_private_memory_create(fpar_group *g,
                                                            size_t size);

#ifdef __cplusplus
}
#endif
#endif /* FIBERPAR_SCOPED_H */
