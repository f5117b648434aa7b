/* SPDX-License-Identifier: MIT */
/* group.c - running the work-groups of an nd_range launch on a worker.
 *
 * A worker's runner fiber takes groups one after another.  A group starts
 * as a plain loop over its work-items on the runner's stack ("lazy
 * fibers"): a kernel that never reaches a barrier costs a function call per
 * work-item.  When work-item 0 reaches its first barrier the group is
 * promoted: work-item 0 stays on the runner fiber and every other work-item
 * gets a pooled fiber of its own, started in local-id order.
 *
 * From then on the work-items meet at rendezvous: each barrier, and the
 * return from the kernel.  A rendezvous is round-robin: a work-item arrives,
 * switches straight to the next one, and the last arrival switches to
 * work-item 0, which opens the next phase.  The first arrival of a phase
 * records what it did (the barrier's call site, or FPAR__SITE_EXIT); every
 * later arrival must have done the same, else the group fails with a
 * message instead of hanging.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/group/abort.h"
#include "sched/group/collective_combine.h"
#include "sched/group/copystack.h"
#include "sched/group/group.h"
#include "sched/group/message.h"
#include "sched/group/race.h"
#include "sched/group/subgroup_site.h"

const char fpar__site_exit[] = "(return from the kernel)";

/* Racecheck: tell TSan, by `start`, that the running fiber starts its
 * work-item, named after the work-items it carries.  Nothing in builds
 * without ThreadSanitizer. */
static void fpar__race_named(fpar__worker *w,
                             void (*start)(fpar__worker *, const char *)) {
  char items[64];

  if (!fpar__tsan_enabled())
    return;
  fpar__describe_running(w, items, sizeof items);
  start(w, items);
}

/* Work-items a kernel call starting at local x of a row of row_size
 * covers: `lanes` (1 for ordinary kernels), fewer at the end of the row. */
static inline unsigned fpar__lanes_left(size_t row_size, unsigned lanes,
                                        size_t x) {
  size_t left = row_size - x;

  return left < lanes ? (unsigned)left : lanes;
}

/* The same in the running group. */
static inline unsigned fpar__lanes_at(const fpar__worker *w, size_t x) {
  return fpar__lanes_left(w->run.geo->local_range[0], w->launch->spec.lanes, x);
}

static void fpar__item_set_local(fpar_item *it, const size_t local[3],
                                 const size_t range[3]);

/* The local id of the first work-item of call c of the running group
 * (calls in local-id order, dimension 0 fastest; a call of a lane kernel
 * is a sub-group of `lanes` work-items along dimension 0). */
static void fpar__call_local_id(const fpar__worker *w, size_t c, size_t id[3]) {
  const size_t *lr = w->run.geo->local_range;
  size_t lanes = w->launch->spec.lanes, per_row = (lr[0] + lanes - 1) / lanes;
  size_t row = c / per_row;

  id[0] = c % per_row * lanes;
  id[1] = row % lr[1];
  id[2] = row / lr[1];
}

size_t fpar__fiber_call_ordered(const fpar__worker *w, size_t f) {
  const fpar__launch_spec *s = &w->launch->spec;
  const fpar__group_run *g = &w->run;
  const size_t lr0 = g->geo->local_range[0], sg = s->geo.sub_group_size;
  uint64_t key = (uint64_t)g->group_id[0] ^ (uint64_t)g->group_id[1] << 21 ^
                 (uint64_t)g->group_id[2] << 42;
  size_t unit = 1;

  /* The members of a sub-group are consecutive fibers, and its operations
   * combine in fiber order: where a kernel may use them, sub-groups move
   * as wholes (whole rows where they do not divide a row). */
  if (s->subgroup_ops)
    unit = lr0 % sg == 0 ? sg : lr0;
  return fpar__order_at(&s->order, key, g->size / unit, f / unit) * unit +
         f % unit;
}

/* Work-item 0 of the running group, or under a FIBERPAR_SCHEDULE other
 * than forward the work-item that runs first. */
static void fpar__item_begin(fpar_item *it, fpar__worker *w) {
  const fpar__launch *l = w->launch;
  const fpar__group_run *g = &w->run;
  unsigned d;

  for (d = 0; d < 3; d++) {
    it->group_id[d] = g->group_id[d];
    it->local_id[d] = 0;
    it->origin[d] = l->spec.geo.global_offset[d] +
                    g->group_id[d] * l->spec.geo.local_range[d];
  }
  it->row_linear = 0;
  it->geometry = g->geo;
  it->run = &w->run;
  it->local_calls = 0;
  it->lanes = fpar__lanes_at(w, 0);
  if (!fpar__order_is_forward(&l->spec.order)) {
    size_t id[3];
    fpar__call_local_id(w, fpar__fiber_call(w, 0), id);
    fpar__item_set_local(it, id, g->geo->local_range);
    it->lanes = fpar__lanes_at(w, id[0]);
  }
}

static void fpar__item_set_local(fpar_item *it, const size_t local[3],
                                 const size_t range[3]) {
  it->local_id[0] = local[0];
  it->local_id[1] = local[1];
  it->local_id[2] = local[2];
  it->row_linear = range[0] * (local[1] + range[1] * local[2]);
}

static _Noreturn __attribute__((noinline, cold)) void
fpar__exit_mismatch(fpar__worker *w, size_t i) {
  char items[64], what[128];

  if (w->run.site == FPAR__SITE_SUBGROUP)
    fpar__subgroup_diverged(w, i, "returned from the kernel");
  fpar__describe_items(items, sizeof items, 0, i - 1, "waits", "wait");
  fpar__group_abort(w, FPAR_EDIVERGENCE,
                    "work-item %zu returned from the kernel while %s at %s", i,
                    items, fpar__site_what(what, sizeof what, w->run.site));
}

/* Whether the group's fibers park when their work-item returns, to run a
 * work-item of a later group when resumed (persistent fibers: starting a
 * group then builds no contexts).  Not on a shared stack, whose contexts
 * are copies, and not with a per-item FP state, which a parked fiber
 * would carry into its next work-item. */
static int fpar__group_parks(const fpar__group_run *g) {
  return g->fibers == FPAR__FIBERS_OWN && g->shared_fpenv;
}

/* A work-item's kernel has returned: arrive at the rendezvous as "exit".
 * Work-item 0 resumes once every work-item has returned; the others
 * resume, if ever, at the promotion of a later group. */
static void fpar__item_exit(fpar__worker *w) {
  FPAR__RACE_SCOPE(w);
  fpar__group_run *g = &w->run;
  size_t i = g->cur;
  unsigned parity;

  if (i == 0)
    g->site = FPAR__SITE_EXIT;
  else if (g->site != FPAR__SITE_EXIT)
    fpar__exit_mismatch(w, fpar__fiber_first_item(w, i));
  if (i != 0 && g->fibers == FPAR__FIBERS_COPIED)
    fpar__copystack_vacate(&w->copy);
  parity = fpar__race_arrive(w);
  fpar__group_pass_on(w, i == 0 || fpar__group_parks(g) ? &g->ctx[i]
                                                        : &w->dead_ctx);
  fpar__race_depart(w, parity);
}

/* fpar__item_exit in the kernel's shape (fpar__fiber_main says why). */
static void fpar__item_exit_call(fpar_item *it, void *w) {
  (void)it;
  fpar__item_exit(w);
}

/* Entry of the fibers of work-items 1..size-1: one work-item per group
 * the fiber is resumed in.  Fibers first run in local-id order, so each
 * takes the next id from the group; the rest of its item is work-item
 * 0's, which waits at the group's first barrier.
 *
 * The kernel and the exit are called from one call instruction: a fiber
 * that exits resumes the next one at a rendezvous in its kernel by a jump
 * (context_x86_64_sysv.S), which leaves the exit's return address on the
 * processor's return stack, and the next fiber's kernel, when it returns,
 * returns to that same address. */
static void fpar__fiber_main(void *arg) {
  fpar__worker *w = arg;
  fpar__group_run *g = &w->run;
  fpar_item it;
  int exiting = 0;

  fpar__san_switch_in(NULL, NULL, NULL);
  fpar__race_fresh(w);
  for (;;) {
    fpar_kernel_fn call = fpar__item_exit_call;
    void *args = w;

    /* Kept opaque, so that the compiler does not split the loop into a
     * kernel call and an exit call. */
    __asm__("" : "+r"(exiting));
    if (!exiting) {
      const fpar__launch *l;

      fpar__race_enter(w);
      l = w->launch;
      call = l->spec.kernel;
      args = l->spec.args;
      it = *g->loop_item;
      it.local_calls = 0;
      if (fpar__order_is_forward(&l->spec.order)) {
        fpar__item_set_local(&it, g->start_id, g->geo->local_range);
        it.lanes = fpar__lanes_at(w, g->start_id[0]);
        fpar__next_id(g->start_id, g->geo->local_range, l->spec.lanes);
      } else {
        size_t id[3];
        fpar__call_local_id(w, fpar__fiber_call(w, g->cur), id);
        fpar__item_set_local(&it, id, g->geo->local_range);
        it.lanes = fpar__lanes_at(w, id[0]);
      }
      fpar__race_named(w, fpar__race_item_start);
      fpar__race_leave(w);
    }
    call(&it, args);
    exiting = !exiting;
  }
}

void fpar__describe_running(const fpar__worker *w, char *buf, size_t len) {
  const fpar__launch *l = w->launch;
  const fpar__group_run *g = &w->run;
  size_t first, fiber, lr0;
  unsigned n;

  if (l->spec.model == FPAR__SCOPED || l->spec.model == FPAR__HIERARCHICAL) {
    /* Under racecheck an item's call may have been cut short on its
     * identity's stack. */
    const char *items = fpar__race_faulted(w);
    snprintf(buf, len, "%s", items != NULL ? items : "the group function");
    return;
  }
  lr0 = g->geo->local_range[0];
  if (!g->fibers && g->loop_item == NULL) {
    snprintf(buf, len, "a work-item that the kernel's row runner ran");
    return;
  }
  if (g->fibers) {
    fiber = g->cur;
    first = fpar__fiber_first_item(w, fiber);
  } else {
    first = fpar_local_linear_id(g->loop_item);
    fiber = first / lr0 * ((lr0 + l->spec.lanes - 1) / l->spec.lanes) +
            first % lr0 / l->spec.lanes;
  }
  n = fpar__lanes_at(w, first % lr0);
  if (l->spec.lanes > 1)
    snprintf(buf, len, "work-items %zu-%zu (sub-group %zu)", first,
             first + n - 1, fiber);
  else
    snprintf(buf, len, "work-item %zu", first);
}

/* Each fiber gets a slot of its own when the worker may hold that many;
 * otherwise fibers 1.. share one (copy mode). */
void fpar__group_promote(fpar__worker *w) {
  fpar__group_run *g = &w->run;
  const fpar__launch *l = w->launch;
  uint64_t fpu = g->fpu;
  size_t i;
  int copied;

  if (fpar__worker_reserve_fibers(w, g->size) != 0)
    fpar__group_abort(w, FPAR_ENOMEM,
                      "no memory for the contexts of %zu fibers", g->size);
  g->ctx[0] = w->runner_ctx;
  copied = fpar__stack_pool_reserve(&w->stacks, g->size) != 0;
  if (copied && fpar__tsan_enabled())
    fpar__group_abort(w, FPAR_ENOMEM,
                      "no memory for the stacks of %zu fibers, one per "
                      "work-item as racecheck (ThreadSanitizer) needs",
                      g->size);
  if (copied) {
    g->parked = 0; /* the shared and copier slots are theirs */
    if (fpar__stack_pool_reserve(&w->stacks, FPAR__STACK_SLOTS_MIN) != 0)
      fpar__group_abort(w, FPAR_ENOMEM,
                        "no memory for the shared fiber stack of %zu fibers",
                        g->size);
    for (i = 1; i < g->size; i++)
      g->ctx[i] = NULL;
    if (fpar__copystack_begin(w, fpar__fiber_main, fpu) != 0)
      fpar__group_abort(w, FPAR_ENOMEM,
                        "no memory to track the stacks of %zu fibers", g->size);
  } else {
    for (i = g->parked + 1; i < g->size; i++) {
      fpar__san_clean_stack(fpar__stack_lo(&w->stacks, i), w->stacks.span);
      g->ctx[i] = fpar__ctx_make(fpar__stack_lo(&w->stacks, i),
                                 fpar__stack_hi(&w->stacks, i),
                                 fpar__fiber_main, w, fpu);
    }
  }
  g->start_id[0] = g->start_id[1] = g->start_id[2] = 0;
  fpar__next_id(g->start_id, g->geo->local_range, l->spec.lanes);
  g->cur = 0;
  g->fibers = copied ? FPAR__FIBERS_COPIED : FPAR__FIBERS_OWN;
}

/* Call `kernel` for the work-item at x of the row *it stands for, its
 * group-local requests counted from none. */
static inline void fpar__run_item(fpar_item *it, size_t x,
                                  fpar_kernel_fn kernel, void *args) {
  it->local_id[0] = x;
  if (__builtin_expect(it->local_calls != 0, 0))
    it->local_calls = 0;
  kernel(it, args);
}

/* Work-items x..n-1 of a row, one call of `kernel` each: a loop of its
 * own, so that what it keeps across the calls (five values) stays in
 * callee-saved registers instead of being reloaded around every call. */
static __attribute__((noinline)) void fpar__run_items(fpar_item *it,
                                                      fpar_kernel_fn kernel,
                                                      void *args, size_t x,
                                                      size_t n) {
  for (; x < n; x++)
    fpar__run_item(it, x, kernel, args);
}

/* Work-items 1.. of a group whose work-item 0 returned without reaching a
 * barrier: a plain loop, calls of the launch's row runner, or one call
 * per sub-group of a lane kernel.  (A barrier reached now is divergence
 * and ends the group.) */
static void fpar__run_loop(fpar__worker *w, fpar_item *it) {
  const fpar__launch *l = w->launch;
  const size_t *lr = w->run.geo->local_range;
  fpar_kernel_fn kernel = l->spec.kernel;
  fpar_row_fn row = l->spec.row;
  void *args = l->spec.args;
  unsigned lanes = l->spec.lanes;
  size_t x, y, z, x0 = it->lanes;

  /* The item escapes into the kernel, so its fields live in memory: only
   * local_id[0] changes per work-item, and group-local requests are reset
   * only when the kernel made some. */
  for (z = 0; z < lr[2]; z++) {
    for (y = 0; y < lr[1]; y++, x0 = 0) {
      it->local_id[1] = y;
      it->local_id[2] = z;
      it->row_linear = lr[0] * (y + lr[1] * z);
      if (row != NULL) {
        /* A runner runs this row and may go on with the next ones (the
         * whole group, FPAR_KERNEL's); it returns naming the last row it
         * ran (see fpar_row_fn).  None is called for a row that work-item
         * 0 completed (a lane kernel's group of one sub-group). */
        if (x0 >= lr[0])
          continue;
        it->local_id[0] = x0;
        it->local_calls = 0;
        w->run.loop_item = NULL; /* the runner's work-items have their own */
        row(it, args, lr[0]);
        w->run.loop_item = it;
        y = it->local_id[1];
        z = it->local_id[2];
        continue;
      }
      if (lanes == 1) {
        fpar__run_items(it, kernel, args, x0, lr[0]);
        continue;
      }
      for (x = x0; x < lr[0]; x += lanes) {
        it->lanes = fpar__lanes_left(lr[0], lanes, x);
        fpar__run_item(it, x, kernel, args);
      }
    }
  }
}

/* The geometry of a group of a launch whose local range does not divide
 * the global range: the launch's, or for a group at the end of such a
 * dimension the worker's copy with the group's own local range. */
static const fpar_nd_geometry *fpar__group_edge(fpar__worker *w) {
  const fpar_nd_geometry *geo = &w->launch->spec.geo;
  fpar__group_run *g = &w->run;
  size_t left[3];
  unsigned d, edge = 0;

  for (d = 0; d < 3; d++) {
    left[d] = geo->global_range[d] - g->group_id[d] * geo->local_range[d];
    edge |= left[d] < geo->local_range[d];
  }
  if (!edge)
    return geo;
  g->edge = *geo;
  for (d = 0; d < 3; d++)
    if (left[d] < geo->local_range[d])
      g->edge.local_range[d] = left[d];
  return &g->edge;
}

void fpar__group_begin(fpar__worker *w, size_t linear, fpar_item *it) {
  const fpar__launch *l = w->launch;
  fpar__group_run *g = &w->run;

  fpar__worker_locate(w, linear);
  g->geo = &l->spec.geo;
  g->size = l->spec.group_fibers;
  if (__builtin_expect(l->spec.nonuniform, 0) &&
      (g->geo = fpar__group_edge(w)) != &l->spec.geo)
    g->size = fpar__group_calls(g->geo->local_range, l->spec.lanes);
  g->fibers = FPAR__LOOP;
  g->view.num_objects = 0;
  g->view.phase_slots = NULL;
  g->phase_op = 0;
  g->serial++;
  fpar__collective_of(w)->op = 0;
  fpar__subgroup_of(w)->op = 0;
  fpar__item_begin(it, w);
  g->loop_item = it;
}

void fpar__group_end(fpar__worker *w) {
  w->run.loop_item = NULL;
  w->run.serial++; /* what a feature kept for the group is stale now */
  fpar__arena_release(&w->arena, w->run.arena_mark);
}

/* Work-item 0 first; if it reached a barrier the group is fibers by now,
 * else the rest is a loop.  Under a FIBERPAR_SCHEDULE other than forward
 * the group is fibers from the start, each running the work-item the
 * schedule puts at its place, in every barrier interval. */
void fpar__run_nd_group(fpar__worker *w, size_t linear) {
  const fpar__launch *l = w->launch;
  fpar__group_run *g = &w->run;
  fpar_item it;

  fpar__group_begin(w, linear, &it);
  /* Racecheck: every work-item a fiber of its own from the start, up to
   * groups of FPAR__RACE_MAX_FIBERS (each fiber is a TSan thread, and
   * TSan has room for 8128 in all).  Larger groups become fibers at their
   * first barrier, as in any build.  A schedule other than forward makes
   * every group fibers from the start too. */
  if (g->size > 1 &&
      (!fpar__order_is_forward(&l->spec.order) ||
       (fpar__tsan_enabled() && g->size <= FPAR__RACE_MAX_FIBERS)))
    fpar__group_promote(w);
  fpar__race_named(w, fpar__race_group_start);
  l->spec.kernel(&it, l->spec.args);
  if (g->fibers) {
    fpar__item_exit(w);
    if (fpar__group_parks(g) && g->parked < g->size - 1)
      g->parked = g->size - 1;
  } else {
    fpar__run_loop(w, &it);
  }
  fpar__group_end(w);
}
