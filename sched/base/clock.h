/* SPDX-License-Identifier: MIT */
/* clock.h - the time launches, spins and the trace are measured in. */
#ifndef FPAR_SCHED_BASE_CLOCK_H
#define FPAR_SCHED_BASE_CLOCK_H

#include <stdint.h>

/* Nanoseconds on CLOCK_MONOTONIC (the clock perf uses too). */
uint64_t fpar__now_ns(void);

#endif
