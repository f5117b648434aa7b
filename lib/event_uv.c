/* SPDX-License-Identifier: MIT */
/* event_uv.c - completion of a launch wakes a libuv loop (<fiberpar/uv.h>). */
#include "fiberpar/uv.h"
#include "lib/internal.h"
#include "sched/base/error.h"

/* Marks a launch whose completion has passed the notification point. */
static char fpar__uv_done_mark;

void fpar__uv_launch_complete(fpar__launch *l) {
  void *async =
      atomic_exchange(&l->hooks.uv_async, (void *)&fpar__uv_done_mark);

  if (async != NULL)
    uv_async_send(async);
}

int fpar_event_notify(fpar_event *ev, uv_async_t *async) {
  void *expected = NULL;

  if (ev == NULL || async == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_event_notify: %s is NULL",
                           ev == NULL ? "ev" : "async");
  if (atomic_compare_exchange_strong(&ev->hooks.uv_async, &expected, async))
    return 0;
  if (expected == (void *)&fpar__uv_done_mark) {
    uv_async_send(async);
    return 0;
  }
  return fpar__set_error(FPAR_EBUSY,
                         "fpar_event_notify: the event already notifies "
                         "another handle");
}
