/* SPDX-License-Identifier: MIT */
/* queue.c - in-order queues: submission, bookkeeping, waiting. */
#include <stdlib.h>

#include "lib/internal.h"
#include "sched/base/error.h"

int fpar_queue_create(fpar_runtime *rt, unsigned flags, fpar_queue **out) {
  fpar_queue *q;
  int err;

  if (rt == NULL || out == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_queue_create: %s is NULL",
                           rt == NULL ? "rt" : "q");
  if (flags != FPAR_QUEUE_IN_ORDER)
    return fpar__set_error(FPAR_EINVAL, "fpar_queue_create: unknown flags 0x%x",
                           flags);
  if ((err = fpar__runtime_usable(rt, "fpar_queue_create")) != 0)
    return err;
  q = calloc(1, sizeof *q);
  if (q == NULL)
    return fpar__set_error(FPAR_ENOMEM, "no memory for a queue");
  q->rt = rt;
  q->flags = flags;
  atomic_init(&q->outstanding, 0);
  atomic_init(&q->first_failed, NULL);
  atomic_fetch_add(&rt->queues, 1);
  *out = q;
  return 0;
}

/* Runs on the thread that completed the launch.  Returns whether a wait
 * may end: a queue's when it has drained. */
static int fpar__queue_launch_complete(fpar__launch *l) {
  fpar_queue *q = l->hooks.queue;

  if (atomic_load_explicit(&l->status, memory_order_relaxed) < 0) {
    fpar__launch *expected = NULL;
    fpar__launch_ref(l);
    if (!atomic_compare_exchange_strong(&q->first_failed, &expected, l))
      fpar__launch_unref(l);
  }
  fpar__uv_launch_complete(l);
  return atomic_fetch_sub_explicit(&q->outstanding, 1, memory_order_release) ==
         1;
}

/* The same for a launch handed out as an event, whose completion may end
 * an fpar_event_wait too.  (A hook of its own, not a flag: the record's
 * host-side fields fill one cache line.) */
static int fpar__queue_event_complete(fpar__launch *l) {
  fpar__queue_launch_complete(l);
  return 1;
}

/* The first failure since the last wait, taken from q: its code, with
 * its message (kernel, work-group, work-items) as the calling thread's
 * last error; 0 when there was none. */
static int fpar__queue_take_failure(fpar_queue *q) {
  fpar__launch *l = atomic_exchange(&q->first_failed, NULL);
  int err;

  if (l == NULL)
    return 0;
  err = fpar__set_error(atomic_load(&l->status), "%s", l->error);
  fpar__launch_unref(l);
  return err;
}

int fpar__queue_submit(fpar_queue *q, const fpar__launch_spec *spec,
                       size_t args_size, fpar_event **ev) {
  fpar__launch *l = fpar__sched_launch_create(q->rt->sched, spec, args_size);

  if (l == NULL)
    return fpar__set_error(FPAR_ENOMEM, "no memory for launch '%s'",
                           spec->name);
  l->hooks.queue = q;
  l->hooks.complete =
      ev != NULL ? fpar__queue_event_complete : fpar__queue_launch_complete;
  atomic_fetch_add_explicit(&q->outstanding, 1, memory_order_relaxed);
  fpar__sched_submit(q->rt->sched, l);
  if (ev != NULL) {
    fpar__sched_ref(q->rt->sched);
    *ev = l;
  } else {
    fpar__launch_unref(l);
  }
  return 0;
}

int fpar__wait_refused(int err, const char *fn, const char *what) {
  if (err == FPAR_EDEADLOCK)
    return fpar__set_error(err,
                           "%s: called inside a kernel for %s of the same "
                           "runtime, which cannot finish before the calling "
                           "kernel returns; wait outside the kernel",
                           fn, what);
  return fpar__set_error(err,
                         "%s: %s belongs to a runtime the parent process "
                         "created before fork(); create a runtime in the "
                         "child",
                         fn, what);
}

static int fpar__queue_idle(const void *arg) {
  const fpar_queue *q = arg;
  return atomic_load_explicit(&q->outstanding, memory_order_acquire) == 0;
}

int fpar_queue_wait(fpar_queue *q) {
  int err;

  if (q == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_queue_wait: q is NULL");
  if ((err = fpar__sched_wait(q->rt->sched, fpar__queue_idle, q)) != 0)
    return fpar__wait_refused(err, "fpar_queue_wait", "the queue's launches");
  return fpar__queue_take_failure(q);
}

int fpar_queue_destroy(fpar_queue *q) {
  fpar__launch *failed;
  int err;

  if (q == NULL)
    return 0;
  if ((err = fpar__sched_wait(q->rt->sched, fpar__queue_idle, q)) != 0)
    return fpar__wait_refused(err, "fpar_queue_destroy",
                              "the queue's launches");
  if ((failed = atomic_exchange(&q->first_failed, NULL)) != NULL)
    fpar__launch_unref(failed); /* never waited for: its code is dropped */
  atomic_fetch_sub(&q->rt->queues, 1);
  free(q);
  return 0;
}
