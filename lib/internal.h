/* internal.h - the API layer's objects: runtime and queue. */
#ifndef FPAR_LIB_INTERNAL_H
#define FPAR_LIB_INTERNAL_H

#include <stdatomic.h>

#include "fiberpar.h"
#include "sched/sched.h"

struct fpar_runtime {
  fpar__sched *sched;
  fpar__sched_config cfg;
  atomic_uint queues; /* live queues; destroy refuses while nonzero */
};

struct fpar_queue {
  fpar_runtime *rt;
  unsigned flags;
  atomic_size_t outstanding; /* submitted, not yet completed */
  atomic_int first_error;    /* since the last fpar_queue_wait() */
};

/* Hand a fully described launch to the queue's runtime.  The launch's
 * reference passes to the event when ev is not NULL, else it is dropped. */
void fpar__queue_submit(fpar_queue *q, fpar__launch *l, fpar_event **ev);

/* Called on the completing worker (see lib/uv.c). */
void fpar__uv_launch_complete(fpar__launch *l);

#endif
