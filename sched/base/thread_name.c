/* SPDX-License-Identifier: MIT */
/* thread_name.c - the names of worker threads. */
#include <pthread.h>
#include <stdio.h>

#include "sched/base/thread_name.h"

void fpar__thread_name(unsigned serial, unsigned worker, char *buf,
                       size_t size) {
  if (serial == 0)
    snprintf(buf, size, "fpar-w%u", worker);
  else
    snprintf(buf, size, "fpar%u-w%u", serial % 100000, worker);
}

/* Linux allows at most 15 characters, which the names keep to with up to
 * 4096 workers. */
void fpar__thread_set_name(unsigned serial, unsigned worker) {
#if defined(__linux__)
  char name[16];

  fpar__thread_name(serial, worker, name, sizeof name);
  pthread_setname_np(pthread_self(), name);
#else
  (void)serial;
  (void)worker;
#endif
}
