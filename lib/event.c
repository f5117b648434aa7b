/* SPDX-License-Identifier: MIT */
/* event.c - events: the user's handle on a launch.  An event holds a
 * reference on its launch and on the scheduler that runs it, so it stays
 * usable after its queue and runtime are destroyed. */
#include <stdio.h>

#include "lib/internal.h"
#include "sched/base/error.h"

static int fpar__event_done(const void *arg) {
  const fpar_event *ev = arg;
  int s = atomic_load_explicit(&ev->status, memory_order_acquire);
  return s != FPAR__LAUNCH_QUEUED && s != FPAR__LAUNCH_RUNNING;
}

int fpar_event_wait(fpar_event *ev) {
  char what[FPAR__NAME_MAX + 16];
  int err;

  if (ev == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_event_wait: ev is NULL");
  if ((err = fpar__sched_wait(ev->sched, fpar__event_done, ev)) != 0) {
    snprintf(what, sizeof what, "launch '%s'", ev->spec.name);
    return fpar__wait_refused(err, "fpar_event_wait", what);
  }
  return atomic_load_explicit(&ev->status, memory_order_acquire);
}

int fpar_event_status(const fpar_event *ev, fpar_event_state *state) {
  int s;

  if (ev == NULL || state == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_event_status: %s is NULL",
                           ev == NULL ? "ev" : "state");
  s = atomic_load_explicit(&ev->status, memory_order_acquire);
  *state = s == FPAR__LAUNCH_QUEUED    ? FPAR_QUEUED
           : s == FPAR__LAUNCH_RUNNING ? FPAR_RUNNING
           : s == 0                    ? FPAR_COMPLETE
                                       : FPAR_FAILED;
  return 0;
}

int fpar_event_result(const fpar_event *ev) {
  if (ev == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_event_result: ev is NULL");
  if (!fpar__event_done(ev))
    return fpar__set_error(FPAR_EBUSY,
                           "fpar_event_result: launch '%s' has not finished",
                           ev->spec.name);
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
  fpar__sched *s;

  if (ev == NULL)
    return;
  s = ev->sched;
  fpar__launch_unref(ev);
  fpar__sched_unref(s);
}
