/* SPDX-License-Identifier: MIT */
/* clock.c - the monotonic clock in nanoseconds (see clock.h). */
#include <time.h>

#include "sched/base/clock.h"

uint64_t fpar__now_ns(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
