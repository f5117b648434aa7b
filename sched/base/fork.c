/* SPDX-License-Identifier: MIT */
/* fork.c - the fork generation (see fork.h). */
#include <pthread.h>
#include <stdatomic.h>

#include "fiberpar.h"
#include "sched/base/fork.h"
#include "sched/base/sync.h"

static atomic_uint fpar__generation;
static int fpar__watch_error;
static uv_once_t fpar__watch_once = UV_ONCE_INIT;

/* Runs in the child, which has only the forking thread. */
static void fpar__fork_child(void) {
  atomic_fetch_add_explicit(&fpar__generation, 1, memory_order_relaxed);
}

static void fpar__fork_watch_once(void) {
  if (pthread_atfork(NULL, NULL, fpar__fork_child) != 0)
    fpar__watch_error = FPAR_ENOMEM;
}

int fpar__fork_watch(void) {
  uv_once(&fpar__watch_once, fpar__fork_watch_once);
  return fpar__watch_error;
}

unsigned fpar__fork_generation(void) {
  return atomic_load_explicit(&fpar__generation, memory_order_relaxed);
}
