/* SPDX-License-Identifier: MIT */
/* test_queue.c - in-order queues, events, profiling, fault reporting,
 * concurrent submission from host threads, and libuv notification. */
#include <fiberpar/uv.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

/* How long a gated kernel or a waiting test gives up after. */
#define GATE_TIMEOUT_NS 20000000000ull

#define N 1024

static uint64_t now_ns(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_ms(unsigned ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};

  nanosleep(&t, NULL);
}

/* ---- Kernels ------------------------------------------------------------- */

/* out[i] = 3 * i + 1. */
static void fill_kernel(fpar_item *it, void *args) {
  uint64_t *out = args;
  size_t i = fpar_global_id(it, 0);

  out[i] = 3 * (uint64_t)i + 1;
}

static void check_fill(const uint64_t *out, size_t n) {
  size_t i;

  for (i = 0; i < n; i++)
    ck_assert_uint_eq(out[i], 3 * (uint64_t)i + 1);
}

/* a[i] += 1, not atomically: correct only if launches never overlap. */
static void increment_kernel(fpar_item *it, void *args) {
  uint64_t *a = args;

  a[fpar_global_id(it, 0)] += 1;
}

/* One step of a[i] = a[i] * 3 + add; the result depends on the order of
 * the steps.  shared, when set, is incremented without atomics. */
typedef struct affine_step {
  uint64_t *a;
  uint64_t add;
  uint64_t *shared;
} affine_step;

static void affine_step_kernel(fpar_item *it, void *args) {
  const affine_step *s = args;
  size_t i = fpar_global_id(it, 0);

  s->a[i] = s->a[i] * 3 + s->add;
  if (s->shared != NULL)
    s->shared[i] += 1;
}

/* The value a[i] = i reaches after steps 1..n of affine_step_kernel with
 * add = first, first + 1, ... */
static uint64_t affine_expected(size_t i, unsigned n, uint64_t first) {
  uint64_t v = i;
  unsigned k;

  for (k = 0; k < n; k++)
    v = v * 3 + first + k;
  return v;
}

/* Work-item 1 reaches a barrier that work-item 0 returned without reaching:
 * FPAR_EDIVERGENCE. */
static void divergent_kernel(fpar_item *it, void *args) {
  (void)args;
  if (fpar_local_id(it, 0) == 1)
    fpar_barrier(it);
}

/* Asks for a local buffer the launch does not have: FPAR_ELOCALBUF. */
static void missing_buffer_kernel(fpar_item *it, void *args) {
  (void)args;
  *(volatile char *)fpar_local_buffer(it, 0) = 1;
}

/* A kernel that holds its worker until the test opens the gate.  It gives
 * up after GATE_TIMEOUT_NS so that a broken test cannot hang.  Both sides
 * yield the CPU while they poll: under Valgrind, which runs one thread at
 * a time, a thread that only polls can hold the others off for seconds,
 * past the timeout (seen on an AMD EPYC guest). */
typedef struct gate {
  atomic_int entered;
  atomic_int open;
  atomic_int finished;
  atomic_int timed_out;
} gate;

static void gate_init(gate *g) {
  atomic_init(&g->entered, 0);
  atomic_init(&g->open, 0);
  atomic_init(&g->finished, 0);
  atomic_init(&g->timed_out, 0);
}

static void gate_kernel(fpar_item *it, void *args) {
  gate *g = args;
  uint64_t deadline = now_ns() + GATE_TIMEOUT_NS;

  (void)it;
  atomic_store(&g->entered, 1);
  while (!atomic_load(&g->open)) {
    if (now_ns() > deadline) {
      atomic_store(&g->timed_out, 1);
      break;
    }
    sched_yield();
  }
  atomic_store(&g->finished, 1);
}

/* Submit gate_kernel as a single work-item. */
static void submit_gate(fpar_queue *q, gate *g, fpar_event **ev) {
  ck_assert_fpar_ok(
      fpar_parallel_for(q, fpar_range1(1), fpar_range1(1), gate_kernel, g, ev));
}

/* Spin until the gated kernel is running; 0 if it never started. */
static int gate_entered_in_time(gate *g) {
  uint64_t deadline = now_ns() + GATE_TIMEOUT_NS;

  while (!atomic_load(&g->entered)) {
    if (now_ns() > deadline)
      return 0;
    sched_yield();
  }
  return 1;
}

/* Block until the gated kernel is running. */
static void wait_gate_entered(gate *g) {
  ck_assert_msg(gate_entered_in_time(g), "the gated kernel never started");
}

/* ---- Queue creation ------------------------------------------------------ */

START_TEST(test_queue_create_rejects_bad_arguments) {
  fpar_queue *sentinel = (fpar_queue *)&sentinel, *q = sentinel;
  fpar_runtime *rt;

  ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
  ck_assert_fpar_err(fpar_queue_create(rt, 1, &q), FPAR_EINVAL);
  ck_assert_fpar_err(fpar_queue_create(rt, 0x80, &q), FPAR_EINVAL);
  ck_assert_fpar_err(fpar_queue_create(rt, ~0u, &q), FPAR_EINVAL);
  ck_assert_fpar_err(fpar_queue_create(NULL, 0, &q), FPAR_EINVAL);
  ck_assert_ptr_eq(q, sentinel);
  ck_assert_fpar_err(fpar_queue_create(rt, 0, NULL), FPAR_EINVAL);
  /* None of the failures left a queue behind. */
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

/* Event calls with NULL arguments refuse clearly. */
START_TEST(test_event_calls_reject_null) {
  fpar_event_state state = FPAR_QUEUED;
  uint64_t out[16];
  fpar_event *ev;
  fpar_test_env e;

  ck_assert_fpar_err(fpar_event_wait(NULL), FPAR_EINVAL);
  ck_assert_fpar_err(fpar_event_result(NULL), FPAR_EINVAL);
  ck_assert_fpar_err(fpar_event_status(NULL, &state), FPAR_EINVAL);
  ck_assert_int_eq(state, FPAR_QUEUED);
  ck_assert_ptr_null(fpar_event_error(NULL));
  fpar_event_release(NULL);
  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(16), fpar_range1(16),
                                      fill_kernel, out, &ev));
  ck_assert_fpar_err(fpar_event_status(ev, NULL), FPAR_EINVAL);
  ck_assert_fpar_ok(fpar_event_wait(ev));
  ck_assert_int_eq(fpar_event_result(ev), 0);
  ck_assert_int_eq(fpar_test_state(ev), FPAR_COMPLETE);
  fpar_event_release(ev);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_queue_create_in_order_flag) {
  uint64_t out[N] = {0};
  fpar_runtime *rt;
  fpar_queue *q;

  ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
  ck_assert_fpar_ok(fpar_queue_create(rt, FPAR_QUEUE_IN_ORDER, &q));
  ck_assert_fpar_ok(fpar_queue_wait(q)); /* nothing submitted yet */
  ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(N), fpar_range1(16),
                                      fill_kernel, out, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(q));
  check_fill(out, N);
  fpar_queue_destroy(q);
  fpar_queue_destroy(NULL);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

START_TEST(test_queue_wait_null) {
  ck_assert_fpar_err(fpar_queue_wait(NULL), FPAR_EINVAL);
}
END_TEST

/* Opens a gate after a delay, from another thread (which must not use
 * ck_assert; a gate that never started is caught by the main thread). */
static void *open_gate_later(void *arg) {
  gate *g = arg;

  if (gate_entered_in_time(g))
    sleep_ms(50);
  atomic_store(&g->open, 1);
  return NULL;
}

START_TEST(test_queue_destroy_waits_for_work) {
  uint64_t out[N] = {0};
  fpar_runtime *rt;
  fpar_queue *q;
  pthread_t t;
  gate g;

  gate_init(&g);
  ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
  ck_assert_fpar_ok(fpar_queue_create(rt, 0, &q));
  submit_gate(q, &g, NULL);
  ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(N), fpar_range1(16),
                                      fill_kernel, out, NULL));
  ck_assert_int_eq(pthread_create(&t, NULL, open_gate_later, &g), 0);
  fpar_queue_destroy(q);
  /* Both launches finished before the queue went away. */
  ck_assert_int_eq(atomic_load(&g.finished), 1);
  check_fill(out, N);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  ck_assert_int_eq(atomic_load(&g.timed_out), 0);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

/* ---- Events -------------------------------------------------------------- */

START_TEST(test_event_wait_completes) {
  uint64_t out[N] = {0};
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 0);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N), fpar_range1(32),
                                      fill_kernel, out, &ev));
  ck_assert_fpar_ok(fpar_event_wait(ev));
  ck_assert_int_eq(fpar_test_state(ev), FPAR_COMPLETE);
  ck_assert_ptr_null(fpar_event_error(ev));
  check_fill(out, N);
  /* Waiting again is harmless. */
  ck_assert_fpar_ok(fpar_event_wait(ev));
  fpar_event_release(ev);
  fpar_event_release(NULL);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_event_status_queued_and_running) {
  uint64_t out[N] = {0};
  fpar_event *slow, *behind;
  uint64_t t;
  fpar_test_env e;
  size_t i;
  gate g;
  fpar_event_state s;

  gate_init(&g);
  fpar_test_env_init(&e, 0);
  submit_gate(e.q, &g, &slow);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N), fpar_range1(32),
                                      fill_kernel, out, &behind));
  wait_gate_entered(&g);

  ck_assert_int_eq(fpar_test_state(slow), FPAR_RUNNING);
  ck_assert_int_eq(fpar_event_result(slow), FPAR_EBUSY);
  s = fpar_test_state(behind);
  ck_assert_msg(s == FPAR_QUEUED || s == FPAR_RUNNING,
                "a launch behind a running one has status %d", s);
  ck_assert_ptr_null(fpar_event_error(slow));
  ck_assert_ptr_null(fpar_event_error(behind));
  ck_assert_fpar_err(fpar_event_profile(slow, &t, &t, &t), FPAR_EINVAL);
  ck_assert_fpar_err(fpar_event_profile(behind, &t, &t, &t), FPAR_EINVAL);
  /* In order: nothing of the second launch has run yet. */
  for (i = 0; i < N; i++)
    ck_assert_uint_eq(out[i], 0);

  atomic_store(&g.open, 1);
  ck_assert_fpar_ok(fpar_event_wait(behind));
  /* The first launch finished before the second. */
  ck_assert_int_eq(fpar_test_state(slow), FPAR_COMPLETE);
  ck_assert_int_eq(fpar_test_state(behind), FPAR_COMPLETE);
  ck_assert_int_eq(atomic_load(&g.timed_out), 0);
  check_fill(out, N);
  fpar_event_release(slow);
  fpar_event_release(behind);
  fpar_test_env_fini(&e);
}
END_TEST

/* A single work-item that takes about 20 ms, asleep. */
static void slow_kernel(fpar_item *it, void *args) {
  (void)it, (void)args;
  sleep_ms(20);
}

/* A host thread asleep in fpar_event_wait on a launch in the middle of a
 * queue wakes when that launch completes, not when the queue drains (a
 * completion wakes sleeping waiters only if it may end a wait): here the
 * queue cannot drain before the wait returns, since a gate behind the
 * launch waited for is opened only then.  Waits spin for 1 us, so the
 * host sleeps through the slow launches unless it runs them itself. */
START_TEST(test_event_wait_mid_queue) {
  uint64_t out[N] = {0};
  fpar_runtime_opts o;
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *mid, *last;
  gate g;
  int k;

  gate_init(&g);
  fpar_runtime_opts_init(&o);
  o.spin_us = 1;
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(rt, 0, &q));
  ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(1), fpar_range1(1),
                                      slow_kernel, NULL, NULL));
  for (k = 0; k < 8; k++)
    ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(N), fpar_range1(32),
                                        increment_kernel, out, NULL));
  ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(1), fpar_range1(1),
                                      slow_kernel, NULL, &mid));
  submit_gate(q, &g, NULL);
  ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(N), fpar_range1(32),
                                      increment_kernel, out, &last));

  ck_assert_fpar_ok(fpar_event_wait(mid));
  ck_assert_int_eq(fpar_test_state(mid), FPAR_COMPLETE);
  ck_assert_int_ne(fpar_test_state(last), FPAR_COMPLETE);
  ck_assert_uint_eq(out[0], 8);
  atomic_store(&g.open, 1);
  ck_assert_fpar_ok(fpar_queue_wait(q));
  ck_assert_int_eq(atomic_load(&g.timed_out), 0);
  ck_assert_int_eq(fpar_test_state(last), FPAR_COMPLETE);
  for (k = 0; k < N; k++)
    ck_assert_uint_eq(out[k], 9);
  fpar_event_release(mid);
  fpar_event_release(last);
  fpar_queue_destroy(q);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

START_TEST(test_in_order_launches_see_previous_writes) {
  enum { LAUNCHES = 200 };
  uint64_t *a = malloc(N * sizeof *a);
  affine_step steps[LAUNCHES];
  fpar_test_env e;
  size_t i;
  unsigned k;

  ck_assert_ptr_nonnull(a);
  for (i = 0; i < N; i++)
    a[i] = i;
  fpar_test_env_init(&e, 0);
  for (k = 0; k < LAUNCHES; k++) {
    steps[k] = (affine_step){a, k + 1, NULL};
    ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N),
                                        fpar_range1(k % 2 ? 64 : 8),
                                        affine_step_kernel, &steps[k], NULL));
  }
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  for (i = 0; i < N; i++)
    ck_assert_uint_eq(a[i], affine_expected(i, LAUNCHES, 1));
  fpar_test_env_fini(&e);
  free(a);
}
END_TEST

START_TEST(test_event_profile) {
  uint64_t before, after, submit, start, end, submit2, start2, end2;
  uint64_t out[N] = {0};
  fpar_event *slow, *next;
  fpar_test_env e;
  gate g;

  gate_init(&g);
  fpar_test_env_init(&e, 0);
  before = now_ns();
  submit_gate(e.q, &g, &slow);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N), fpar_range1(32),
                                      fill_kernel, out, &next));
  wait_gate_entered(&g);
  sleep_ms(20);
  atomic_store(&g.open, 1);
  ck_assert_fpar_ok(fpar_event_wait(slow));
  ck_assert_fpar_ok(fpar_event_wait(next));
  after = now_ns();

  ck_assert_fpar_ok(fpar_event_profile(slow, &submit, &start, &end));
  ck_assert_uint_le(before, submit);
  ck_assert_uint_le(submit, start);
  ck_assert_uint_le(start, end);
  ck_assert_uint_le(end, after);
  /* The gated kernel ran for at least the 20 ms the test held it. */
  ck_assert_uint_ge(end - start, 20000000u);

  ck_assert_fpar_ok(fpar_event_profile(next, &submit2, &start2, &end2));
  ck_assert_uint_le(submit, submit2);
  ck_assert_uint_le(submit2, start2);
  ck_assert_uint_le(start2, end2);
  ck_assert_uint_le(end2, after);
  /* In order: the second launch started after the first ended. */
  ck_assert_uint_ge(start2, end);
  check_fill(out, N);
  fpar_event_release(slow);
  fpar_event_release(next);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_events_released_before_completion) {
  uint64_t out[N] = {0};
  uint64_t counts[8] = {0};
  fpar_event *slow, *behind, *ev;
  fpar_test_env e;
  size_t i;
  gate g;

  gate_init(&g);
  fpar_test_env_init(&e, 0);
  submit_gate(e.q, &g, &slow);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N), fpar_range1(32),
                                      fill_kernel, out, &behind));
  wait_gate_entered(&g);
  /* One released while running, one while queued. */
  fpar_event_release(slow);
  fpar_event_release(behind);
  atomic_store(&g.open, 1);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_int_eq(atomic_load(&g.finished), 1);
  check_fill(out, N);

  /* Many released right after submission, whatever state they are in. */
  for (i = 0; i < 1000; i++) {
    ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(8), fpar_range1(4),
                                        increment_kernel, counts, &ev));
    fpar_event_release(ev);
  }
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  for (i = 0; i < 8; i++)
    ck_assert_uint_eq(counts[i], 1000);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_many_tiny_launches) {
  enum { LAUNCHES = 10000, ITEMS = 8 };
  uint64_t counts[ITEMS] = {0};
  fpar_test_env e;
  fpar_event *ev;
  unsigned k;
  size_t i;

  fpar_test_env_init(&e, 0);
  for (k = 0; k < LAUNCHES; k++) {
    /* Every 500th launch is waited for through its event. */
    int keep = k % 500 == 499;
    ck_assert_fpar_ok(
        fpar_parallel_for(e.q, fpar_range1(ITEMS), fpar_range1(k % 3 ? 4 : 2),
                          increment_kernel, counts, keep ? &ev : NULL));
    if (keep) {
      ck_assert_fpar_ok(fpar_event_wait(ev));
      ck_assert_int_eq(fpar_test_state(ev), FPAR_COMPLETE);
      fpar_event_release(ev);
      /* Every earlier launch has run, and none after this one was
       * submitted yet. */
      for (i = 0; i < ITEMS; i++)
        ck_assert_uint_eq(counts[i], k + 1);
    }
  }
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  for (i = 0; i < ITEMS; i++)
    ck_assert_uint_eq(counts[i], LAUNCHES);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Faults -------------------------------------------------------------- */

START_TEST(test_queue_wait_reports_fault_once) {
  uint64_t out[N] = {0};
  uint64_t t0, t1, t2;
  fpar_test_env e;
  fpar_event *ev;
  const char *msg;

  fpar_test_env_init(&e, 0);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(2), fpar_range1(2),
                                      divergent_kernel, NULL, &ev));
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N), fpar_range1(32),
                                      fill_kernel, out, NULL));
  ck_assert_fpar_err(fpar_event_wait(ev), FPAR_EDIVERGENCE);
  ck_assert_int_eq(fpar_event_result(ev), FPAR_EDIVERGENCE);
  ck_assert_int_eq(fpar_test_state(ev), FPAR_FAILED);
  msg = fpar_event_error(ev);
  ck_assert_ptr_nonnull(msg);
  ck_assert_str_ne(msg, "");
  /* A failed launch has finished, so it has timestamps. */
  ck_assert_fpar_ok(fpar_event_profile(ev, &t0, &t1, &t2));
  ck_assert_uint_le(t0, t1);
  ck_assert_uint_le(t1, t2);
  fpar_event_release(ev);

  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_EDIVERGENCE);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  /* The launch behind the faulted one ran. */
  check_fill(out, N);

  /* The queue is still usable. */
  memset(out, 0, sizeof out);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N), fpar_range1(64),
                                      fill_kernel, out, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  check_fill(out, N);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_queue_wait_reports_first_fault) {
  uint64_t out[N] = {0};
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(4), fpar_range1(2),
                                      divergent_kernel, NULL, NULL));
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N), fpar_range1(32),
                                      fill_kernel, out, NULL));
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(4), fpar_range1(4),
                                      missing_buffer_kernel, NULL, NULL));
  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_EDIVERGENCE);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  check_fill(out, N);

  /* After a wait, the next fault is reported afresh. */
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(4), fpar_range1(4),
                                      missing_buffer_kernel, NULL, NULL));
  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_ELOCALBUF);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Concurrent submission ----------------------------------------------- */

#define THREAD_LAUNCHES 300

/* What one host thread submits: THREAD_LAUNCHES affine steps on its own
 * array a, with adds first, first + 1, ... */
typedef struct submitter {
  fpar_queue *q;
  uint64_t a[N];
  uint64_t first;
  affine_step steps[THREAD_LAUNCHES];
  uint64_t *shared;
  int submit_err; /* first failed submission, or 0 */
  int event_err;  /* first failed event wait or bad status, or 0 */
  int wait_err;   /* fpar_queue_wait's result */
} submitter;

static void *submit_steps(void *arg) {
  submitter *s = arg;
  fpar_event *ev;
  unsigned k;
  int rc;

  for (k = 0; k < THREAD_LAUNCHES; k++) {
    int keep = k % 50 == 49;
    s->steps[k] = (affine_step){s->a, s->first + k, s->shared};
    rc = fpar_parallel_for(s->q, fpar_range1(N), fpar_range1(k % 2 ? 32 : 16),
                           affine_step_kernel, &s->steps[k], keep ? &ev : NULL);
    if (rc != 0) {
      if (s->submit_err == 0)
        s->submit_err = rc;
      continue;
    }
    if (keep) {
      rc = fpar_event_wait(ev);
      if (rc == 0 && fpar_event_result(ev) != 0)
        rc = FPAR_EINVAL;
      if (rc != 0 && s->event_err == 0)
        s->event_err = rc;
      fpar_event_release(ev);
    }
  }
  s->wait_err = fpar_queue_wait(s->q);
  return NULL;
}

/* Run two submitters at once and check both. */
static void run_two_submitters(submitter *s) {
  pthread_t t[2];
  size_t i;
  int j;

  for (j = 0; j < 2; j++) {
    for (i = 0; i < N; i++)
      s[j].a[i] = i;
    s[j].first = 1 + 1000 * (uint64_t)j;
    s[j].submit_err = s[j].event_err = s[j].wait_err = 0;
  }
  for (j = 0; j < 2; j++)
    ck_assert_int_eq(pthread_create(&t[j], NULL, submit_steps, &s[j]), 0);
  for (j = 0; j < 2; j++)
    ck_assert_int_eq(pthread_join(t[j], NULL), 0);
  for (j = 0; j < 2; j++) {
    ck_assert_fpar_ok(s[j].submit_err);
    ck_assert_fpar_ok(s[j].event_err);
    ck_assert_fpar_ok(s[j].wait_err);
    for (i = 0; i < N; i++)
      ck_assert_uint_eq(s[j].a[i],
                        affine_expected(i, THREAD_LAUNCHES, s[j].first));
  }
}

START_TEST(test_two_threads_own_queues) {
  submitter *s = calloc(2, sizeof *s);
  fpar_runtime *rt;

  ck_assert_ptr_nonnull(s);
  ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
  ck_assert_fpar_ok(fpar_queue_create(rt, 0, &s[0].q));
  ck_assert_fpar_ok(fpar_queue_create(rt, 0, &s[1].q));
  run_two_submitters(s);
  fpar_queue_destroy(s[0].q);
  fpar_queue_destroy(s[1].q);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  free(s);
}
END_TEST

START_TEST(test_two_threads_shared_queue) {
  submitter *s = calloc(2, sizeof *s);
  uint64_t *shared = calloc(N, sizeof *shared);
  fpar_test_env e;
  size_t i;

  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(shared);
  fpar_test_env_init(&e, 0);
  s[0].q = s[1].q = e.q;
  /* Launches of one queue never overlap, so the plain increments of both
   * threads' launches add up exactly. */
  s[0].shared = s[1].shared = shared;
  run_two_submitters(s);
  for (i = 0; i < N; i++)
    ck_assert_uint_eq(shared[i], 2 * THREAD_LAUNCHES);
  fpar_test_env_fini(&e);
  free(shared);
  free(s);
}
END_TEST

/* ---- libuv notification -------------------------------------------------- */

/* A uv_async_t to be notified, and a timer that stops the loop if it is
 * not. */
typedef struct notify_state {
  uv_loop_t loop;
  uv_async_t async;
  uv_timer_t guard;
  fpar_event *ev; /* queried by the callback unless NULL */
  gate *g;        /* checked by the callback unless NULL */
  int calls;
  int status;        /* fpar_event_result() seen by the callback */
  int had_error;     /* fpar_event_error() was non-NULL in the callback */
  int gate_finished; /* the gated kernel had finished */
  int timed_out;
} notify_state;

static void close_notify_handles(notify_state *s) {
  if (!uv_is_closing((uv_handle_t *)&s->async))
    uv_close((uv_handle_t *)&s->async, NULL);
  if (!uv_is_closing((uv_handle_t *)&s->guard))
    uv_close((uv_handle_t *)&s->guard, NULL);
}

static void on_notify(uv_async_t *async) {
  notify_state *s = async->data;

  s->calls++;
  if (s->ev != NULL) {
    s->status = fpar_event_result(s->ev);
    s->had_error = fpar_event_error(s->ev) != NULL;
  }
  if (s->g != NULL)
    s->gate_finished = atomic_load(&s->g->finished);
  close_notify_handles(s);
}

static void on_guard_timeout(uv_timer_t *t) {
  notify_state *s = t->data;

  s->timed_out = 1;
  close_notify_handles(s);
}

static void notify_init(notify_state *s) {
  memset(s, 0, sizeof *s);
  s->status = -1000;
  ck_assert_int_eq(uv_loop_init(&s->loop), 0);
  ck_assert_int_eq(uv_async_init(&s->loop, &s->async, on_notify), 0);
  ck_assert_int_eq(uv_timer_init(&s->loop, &s->guard), 0);
  s->async.data = s;
  s->guard.data = s;
}

/* Run the loop until the callback has run once (or the guard fires). */
static void notify_run(notify_state *s) {
  ck_assert_int_eq(uv_timer_start(&s->guard, on_guard_timeout, 20000, 0), 0);
  uv_run(&s->loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(s->timed_out, 0);
  ck_assert_int_eq(s->calls, 1);
  ck_assert_int_eq(uv_loop_close(&s->loop), 0);
}

START_TEST(test_notify_after_launch_completes) {
  notify_state s;
  fpar_test_env e;
  fpar_event *ev;
  gate g;
  int i;

  gate_init(&g);
  notify_init(&s);
  fpar_test_env_init(&e, 0);
  submit_gate(e.q, &g, &ev);
  s.ev = ev;
  s.g = &g;
  ck_assert_fpar_ok(fpar_event_notify(ev, &s.async));
  wait_gate_entered(&g);
  /* Nothing arrives while the launch runs. */
  for (i = 0; i < 5; i++) {
    uv_run(&s.loop, UV_RUN_NOWAIT);
    sleep_ms(2);
  }
  ck_assert_int_eq(s.calls, 0);
  atomic_store(&g.open, 1);
  notify_run(&s);
  ck_assert_int_eq(s.status, 0);
  ck_assert_int_eq(s.had_error, 0);
  ck_assert_int_eq(s.gate_finished, 1);
  fpar_event_release(ev);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_notify_registered_after_completion) {
  uint64_t out[N] = {0};
  notify_state s;
  fpar_test_env e;
  fpar_event *ev;

  notify_init(&s);
  fpar_test_env_init(&e, 0);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N), fpar_range1(32),
                                      fill_kernel, out, &ev));
  ck_assert_fpar_ok(fpar_event_wait(ev));
  s.ev = ev;
  ck_assert_fpar_ok(fpar_event_notify(ev, &s.async));
  notify_run(&s);
  ck_assert_int_eq(s.status, 0);
  check_fill(out, N);
  fpar_event_release(ev);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_notify_second_registration_busy) {
  uv_async_t other;
  notify_state s;
  fpar_test_env e;
  fpar_event *ev;
  gate g;

  gate_init(&g);
  notify_init(&s);
  ck_assert_int_eq(uv_async_init(&s.loop, &other, on_notify), 0);
  other.data = &s;
  fpar_test_env_init(&e, 0);
  submit_gate(e.q, &g, &ev);
  s.ev = ev;
  ck_assert_fpar_ok(fpar_event_notify(ev, &s.async));
  ck_assert_fpar_err(fpar_event_notify(ev, &other), FPAR_EBUSY);
  ck_assert_fpar_err(fpar_event_notify(ev, &s.async), FPAR_EBUSY);
  ck_assert_fpar_err(fpar_event_notify(ev, NULL), FPAR_EINVAL);
  ck_assert_fpar_err(fpar_event_notify(NULL, &other), FPAR_EINVAL);
  uv_close((uv_handle_t *)&other, NULL);
  atomic_store(&g.open, 1);
  /* Only the first handle is notified, once; the other was closed without
   * a callback (a call through it would count twice). */
  notify_run(&s);
  ck_assert_int_eq(s.status, 0);
  fpar_event_release(ev);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_notify_failed_launch) {
  notify_state s;
  fpar_test_env e;
  fpar_event *ev;

  notify_init(&s);
  fpar_test_env_init(&e, 0);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(2), fpar_range1(2),
                                      divergent_kernel, NULL, &ev));
  s.ev = ev;
  ck_assert_fpar_ok(fpar_event_notify(ev, &s.async));
  notify_run(&s);
  ck_assert_int_eq(s.status, FPAR_EDIVERGENCE);
  ck_assert_int_eq(s.had_error, 1);
  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_EDIVERGENCE);
  fpar_event_release(ev);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_notify_survives_event_release) {
  notify_state s;
  fpar_test_env e;
  fpar_event *ev;
  gate g;

  gate_init(&g);
  notify_init(&s);
  fpar_test_env_init(&e, 0);
  submit_gate(e.q, &g, &ev);
  s.g = &g;
  ck_assert_fpar_ok(fpar_event_notify(ev, &s.async));
  /* The handle, not the event, is what the completion signals. */
  fpar_event_release(ev);
  atomic_store(&g.open, 1);
  notify_run(&s);
  ck_assert_int_eq(s.gate_finished, 1);
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *queue_suite(void) {
  Suite *s = suite_create("queue");
  TCase *tc;

  tc = fpar_test_case("create");
  tcase_add_test(tc, test_queue_create_rejects_bad_arguments);
  tcase_add_test(tc, test_queue_create_in_order_flag);
  tcase_add_test(tc, test_event_calls_reject_null);
  tcase_add_test(tc, test_queue_wait_null);
  tcase_add_test(tc, test_queue_destroy_waits_for_work);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("events");
  tcase_add_test(tc, test_event_wait_completes);
  tcase_add_test(tc, test_event_status_queued_and_running);
  tcase_add_test(tc, test_event_wait_mid_queue);
  tcase_add_test(tc, test_in_order_launches_see_previous_writes);
  tcase_add_test(tc, test_event_profile);
  tcase_add_test(tc, test_events_released_before_completion);
  tcase_add_test(tc, test_many_tiny_launches);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("faults");
  tcase_add_test(tc, test_queue_wait_reports_fault_once);
  tcase_add_test(tc, test_queue_wait_reports_first_fault);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("threads");
  tcase_add_test(tc, test_two_threads_own_queues);
  tcase_add_test(tc, test_two_threads_shared_queue);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("uv");
  tcase_add_test(tc, test_notify_after_launch_completes);
  tcase_add_test(tc, test_notify_registered_after_completion);
  tcase_add_test(tc, test_notify_second_registration_busy);
  tcase_add_test(tc, test_notify_failed_launch);
  tcase_add_test(tc, test_notify_survives_event_release);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(queue_suite());
}
