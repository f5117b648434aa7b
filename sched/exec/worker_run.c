/* SPDX-License-Identifier: MIT */
/* worker_run.c - a worker's own memory (fiber stacks, local-memory arena,
 * contexts, alternate signal stack) and its run through the groups of one
 * launch: the runner fiber takes groups until none are left, and a fault
 * abandons the group's fibers where they stand and is reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/diag/fault.h"
#include "sched/diag/trace.h"
#include "sched/exec/runner.h"
#include "sched/exec/worker_run.h"
#include "sched/fiber/context.h"
#include "sched/fiber/sanitizer.h"
#include "sched/group/copystack.h"
#include "sched/group/group.h"
#include "sched/group/race.h"

/* Everything but the allocation of w (see fpar__worker_create()). */
static int fpar__worker_init(fpar__worker *w, const fpar__worker_setup *setup,
                             unsigned i) {
  const fpar__sched_config *cfg = setup->cfg;
  unsigned place = i % setup->workers;
  int err;

  memset(w, 0, sizeof *w);
  w->index = i;
  w->home = place;
  w->helper = i >= setup->workers;
  w->sched = setup->sched;
  w->claims = setup->claims;
  w->num_chunks = setup->workers;
  w->run.serial = 1; /* no group's: records start at 0 (worker.h) */
  w->run.shared_fpenv = cfg->fpenv == FPAR_FPENV_SHARED;
  w->run.fpu = setup->fpu;
  w->trace = fpar__trace_worker_get(setup->trace, i);
  fpar__stack_pool_init(&w->stacks, setup->topo, place, cfg->stack_size,
                        setup->stack_limit, setup->stack_marks);
  if ((err = fpar__arena_init(&w->arena, setup->topo, place,
                              cfg->local_mem_size)))
    return err;
  if ((err = fpar__stack_pool_reserve(&w->stacks, 1)) ||
      (err = fpar__worker_reserve_fibers(w, 1)))
    return err;
  w->tsan_sched = fpar__tsan_fiber_current();
  w->tsan_copier = fpar__tsan_fiber_create();
  if ((err = fpar__ctx_self_init(&w->sched_ctx)) ||
      (err = fpar__ctx_self_init(&w->dead_ctx)))
    return err;
  return w->helper ? 0 : fpar__fault_thread_init();
}

void fpar__worker_destroy(fpar__worker *w) {
  if (!w->helper) /* a helper's host thread keeps its own */
    fpar__fault_thread_destroy();
  fpar__ctx_self_destroy(&w->sched_ctx);
  fpar__ctx_self_destroy(&w->dead_ctx);
  fpar__race_destroy(w);
  if (fpar__tsan_enabled()) {
    size_t f;
    for (f = 0; f < w->cap_ctx; f++)
      fpar__tsan_fiber_destroy(w->tsan_fibers[f]);
    fpar__tsan_fiber_destroy(w->tsan_copier);
    free(w->tsan_fibers);
  }
  free(w->run.ctx);
  free(w->run.view.objects);
  fpar__copystack_destroy(&w->copy);
  fpar__worker_slots_destroy(w);
  fpar__stack_pool_destroy(&w->stacks);
  fpar__arena_destroy(&w->arena);
  free(w);
}

int fpar__worker_create(fpar__worker **out, const fpar__worker_setup *setup,
                        unsigned index) {
  fpar__worker *w = aligned_alloc(64, (sizeof *w + 63) / 64 * 64);
  int err;

  if (w == NULL)
    return FPAR_ENOMEM;
  if ((err = fpar__worker_init(w, setup, index)) != 0) {
    fpar__worker_destroy(w);
    return err;
  }
  *out = w;
  return 0;
}

/* Compose the launch error for the fault that ended the group. */
static void fpar__worker_report_fault(fpar__worker *w) {
  const fpar__group_run *g = &w->run;
  fpar__launch *l = w->launch;
  char msg[768], items[96];

  if (w->fault.overflow) {
    fpar__fault_after_signal();
    fpar__describe_running(w, items, sizeof items);
    if (w->fault.addr != NULL)
      snprintf(w->fault.detail, sizeof w->fault.detail,
               "%s overflowed the %zu-byte fiber stack (fault at %p); raise "
               "FIBERPAR_STACK_SIZE or fpar_runtime_opts.stack_size",
               items, w->stacks.stack_size, w->fault.addr);
    else
      snprintf(w->fault.detail, sizeof w->fault.detail,
               "%s overflowed the %zu-byte fiber stack: at a barrier its "
               "frames reached below the stack, past the %zu-byte guard; "
               "raise FIBERPAR_STACK_SIZE or fpar_runtime_opts.stack_size, "
               "and compile kernels with -fstack-clash-protection so that "
               "such frames fault at once",
               items, w->stacks.stack_size, (size_t)FPAR__STACK_GUARD);
  }
  snprintf(msg, sizeof msg, "kernel '%s', work-group (%zu,%zu,%zu): %s",
           l->spec.name, g->group_id[0], g->group_id[1], g->group_id[2],
           w->fault.detail);
  fpar__launch_fail(l, fpar__group_linear(l, g->group_id), w->fault.code, msg);
}

/* Allocate the launch-time local buffers at the bottom of the arena; the
 * group's own objects go above the mark.  w holds the positions of its
 * first take already (fpar__worker_take_first). */
static void fpar__worker_enter(fpar__worker *w, fpar__launch *l) {
  unsigned k;

  w->launch = l;
  w->run.next_linear = SIZE_MAX;
  fpar__arena_release(&w->arena, 0);
  /* Under racecheck inline code finds no view and calls the functions,
   * whose reads of the group's state are the runtime's. */
  w->run.view.abi = fpar__tsan_enabled() ? 0 : FPAR__GROUP_VIEW_ABI;
  w->run.view.run = &w->run;
  w->run.view.phase_op = &w->run.phase_op;
  w->run.view.num_local_buffers = l->spec.num_local_buffers;
  for (k = 0; k < l->spec.num_local_buffers; k++)
    w->run.view.local_buffers[k] =
        fpar__arena_alloc(&w->arena, l->spec.local_buffer_bytes[k],
                          l->spec.local_buffer_align[k]);
  w->run.arena_mark = fpar__arena_mark(&w->arena);
}

void fpar__worker_run_launch(fpar__worker *w, fpar__launch *l) {
  char *lo = fpar__stack_lo(&w->stacks, 0);
  size_t size = w->stacks.span;

  fpar__worker_enter(w, l);
  for (;;) {
    void *fake;
    w->fault.code = 0;
    fpar__san_clean_stack(lo, size);
    /* A helper keeps the workers' state, not its host thread's. */
    if (!w->helper)
      w->run.fpu = fpar__ctx_fpu_state();
    w->runner_ctx = fpar__ctx_make(lo, fpar__stack_hi(&w->stacks, 0),
                                   fpar__runner_main, w, w->run.fpu);
    fpar__san_switch_out(&fake, lo, size);
    fpar__tsan_fiber_switch(fpar__worker_tsan_fiber(w, 0));
    w->in_kernels = 1;
    fpar__ctx_switch(&w->sched_ctx, w->runner_ctx);
    fpar__race_sched_back(w);
    w->in_kernels = 0;
    fpar__san_switch_in(fake, NULL, NULL);
    if (w->fault.code == 0)
      break;
    /* The runner and the group's fibers are abandoned where they stand;
     * their stacks go back to serving the next group. */
    fpar__worker_report_fault(w);
    if (w->trace != NULL)
      fpar__trace_group_end(w, 1);
    fpar__group_end(w);
    w->run.fibers = FPAR__LOOP;
    w->run.parked = 0; /* the group's fibers stopped mid-kernel */
    w->run.cur = 0;
    w->groups_done++;
  }
  w->launch = NULL;
}
