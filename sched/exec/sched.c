/* SPDX-License-Identifier: MIT */
/* sched.c - the scheduler: pinned worker threads, the launch FIFO, idle
 * spinning and sleeping, completion, waiting.
 *
 * Launches run one at a time, in submission order.  The head of the FIFO is
 * the active launch; its groups are split into one contiguous chunk per
 * worker (the same split for every launch of the same shape, so a worker
 * keeps touching the same data), and a worker whose chunk is empty steals
 * groups from the others' chunks.  Each worker counts the groups it
 * finished and adds them to the launch once, when it leaves; the worker
 * whose addition completes the count completes the launch and activates the
 * next one.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/base/clock.h"
#include "sched/base/error.h"
#include "sched/base/fork.h"
#include "sched/base/sync.h"
#include "sched/base/thread_name.h"
#include "sched/diag/display.h"
#include "sched/diag/fault.h"
#include "sched/diag/trace.h"
#include "sched/exec/sched.h"
#include "sched/exec/worker_run.h"
#include "sched/fiber/guard.h"
#include "sched/fiber/stack.h"
#include "sched/machine/topo.h"

struct fpar__sched {
  fpar__sched_config cfg;
  struct fpar__topo *topo;
  unsigned num_workers;
  fpar__worker **workers;
  uv_thread_t *threads;

  uv_mutex_t lock;
  uv_cond_t work_cond; /* idle workers sleep here */
  uv_cond_t done_cond; /* waiting host threads sleep here */
  fpar__launch *head;  /* the active launch */
  fpar__launch *tail;
  uint64_t next_seq;
  atomic_uint_fast64_t active_seq; /* seq of the head, or of the last one */
  unsigned sleepers, waiters;      /* guarded by lock */
  atomic_int shutdown;

  uv_sem_t started; /* each worker posts once its memory is ready */
  atomic_int start_error;
  char start_message[256];

  /* The record outlives fpar__sched_destroy() while events refer to it:
   * one reference for the runtime, one per event handle. */
  atomic_int refs;
  unsigned fork_generation; /* fpar__fork_generation() at creation */
  unsigned serial;          /* creation order in the process, from 0 */

  /* What workers are made with: the slots each may hold and whether
   * guards are page-table marks (see stack.h and guard.h). */
  fpar__worker_setup setup;
};

typedef struct fpar__worker_start {
  fpar__sched *sched;
  unsigned index;
} fpar__worker_start;

static void fpar__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

/* A bounded spin: pause, and every 256 steps check the clock and give the
 * core to any other runnable thread on it (with one worker per core, a
 * host thread waiting for its launch shares a core with a spinning
 * worker).  fpar__spin_step() returns 0 once spin_us have passed. */
typedef struct fpar__spin {
  unsigned steps;
  uint64_t deadline;
} fpar__spin;

static int fpar__spin_step(fpar__spin *sp, unsigned spin_us) {
  if ((++sp->steps & 255) == 0) {
    uint64_t now = fpar__now_ns();
    if (sp->deadline == 0)
      sp->deadline = now + (uint64_t)spin_us * 1000u;
    else if (now >= sp->deadline)
      return 0;
    sched_yield();
  }
  fpar__cpu_relax();
  return 1;
}

/* The lock guards a few pointer updates at a time, but at the start and
 * end of every launch all workers and the submitting thread want it at
 * once: spin on trylock briefly instead of sleeping in the kernel at the
 * first contention. */
static void fpar__sched_lock(fpar__sched *s) {
  unsigned i;

  for (i = 0; i < 256; i++) {
    if (uv_mutex_trylock(&s->lock) == 0)
      return;
    fpar__cpu_relax();
  }
  uv_mutex_lock(&s->lock);
}

/* ---- Launch FIFO ------------------------------------------------------ */

/* Make l the active launch.  Called with the lock held. */
static void fpar__sched_activate(fpar__sched *s, fpar__launch *l) {
  unsigned n = l->num_chunks, k;

  for (k = 0; k < n; k++) {
    atomic_store_explicit(&l->chunks[k].next, l->spec.num_groups * k / n,
                          memory_order_relaxed);
    l->chunks[k].end = l->spec.num_groups * (k + 1) / n;
  }
  l->start_ns = fpar__now_ns();
  atomic_store_explicit(&l->status, FPAR__LAUNCH_RUNNING, memory_order_relaxed);
  atomic_store_explicit(&s->active_seq, l->seq, memory_order_release);
  if (s->sleepers)
    uv_cond_broadcast(&s->work_cond);
}

void fpar__sched_submit(fpar__sched *s, fpar__launch *l) {
  fpar__launch_ref(l);
  l->sched = s;
  l->submit_ns = fpar__now_ns();
  fpar__sched_lock(s);
  l->seq = ++s->next_seq;
  l->next = NULL;
  if (s->tail != NULL) {
    s->tail->next = l;
    s->tail = l;
  } else {
    s->head = s->tail = l;
    fpar__sched_activate(s, l);
  }
  uv_mutex_unlock(&s->lock);
}

/* The last group of l has finished: publish the result, wake the waiters,
 * start the next launch. */
static void fpar__sched_complete(fpar__sched *s, fpar__launch *l) {
  int failed = atomic_load_explicit(&l->failed, memory_order_acquire);

  l->end_ns = fpar__now_ns();
  atomic_store_explicit(&l->status, failed ? l->fault_code : 0,
                        memory_order_release);
  if (l->hooks.complete != NULL)
    l->hooks.complete(l);
  fpar__sched_lock(s);
  s->head = l->next;
  if (s->head == NULL)
    s->tail = NULL;
  else
    fpar__sched_activate(s, s->head);
  if (s->waiters)
    uv_cond_broadcast(&s->done_cond);
  uv_mutex_unlock(&s->lock);
  fpar__launch_unref(l);
}

int fpar__sched_usable(const fpar__sched *s) {
  return s->fork_generation == fpar__fork_generation() ? 0 : FPAR_EFORK;
}

int fpar__sched_wait(fpar__sched *s, int (*done)(const void *arg),
                     const void *arg) {
  fpar__spin spin = {0, 0};
  int err;

  if (done(arg))
    return 0;
  if ((err = fpar__sched_usable(s)) != 0)
    return err;
  /* A kernel that waits for its own runtime's work waits for launches
   * queued behind its own, which cannot start before it returns. */
  if (fpar__self != NULL && fpar__self->sched == s)
    return FPAR_EDEADLOCK;
  while (!done(arg))
    if (!fpar__spin_step(&spin, s->cfg.spin_us))
      break;
  if (done(arg))
    return 0;
  uv_mutex_lock(&s->lock);
  s->waiters++;
  while (!done(arg))
    uv_cond_wait(&s->done_cond, &s->lock);
  s->waiters--;
  uv_mutex_unlock(&s->lock);
  return 0;
}

/* ---- Worker loop ------------------------------------------------------ */

/* Wait for a launch the worker has not entered yet and take a reference on
 * it; NULL at shutdown.  Spins for spin_us, then sleeps. */
static fpar__launch *fpar__worker_next_launch(fpar__worker *w) {
  fpar__sched *s = w->sched;
  fpar__spin spin = {0, 0};

  for (;;) {
    if (atomic_load_explicit(&s->active_seq, memory_order_acquire) !=
        w->last_seq) {
      fpar__launch *l;
      fpar__sched_lock(s);
      l = s->head;
      if (l != NULL && l->seq != w->last_seq) {
        fpar__launch_ref(l);
        w->last_seq = l->seq;
        uv_mutex_unlock(&s->lock);
        return l;
      }
      /* The launch finished before this worker looked. */
      w->last_seq = atomic_load_explicit(&s->active_seq, memory_order_relaxed);
      uv_mutex_unlock(&s->lock);
    }
    if (s->shutdown)
      return NULL;
    if (!fpar__spin_step(&spin, s->cfg.spin_us)) {
      uv_mutex_lock(&s->lock);
      s->sleepers++;
      while (!s->shutdown &&
             atomic_load_explicit(&s->active_seq, memory_order_relaxed) ==
                 w->last_seq)
        uv_cond_wait(&s->work_cond, &s->lock);
      s->sleepers--;
      uv_mutex_unlock(&s->lock);
      spin.deadline = 0;
    }
  }
}

static void fpar__worker_leave(fpar__worker *w, fpar__launch *l) {
  size_t n = w->groups_done;

  w->groups_done = 0;
  if (n != 0 &&
      atomic_fetch_add_explicit(&l->groups_done, n, memory_order_acq_rel) + n ==
          l->spec.num_groups) {
    if (w->trace != NULL)
      fpar__trace_launch(w, l);
    fpar__sched_complete(w->sched, l);
  }
  fpar__launch_unref(l);
}

/* The k-th scheduler a process creates (from 0): its workers' names. */
static atomic_uint fpar__sched_serials;

static void fpar__worker_main(void *arg) {
  fpar__worker_start *start = arg;
  fpar__sched *s = start->sched;
  unsigned i = start->index;
  fpar__worker *w = NULL;
  fpar__launch *l;
  int err;

  free(start);
  fpar__thread_set_name(s->serial, i);
  /* Bind first, so that everything the worker allocates and touches from
   * here on lands on its NUMA node. */
  err = fpar__topo_bind_thread(s->topo, i);
  if (err == 0)
    err = fpar__worker_create(&w, &s->setup, i);
  if (err != 0) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&s->start_error, &expected, err))
      snprintf(s->start_message, sizeof s->start_message,
               "worker %u could not start: %s", i, fpar_strerror(err));
    uv_sem_post(&s->started);
    return;
  }
  s->workers[i] = w;
  fpar__self = w;
  uv_sem_post(&s->started);

  while ((l = fpar__worker_next_launch(w)) != NULL) {
    fpar__worker_run_launch(w, l);
    fpar__worker_leave(w, l);
  }
  fpar__self = NULL;
  s->workers[i] = NULL;
  fpar__worker_destroy(w);
}

/* ---- Life cycle ------------------------------------------------------- */

static void fpar__sched_join(fpar__sched *s, unsigned started) {
  unsigned i;

  uv_mutex_lock(&s->lock);
  atomic_store(&s->shutdown, 1);
  uv_cond_broadcast(&s->work_cond);
  uv_mutex_unlock(&s->lock);
  for (i = 0; i < started; i++)
    uv_thread_join(&s->threads[i]);
}

/* Free what the workers needed; the record itself (with the lock and the
 * condition that waiters use) goes with the last reference. */
static void fpar__sched_free_workers(fpar__sched *s) {
  uv_sem_destroy(&s->started);
  uv_cond_destroy(&s->work_cond);
  fpar__trace_destroy(s->setup.trace);
  s->setup.trace = NULL;
  fpar__topo_destroy(s->topo);
  free(s->threads);
  free(s->workers);
  s->topo = NULL;
  s->threads = NULL;
  s->workers = NULL;
}

void fpar__sched_ref(fpar__sched *s) {
  atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}

void fpar__sched_unref(fpar__sched *s) {
  if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
    return;
  uv_cond_destroy(&s->done_cond);
  uv_mutex_destroy(&s->lock);
  free(s);
}

static int fpar__sched_start_workers(fpar__sched *s) {
  uv_thread_options_t opts;
  unsigned i, started;

  opts.flags = UV_THREAD_HAS_STACK_SIZE;
  opts.stack_size = 256 * 1024; /* kernels run on fiber stacks */
  for (started = 0; started < s->num_workers; started++) {
    fpar__worker_start *start = malloc(sizeof *start);
    if (start == NULL)
      break;
    start->sched = s;
    start->index = started;
    if (uv_thread_create_ex(&s->threads[started], &opts, fpar__worker_main,
                            start) != 0) {
      free(start);
      break;
    }
  }
  for (i = 0; i < started; i++)
    uv_sem_wait(&s->started);
  if (started < s->num_workers) {
    fpar__sched_join(s, started);
    return fpar__set_error(FPAR_ETHREAD, "could not create worker %u of %u",
                           started, s->num_workers);
  }
  if (atomic_load(&s->start_error) != 0) {
    int err = atomic_load(&s->start_error);
    fpar__sched_join(s, started);
    return fpar__set_error(err, "%s", s->start_message);
  }
  return 0;
}

int fpar__sched_create(fpar__sched **out, const fpar__sched_config *cfg) {
  fpar__sched *s = calloc(1, sizeof *s);
  int err;

  if (s == NULL)
    return fpar__set_error(FPAR_ENOMEM, "no memory for the scheduler");
  s->cfg = *cfg;
  if ((err = fpar__fault_install()) != 0) {
    free(s);
    return fpar__set_error(err, "cannot install the SIGSEGV handler");
  }
  if ((err = fpar__fork_watch()) != 0) {
    free(s);
    return fpar__set_error(err, "cannot register the fork handler");
  }
  if ((err = fpar__topo_create(&s->topo, cfg)) != 0) {
    free(s);
    return err; /* fpar__topo_create said why */
  }
  fpar__display_placement(s->topo, cfg);
  s->num_workers = fpar__topo_num_workers(s->topo);
  s->setup.sched = s;
  s->setup.cfg = &s->cfg;
  s->setup.topo = s->topo;
  s->setup.stack_marks =
      !cfg->stack_guard_prot && fpar__guard_marks_available();
  s->setup.stack_limit =
      cfg->max_stacks != 0
          ? cfg->max_stacks
          : fpar__stack_budget(s->num_workers, cfg->max_group_size + 1,
                               s->setup.stack_marks);
  s->workers = calloc(s->num_workers, sizeof *s->workers);
  s->threads = calloc(s->num_workers, sizeof *s->threads);
  if (s->workers == NULL || s->threads == NULL ||
      uv_mutex_init(&s->lock) != 0 || uv_cond_init(&s->work_cond) != 0 ||
      uv_cond_init(&s->done_cond) != 0 || uv_sem_init(&s->started, 0) != 0) {
    /* Partially initialised sync objects are not destroyed: libuv gives no
     * way to tell which succeeded, and this path only runs out of memory. */
    fpar__topo_destroy(s->topo);
    free(s->threads);
    free(s->workers);
    free(s);
    return fpar__set_error(FPAR_ENOMEM, "no memory for the scheduler");
  }
  atomic_init(&s->active_seq, 0);
  atomic_init(&s->start_error, 0);
  atomic_init(&s->refs, 1);
  s->fork_generation = fpar__fork_generation();
  s->serial = atomic_fetch_add(&fpar__sched_serials, 1);
  if (cfg->trace_path != NULL)
    fpar__trace_create(&s->setup.trace, cfg->trace_path, s->serial,
                       s->num_workers);
  if ((err = fpar__sched_start_workers(s)) != 0) {
    fpar__sched_free_workers(s);
    fpar__sched_unref(s);
    return err;
  }
  *out = s;
  return 0;
}

void fpar__sched_destroy(fpar__sched *s) {
  fpar__sched_join(s, s->num_workers);
  fpar__sched_free_workers(s);
  fpar__sched_unref(s);
}

unsigned fpar__sched_num_workers(const fpar__sched *s) {
  return s->num_workers;
}

const struct fpar__topo *fpar__sched_topo(const fpar__sched *s) {
  return s->topo;
}
