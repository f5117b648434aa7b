/* queue.c - in-order queues: submission, bookkeeping, waiting. */
#include <stdlib.h>

#include "lib/error.h"
#include "lib/internal.h"

int fpar_queue_create(fpar_runtime *rt, unsigned flags, fpar_queue **out) {
  fpar_queue *q;

  if (rt == NULL || out == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_queue_create: %s is NULL",
                           rt == NULL ? "rt" : "q");
  if (flags != FPAR_QUEUE_IN_ORDER)
    return fpar__set_error(FPAR_EINVAL, "fpar_queue_create: unknown flags 0x%x",
                           flags);
  q = calloc(1, sizeof *q);
  if (q == NULL)
    return fpar__set_error(FPAR_ENOMEM, "no memory for a queue");
  q->rt = rt;
  q->flags = flags;
  atomic_init(&q->outstanding, 0);
  atomic_init(&q->first_error, 0);
  atomic_fetch_add(&rt->queues, 1);
  *out = q;
  return 0;
}

/* Runs on the worker that completed the launch. */
static void fpar__queue_launch_complete(fpar__launch *l) {
  fpar_queue *q = l->owner;
  int status = atomic_load_explicit(&l->status, memory_order_relaxed);

  if (status < 0) {
    int expected = 0;
    atomic_compare_exchange_strong(&q->first_error, &expected, status);
  }
  fpar__uv_launch_complete(l);
  atomic_fetch_sub_explicit(&q->outstanding, 1, memory_order_release);
}

void fpar__queue_submit(fpar_queue *q, fpar__launch *l, fpar_event **ev) {
  l->owner = q;
  l->on_complete = fpar__queue_launch_complete;
  atomic_fetch_add_explicit(&q->outstanding, 1, memory_order_relaxed);
  fpar__sched_submit(q->rt->sched, l);
  if (ev != NULL)
    *ev = l;
  else
    fpar__launch_unref(l);
}

static int fpar__queue_idle(const void *arg) {
  const fpar_queue *q = arg;
  return atomic_load_explicit(&q->outstanding, memory_order_acquire) == 0;
}

int fpar_queue_wait(fpar_queue *q) {
  if (q == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_queue_wait: q is NULL");
  fpar__sched_wait(q->rt->sched, fpar__queue_idle, q);
  return atomic_exchange(&q->first_error, 0);
}

void fpar_queue_destroy(fpar_queue *q) {
  if (q == NULL)
    return;
  fpar__sched_wait(q->rt->sched, fpar__queue_idle, q);
  atomic_fetch_sub(&q->rt->queues, 1);
  free(q);
}
