/* SPDX-License-Identifier: MIT */
/* internal.h - the API layer's objects: runtime and queue. */
#ifndef FPAR_LIB_INTERNAL_H
#define FPAR_LIB_INTERNAL_H

#include <stdatomic.h>

#include "fiberpar.h"
#include "sched/exec/sched.h"

struct fpar_runtime {
  fpar__sched *sched;
  fpar__sched_config cfg;
  atomic_uint queues; /* live queues; destroy refuses while nonzero */
};

struct fpar_queue {
  fpar_runtime *rt;
  unsigned flags;
  atomic_size_t outstanding; /* submitted, not yet completed */
  /* The first launch that failed since the last fpar_queue_wait(), with
   * a reference (for its code and message), or NULL. */
  _Atomic(fpar__launch *) first_failed;
};

/* Make a launch of spec and hand it to the queue's runtime; args_size
 * bytes at spec->args are copied into the launch when it is not 0.  The
 * launch's reference passes to the event when ev is not NULL (with a
 * reference on the scheduler, so that the event stays usable after its
 * queue and runtime are gone), else it is dropped.  Returns 0 or
 * FPAR_ENOMEM. */
int fpar__queue_submit(fpar_queue *q, const fpar__launch_spec *spec,
                       size_t args_size, fpar_event **ev);

/* 0 when rt can be used by this process, else FPAR_EFORK with a message
 * naming the calling function fn. */
int fpar__runtime_usable(const fpar_runtime *rt, const char *fn);

/* Turn a failed fpar__sched_wait() into fn's error: the message says why
 * waiting for `what` (e.g. "launch 'x'") was refused. */
int fpar__wait_refused(int err, const char *fn, const char *what);

/* Called on the completing worker (see lib/event_uv.c). */
void fpar__uv_launch_complete(fpar__launch *l);

#endif
