/* SPDX-License-Identifier: MIT */
/* group.h - running the work-groups of an nd_range launch on a worker: the
 * loop that runs barrier-free groups, promotion to fibers at the first
 * barrier, and the rendezvous every barrier and every kernel return goes
 * through. */
#ifndef FPAR_SCHED_GROUP_GROUP_H
#define FPAR_SCHED_GROUP_GROUP_H

#include "sched/fiber/context.h"
#include "sched/fiber/sanitizer.h"
#include "sched/group/abort.h"
#include "sched/group/race.h"
#include "sched/group/worker.h"

/* The slot fiber f runs on: its own, or with copied fibers the runner's
 * for fiber 0 and the shared one for the others. */
static inline size_t fpar__fiber_slot(const fpar__group_run *g, size_t f) {
  return g->fibers == FPAR__FIBERS_COPIED && f != 0 ? FPAR__COPY_SHARED_SLOT
                                                    : f;
}

/* What every switch between fibers does before it leaves the running one
 * (on slot cur_slot) for the one on load_slot, saving it in *save; returns
 * the handle fpar__san_switch_in() wants on the way back.  While the next
 * fibers run, the saved frame of the second after the next (g->cur) is
 * fetched into the cache: with hundreds of fibers the frames no longer fit
 * in L1, and a fetch begun one switch ahead is not done in time (measured:
 * 5.5 -> 4.9 ns per work-item per barrier at L = 1024, docs/performance.md;
 * three ahead is slower again).  (Past the end of the group, or for a
 * fiber not yet started, the prefetch reads one of the two spare slots
 * (fpar__worker_reserve_fibers) or address 0: harmless.) */
static inline void *fpar__group_leave(fpar__worker *w, void **save,
                                      size_t cur_slot, size_t load_slot,
                                      void *tsan) {
  fpar__group_run *g = &w->run;
  const char *frame = g->ctx[g->cur + 2];
  void *fake = NULL;

  if (__builtin_expect((char *)__builtin_frame_address(0) <
                           fpar__stack_lo(&w->stacks, cur_slot),
                       0))
    fpar__stack_overflow(w, NULL); /* a frame jumped the guard */
  __builtin_prefetch(frame);
  __builtin_prefetch(frame + 64);
  fpar__san_switch_out(save == &w->dead_ctx ? NULL : &fake,
                       fpar__stack_lo(&w->stacks, load_slot), w->stacks.span);
  fpar__race_switch_out(w);
  fpar__tsan_fiber_switch_no_sync(tsan);
  return fake;
}

/* The same switch for a fiber whose answer is *result when it is resumed
 * (fpar__ctx_switch_result), returned as T by name(): callers end with
 * `return` of it, a tail call, so that no frame of theirs lies between
 * the kernel and the switch (context_x86_64_sysv.S says why). */
#define FPAR__GROUP_SWITCH_RESULT(T, name, shared_fpenv_switch, full_switch)   \
  static inline T name(fpar__worker *w, void **save, size_t cur_slot,          \
                       void *load, size_t load_slot, void *tsan,               \
                       const void *result) {                                   \
    void *fake = fpar__group_leave(w, save, cur_slot, load_slot, tsan);        \
    T r = w->run.shared_fpenv ? shared_fpenv_switch(save, load, result)        \
                              : full_switch(save, load, result);               \
                                                                               \
    fpar__san_switch_in(fake, NULL, NULL);                                     \
    return r;                                                                  \
  }
FPAR__GROUP_SWITCH_RESULT(uint64_t, fpar__group_switch_result,
                          fpar__ctx_switch_shared_fpenv_result,
                          fpar__ctx_switch_result)
FPAR__GROUP_SWITCH_RESULT(uint32_t, fpar__group_switch_u32,
                          fpar__ctx_switch_shared_fpenv_u32,
                          fpar__ctx_switch_u32)
FPAR__GROUP_SWITCH_RESULT(float, fpar__group_switch_f32,
                          fpar__ctx_switch_shared_fpenv_f32,
                          fpar__ctx_switch_f32)
FPAR__GROUP_SWITCH_RESULT(double, fpar__group_switch_f64,
                          fpar__ctx_switch_shared_fpenv_f64,
                          fpar__ctx_switch_f64)
#undef FPAR__GROUP_SWITCH_RESULT

/* Leave the running fiber (on slot cur_slot) for the context load on slot
 * load_slot, saving the running one in *save: the part of every switch
 * between fibers, for a fiber that expects no answer. */
static inline void fpar__group_switch(fpar__worker *w, void **save,
                                      size_t cur_slot, void *load,
                                      size_t load_slot, void *tsan) {
  (void)fpar__group_switch_result(w, save, cur_slot, load, load_slot, tsan,
                                  NULL);
}

/* The running fiber has arrived at the rendezvous: save its context in
 * *save and resume the next fiber in round-robin order (the last arrival
 * resumes fiber 0, which opens the next phase); its answer is *result
 * when it is resumed, as T (32 or 64 bits, `name`), for callers that end
 * with `return` of it.  For fibers on stacks of their own: the steady
 * state of barriers and collectives. */
#define FPAR__GROUP_PASS_ON_OWN(T, name, group_switch)                         \
  static inline T name(fpar__worker *w, void **save, const void *result) {     \
    fpar__group_run *g = &w->run;                                              \
    size_t cur = g->cur, next = cur + 1 == g->size ? 0 : cur + 1;              \
                                                                               \
    g->cur = next;                                                             \
    return group_switch(w, save, cur, g->ctx[next], next,                      \
                        fpar__worker_tsan_fiber(w, next), result);             \
  }
FPAR__GROUP_PASS_ON_OWN(uint32_t, fpar__group_pass_on_own_u32,
                        fpar__group_switch_u32)
FPAR__GROUP_PASS_ON_OWN(uint64_t, fpar__group_pass_on_own_result,
                        fpar__group_switch_result)
#undef FPAR__GROUP_PASS_ON_OWN

/* The same for a fiber that expects no answer. */
static inline void fpar__group_pass_on_own(fpar__worker *w, void **save) {
  (void)fpar__group_pass_on_own_u32(w, save, NULL);
}

/* The same for any group: with copied fibers the copier runs in between
 * to put the next fiber on the shared stack. */
static inline void fpar__group_pass_on(fpar__worker *w, void **save) {
  fpar__group_run *g = &w->run;
  size_t cur = g->cur, next = cur + 1 == g->size ? 0 : cur + 1;

  if (g->fibers != FPAR__FIBERS_COPIED) {
    fpar__group_pass_on_own(w, save);
    return;
  }
  g->cur = next;
  if (next == 0)
    fpar__group_switch(w, save, fpar__fiber_slot(g, cur), g->ctx[0], 0,
                       fpar__worker_tsan_fiber(w, 0));
  else
    fpar__group_switch(w, save, fpar__fiber_slot(g, cur), w->copy.copier_ctx,
                       FPAR__COPY_COPIER_SLOT, w->tsan_copier);
}

/* The call (work-item, or sub-group of a lane kernel, in local-id order)
 * that fiber f of the running group runs under a FIBERPAR_SCHEDULE other
 * than forward (order.c). */
size_t fpar__fiber_call_ordered(const fpar__worker *w, size_t f);

/* The call fiber f runs: call f, unless FIBERPAR_SCHEDULE orders them. */
static inline size_t fpar__fiber_call(const fpar__worker *w, size_t f) {
  return fpar__order_is_forward(&w->launch->spec.order)
             ? f
             : fpar__fiber_call_ordered(w, f);
}

/* Local linear id of the first work-item of fiber f of the running group
 * (fibers of a lane kernel carry several work-items each). */
static inline size_t fpar__fiber_first_item(const fpar__worker *w, size_t f) {
  size_t lr0 = w->run.geo->local_range[0], lanes = w->launch->spec.lanes;
  size_t per_row = (lr0 + lanes - 1) / lanes, c = fpar__fiber_call(w, f);

  return c / per_row * lr0 + c % per_row * lanes;
}

/* Start nd_range group `linear` of the worker's launch: its run state
 * reset, *it its work-item 0 (and the item a fault names). */
void fpar__group_begin(fpar__worker *w, size_t linear, fpar_item *it);

/* End the running group (or the one a fault abandoned): its group-local
 * memory is released, and its serial passes, so that what features keep
 * for it (fpar__group_run.serial) is not taken for a later scoped
 * group's. */
void fpar__group_end(fpar__worker *w);

/* Run nd_range group `linear` of the worker's launch. */
void fpar__run_nd_group(fpar__worker *w, size_t linear);

/* Name the work-items the running fiber (or the barrier-free loop)
 * carries, e.g. "work-item 5", "work-items 32-47 (sub-group 2)", "the
 * group function" or, under racecheck, the logical items whose call a
 * fault cut short ("logical item 5"). */
void fpar__describe_running(const fpar__worker *w, char *buf, size_t len);

/* Turn the group into fibers at work-item 0's first barrier.  Work-item 0
 * keeps running on the runner fiber. */
void fpar__group_promote(fpar__worker *w);

#endif
