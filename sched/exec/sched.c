/* SPDX-License-Identifier: MIT */
/* sched.c - the scheduler: pinned worker threads, the launch list,
 * activation and completion, idle spinning and sleeping, waiting and
 * helping.
 *
 * Launches run one at a time, in submission order.  Submitting takes no
 * lock: the submitter swaps its launch in as the list's tail, then links
 * the previous tail to it with one compare-and-swap on that launch's next
 * link.  The launch that completes swaps FPAR__LAUNCH_DONE into its own
 * next link: whichever of the two swaps comes second sees the other's
 * value, and its thread starts the new launch — the completing thread,
 * with no round trip through the host, when launches are queued back to
 * back; the submitter when the list had run dry.
 *
 * Starting (activating) a launch publishes it, its number of groups and
 * its sequence number on one cache line, and writes nothing else a worker
 * reads: the chunk words that say which groups are taken name the launch
 * they count for (base/group_claim.h).  An idle worker watches the line; when
 * the number changes it takes its first groups, and only then, holding
 * the launch open, reads the launch's record.  Each worker counts the
 * groups it finished and adds them to the launch once, when it leaves; the
 * thread whose addition completes the count completes the launch.
 *
 * A host thread that waits helps (exec/help.h): it runs groups of the
 * active launch as the workers do, starting with the chunk of the worker
 * whose core it occupies, then completes the launch itself.
 *
 * The lock and condition variables serve only sleep: an idle worker after
 * its spin budget, a waiting host thread after its.  The threads that
 * publish a launch or a result read counters of sleepers, and take the
 * lock only when one sleeps.
 */
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/base/clock.h"
#include "sched/base/error.h"
#include "sched/base/fork.h"
#include "sched/base/group_claim.h"
#include "sched/base/spin.h"
#include "sched/base/sync.h"
#include "sched/base/thread_name.h"
#include "sched/diag/display.h"
#include "sched/diag/fault.h"
#include "sched/diag/trace.h"
#include "sched/exec/help.h"
#include "sched/exec/sched.h"
#include "sched/exec/worker_run.h"
#include "sched/fiber/context.h"
#include "sched/fiber/guard.h"
#include "sched/fiber/stack.h"
#include "sched/machine/topo.h"

/* How often spinning threads give their core away: an idle worker soon (a
 * host thread on its core may have work), a waiting host thread less
 * often (the groups it waits for are mostly running on other cores). */
#define FPAR__IDLE_YIELD_NS 2000u
#define FPAR__WAIT_YIELD_NS 10000u

/* The longest a host thread on a CPU of no worker spins while it waits
 * (see fpar__sched_wait_budget). */
#define FPAR__WAIT_SPIN_MAX_NS 1000000u

struct fpar__sched {
  fpar__sched_config cfg;
  struct fpar__topo *topo;
  unsigned num_workers;
  fpar__worker **workers;
  uv_thread_t *threads;
  fpar__launch_pool *pool;
  fpar__helpers *helpers;
  /* The worker bound to each CPU, or -1; where workers share a CPU, the
   * last to start. */
  atomic_int *cpu_worker;
  unsigned num_cpus;

  /* Written by every submission, and by every wait of a host thread: how
   * long it took.  Workers read neither. */
  alignas(64) _Atomic(fpar__launch *) tail;
  atomic_uint_fast64_t last_wait_ns;
  /* Written by every activation, watched by idle workers: the active
   * launch and its number of groups, valid while active_seq reads the
   * same before and after them (0 while an activation writes them). */
  alignas(64) atomic_uint_fast64_t active_seq;
  _Atomic(fpar__launch *) active;
  atomic_size_t active_groups;
  atomic_int shutdown; /* watched by idle workers too */
  fpar__claim *claims; /* one chunk word per worker (base/group_claim.h) */
  /* Threads asleep on the condition variables. */
  alignas(64) atomic_uint sleepers, waiters;
  uv_mutex_t lock;
  uv_cond_t work_cond; /* idle workers sleep here */
  uv_cond_t done_cond; /* waiting host threads sleep here */

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

static uint64_t fpar__sched_spin_ns(const fpar__sched *s) {
  return (uint64_t)s->cfg.spin_us * 1000u;
}

/* ---- Launch list ------------------------------------------------------ */

/* Make l the active launch, started at now_ns (the submission or the end
 * of the launch before, which the caller has just read: the clock is read
 * once).  Activations are ordered: each follows the completion of the
 * launch before. */
static void fpar__sched_activate(fpar__sched *s, fpar__launch *l,
                                 uint64_t now_ns) {
  uint64_t last = atomic_load_explicit(&s->active_seq, memory_order_relaxed);
  uint64_t seq = last + 1;

  /* The line of the count and the failed group, which the activator
   * reads at its first group and writes at its last when it runs the
   * launch itself (a worker that completes the launch before): asked
   * for now, its miss overlaps the rest of the activation. */
  __builtin_prefetch(&l->groups_done, 1, 3);
  l->start_ns = now_ns;
  atomic_store_explicit(&l->status, FPAR__LAUNCH_RUNNING, memory_order_relaxed);
  atomic_store_explicit(&l->seq, seq, memory_order_relaxed);
  /* A seqlock: a reader that sees active_seq the same before and after
   * reading the launch and its size has read the pair published with it. */
  atomic_store_explicit(&s->active_seq, 0, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&s->active, l, memory_order_relaxed);
  atomic_store_explicit(&s->active_groups, l->spec.num_groups,
                        memory_order_relaxed);
  if (seq % FPAR__CLAIM_RESTAMP == 0)
    fpar__claims_restamp(s->claims, s->num_workers, last);
  /* Sequentially consistent, against a worker that counts itself among
   * the sleepers and then checks active_seq. */
  atomic_store(&s->active_seq, seq);
  if (atomic_load(&s->sleepers) != 0) {
    uv_mutex_lock(&s->lock);
    uv_cond_broadcast(&s->work_cond);
    uv_mutex_unlock(&s->lock);
  }
}

fpar__launch *fpar__sched_launch_create(fpar__sched *s,
                                        const fpar__launch_spec *spec,
                                        size_t args_size) {
  return fpar__launch_create(s->pool, spec, args_size);
}

void fpar__sched_submit(fpar__sched *s, fpar__launch *l) {
  fpar__launch *prev, *expected = NULL;

  l->sched = s;
  l->submit_ns = fpar__now_ns();
  /* The scheduler's reference until completion, and the list's while l
   * is its tail. */
  fpar__launch_ref(l);
  fpar__launch_ref(l);
  prev = atomic_exchange_explicit(&s->tail, l, memory_order_acq_rel);
  if (!atomic_compare_exchange_strong_explicit(&prev->next, &expected, l,
                                               memory_order_acq_rel,
                                               memory_order_acquire))
    fpar__sched_activate(s, l, l->submit_ns); /* prev has completed */
  fpar__launch_unref(prev);
}

/* The last group of l has finished: publish the result, start the next
 * launch, wake the waiters if the completion may end a wait.  A host
 * thread asleep in fpar_queue_wait behind a queue of many launches is
 * woken once, when the queue drains: woken at every launch, it took a
 * futex wake on the completing worker's path and a rescheduling
 * interrupt on the core of a worker busy with the next launch. */
static void fpar__sched_complete(fpar__sched *s, fpar__launch *l) {
  int failed = fpar__launch_failed(l), ends_wait = 1;
  fpar__launch *next = NULL;

  l->end_ns = fpar__now_ns();
  atomic_store_explicit(&l->status, failed ? l->fault_code : 0,
                        memory_order_release);
  if (l->hooks.complete != NULL)
    ends_wait = l->hooks.complete(l);
  if (!atomic_compare_exchange_strong_explicit(
          &l->next, &next, FPAR__LAUNCH_DONE, memory_order_acq_rel,
          memory_order_acquire))
    fpar__sched_activate(s, next, l->end_ns);
  /* Against a waiter that counts itself and then checks its condition. */
  atomic_thread_fence(memory_order_seq_cst);
  if (ends_wait &&
      atomic_load_explicit(&s->waiters, memory_order_relaxed) != 0) {
    uv_mutex_lock(&s->lock);
    uv_cond_broadcast(&s->done_cond);
    uv_mutex_unlock(&s->lock);
  }
  fpar__launch_unref(l);
}

/* The number of the active launch, with the launch in *l and its number
 * of groups in *groups, unless it is the one numbered seen; else 0.  A
 * taker reads the launch's record only once it took some of its groups
 * (fpar__worker_take_first). */
static uint64_t fpar__sched_published(fpar__sched *s, uint64_t seen,
                                      fpar__launch **l, size_t *groups) {
  uint64_t seq;

  do {
    seq = atomic_load_explicit(&s->active_seq, memory_order_acquire);
    if (seq == seen || seq == 0)
      return 0;
    *l = atomic_load_explicit(&s->active, memory_order_relaxed);
    *groups = atomic_load_explicit(&s->active_groups, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
  } while (atomic_load_explicit(&s->active_seq, memory_order_relaxed) != seq);
  return seq;
}

/* Complete l on w's thread, whose addition made its count whole. */
static void fpar__sched_finish(fpar__worker *w, fpar__launch *l) {
  if (w->trace != NULL)
    fpar__trace_launch(w, l);
  fpar__sched_complete(w->sched, l);
}

/* Add the groups w finished to l, after which w may not touch l; the last
 * addition completes l, unless a waiting host thread has taken the
 * completion over (fpar__sched_leave_waiting). */
static void fpar__sched_leave(fpar__worker *w, fpar__launch *l) {
  size_t all = l->spec.num_groups, n = w->groups_done;

  w->groups_done = 0;
  if (atomic_fetch_add_explicit(&l->groups_done, n, memory_order_acq_rel) + n ==
      all)
    fpar__sched_finish(w, l);
}

/* Add the groups helper h finished to l and, unless that completes l or
 * another waiting thread has done so already, take l's completion over
 * from the workers: spin (on *spin, for budget_ns) until their last
 * addition, then complete l on this thread.  The lines a completion
 * writes (the status, the queue's count, the list's link, the record's
 * references) are the ones the waiting host thread reads and writes
 * next; completed by a worker, each would cross to the host's core and
 * back on every launch.  After the budget the duty goes back to the
 * workers. */
static void fpar__sched_leave_waiting(fpar__worker *h, fpar__launch *l,
                                      fpar__spin *spin, uint64_t budget_ns) {
  size_t all = l->spec.num_groups, n = h->groups_done, want;
  size_t c = atomic_load_explicit(&l->groups_done, memory_order_relaxed);

  h->groups_done = 0;
  do {
    want = c + n;
    if (want != all && (c & FPAR__LAUNCH_COMPLETER) == 0)
      want |= FPAR__LAUNCH_COMPLETER;
  } while (!atomic_compare_exchange_weak_explicit(
      &l->groups_done, &c, want, memory_order_acq_rel, memory_order_relaxed));
  if (want == all) {
    fpar__sched_finish(h, l);
    return;
  }
  if ((c & FPAR__LAUNCH_COMPLETER) != 0)
    return; /* another thread's duty */
  for (;;) {
    c = atomic_load_explicit(&l->groups_done, memory_order_acquire);
    if (c == (all | FPAR__LAUNCH_COMPLETER)) {
      fpar__sched_finish(h, l);
      return;
    }
    if (!fpar__spin_step(spin, budget_ns, FPAR__WAIT_YIELD_NS) &&
        atomic_compare_exchange_strong_explicit(
            &l->groups_done, &c, c & ~FPAR__LAUNCH_COMPLETER,
            memory_order_acq_rel, memory_order_relaxed))
      return;
  }
}

int fpar__sched_usable(const fpar__sched *s) {
  return s->fork_generation == fpar__fork_generation() ? 0 : FPAR_EFORK;
}

/* ---- Waiting and helping ---------------------------------------------- */

/* The worker whose place the calling host thread may take: the one bound
 * to the CPU it runs on, which cannot run while the host does (-1 on a CPU
 * of no worker: a host there stays out, so that a runtime of n workers
 * never runs kernels on more than its n cores); any worker when workers
 * are not bound to CPUs of their own. */
static int fpar__sched_stand_in(const fpar__sched *s) {
  int cpu;

  if (s->cpu_worker == NULL)
    return 0;
  cpu = sched_getcpu();
  return cpu >= 0 && (unsigned)cpu < s->num_cpus
             ? atomic_load_explicit(&s->cpu_worker[cpu], memory_order_relaxed)
             : -1;
}

/* Run groups of the active launch on the calling host thread, if it has
 * groups no one has taken and the thread runs on a worker's CPU, taking a
 * helper into *helper first, until done(arg).  Returns 1 when it ran
 * any; 0 otherwise, with *can_help cleared when no helper is to be had. */
static int fpar__sched_help(fpar__sched *s, fpar__worker **helper,
                            uint64_t *seen, int *can_help, fpar__spin *spin,
                            uint64_t budget_ns, int (*done)(const void *arg),
                            const void *arg) {
  fpar__worker *h = *helper;
  fpar__launch *l;
  size_t groups;
  uint64_t seq = fpar__sched_published(s, *seen, &l, &groups);
  int home;

  if (seq == 0 || (home = fpar__sched_stand_in(s)) < 0)
    return 0;
  if (h == NULL && (h = *helper = fpar__helpers_acquire(s->helpers)) == NULL) {
    *can_help = 0;
    return 0;
  }
  h->home = (unsigned)home;
  *seen = seq;
  if (!fpar__worker_take_first(h, seq, groups))
    return 0;
  /* Each launch helped gets the whole budget to be completed in. */
  *spin = (fpar__spin)FPAR__SPIN_INIT;
  h->until = done;
  h->until_arg = arg;
  fpar__self = h;
  fpar__worker_run_launch(h, l);
  fpar__self = NULL;
  fpar__sched_leave_waiting(h, l, spin, budget_ns);
  return 1;
}

/* Sleep until done(arg). */
static void fpar__sched_sleep_until(fpar__sched *s,
                                    int (*done)(const void *arg),
                                    const void *arg) {
  uv_mutex_lock(&s->lock);
  atomic_fetch_add(&s->waiters, 1);
  atomic_thread_fence(memory_order_seq_cst);
  while (!done(arg))
    uv_cond_wait(&s->done_cond, &s->lock);
  atomic_fetch_sub(&s->waiters, 1);
  uv_mutex_unlock(&s->lock);
}

/* How long a waiting host thread spins before it sleeps: the runtime's
 * spin budget, or, on a CPU of none of the runtime's workers, where its
 * spinning takes no worker's time, twice as long as the last such wait
 * took (at most FPAR__WAIT_SPIN_MAX_NS), when that took no longer than
 * FPAR__WAIT_SPIN_MAX_NS.  A time step of a few hundred microseconds then
 * ends with the thread spinning, not asleep: waking it takes tens of
 * microseconds under a hypervisor, during which the workers idle.  Sets
 * *timed for such a wait, whose length the caller then keeps; the others
 * read no clock. */
static uint64_t fpar__sched_wait_budget(const fpar__sched *s, int *timed) {
  uint64_t budget = fpar__sched_spin_ns(s), last, want;

  *timed = budget != 0 && s->cpu_worker != NULL && fpar__sched_stand_in(s) < 0;
  if (!*timed)
    return budget;
  last = atomic_load_explicit(&s->last_wait_ns, memory_order_relaxed);
  want = last < FPAR__WAIT_SPIN_MAX_NS / 2 ? 2 * last : FPAR__WAIT_SPIN_MAX_NS;
  return want <= budget || last > FPAR__WAIT_SPIN_MAX_NS ? budget : want;
}

int fpar__sched_wait(fpar__sched *s, int (*done)(const void *arg),
                     const void *arg) {
  fpar__spin spin = FPAR__SPIN_INIT;
  fpar__worker *helper = NULL;
  uint64_t seen = 0, start, budget;
  int can_help, timed, err;

  if (done(arg))
    return 0;
  if ((err = fpar__sched_usable(s)) != 0)
    return err;
  /* A kernel that waits for its own runtime's work waits for launches
   * queued behind its own, which cannot start before it returns. */
  if (fpar__self != NULL && fpar__self->sched == s)
    return FPAR_EDEADLOCK;
  /* A kernel that waits for another runtime only waits: its thread is
   * inside a group already. */
  can_help = fpar__self == NULL;
  budget = fpar__sched_wait_budget(s, &timed);
  start = timed ? fpar__now_ns() : 0;
  while (!done(arg)) {
    if (can_help && fpar__sched_help(s, &helper, &seen, &can_help, &spin,
                                     budget, done, arg))
      continue;
    if (!fpar__spin_step(&spin, budget, FPAR__WAIT_YIELD_NS))
      break;
  }
  if (helper != NULL)
    fpar__helpers_release(s->helpers, helper);
  if (!done(arg))
    fpar__sched_sleep_until(s, done, arg);
  if (timed)
    atomic_store_explicit(&s->last_wait_ns, fpar__now_ns() - start,
                          memory_order_relaxed);
  return 0;
}

/* ---- Worker loop ------------------------------------------------------ */

/* Sleep until a launch newer than the worker's last one starts, or
 * shutdown. */
static void fpar__worker_sleep(fpar__worker *w) {
  fpar__sched *s = w->sched;

  uv_mutex_lock(&s->lock);
  atomic_fetch_add(&s->sleepers, 1);
  while (!atomic_load(&s->shutdown) &&
         atomic_load(&s->active_seq) == w->last_seq)
    uv_cond_wait(&s->work_cond, &s->lock);
  atomic_fetch_sub(&s->sleepers, 1);
  uv_mutex_unlock(&s->lock);
}

/* Wait for a launch the worker has not looked at yet that has groups left
 * and take some; NULL at shutdown.  Spins for spin_us after the last
 * launch it saw, then sleeps. */
static fpar__launch *fpar__worker_next_launch(fpar__worker *w) {
  fpar__sched *s = w->sched;
  fpar__spin spin = FPAR__SPIN_INIT;
  fpar__launch *l;
  size_t groups;
  uint64_t seq;

  for (;;) {
    if ((seq = fpar__sched_published(s, w->last_seq, &l, &groups)) != 0) {
      w->last_seq = seq;
      if (fpar__worker_take_first(w, seq, groups))
        return l;
      spin = (fpar__spin)FPAR__SPIN_INIT;
    }
    if (atomic_load_explicit(&s->shutdown, memory_order_relaxed))
      return NULL;
    if (!fpar__spin_step(&spin, fpar__sched_spin_ns(s), FPAR__IDLE_YIELD_NS)) {
      fpar__worker_sleep(w);
      spin = (fpar__spin)FPAR__SPIN_INIT;
    }
  }
}

/* Note the CPUs worker i is bound to, for helpers
 * (fpar__sched_stand_in()). */
static void fpar__sched_map_cpus(fpar__sched *s, unsigned i) {
  cpu_set_t set;
  unsigned c;

  if (s->cpu_worker == NULL ||
      pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0)
    return;
  for (c = 0; c < s->num_cpus && c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set))
      atomic_store_explicit(&s->cpu_worker[c], (int)i, memory_order_relaxed);
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
  fpar__sched_map_cpus(s, i);
  s->workers[i] = w;
  fpar__self = w;
  uv_sem_post(&s->started);

  while ((l = fpar__worker_next_launch(w)) != NULL) {
    fpar__worker_run_launch(w, l);
    fpar__sched_leave(w, l);
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
 * condition that waiters use, the launch records, the helpers' slots and
 * the CPU map) goes with the last reference. */
static void fpar__sched_free_workers(fpar__sched *s) {
  fpar__helpers_close(s->helpers);
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
  fpar__helpers_free(s->helpers);
  fpar__launch_pool_destroy(s->pool);
  fpar__claims_destroy(s->claims);
  free(s->cpu_worker);
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

/* The list's first tail: a launch that has completed. */
static int fpar__sched_list_init(fpar__sched *s) {
  fpar__launch_spec none;
  fpar__launch *stub;

  memset(&none, 0, sizeof none);
  if (fpar__launch_pool_init(&s->pool) != 0 ||
      (stub = fpar__launch_create(s->pool, &none, 0)) == NULL)
    return FPAR_ENOMEM;
  atomic_store(&stub->status, 0);
  atomic_store(&stub->next, FPAR__LAUNCH_DONE);
  atomic_init(&s->tail, stub);
  atomic_init(&s->active, NULL);
  atomic_init(&s->active_groups, 0);
  atomic_init(&s->active_seq, 0);
  return 0;
}

/* Where the workers go and what they are made with; the memory the
 * record needs besides.  Returns 0 or FPAR_ENOMEM. */
static int fpar__sched_setup(fpar__sched *s, const fpar__sched_config *cfg) {
  long cpus = sysconf(_SC_NPROCESSORS_CONF);
  unsigned c;

  s->num_workers = fpar__topo_num_workers(s->topo);
  s->setup.sched = s;
  s->setup.cfg = &s->cfg;
  s->setup.topo = s->topo;
  s->setup.workers = s->num_workers;
  s->setup.fpu = fpar__ctx_fpu_state();
  s->setup.stack_marks =
      !cfg->stack_guard_prot && fpar__guard_marks_available();
  s->setup.stack_limit =
      cfg->max_stacks != 0
          ? cfg->max_stacks
          : fpar__stack_budget(s->num_workers, cfg->max_group_size + 1,
                               s->setup.stack_marks);
  s->workers = calloc(s->num_workers, sizeof *s->workers);
  s->threads = calloc(s->num_workers, sizeof *s->threads);
  s->claims = s->setup.claims = fpar__claims_create(s->num_workers);
  if (cfg->pin != FPAR_PIN_NONE && cfg->pin != FPAR_PIN_NUMA && cpus > 0) {
    /* Workers bound to CPUs of their own: helpers stand in for them. */
    s->num_cpus = (unsigned)cpus;
    if ((s->cpu_worker = malloc(s->num_cpus * sizeof *s->cpu_worker)) == NULL)
      return FPAR_ENOMEM;
    for (c = 0; c < s->num_cpus; c++)
      atomic_init(&s->cpu_worker[c], -1);
  }
  if (s->workers == NULL || s->threads == NULL || s->claims == NULL ||
      fpar__helpers_create(&s->helpers, &s->setup) != 0 ||
      fpar__sched_list_init(s) != 0)
    return FPAR_ENOMEM;
  return 0;
}

/* Undo what fpar__sched_setup() and fpar__topo_create() made. */
static void fpar__sched_unsetup(fpar__sched *s) {
  fpar__topo_destroy(s->topo);
  free(s->cpu_worker);
  free(s->threads);
  free(s->workers);
  fpar__helpers_free(s->helpers);
  fpar__launch_pool_destroy(s->pool);
  fpar__claims_destroy(s->claims);
  free(s);
}

int fpar__sched_create(fpar__sched **out, const fpar__sched_config *cfg) {
  fpar__sched *s = aligned_alloc(64, (sizeof *s + 63) / 64 * 64);
  int err;

  if (s == NULL)
    return fpar__set_error(FPAR_ENOMEM, "no memory for the scheduler");
  memset(s, 0, sizeof *s);
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
  fpar__spin_calibrate();
  if (fpar__sched_setup(s, cfg) != 0 || uv_mutex_init(&s->lock) != 0 ||
      uv_cond_init(&s->work_cond) != 0 || uv_cond_init(&s->done_cond) != 0 ||
      uv_sem_init(&s->started, 0) != 0) {
    /* Partially initialised sync objects are not destroyed: libuv gives no
     * way to tell which succeeded, and this path only runs out of memory. */
    fpar__sched_unsetup(s);
    return fpar__set_error(FPAR_ENOMEM, "no memory for the scheduler");
  }
  atomic_init(&s->sleepers, 0);
  atomic_init(&s->waiters, 0);
  atomic_init(&s->last_wait_ns, 0);
  atomic_init(&s->shutdown, 0);
  atomic_init(&s->start_error, 0);
  atomic_init(&s->refs, 1);
  s->fork_generation = fpar__fork_generation();
  s->serial = atomic_fetch_add(&fpar__sched_serials, 1);
  if (cfg->trace_path != NULL)
    fpar__trace_create(&s->setup.trace, cfg->trace_path, s->serial,
                       s->num_workers, FPAR__HELPERS);
  if ((err = fpar__sched_start_workers(s)) != 0) {
    fpar__sched_free_workers(s);
    fpar__launch_unref(atomic_load(&s->tail));
    fpar__sched_unref(s);
    return err;
  }
  *out = s;
  return 0;
}

void fpar__sched_destroy(fpar__sched *s) {
  fpar__sched_join(s, s->num_workers);
  fpar__sched_free_workers(s);
  /* The list's reference on its last launch. */
  fpar__launch_unref(atomic_load(&s->tail));
  fpar__sched_unref(s);
}

unsigned fpar__sched_num_workers(const fpar__sched *s) {
  return s->num_workers;
}

const struct fpar__topo *fpar__sched_topo(const fpar__sched *s) {
  return s->topo;
}
