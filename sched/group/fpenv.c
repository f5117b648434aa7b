/* SPDX-License-Identifier: MIT */
/* fpenv.c - the error of a group whose work-items changed the
 * floating-point control state they share (see fpenv.h). */
#include <stdint.h>

#include "sched/fiber/context.h"
#include "sched/group/abort.h"
#include "sched/group/fpenv.h"
#include "sched/group/message.h"

_Noreturn __attribute__((noinline, cold)) void
fpar__fpenv_changed(fpar__worker *w, const char *site) {
  uint64_t now = fpar__ctx_fpu_state(), then = w->run.fpu;

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
