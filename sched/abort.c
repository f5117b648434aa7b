/* abort.c - ending the running group with a fault (see abort.h). */
#include <stdarg.h>
#include <stdio.h>

#include "sched/abort.h"
#include "sched/context.h"
#include "sched/sanitizer.h"

void fpar__stack_overflow(fpar__worker *w, const void *addr) {
  w->fault.code = FPAR_ESTACKOVERFLOW;
  w->fault.overflow = 1;
  w->fault.addr = addr;
  w->fault.detail[0] = '\0';
  fpar__worker_to_sched(w);
}

void fpar__worker_to_sched(fpar__worker *w) {
  fpar__san_switch_out(NULL, w->thread_stack_lo, w->thread_stack_size);
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
