/* SPDX-License-Identifier: MIT */
/* abort.c - ending the running group with a fault (see abort.h). */
#include <stdarg.h>
#include <stdio.h>

#include "sched/fiber/context.h"
#include "sched/fiber/sanitizer.h"
#include "sched/group/abort.h"

void fpar__stack_overflow(fpar__worker *w, const void *addr) {
  w->fault.code = FPAR_ESTACKOVERFLOW;
  w->fault.overflow = 1;
  w->fault.addr = addr;
  w->fault.detail[0] = '\0';
  fpar__worker_to_sched(w);
}

void fpar__worker_to_sched(fpar__worker *w) {
  fpar__san_switch_out(NULL, w->thread_stack_lo, w->thread_stack_size);
  fpar__tsan_fiber_switch(w->tsan_sched);
  fpar__ctx_switch(&w->dead_ctx, w->sched_ctx);
  __builtin_unreachable();
}

void fpar__group_abort(fpar__worker *w, int code, const char *detail, ...) {
  va_list ap;

  w->fault.code = code;
  w->fault.overflow = 0;
  va_start(ap, detail);
  vsnprintf(w->fault.detail, sizeof w->fault.detail, detail, ap);
  va_end(ap);
  fpar__worker_to_sched(w);
}

void fpar__describe_items(char *buf, size_t len, size_t first, size_t last,
                          const char *one, const char *many) {
  if (first == last)
    snprintf(buf, len, "work-item %zu %s", first, one);
  else
    snprintf(buf, len, "work-items %zu-%zu %s", first, last, many);
}

const char *fpar__site_name(const char *site) {
  return site != NULL ? site : "(unnamed call site)";
}

const char fpar__site_exit[] = "(return from the kernel)";

void fpar__fpenv_check(fpar__worker *w, const char *site) {
  uint64_t now = fpar__ctx_fpu_state(), then = w->run.fpu;

  if (!w->run.shared_fpenv || fpar__ctx_fpu_same_control(now, then))
    return;
  fpar__group_abort(w, FPAR_EFPENV,
                    "the floating-point control state changed by %s%s (MXCSR "
                    "%#x, x87 control word %#x; at the start %#x, %#x): its "
                    "work-items share it (FIBERPAR_FPENV=shared, the "
                    "default); kernels that set rounding or flush-to-zero "
                    "need FIBERPAR_FPENV=item",
                    site == FPAR__SITE_EXIT ? "the end of the group"
                                            : "the barrier at ",
                    site == FPAR__SITE_EXIT ? "" : fpar__site_name(site),
                    (unsigned)(now & 0xffc0), (unsigned)(now >> 32),
                    (unsigned)(then & 0xffc0), (unsigned)(then >> 32));
}
