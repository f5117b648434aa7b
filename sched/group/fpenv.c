/* SPDX-License-Identifier: MIT */
/* fpenv.c - the check of the floating-point control state a group's
 * work-items share (see fpenv.h). */
#include <stdint.h>

#include "sched/fiber/context.h"
#include "sched/group/abort.h"
#include "sched/group/fpenv.h"
#include "sched/group/message.h"

/* The state changed: end the group, saying how. */
static _Noreturn __attribute__((noinline, cold)) void
fpar__fpenv_changed(fpar__worker *w, const char *site, uint64_t now,
                    uint64_t then) {
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

void fpar__fpenv_check(fpar__worker *w, const char *site) {
  uint64_t now = fpar__ctx_fpu_state(), then = w->run.fpu;

  if (!w->run.shared_fpenv || fpar__ctx_fpu_same_control(now, then))
    return;
  fpar__fpenv_changed(w, site, now, then);
}
