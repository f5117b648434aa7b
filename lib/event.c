/* event.c - events: the user's handle on a launch. */
#include "lib/error.h"
#include "lib/internal.h"

static int fpar__event_done(const void *arg) {
  const fpar_event *ev = arg;
  int s = atomic_load_explicit(&ev->status, memory_order_acquire);
  return s != FPAR_QUEUED && s != FPAR_RUNNING;
}

int fpar_event_wait(fpar_event *ev) {
  const fpar_queue *q;

  if (ev == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_event_wait: ev is NULL");
  q = ev->owner;
  fpar__sched_wait(q->rt->sched, fpar__event_done, ev);
  return atomic_load_explicit(&ev->status, memory_order_acquire);
}

int fpar_event_status(const fpar_event *ev) {
  if (ev == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_event_status: ev is NULL");
  return atomic_load_explicit(&ev->status, memory_order_acquire);
}

const char *fpar_event_error(const fpar_event *ev) {
  if (ev == NULL ||
      atomic_load_explicit(&ev->status, memory_order_acquire) >= 0)
    return NULL;
  return ev->error;
}

int fpar_event_profile(const fpar_event *ev, uint64_t *submit_ns,
                       uint64_t *start_ns, uint64_t *end_ns) {
  if (ev == NULL || !fpar__event_done(ev))
    return fpar__set_error(FPAR_EINVAL,
                           "fpar_event_profile: the launch has not finished");
  if (submit_ns != NULL)
    *submit_ns = ev->submit_ns;
  if (start_ns != NULL)
    *start_ns = ev->start_ns;
  if (end_ns != NULL)
    *end_ns = ev->end_ns;
  return 0;
}

void fpar_event_release(fpar_event *ev) {
  if (ev != NULL)
    fpar__launch_unref(ev);
}
