/* SPDX-License-Identifier: MIT */
/* test_launch_path.c - the launch path: a fault's message through
 * fpar_queue_wait(), arguments by value, host threads that run work-groups
 * while they wait (one, several at once on one queue and on several, from
 * a libuv callback, with a kernel that fails on the host), many short
 * groups that each run once though workers claim several at a time, idle
 * workers that stop using the CPU after their spin window, and a host
 * thread on a CPU of no worker, which spins through short waits and
 * sleeps in long ones. */
#include <fiberpar/uv.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#include "testutil.h"

#define N 4096
#define MSG_LEN 512

static uint64_t now_ns(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Microseconds of CPU (user and system) in a getrusage() record. */
static uint64_t rusage_cpu_us(const struct rusage *u) {
  return (uint64_t)(u->ru_utime.tv_sec + u->ru_stime.tv_sec) * 1000000u +
         (uint64_t)(u->ru_utime.tv_usec + u->ru_stime.tv_usec);
}

/* Microseconds of CPU the whole process (all its threads) has used. */
static uint64_t process_cpu_us(void) {
  struct rusage u;

  ck_assert_int_eq(getrusage(RUSAGE_SELF, &u), 0);
  return rusage_cpu_us(&u);
}

/* Bind the calling thread to CPU cpu. */
static void pin_to_cpu(int cpu) {
  cpu_set_t set;

  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ck_assert_int_eq(pthread_setaffinity_np(pthread_self(), sizeof set, &set), 0);
}

/* Bind the calling thread to the first CPU of worker w: a host thread
 * there stands in for the worker while it waits, so it runs groups. */
static void pin_to_worker(fpar_runtime *rt, unsigned w) {
  char cpus[64];

  ck_assert_fpar_ok(fpar_runtime_worker_cpus(rt, w, cpus, sizeof cpus));
  pin_to_cpu(atoi(cpus));
}

/* ---- Kernels ------------------------------------------------------------- */

/* Work-item 1 reaches a barrier that work-item 0 returned without reaching:
 * FPAR_EDIVERGENCE. */
static void divergent_kernel(fpar_item *it, void *args) {
  (void)args;
  if (fpar_local_id(it, 0) == 1)
    fpar_barrier(it);
}

/* out[i] = a * i + b, the arguments by value. */
typedef struct axpb_args {
  uint64_t *out;
  uint64_t a, b;
} axpb_args;

FPAR_KERNEL(axpb, it, args) {
  const axpb_args *p = args;
  size_t i = fpar_global_id(it, 0);

  p->out[i] = p->a * i + p->b;
}

static void axpb_fn(fpar_item *it, void *args) {
  const axpb_args *p = args;
  size_t i = fpar_global_id(it, 0);

  p->out[i] = p->a * i + p->b;
}

/* Records where its arguments were: the pointer each call received. */
typedef struct where_args {
  _Atomic(const void *) *seen;
} where_args;

static void where_kernel(fpar_item *it, void *args) {
  const where_args *p = args;

  if (fpar_global_linear_id(it) == 0)
    atomic_store(p->seen, args);
}

/* One step of a[i] = 3 * a[i] + add, not atomically: the steps of all
 * host threads never overlap, so the result is exact. */
typedef struct step_args {
  uint64_t *a;
  uint64_t add;
} step_args;

FPAR_KERNEL(step, it, args) {
  const step_args *p = args;
  size_t i = fpar_global_id(it, 0);

  p->a[i] = p->a[i] * 3 + p->add;
}

/* Records in ran[group] which thread ran each group; the group that runs
 * on `host` diverges when `fail_on_host` is set, or overflows its stack
 * when `overflow_on_host` is. */
typedef struct host_probe {
  pthread_t host;
  atomic_int on_host;
  int fail_on_host, overflow_on_host;
} host_probe;

static void host_probe_kernel(fpar_item *it, void *args) {
  host_probe *p = args;
  volatile unsigned char seed[1] = {1};

  if (!pthread_equal(pthread_self(), p->host))
    return;
  if (fpar_local_id(it, 0) == 0)
    atomic_fetch_add(&p->on_host, 1);
  if (p->overflow_on_host && fpar_local_id(it, 0) == 3)
    (void)fpar_test_recurse_deep(seed, 1u << 20);
  if (p->fail_on_host && fpar_local_id(it, 0) == 1)
    fpar_barrier(it);
}

/* ---- A fault's message through fpar_queue_wait() ------------------------ */

START_TEST(test_queue_wait_gives_fault_message) {
  fpar_launch_desc d;
  fpar_test_env e;
  const char *msg;

  fpar_test_env_init(&e, 0);
  fpar_launch_desc_init(&d);
  d.name = "splits";
  d.kernel = divergent_kernel;
  d.global = fpar_range1(8);
  d.local = fpar_range1(4);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_EDIVERGENCE);
  msg = fpar_last_error();
  ck_assert_msg(strstr(msg, "kernel 'splits'") != NULL, "message: %s", msg);
  ck_assert_msg(strstr(msg, "work-group (") != NULL, "message: %s", msg);
  ck_assert_msg(strstr(msg, "work-item 0 returned") != NULL ||
                    strstr(msg, "work-item 1") != NULL,
                "message: %s", msg);
  /* Reported once; the queue stays usable. */
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  fpar_test_env_fini(&e);
}
END_TEST

/* Several failures before one wait: the first one's code and message. */
START_TEST(test_queue_wait_gives_first_fault) {
  fpar_launch_desc d;
  fpar_test_env e;
  uint64_t out[64];
  axpb_args a = {out, 2, 1};
  int k;

  fpar_test_env_init(&e, 0);
  fpar_launch_desc_init(&d);
  d.kernel = divergent_kernel;
  d.global = fpar_range1(4);
  d.local = fpar_range1(4);
  for (k = 0; k < 3; k++) {
    char name[16];
    snprintf(name, sizeof name, "fault%d", k);
    d.name = name;
    ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
    ck_assert_fpar_ok(fpar_parallel_for_by_value(
        e.q, fpar_range1(64), FPAR_LOCAL_AUTO, axpb_fn, &a, sizeof a, NULL));
  }
  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_EDIVERGENCE);
  ck_assert_msg(strstr(fpar_last_error(), "kernel 'fault0'") != NULL,
                "message: %s", fpar_last_error());
  for (k = 0; k < 64; k++)
    ck_assert_uint_eq(out[k], 2u * (unsigned)k + 1);
  fpar_test_env_fini(&e);
}
END_TEST

#if !FPAR_TEST_SANITIZED
/* A barrier kernel whose 4096-item groups need fibers the worker has no
 * room for: the address space is capped at what the process maps now, so
 * the stacks cannot be mapped.  The launch fails with
 * FPAR_ENOMEM, and fpar_queue_wait() says which kernel and group. */
static void barrier_kernel(fpar_item *it, void *args) {
  (void)args;
  fpar_barrier(it);
}

static size_t mapped_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  size_t pages = 0;

  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fscanf(f, "%zu", &pages), 1);
  fclose(f);
  return pages * (size_t)sysconf(_SC_PAGESIZE);
}

START_TEST(test_queue_wait_gives_out_of_memory_message) {
  fpar_runtime_opts o;
  fpar_launch_desc d;
  fpar_runtime *rt;
  fpar_queue *q;
  struct rlimit cap;
  int rc, k;

  fpar_runtime_opts_init(&o);
  o.num_threads = 1;
  o.max_group_size = 4096;
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(rt, 0, &q));
  fpar_launch_desc_init(&d);
  d.name = "needs_fibers";
  d.kernel = barrier_kernel;
  d.global = fpar_range1(4096);
  d.local = fpar_range1(4096);
  /* Warm the launch records up, then cap. */
  for (k = 0; k < 64; k++)
    ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(1), fpar_range1(1),
                                        divergent_kernel, NULL, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(q));
  cap.rlim_cur = cap.rlim_max = mapped_bytes();
  ck_assert_int_eq(setrlimit(RLIMIT_AS, &cap), 0);
  ck_assert_fpar_ok(fpar_launch(q, &d, NULL));
  rc = fpar_queue_wait(q);
  ck_assert_msg(rc == FPAR_ENOMEM, "fpar_queue_wait returned %s: %s",
                fpar_err_name(rc), fpar_last_error());
  ck_assert_msg(strstr(fpar_last_error(), "kernel 'needs_fibers'") != NULL &&
                    strstr(fpar_last_error(), "no memory") != NULL,
                "message: %s", fpar_last_error());
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}
END_TEST
#endif

/* ---- Arguments by value -------------------------------------------------- */

/* Submits with its arguments in its own frame, which is gone (and
 * overwritten) before the launch runs: the queue is held by a long launch
 * ahead of it. */
static __attribute__((noinline)) void
submit_from_frame(fpar_queue *q, uint64_t *out, uint64_t a) {
  axpb_args args = {out, a, 7};

  ck_assert_fpar_ok(fpar_parallel_for_kernel_by_value(
      q, fpar_range1(N), FPAR_LOCAL_AUTO, &axpb, &args, sizeof args, NULL));
  memset(&args, 0xff, sizeof args);
}

static __attribute__((noinline)) void scribble_stack(void) {
  volatile unsigned char junk[4096];

  memset((void *)junk, 0xa5, sizeof junk);
}

static void slow_kernel(fpar_item *it, void *args) {
  uint64_t until = *(const uint64_t *)args;

  (void)it;
  while (now_ns() < until)
    ;
}

START_TEST(test_by_value_outlives_frame) {
  uint64_t *out = calloc(N, sizeof *out), until;
  fpar_test_env e;
  size_t i;

  ck_assert_ptr_nonnull(out);
  fpar_test_env_init(&e, 0);
  until = now_ns() + 50000000u;
  ck_assert_fpar_ok(fpar_parallel_for_by_value(e.q, fpar_range1(1),
                                               fpar_range1(1), slow_kernel,
                                               &until, sizeof until, NULL));
  submit_from_frame(e.q, out, 5);
  scribble_stack();
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  for (i = 0; i < N; i++)
    ck_assert_uint_eq(out[i], 5 * i + 7);
  fpar_test_env_fini(&e);
  free(out);
}
END_TEST

/* 1000 queued launches, each with its own arguments from one local
 * variable, waited once: each launch saw its own. */
START_TEST(test_by_value_pipeline) {
  enum { STEPS = 1000, LEN = 256 };
  uint64_t *a = malloc(LEN * sizeof *a), v;
  fpar_test_env e;
  unsigned s;
  size_t i;

  ck_assert_ptr_nonnull(a);
  for (i = 0; i < LEN; i++)
    a[i] = i;
  fpar_test_env_init(&e, 0);
  for (s = 0; s < STEPS; s++) {
    step_args args = {a, s};
    ck_assert_fpar_ok(fpar_parallel_for_kernel_by_value(
        e.q, fpar_range1(LEN), fpar_range1(64), &step, &args, sizeof args,
        NULL));
  }
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  for (i = 0; i < LEN; i++) {
    for (v = i, s = 0; s < STEPS; s++)
      v = v * 3 + s;
    ck_assert_uint_eq(a[i], v);
  }
  fpar_test_env_fini(&e);
  free(a);
}
END_TEST

/* Launch where_kernel as d says, with w as its arguments, and return the
 * pointer its calls received. */
static const void *args_seen(fpar_queue *q, fpar_launch_desc *d,
                             where_args *w) {
  d->kernel = where_kernel;
  d->global = fpar_range1(64);
  d->args = w;
  atomic_store(w->seen, NULL);
  ck_assert_fpar_ok(fpar_launch(q, d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(q));
  return atomic_load(w->seen);
}

/* The copy is the launch's own, 64-byte aligned; with args_size 0 the
 * pointer is passed as given. */
START_TEST(test_by_value_copy_and_pointer) {
  _Atomic(const void *) seen;
  where_args w = {&seen};
  fpar_launch_desc d;
  fpar_test_env e;
  const void *p;

  fpar_test_env_init(&e, 0);
  fpar_launch_desc_init(&d);
  d.args_size = sizeof w;
  p = args_seen(e.q, &d, &w);
  ck_assert_ptr_ne(p, &w);
  ck_assert_uint_eq((uintptr_t)p % 64, 0);
  d.args_size = 0;
  ck_assert_ptr_eq(args_seen(e.q, &d, &w), &w);
  fpar_test_env_fini(&e);
}
END_TEST

/* A description from a program built before args_size existed (its size
 * ends before the member, whatever lies beyond): arguments by pointer. */
START_TEST(test_by_value_old_description) {
  _Atomic(const void *) seen;
  where_args w = {&seen};
  fpar_launch_desc d;
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  fpar_launch_desc_init(&d);
  d.size = offsetof(fpar_launch_desc, args_size);
  d.args_size = 99999; /* beyond the caller's struct: not read */
  ck_assert_ptr_eq(args_seen(e.q, &d, &w), &w);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_by_value_misuse) {
  char big[FPAR_MAX_ARGS_SIZE + 1] = {0};
  uint64_t out[64];
  axpb_args a = {out, 1, 0};
  fpar_launch_desc d;
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  ck_assert_fpar_err(fpar_parallel_for_by_value(e.q, fpar_range1(64),
                                                FPAR_LOCAL_AUTO, axpb_fn, big,
                                                sizeof big, NULL),
                     FPAR_EINVAL);
  ck_assert_msg(strstr(fpar_last_error(), "FPAR_MAX_ARGS_SIZE") != NULL,
                "message: %s", fpar_last_error());
  ck_assert_fpar_err(fpar_parallel_for_kernel_by_value(e.q, fpar_range1(64),
                                                       FPAR_LOCAL_AUTO, &axpb,
                                                       &a, 0, NULL),
                     FPAR_EINVAL);
  ck_assert_msg(strstr(fpar_last_error(), "args_size is 0") != NULL,
                "message: %s", fpar_last_error());
  fpar_launch_desc_init(&d);
  d.name = "nowhere";
  d.kernel = axpb_fn;
  d.global = fpar_range1(64);
  d.args_size = 8;
  ck_assert_fpar_err(fpar_launch(e.q, &d, NULL), FPAR_EINVAL);
  ck_assert_msg(strstr(fpar_last_error(), "'nowhere'") != NULL &&
                    strstr(fpar_last_error(), "args is NULL") != NULL,
                "message: %s", fpar_last_error());
  /* Exactly the limit is fine. */
  ck_assert_fpar_ok(fpar_parallel_for_by_value(e.q, fpar_range1(1),
                                               fpar_range1(1), divergent_kernel,
                                               big, FPAR_MAX_ARGS_SIZE, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Host threads that help ---------------------------------------------- */

/* Launch host_probe_kernel, waiting for each launch, until a group ran on
 * the calling thread (which stands in for worker 0), at most 1000 times.
 * Launches that ran no group there must succeed; returns the result of
 * the one that did, with its message in msg (empty without one). */
static int launch_until_on_host(fpar_queue *q, host_probe *p, char *msg,
                                size_t len) {
  int k;

  atomic_store(&p->on_host, 0);
  for (k = 0; k < 1000; k++) {
    fpar_event *ev;
    int rc;
    ck_assert_fpar_ok(fpar_parallel_for(
        q, fpar_range1(64 * 16), fpar_range1(64), host_probe_kernel, p, &ev));
    rc = fpar_event_wait(ev);
    if (atomic_load(&p->on_host) != 0) {
      snprintf(msg, len, "%s",
               fpar_event_error(ev) != NULL ? fpar_event_error(ev) : "");
      fpar_event_release(ev);
      return rc;
    }
    ck_assert_msg(rc == 0, "launch %d failed with %s", k, fpar_err_name(rc));
    fpar_event_release(ev);
  }
  ck_abort_msg("no group ran on the waiting host thread in 1000 launches");
  return 0;
}

START_TEST(test_host_runs_groups) {
  host_probe p = {pthread_self(), 0, 0, 0};
  fpar_test_env e;
  char msg[MSG_LEN];

  fpar_test_env_init(&e, 0);
  pin_to_worker(e.rt, 0);
  ck_assert_fpar_ok(launch_until_on_host(e.q, &p, msg, sizeof msg));
  fpar_test_env_fini(&e);
}
END_TEST

/* A group that diverges on the host: the event has the error and message,
 * and the runtime runs the next launches. */
START_TEST(test_host_fault_reaches_event) {
  host_probe p = {pthread_self(), 0, 1, 0};
  uint64_t out[N];
  axpb_args a = {out, 3, 4};
  char msg[MSG_LEN];
  fpar_test_env e;
  size_t i;

  fpar_test_env_init(&e, 0);
  pin_to_worker(e.rt, 0);
  ck_assert_int_eq(launch_until_on_host(e.q, &p, msg, sizeof msg),
                   FPAR_EDIVERGENCE);
  ck_assert_msg(strstr(msg, "work-item 1") != NULL, "message: %s", msg);
  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_EDIVERGENCE);
  ck_assert_fpar_ok(fpar_parallel_for_by_value(
      e.q, fpar_range1(N), FPAR_LOCAL_AUTO, axpb_fn, &a, sizeof a, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  for (i = 0; i < N; i++)
    ck_assert_uint_eq(out[i], 3 * i + 4);
  fpar_test_env_fini(&e);
}
END_TEST

#if !FPAR_TEST_TSAN
/* A group that overflows its fiber stack on the host: reported on the
 * alternate signal stack the library gave the host thread, which helps
 * again afterwards. */
START_TEST(test_host_stack_overflow_reaches_event) {
  host_probe p = {pthread_self(), 0, 0, 1};
  char msg[MSG_LEN];
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  pin_to_worker(e.rt, 0);
  ck_assert_int_eq(launch_until_on_host(e.q, &p, msg, sizeof msg),
                   FPAR_ESTACKOVERFLOW);
  ck_assert_msg(strstr(msg, "work-item 3") != NULL, "message: %s", msg);
  p.overflow_on_host = 0;
  ck_assert_fpar_ok(launch_until_on_host(e.q, &p, msg, sizeof msg));
  fpar_test_env_fini(&e);
}
END_TEST
#endif

/* Host threads that submit and wait at the same time, each pinned to a
 * worker's CPU so that all help. */
enum { HOSTS = 4, HOST_STEPS = 300, LEN = 512 };

typedef struct host_thread {
  fpar_runtime *rt;
  fpar_queue *q; /* shared, or NULL: one of its own */
  uint64_t *a;
  unsigned index;
} host_thread;

static void *host_main(void *arg) {
  host_thread *h = arg;
  fpar_queue *q = h->q;
  unsigned s;

  pin_to_worker(h->rt, h->index % fpar_runtime_num_threads(h->rt));
  if (q == NULL)
    ck_assert_fpar_ok(fpar_queue_create(h->rt, 0, &q));
  for (s = 0; s < HOST_STEPS; s++) {
    step_args args = {h->a, 1};
    fpar_event *ev = NULL;
    ck_assert_fpar_ok(fpar_parallel_for_kernel_by_value(
        q, fpar_range1(LEN), fpar_range1(32), &step, &args, sizeof args,
        s % 3 == 0 ? &ev : NULL));
    if (ev != NULL)
      fpar_test_wait_ok(ev);
    else if (s % 3 == 1)
      ck_assert_fpar_ok(fpar_queue_wait(q));
  }
  ck_assert_fpar_ok(fpar_queue_wait(q));
  if (h->q == NULL)
    ck_assert_fpar_ok(fpar_queue_destroy(q));
  return NULL;
}

/* All steps a[i] = 3 a[i] + 1 of all threads ran one after another: a[i]
 * is the fixed point of HOSTS * HOST_STEPS of them from 0. */
static void run_hosts(int shared_queue) {
  host_thread h[HOSTS];
  pthread_t t[HOSTS];
  uint64_t *a = calloc(LEN, sizeof *a), want = 0;
  fpar_test_env e;
  unsigned k;
  size_t i;

  ck_assert_ptr_nonnull(a);
  fpar_test_env_init(&e, 0);
  for (k = 0; k < HOSTS; k++) {
    h[k].rt = e.rt;
    h[k].q = shared_queue ? e.q : NULL;
    h[k].a = a;
    h[k].index = k;
    ck_assert_int_eq(pthread_create(&t[k], NULL, host_main, &h[k]), 0);
  }
  for (k = 0; k < HOSTS; k++)
    ck_assert_int_eq(pthread_join(t[k], NULL), 0);
  for (k = 0; k < HOSTS * HOST_STEPS; k++)
    want = want * 3 + 1;
  for (i = 0; i < LEN; i++)
    ck_assert_uint_eq(a[i], want);
  fpar_test_env_fini(&e);
  free(a);
}

START_TEST(test_hosts_help_one_queue) {
  run_hosts(1);
}
END_TEST

START_TEST(test_hosts_help_several_queues) {
  run_hosts(0);
}
END_TEST

/* Many short groups: workers take several positions of their chunk at a
 * time (and so does the waiting host thread), yet every group runs exactly
 * once, in every FIBERPAR_SCHEDULE order, launch after launch. */
#define SHORT_GROUPS 20000
static const char *const claim_schedules[] = {"forward", "reverse",
                                              "shuffle:7"};

static void count_group(fpar_item *it, void *p) {
  atomic_uint *runs = p;

  atomic_fetch_add_explicit(&runs[fpar_group_id(it, 0)], 1,
                            memory_order_relaxed);
}

START_TEST(test_short_groups_run_once) {
  atomic_uint *runs = calloc(SHORT_GROUPS, sizeof *runs);
  fpar_test_env e;
  size_t g;

  ck_assert_ptr_nonnull(runs);
  ck_assert_int_eq(setenv("FIBERPAR_SCHEDULE", claim_schedules[_i], 1), 0);
  fpar_test_env_init(&e, 2);
  for (int round = 1; round <= 5; round++) {
    ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(SHORT_GROUPS),
                                        fpar_range1(1), count_group, runs,
                                        NULL));
    ck_assert_fpar_ok(fpar_queue_wait(e.q));
    for (g = 0; g < SHORT_GROUPS; g++)
      ck_assert_msg(atomic_load(&runs[g]) == (unsigned)round,
                    "%s, launch %d: group %zu ran %u times, want %d",
                    claim_schedules[_i], round, g, atomic_load(&runs[g]),
                    round);
  }
  fpar_test_env_fini(&e);
  unsetenv("FIBERPAR_SCHEDULE");
  free(runs);
}
END_TEST

/* A thread held up in a group holds back at most the rest of the batch it
 * took that group in: the workers' batches grow over thousands of short
 * groups to at most 32 positions (sched/group/worker.c), so a group in the
 * middle that waits until all but 31 of the others have run sees them run
 * by the other worker and the waiting host, instead of waiting out its 10
 * seconds. */
#define HELD_GROUPS 20000
#define HELD_AT (HELD_GROUPS / 4)
#define HELD_BACK_MOST 31

typedef struct held_args {
  atomic_uint done; /* groups other than HELD_AT finished */
  atomic_uint saw;  /* what HELD_AT saw of done when it stopped waiting */
} held_args;

static void held_group(fpar_item *it, void *p) {
  held_args *a = p;
  const unsigned want = HELD_GROUPS - 1 - HELD_BACK_MOST;
  uint64_t end;

  if (fpar_group_id(it, 0) != HELD_AT) {
    atomic_fetch_add(&a->done, 1);
    return;
  }
  end = now_ns() + 10000000000u;
  do
    sched_yield();
  while (atomic_load(&a->done) < want && now_ns() < end);
  atomic_store(&a->saw, atomic_load(&a->done));
}

START_TEST(test_held_group_holds_back_little) {
  held_args a;
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  atomic_init(&a.done, 0);
  atomic_init(&a.saw, 0);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(HELD_GROUPS),
                                      fpar_range1(1), held_group, &a, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_msg(atomic_load(&a.saw) >= HELD_GROUPS - 1 - HELD_BACK_MOST,
                "the held group saw %u of the other %u groups run: its "
                "thread held back more than %u",
                atomic_load(&a.saw), HELD_GROUPS - 1, HELD_BACK_MOST);
  ck_assert_uint_eq(atomic_load(&a.done), HELD_GROUPS - 1);
  fpar_test_env_fini(&e);
}
END_TEST

/* Past the 2^20th launch, where the scheduler restamps the chunk words
 * (sched/base/group_claim.h): launches of 1, 2 and 3 groups, some of whose
 * chunks stay empty for a while, each group run exactly once.  Queued
 * 1024 at a time; about a second. */
#define RESTAMP_LAUNCHES ((1u << 20) + 3000u)

START_TEST(test_groups_once_across_restamps) {
  atomic_uint runs[3];
  unsigned k, want[3] = {0, 0, 0};
  fpar_test_env e;
  int g;

  for (g = 0; g < 3; g++)
    atomic_init(&runs[g], 0);
  fpar_test_env_init(&e, 0);
  for (k = 0; k < RESTAMP_LAUNCHES; k++) {
    unsigned groups = 1 + k % 3;
    ck_assert_fpar_ok(fpar_parallel_for(
        e.q, fpar_range1(groups), fpar_range1(1), count_group, runs, NULL));
    for (g = 0; g < (int)groups; g++)
      want[g]++;
    if (k % 1024 == 1023)
      ck_assert_fpar_ok(fpar_queue_wait(e.q));
  }
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  for (g = 0; g < 3; g++)
    ck_assert_uint_eq(atomic_load(&runs[g]), want[g]);
  fpar_test_env_fini(&e);
}
END_TEST

/* A launch submitted and waited inside a libuv callback, on the loop's
 * thread, which helps. */
typedef struct uv_launch {
  fpar_queue *q;
  uint64_t *out;
  int rc, rounds;
  uv_timer_t timer;
} uv_launch;

static void on_timer(uv_timer_t *t) {
  uv_launch *u = t->data;
  axpb_args a = {u->out, 9, (uint64_t)u->rounds};
  fpar_event *ev;

  if (u->rc == 0 && (u->rc = fpar_parallel_for_kernel_by_value(
                         u->q, fpar_range1(N), FPAR_LOCAL_AUTO, &axpb, &a,
                         sizeof a, &ev)) == 0) {
    u->rc = fpar_event_wait(ev);
    fpar_event_release(ev);
  }
  if (++u->rounds == 50 || u->rc != 0)
    uv_close((uv_handle_t *)t, NULL);
}

START_TEST(test_wait_in_uv_callback) {
  uv_launch u = {NULL, NULL, 0, 0, {0}};
  fpar_test_env e;
  uv_loop_t loop;
  size_t i;

  u.out = calloc(N, sizeof *u.out);
  ck_assert_ptr_nonnull(u.out);
  fpar_test_env_init(&e, 0);
  pin_to_worker(e.rt, 0);
  u.q = e.q;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  ck_assert_int_eq(uv_timer_init(&loop, &u.timer), 0);
  u.timer.data = &u;
  ck_assert_int_eq(uv_timer_start(&u.timer, on_timer, 0, 1), 0);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
  ck_assert_msg(u.rc == 0, "%s: %s", fpar_err_name(u.rc), fpar_last_error());
  ck_assert_int_eq(u.rounds, 50);
  for (i = 0; i < N; i++)
    ck_assert_uint_eq(u.out[i], 9 * i + 49);
  fpar_test_env_fini(&e);
  free(u.out);
}
END_TEST

/* ---- Idle workers -------------------------------------------------------- */

/* After the spin window (FIBERPAR_SPIN_US, 50 us by default) idle workers
 * sleep: the process then uses (almost) no CPU, though each of its workers
 * and its host thread spun while launches ran. */
START_TEST(test_idle_workers_use_no_cpu) {
  uint64_t out[N], cpu0, t0, cpu, wall;
  axpb_args a = {out, 1, 1};
  fpar_test_env e;
  int k;

  fpar_test_env_init(&e, 0);
  for (k = 0; k < 200; k++)
    ck_assert_fpar_ok(fpar_parallel_for_by_value(
        e.q, fpar_range1(N), FPAR_LOCAL_AUTO, axpb_fn, &a, sizeof a, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  usleep(20000); /* well past the spin window */
  cpu0 = process_cpu_us();
  t0 = now_ns();
  usleep(300000);
  cpu = process_cpu_us() - cpu0;
  wall = (now_ns() - t0) / 1000;
  printf("idle: %llu us of CPU in %llu us with %u workers\n",
         (unsigned long long)cpu, (unsigned long long)wall,
         fpar_runtime_num_threads(e.rt));
  /* A worker that kept spinning would use all of the wall time.  Under
   * TSan (racecheck: a TSan fiber per work-item) the idle process was
   * measured at 0.6 to 8 ms of CPU in 300 ms here, from run to run. */
  ck_assert_msg(cpu * (FPAR_TEST_TSAN ? 10 : 50) < wall,
                "idle workers used %llu us of CPU in %llu us",
                (unsigned long long)cpu, (unsigned long long)wall);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- A host thread on a CPU of no worker ------------------------------- */

/* Work-item 0 keeps its CPU busy for args->us microseconds. */
typedef struct busy_args {
  unsigned us;
} busy_args;

static void busy_fn(fpar_item *it, void *args) {
  const busy_args *a = args;
  uint64_t end;

  if (fpar_global_linear_id(it) != 0)
    return;
  end = now_ns() + (uint64_t)a->us * 1000u;
  while (now_ns() < end)
    ;
}

/* One worker on the process's first CPU, the calling thread bound to its
 * second: the host thread then only waits, on a CPU of its own.  Returns
 * 0 (nothing made) when the process has a single CPU. */
static int host_beside_worker(fpar_runtime **rt, fpar_queue **q) {
  fpar_runtime_opts o;
  cpu_set_t set;
  char first[16];
  int c, cpus[2], n = 0;

  ck_assert_int_eq(sched_getaffinity(0, sizeof set, &set), 0);
  for (c = 0; c < CPU_SETSIZE && n < 2; c++)
    if (CPU_ISSET(c, &set))
      cpus[n++] = c;
  if (n < 2)
    return 0;
  snprintf(first, sizeof first, "%d", cpus[0]);
  fpar_runtime_opts_init(&o);
  o.num_threads = 1;
  o.places = first;
  ck_assert_fpar_ok(fpar_runtime_create(rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(*rt, 0, q));
  pin_to_cpu(cpus[1]);
  return 1;
}

/* The calling thread's blocking waits (voluntary context switches) and
 * microseconds of CPU. */
static void thread_usage(uint64_t *blocks, uint64_t *cpu_us) {
  struct rusage u;

  ck_assert_int_eq(getrusage(RUSAGE_THREAD, &u), 0);
  *blocks = (uint64_t)u.ru_nvcsw;
  *cpu_us = rusage_cpu_us(&u);
}

/* Time steps of 300 us, waited one by one, longer than the spin window
 * (50 us): a host thread on a CPU of its own spins through most of them
 * instead of sleeping and being woken at each step's end.  On a machine
 * too busy to run the steps near their 300 us, what the waits do says
 * nothing of the rule, and the test only reports it. */
START_TEST(test_host_beside_worker_spins_through_steps) {
  busy_args a = {300};
  fpar_runtime *rt;
  fpar_queue *q;
  uint64_t blocks0 = 0, blocks, cpu, t0 = 0, step_us;
  int k;

  if (!host_beside_worker(&rt, &q))
    return;
  for (k = 0; k < 100; k++) {
    if (k == 20) {
      thread_usage(&blocks0, &cpu);
      t0 = now_ns();
    }
    ck_assert_fpar_ok(fpar_parallel_for_by_value(
        q, fpar_range1(64), fpar_range1(64), busy_fn, &a, sizeof a, NULL));
    ck_assert_fpar_ok(fpar_queue_wait(q));
  }
  step_us = (now_ns() - t0) / 80000u;
  thread_usage(&blocks, &cpu);
  printf("host beside its worker: %llu of 80 waits slept, %llu us a step\n",
         (unsigned long long)(blocks - blocks0), (unsigned long long)step_us);
  /* Each wait slept before: 80 of 80 here; 0 or 1 since. */
  if (step_us < 2 * a.us)
    ck_assert_msg((blocks - blocks0) * 4 < 80,
                  "%llu of 80 waits of 300 us slept",
                  (unsigned long long)(blocks - blocks0));
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}
END_TEST

/* Launches of 100 ms: the same host thread spins no longer than the spin
 * window, then sleeps. */
START_TEST(test_host_beside_worker_sleeps_in_long_waits) {
  busy_args a = {100000};
  fpar_runtime *rt;
  fpar_queue *q;
  uint64_t blocks, cpu0, cpu;
  int k;

  if (!host_beside_worker(&rt, &q))
    return;
  for (k = 0; k < 4; k++) {
    if (k == 1)
      thread_usage(&blocks, &cpu0);
    ck_assert_fpar_ok(fpar_parallel_for_by_value(
        q, fpar_range1(64), fpar_range1(64), busy_fn, &a, sizeof a, NULL));
    ck_assert_fpar_ok(fpar_queue_wait(q));
  }
  thread_usage(&blocks, &cpu);
  printf("host beside its worker: %llu us of CPU in 3 waits of 100 ms\n",
         (unsigned long long)(cpu - cpu0));
  ck_assert_msg(cpu - cpu0 < 30000,
                "the host used %llu us of CPU in 3 waits of 100 ms",
                (unsigned long long)(cpu - cpu0));
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}
END_TEST

/* ---- A host thread that completes what it helped ------------------------ */

/* Group 1 keeps its thread busy for `us` microseconds, group 0 for 10 ms
 * (long enough for the other worker, even asleep, to have taken group 1
 * when it ends); each group notes the thread that ran it. */
typedef struct handback_args {
  unsigned us;
  pthread_t ran[2];
} handback_args;

static void handback_fn(fpar_item *it, void *args) {
  handback_args *a = args;
  uint64_t end;

  if (fpar_local_id(it, 0) != 0)
    return;
  a->ran[fpar_group_id(it, 0)] = pthread_self();
  end = now_ns() + (fpar_group_id(it, 0) == 0 ? 10000u : a->us) * 1000u;
  while (now_ns() < end)
    ;
}

/* A host thread that ran group 0 takes the launch's completion over and
 * spins for its budget while the other worker runs group 1 for 100 ms;
 * then it hands the completion back and sleeps: the worker completes the
 * launch and wakes it.  The wait returns once group 1 is done, having
 * used little of the host's CPU beyond group 0's 10 ms; spinning through
 * the wait, it would use most of the 100.  When the threads took other
 * groups (a worker ran group 0, or the host took group 1 too), the launch
 * is only checked; under TSan the CPU time is only reported (its spin
 * steps are slow enough to count as descheduled time, so the spin budget
 * stretches, as it does on a loaded machine). */
START_TEST(test_host_hands_completion_back) {
  handback_args a = {100000, {0, 0}};
  fpar_test_env e;
  fpar_event *ev;
  uint64_t t0, wall, cpu0, cpu, blocks;
  int k;

  fpar_test_env_init(&e, 0);
  if (fpar_runtime_num_threads(e.rt) < 2) {
    fpar_test_env_fini(&e);
    return;
  }
  pin_to_worker(e.rt, 0);
  for (k = 0; k < 3; k++) {
    thread_usage(&blocks, &cpu0);
    t0 = now_ns();
    ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(128), fpar_range1(64),
                                        handback_fn, &a, &ev));
    ck_assert_fpar_ok(fpar_event_wait(ev));
    wall = now_ns() - t0;
    thread_usage(&blocks, &cpu);
    ck_assert_int_eq(fpar_test_state(ev), FPAR_COMPLETE);
    fpar_event_release(ev);
    ck_assert_uint_ge(wall, (uint64_t)a.us * 1000u);
    if (pthread_equal(a.ran[0], pthread_self()) &&
        !pthread_equal(a.ran[1], pthread_self())) {
      printf("host handed back: %llu us of CPU in a wait of %llu us\n",
             (unsigned long long)(cpu - cpu0),
             (unsigned long long)(wall / 1000u));
      ck_assert_msg(FPAR_TEST_TSAN || cpu - cpu0 < 30000,
                    "the host used %llu us of CPU in a wait of 100 ms",
                    (unsigned long long)(cpu - cpu0));
    }
  }
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *launch_path_suite(void) {
  Suite *s = suite_create("launch_path");
  TCase *tc;

  tc = fpar_test_case("fault_messages");
  tcase_add_test(tc, test_queue_wait_gives_fault_message);
  tcase_add_test(tc, test_queue_wait_gives_first_fault);
#if !FPAR_TEST_SANITIZED
  tcase_add_test(tc, test_queue_wait_gives_out_of_memory_message);
#endif
  suite_add_tcase(s, tc);

  tc = fpar_test_case("by_value");
  tcase_add_test(tc, test_by_value_outlives_frame);
  tcase_add_test(tc, test_by_value_pipeline);
  tcase_add_test(tc, test_by_value_copy_and_pointer);
  tcase_add_test(tc, test_by_value_old_description);
  tcase_add_test(tc, test_by_value_misuse);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("helping");
  tcase_add_test(tc, test_host_runs_groups);
  tcase_add_test(tc, test_host_fault_reaches_event);
#if !FPAR_TEST_TSAN
  tcase_add_test(tc, test_host_stack_overflow_reaches_event);
#endif
  tcase_add_test(tc, test_hosts_help_one_queue);
  tcase_add_test(tc, test_hosts_help_several_queues);
  tcase_add_test(tc, test_wait_in_uv_callback);
  tcase_add_loop_test(tc, test_short_groups_run_once, 0,
                      (int)(sizeof claim_schedules / sizeof *claim_schedules));
  tcase_add_test(tc, test_held_group_holds_back_little);
#if !FPAR_TEST_SANITIZED
  tcase_add_test(tc, test_groups_once_across_restamps);
#endif
  suite_add_tcase(s, tc);

  tc = fpar_test_case("idle");
  tcase_add_test(tc, test_idle_workers_use_no_cpu);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("host_beside_worker");
  tcase_add_test(tc, test_host_beside_worker_spins_through_steps);
  tcase_add_test(tc, test_host_beside_worker_sleeps_in_long_waits);
  tcase_add_test(tc, test_host_hands_completion_back);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(launch_path_suite());
}
