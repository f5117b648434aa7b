/* SPDX-License-Identifier: MIT */
/* abort.c - ending the running group with a fault (see abort.h). */
#include <stdarg.h>
#include <stdio.h>

#include "sched/group/abort.h"

void fpar__stack_overflow(fpar__worker *w, const void *addr) {
  w->fault.code = FPAR_ESTACKOVERFLOW;
  w->fault.overflow = 1;
  w->fault.addr = addr;
  w->fault.detail[0] = '\0';
  fpar__worker_to_sched(w);
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
