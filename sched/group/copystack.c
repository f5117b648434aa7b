/* SPDX-License-Identifier: MIT */
/* copystack.c - fibers taking turns on one shared stack (see
 * copystack.h). */
#include <stdlib.h>
#include <string.h>

#include "sched/fiber/context.h"
#include "sched/fiber/sanitizer.h"
#include "sched/fiber/stack.h"
#include "sched/group/abort.h"

/* Move the live frames of fiber f off the shared slot. */
static void fpar__copier_save(fpar__worker *w, size_t f) {
  fpar__copystack *c = &w->copy;
  fpar__saved_stack *s = &c->saved[f];
  char *top = fpar__stack_hi(&w->stacks, FPAR__COPY_SHARED_SLOT);
  char *lo = fpar__ctx_live_lo(
      w->run.ctx[f], fpar__stack_lo(&w->stacks, FPAR__COPY_SHARED_SLOT));
  size_t len = (size_t)(top - lo);

  if (len > s->cap) {
    char *bytes = realloc(s->bytes, len);
    if (bytes == NULL)
      fpar__group_abort(w, FPAR_ENOMEM,
                        "no memory to save the %zu live stack bytes of fiber "
                        "%zu (the group's fibers share one stack)",
                        len, f);
    s->bytes = bytes;
    s->cap = len;
  }
  memcpy(s->bytes, lo, len);
  s->len = len;
}

/* Put the frames of fiber f back where they ran. */
static void fpar__copier_restore(fpar__worker *w, size_t f) {
  const fpar__saved_stack *s = &w->copy.saved[f];
  char *top = fpar__stack_hi(&w->stacks, FPAR__COPY_SHARED_SLOT);

  fpar__stack_copy_in(top - s->len, s->bytes, s->len);
}

/* The copier: resumed by the switch into any fiber but 0, it puts that
 * fiber (w->run.cur) on the shared slot and switches to it. */
static void fpar__copier_main(void *arg) {
  fpar__worker *w = arg;
  fpar__group_run *g = &w->run;
  fpar__copystack *c = &w->copy;
  char *lo = fpar__stack_lo(&w->stacks, FPAR__COPY_SHARED_SLOT);
  char *top = fpar__stack_hi(&w->stacks, FPAR__COPY_SHARED_SLOT);

  fpar__san_switch_in(NULL, NULL, NULL);
  for (;;) {
    size_t to = g->cur;
    void *fake;
    if (c->owner != to) {
      /* The frames on the slot keep AddressSanitizer's poison on their red
       * zones, which fits neither the copies nor the frames put back. */
      fpar__san_clean_stack(lo, w->stacks.span);
      if (c->owner != FPAR__COPY_NO_OWNER)
        fpar__copier_save(w, c->owner);
      if (g->ctx[to] == NULL)
        g->ctx[to] = fpar__ctx_make(lo, top, c->entry, w, c->fpu);
      else
        fpar__copier_restore(w, to);
      c->owner = to;
    }
    fpar__san_switch_out(&fake, lo, w->stacks.span);
    fpar__tsan_fiber_switch(fpar__worker_tsan_fiber(w, to));
    if (g->shared_fpenv)
      fpar__ctx_switch_shared_fpenv(&c->copier_ctx, g->ctx[to]);
    else
      fpar__ctx_switch(&c->copier_ctx, g->ctx[to]);
    fpar__san_switch_in(fake, NULL, NULL);
  }
}

int fpar__copystack_begin(fpar__worker *w, void (*entry)(void *arg),
                          uint64_t fpu) {
  fpar__copystack *c = &w->copy;
  size_t n = w->run.size;
  char *lo = fpar__stack_lo(&w->stacks, FPAR__COPY_COPIER_SLOT);

  if (n > c->cap_saved) {
    fpar__saved_stack *s = realloc(c->saved, n * sizeof *s);
    if (s == NULL)
      return FPAR_ENOMEM;
    memset(s + c->cap_saved, 0, (n - c->cap_saved) * sizeof *s);
    c->saved = s;
    c->cap_saved = n;
  }
  c->owner = FPAR__COPY_NO_OWNER;
  c->entry = entry;
  c->fpu = fpu;
  fpar__san_clean_stack(lo, w->stacks.span);
  c->copier_ctx =
      fpar__ctx_make(lo, fpar__stack_hi(&w->stacks, FPAR__COPY_COPIER_SLOT),
                     fpar__copier_main, w, fpu);
  return 0;
}

void fpar__copystack_destroy(fpar__copystack *c) {
  size_t f;

  for (f = 0; f < c->cap_saved; f++)
    free(c->saved[f].bytes);
  free(c->saved);
  c->saved = NULL;
  c->cap_saved = 0;
}
