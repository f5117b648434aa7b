/* SPDX-License-Identifier: MIT */
/* async_copy.h - group copies (<fiberpar/async_copy.h>): what a worker
 * records of the copies and waits of its running group (see
 * async_copy.c). */
#ifndef FPAR_SCHED_GROUP_ASYNC_COPY_H
#define FPAR_SCHED_GROUP_ASYNC_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "fiberpar.h"

/* The group's copy k, as its first caller made it. */
typedef struct fpar__async_copy {
  void *dst;
  const void *src;
  size_t num, elem_size, dst_stride, src_stride;
  fpar_copy_event event; /* the call's argument */
  fpar_copy_event got;   /* what the call returned */
  size_t owner;          /* local linear id of the first caller */
} fpar__async_copy;

/* The group's wait k: its events are events[first .. first + num - 1]. */
typedef struct fpar__async_wait {
  size_t first, owner;
  uint32_t copies; /* copy calls the first caller had made */
  int num;
} fpar__async_wait;

/* The records of the running group, reused by every group (they only
 * grow).  calls[2 i] and calls[2 i + 1] count the copies and waits
 * work-item i has made; they are valid once `begun`. */
typedef struct fpar__async_run {
  int begun;
  fpar__async_copy *copies;
  size_t num_copies, cap_copies;
  fpar__async_wait *waits;
  size_t num_waits, cap_waits;
  fpar_copy_event *events;
  size_t num_events, cap_events;
  uint32_t *calls;
  size_t cap_calls;
} fpar__async_run;

/* A group starts: its work-items have made no copies. */
static inline void fpar__async_group_begin(fpar__async_run *a) {
  a->begun = 0;
}

/* Free the records. */
void fpar__async_destroy(fpar__async_run *a);

#endif
