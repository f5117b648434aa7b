/* SPDX-License-Identifier: MIT */
/* thread_name.h - the names of worker threads, as top -H, gdb, perf and
 * the trace (diag/trace.c) show them. */
#ifndef FPAR_SCHED_BASE_THREAD_NAME_H
#define FPAR_SCHED_BASE_THREAD_NAME_H

#include <stddef.h>

/* The name of worker `worker` of the serial-th scheduler the process
 * created (from 0): "fpar-w3" for the first, "fpar2-w3" for the third
 * (the serial modulo 100000), at most 15 characters. */
void fpar__thread_name(unsigned serial, unsigned worker, char *buf,
                       size_t size);

/* Give the calling thread that name (where the system has thread names:
 * Linux). */
void fpar__thread_set_name(unsigned serial, unsigned worker);

#endif
