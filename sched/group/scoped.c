/* SPDX-License-Identifier: MIT */
/* scoped.c - scoped parallelism (AdaptiveCpp) on a worker: a work group's
 * function runs once on the runner fiber (also a hierarchical launch's,
 * hierarchical.c); distribute_items is a loop over logical items;
 * distribute_groups nests groups on the runner's stack; single_item and
 * group_barrier run in place.
 *
 * The scoped rules are checked here: a group operation, distribute_*,
 * single_item or memory_environment inside an item loop (rule 2 and 3), or
 * an operation on a group that is not the innermost one (rule 1), fails
 * the launch with FPAR_ESCOPE and names the rule.
 */
#include <string.h>

#include "sched/base/error.h"
#include "sched/group/abort.h"
#include "sched/group/race.h"
#include "sched/group/scoped.h"

/* ---- Rule checks -------------------------------------------------------- */

fpar__worker *fpar__scoped_worker(const char *op) {
  fpar__worker *w = fpar__self;

  if (w == NULL) {
    fpar__set_error(FPAR_ENOTKERNEL,
                    "%s called on a thread that runs no group function", op);
    return NULL;
  }
  if (w->launch == NULL || (w->launch->spec.model != FPAR__SCOPED &&
                            w->launch->spec.model != FPAR__HIERARCHICAL))
    fpar__group_abort(w, FPAR_ESCOPE,
                      "%s called outside a scoped or hierarchical group "
                      "function",
                      op);
  return w;
}

/* Rules 1 and 2: group operations run outside item loops, on the innermost
 * group. */
fpar__worker *fpar__check_group_op(const fpar_group *g, const char *op) {
  fpar__worker *w = fpar__scoped_worker(op);
  const fpar__scoped_nesting *n;

  if (w == NULL)
    return NULL;
  n = fpar__nesting(w);
  if (n->inside != NULL)
    fpar__group_abort(w, FPAR_ESCOPE,
                      "%s called inside %s (scoped rule 2: group "
                      "operations, distribute_*, single_item and memory "
                      "requests must not be made from within "
                      "distribute_items)",
                      op, n->inside);
  if (g != n->innermost)
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

/* The work group of w's launch but for its id and origin, built once per
 * launch: each group copies it, so that what a group function writes
 * into its group is not the next group's. */
static const fpar_group *fpar__group_template(fpar__worker *w) {
  const fpar__launch *l = w->launch;
  fpar_group *t = &w->group_template;
  unsigned d;

  if (w->group_template_seq == w->launch_claim.seq)
    return t;
  memset(t, 0, sizeof *t);
  t->dims = l->spec.geo.dims;
  t->scope = FPAR_FENCE_WORK_GROUP;
  for (d = 0; d < 3; d++) {
    t->range[d] = l->spec.geo.group_range[d];
    t->local_range[d] = l->spec.geo.local_range[d];
    t->physical_range[d] = l->spec.physical_size[d];
    t->global_range[d] = l->spec.geo.global_range[d];
  }
  w->group_template_seq = w->launch_claim.seq;
  return t;
}

void fpar__run_group_function(fpar__worker *w, size_t linear) {
  const fpar__launch *l = w->launch;
  const fpar_group *t = fpar__group_template(w);
  fpar_group wg = *t;
  unsigned d;

  fpar__worker_locate(w, linear); /* also for fault messages */
  for (d = 0; d < 3; d++) {
    /* One id at a time: a load of two at once, which GCC's vectorizer
     * makes of this loop, would wait on the locate's 8-byte stores of
     * them (a failed store forward, a nanosecond a group). */
    size_t id = w->run.group_id[d];

    __asm__("" : "+r"(id));
    wg.id[d] = id;
    wg.global_origin[d] = id * t->local_range[d];
  }
  fpar__race_group_start(w, "the group function");
  fpar__nesting(w)->innermost = &wg;
  fpar__nesting(w)->inside = NULL;
  l->spec.group_fn(&wg, l->spec.args);
  fpar__race_items_sync(w); /* the next group reuses the memory */
  fpar__arena_release(&w->arena, w->run.arena_mark);
}

/* ---- Item loops ---------------------------------------------------------- */

/* The logical item with local id `local` of group g; physical: it is its
 * own physical work-item (FPAR__ITEMS_PHYSICAL), else physical id 0. */
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

/* The same for any kind of item loop (FPAR__ITEMS_*). */
static void fpar__s_item_of(fpar_s_item *si, const fpar_group *g,
                            const size_t local[3], int kind) {
  if (kind == FPAR__ITEMS_LOGICAL)
    fpar__s_item_logical(si, g, local);
  else
    fpar__s_item_set(si, g, local, kind == FPAR__ITEMS_PHYSICAL);
}

/* Racecheck's identity of item si: a scoped item's local linear id in the
 * work group, a hierarchical one's physical work-item. */
static size_t fpar__s_item_identity(const fpar__worker *w,
                                    const fpar_s_item *si, int kind) {
  const size_t *r = kind == FPAR__ITEMS_SCOPED ? w->launch->spec.geo.local_range
                                               : si->group->physical_range;
  const size_t *id =
      kind == FPAR__ITEMS_SCOPED ? si->group_local_id : si->physical_id;

  return id[0] + r[0] * (id[1] + r[1] * id[2]);
}

/* The calls of item function fn (width 1), or of runner row when it runs
 * one call alone (`width` items each along dimension 0, the last of a row
 * fewer), one at a time in the schedule's order, each as the racecheck
 * identity of its first item. */
static void fpar__calls_each(fpar__worker *w, const fpar_group *g,
                             fpar_s_item_fn fn, fpar_s_row_fn row, void *ctx,
                             int kind, size_t width) {
  const char *name = kind == FPAR__ITEMS_SCOPED ? "logical item" : "work-item";
  const fpar__order *o = &w->launch->spec.order;
  const size_t *lr = g->local_range;
  size_t per_row = (lr[0] + width - 1) / width, n = per_row * lr[1] * lr[2];
  uint64_t key = (uint64_t)g->offset[0] ^ (uint64_t)g->offset[1] << 21 ^
                 (uint64_t)g->offset[2] << 42 ^ (uint64_t)g->id[0] << 7;
  size_t local[3], p;
  fpar_s_item si;

  for (p = 0; p < n; p++) {
    size_t c = fpar__order_at(o, key, n, p), id, items;
    local[0] = c % per_row * width;
    local[1] = c / per_row % lr[1];
    local[2] = c / per_row / lr[1];
    items = lr[0] - local[0] < width ? lr[0] - local[0] : width;
    fpar__s_item_of(&si, g, local, kind);
    id = fpar__s_item_identity(w, &si, kind);
    fpar__race_item_run(w, id, id + items - 1, name, fn, row, &si, ctx, 0);
  }
  /* A hierarchical loop ends with its implicit barrier, a scoped one with
   * none (race.h); but a call of several items is the identity of its
   * first, so a later loop's items would see their own writes as another
   * identity's. */
  fpar__race_items_end(w, kind, width > 1);
}

void fpar__items_each(fpar__worker *w, const fpar_group *g, fpar_s_item_fn fn,
                      fpar_s_row_fn row, void *ctx, int kind) {
  const char *name = kind == FPAR__ITEMS_SCOPED ? "logical item" : "work-item";
  const size_t *lr = g->local_range;
  size_t local[3] = {0, 0, 0}, id;
  fpar_s_item si;

  if (row != NULL) {
    /* A runner that cannot run one call alone (built against an older
     * header, see fpar__items_loop) is given a row from its first item
     * and may run on to the end of the group (fpar_s_row_fn).  So rows
     * keep their order, and the items of a call are one identity for
     * racecheck. */
    do {
      fpar__s_item_of(&si, g, local, kind);
      id = fpar__s_item_identity(w, &si, kind);
      fpar__race_item_run(w, id, SIZE_MAX, name, NULL, row, &si, ctx, lr[0]);
      local[1] = si.local_id[1] + 1;
      local[2] = si.local_id[2];
      if (local[1] == lr[1]) {
        local[1] = 0;
        local[2]++;
      }
    } while (local[2] < lr[2]);
    fpar__race_items_end(w, kind, 1);
  } else
    fpar__calls_each(w, g, fn, NULL, ctx, kind, 1);
}

/* The items of a call of runner row when it runs one call alone (see
 * fpar_s_row_fn): 1, or W for a lanes runner; 0 for a runner that does
 * not, which then ran nothing.  It is asked at the first row's end, where
 * a call has no item. */
static size_t fpar__row_call_items(const fpar_group *g, fpar_s_row_fn row,
                                   void *ctx, int kind) {
  size_t local[3] = {g->local_range[0], 0, 0}, mark;
  fpar_s_item si;

  fpar__s_item_of(&si, g, local, kind);
  row(&si, ctx, 0);
  mark = si.local_id[0];
  return mark >= FPAR__S_ROW_MARK(64) && mark <= FPAR__S_ROW_MARK(1)
             ? FPAR__S_ROW_MARK(0) - mark
             : 0;
}

/* fn for every item of g in local-id order, with `physical` a constant
 * in each copy (see fpar__items_forward). */
static inline __attribute__((always_inline)) void
fpar__items_forward_as(const fpar_group *g, fpar_s_item_fn fn, void *ctx,
                       const int physical) {
  size_t local[3];
  fpar_s_item si;

  for (local[2] = 0; local[2] < g->local_range[2]; local[2]++)
    for (local[1] = 0; local[1] < g->local_range[1]; local[1]++)
      for (local[0] = 0; local[0] < g->local_range[0]; local[0]++) {
        fpar__s_item_set(&si, g, local, physical);
        fn(&si, ctx);
      }
}

/* The forward loop of a function per item, in a function of its own:
 * inside fpar__items_loop, with the other paths' values live too, GCC
 * kept fn on the stack and loaded it again for every item, beside a call
 * of fpar__s_item_set.  Here, with one copy per value of physical, GCC
 * inlines fpar__s_item_set into the loop (callgrind, scoped_reduce: 12
 * instructions fewer per item); fn and ctx are loaded from the stack for
 * each call, as fn was. */
static __attribute__((noinline)) void fpar__items_forward(const fpar_group *g,
                                                          fpar_s_item_fn fn,
                                                          void *ctx,
                                                          int physical) {
  if (physical)
    fpar__items_forward_as(g, fn, ctx, 1);
  else
    fpar__items_forward_as(g, fn, ctx, 0);
}

void fpar__items_loop(fpar__worker *w, const fpar_group *g, const char *op,
                      fpar_s_item_fn fn, fpar_s_row_fn row, void *ctx,
                      int physical) {
  size_t local[3];
  fpar_s_item si;

  fpar__nesting(w)->inside = op;
  /* Another order than local-id order, or racecheck's identities: a
   * runner that runs one call alone is given its calls in the schedule's
   * order, each its own identity. */
  if (__builtin_expect(fpar__tsan_enabled() ||
                           !fpar__order_is_forward(&w->launch->spec.order),
                       0)) {
    size_t width =
        row != NULL ? fpar__row_call_items(g, row, ctx, physical) : 0;
    if (width != 0)
      fpar__calls_each(w, g, NULL, row, ctx, physical, width);
    else
      fpar__items_each(w, g, fn, row, ctx, physical);
    fpar__nesting(w)->inside = NULL;
    return;
  }
  if (fn != NULL) {
    fpar__items_forward(g, fn, ctx, physical);
    fpar__nesting(w)->inside = NULL;
    return;
  }
  for (local[2] = 0; local[2] < g->local_range[2]; local[2]++) {
    for (local[1] = 0; local[1] < g->local_range[1]; local[1]++) {
      local[0] = 0;
      /* A runner may go on past this row; it returns naming the last row
       * it ran (see fpar_s_row_fn). */
      fpar__s_item_set(&si, g, local, physical);
      row(&si, ctx, g->local_range[0]);
      local[1] = si.local_id[1];
      local[2] = si.local_id[2];
    }
  }
  fpar__nesting(w)->inside = NULL;
}

int fpar_distribute_items(fpar_group *g, fpar_s_item_fn fn, void *ctx) {
  fpar__worker *w = fpar__check_group_op(g, "fpar_distribute_items");

  if (w == NULL)
    return FPAR_ENOTKERNEL;
  fpar__items_loop(w, g, "fpar_distribute_items", fn, NULL, ctx,
                   FPAR__ITEMS_SCOPED);
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
  fpar__items_loop(w, g, "fpar_distribute_items_rows", NULL, row, ctx,
                   FPAR__ITEMS_SCOPED);
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
        fpar__nesting(w)->innermost = &sub;
        fn(&sub, ctx);
      }
  fpar__nesting(w)->innermost = g;
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
  fpar__race_items_sync(w);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return 0;
}
