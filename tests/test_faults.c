/* SPDX-License-Identifier: MIT */
/* test_faults.c - kernels that break the rules: barrier divergence,
 * mismatched barriers, fiber stack overflow, local memory misuse.
 *
 * Each fault must end its launch with the documented code and a message
 * that names the kernel and the work-group, never hang or crash the
 * process, and leave the queue and every worker able to run the next
 * launch correctly.  Also built against the ucontext switch
 * (tests/test_faults_ucontext).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

/* Work-items per group in the faulting launches. */
#define FAULT_GROUP 8

typedef struct fault_args {
  size_t depth;     /* recursion depth that overflows a fiber stack */
  size_t arena;     /* bytes of a worker's local-memory arena */
  size_t bad_group; /* the group that faults, in multi-group launches */
  uint64_t *out;    /* per work-item, for the groups that behave */
} fault_args;

/* Arguments of a launch that faults, filled from the runtime's limits. */
static fault_args fault_args_for(const fpar_test_env *e, uint64_t *out) {
  fault_args a;

  a.depth = 2 * fpar_runtime_stack_size(e->rt) / 1024 + 16;
  a.arena = fpar_runtime_local_mem_size(e->rt);
  a.bad_group = 0;
  a.out = out;
  return a;
}

/* A launch description with the test's usual shape: one group of
 * FAULT_GROUP work-items unless the caller changes it. */
static fpar_launch_desc fault_desc(const char *name, fpar_kernel_fn kernel,
                                   fault_args *args) {
  fpar_launch_desc d;

  fpar_launch_desc_init(&d);
  d.name = name;
  d.kernel = kernel;
  d.args = args;
  d.global = fpar_range1(FAULT_GROUP);
  d.local = fpar_range1(FAULT_GROUP);
  return d;
}

/* Run d and check that it fails with code, and that its message names the
 * kernel, a work-group and each string of the NULL-terminated list
 * details. */
static void expect_fault(fpar_test_env *e, const fpar_launch_desc *d, int code,
                         const char *const *details) {
  fpar_event *ev = NULL;
  const char *msg;
  int rc;

  ck_assert_fpar_ok(fpar_launch(e->q, d, &ev));
  rc = fpar_event_wait(ev);
  msg = fpar_event_error(ev);
  ck_assert_msg(rc == code, "kernel '%s' ended with %s, expected %s (%s)",
                d->name, fpar_err_name(rc), fpar_err_name(code),
                msg != NULL ? msg : "no message");
  ck_assert_int_eq(fpar_event_result(ev), code);
  ck_assert_int_eq(fpar_test_state(ev), FPAR_FAILED);
  ck_assert_ptr_nonnull(msg);
  ck_assert_msg(strstr(msg, d->name) != NULL,
                "the message does not name kernel '%s': %s", d->name, msg);
  ck_assert_msg(strstr(msg, "work-group (") != NULL,
                "the message does not name the work-group: %s", msg);
  for (; details != NULL && *details != NULL; details++)
    ck_assert_msg(strstr(msg, *details) != NULL,
                  "the message does not mention \"%s\": %s", *details, msg);
  fpar_event_release(ev);
}

/* ---- A launch that must work after a fault ----------------------------- */

#define GOOD_GROUP 16
#define GOOD_GROUPS 32
#define GOOD_N (GOOD_GROUP * GOOD_GROUPS)

typedef struct good_args {
  const uint64_t *in;
  uint64_t *out;
  atomic_uintptr_t first_thread; /* the first worker to run a group */
  atomic_int other_thread;       /* a group ran on a different worker */
  int want_two_workers;
} good_args;

static uint64_t good_input(size_t i) {
  return i * 0x9e3779b97f4a7c15u + 1;
}

static uint64_t now_ms(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Before the group starts, note which worker runs it; with two workers,
 * the first group of each waits (up to 10 s) until a group has run on the
 * other, so that both take part (yielding its core meanwhile, or under
 * Valgrind the other worker may never start).  Then reverse the group's
 * values through group-local memory. */
static void good_reverse_kernel(fpar_item *it, void *p) {
  good_args *a = p;
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0);
  size_t gid = fpar_global_id(it, 0);
  uint64_t *tmp;

  if (lid == 0) {
    uintptr_t self = (uintptr_t)pthread_self(), first = 0;
    if (!atomic_compare_exchange_strong(&a->first_thread, &first, self) &&
        first != self)
      atomic_store(&a->other_thread, 1);
    if (a->want_two_workers) {
      uint64_t deadline = now_ms() + 10000;
      while (!atomic_load(&a->other_thread) && now_ms() < deadline)
        sched_yield();
    }
  }
  tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);
  tmp[lid] = a->in[gid];
  fpar_barrier(it);
  a->out[gid] = tmp[n - 1 - lid];
}

/* Run a correct barrier kernel on e's queue and check every result, and
 * (with two or more workers) that two workers ran its groups. */
static void check_queue_still_works(fpar_test_env *e) {
  uint64_t in[GOOD_N], out[GOOD_N];
  good_args a;
  fpar_event *ev = NULL;
  const char *msg;
  size_t i;
  int rc;

  for (i = 0; i < GOOD_N; i++) {
    in[i] = good_input(i);
    out[i] = 0;
  }
  a.in = in;
  a.out = out;
  atomic_init(&a.first_thread, 0);
  atomic_init(&a.other_thread, 0);
  a.want_two_workers = fpar_runtime_num_threads(e->rt) >= 2;
  ck_assert_fpar_ok(fpar_parallel_for(e->q, fpar_range1(GOOD_N),
                                      fpar_range1(GOOD_GROUP),
                                      good_reverse_kernel, &a, &ev));
  rc = fpar_event_wait(ev);
  msg = fpar_event_error(ev);
  ck_assert_msg(rc == 0, "the launch after a fault failed with %s: %s",
                fpar_err_name(rc), msg != NULL ? msg : "no message");
  fpar_event_release(ev);
  for (i = 0; i < GOOD_N; i++) {
    size_t base = i / GOOD_GROUP * GOOD_GROUP;
    ck_assert_msg(out[i] == in[base + GOOD_GROUP - 1 - (i - base)],
                  "work-item %zu is wrong in the launch after a fault", i);
  }
  if (a.want_two_workers)
    ck_assert_msg(atomic_load(&a.other_thread),
                  "only one worker ran groups after the fault");
}

/* ---- Barrier divergence -------------------------------------------------- */

/* Work-item 0 returns at once; the others wait at a barrier. */
static void item0_skips_barrier_kernel(fpar_item *it, void *p) {
  (void)p;
  if (fpar_local_linear_id(it) != 0)
    fpar_barrier(it);
}

/* Work-item 5 returns while the others wait at a barrier. */
static void item5_returns_early_kernel(fpar_item *it, void *p) {
  fault_args *a = p;
  size_t lid = fpar_local_linear_id(it);

  if (lid == 5)
    return;
  fpar_barrier(it);
  a->out[lid] = lid;
}

/* Odd and even work-items wait at two different barriers. */
static void parity_barriers_kernel(fpar_item *it, void *p) {
  fault_args *a = p;
  size_t lid = fpar_local_linear_id(it);

  if (lid % 2) {
    a->out[lid] = 1;
    fpar_barrier(it);
    a->out[lid] += 10;
  } else {
    a->out[lid] = 2;
    fpar_barrier(it);
    a->out[lid] *= 20;
  }
}

START_TEST(test_item0_returns_others_wait) {
  uint64_t out[FAULT_GROUP];
  fpar_test_env e;
  fault_args a;
  fpar_launch_desc d;

  fpar_test_env_init(&e, 2);
  a = fault_args_for(&e, out);
  d = fault_desc("item0_skips_barrier", item0_skips_barrier_kernel, &a);
  expect_fault(&e, &d, FPAR_EDIVERGENCE,
               (const char *[]){"work-group (0,0,0)", "work-item 0", NULL});
  check_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_item5_returns_others_wait) {
  uint64_t out[FAULT_GROUP];
  fpar_test_env e;
  fault_args a;
  fpar_launch_desc d;

  fpar_test_env_init(&e, 2);
  a = fault_args_for(&e, out);
  d = fault_desc("item5_returns_early", item5_returns_early_kernel, &a);
  expect_fault(&e, &d, FPAR_EDIVERGENCE, (const char *[]){"work-item 5", NULL});
  check_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_items_at_different_barriers) {
  uint64_t out[FAULT_GROUP];
  fpar_test_env e;
  fault_args a;
  fpar_launch_desc d;

  fpar_test_env_init(&e, 2);
  a = fault_args_for(&e, out);
  d = fault_desc("parity_barriers", parity_barriers_kernel, &a);
  expect_fault(&e, &d, FPAR_EBARRIER, (const char *[]){"work-item 1", NULL});
  check_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Stack overflow ------------------------------------------------------ */

/* Work-item 0 overflows before any barrier, on the stack the group starts
 * on. */
static void item0_overflows_kernel(fpar_item *it, void *p) {
  fault_args *a = p;
  volatile unsigned char seed = 1;

  if (fpar_local_linear_id(it) == 0)
    a->out[0] = fpar_test_recurse_deep(&seed, a->depth);
}

/* Work-item 3 overflows in a kernel without barriers. */
static void item3_overflows_kernel(fpar_item *it, void *p) {
  fault_args *a = p;
  volatile unsigned char seed = 1;

  if (fpar_local_linear_id(it) == 3)
    a->out[3] = fpar_test_recurse_deep(&seed, a->depth);
}

/* Work-item 5 overflows its own fiber stack, after a barrier. */
static void item5_overflows_after_barrier_kernel(fpar_item *it, void *p) {
  fault_args *a = p;
  volatile unsigned char seed = 1;

  fpar_barrier(it);
  if (fpar_local_linear_id(it) == 5)
    a->out[5] = fpar_test_recurse_deep(&seed, a->depth);
}

/* A launch whose kernel overflows its stack fails with
 * FPAR_ESTACKOVERFLOW, names the knob and the work-item, and leaves the
 * queue working. */
static void expect_stack_overflow(const char *name, fpar_kernel_fn kernel,
                                  const char *item) {
  uint64_t out[FAULT_GROUP];
  fpar_test_env e;
  fault_args a;
  fpar_launch_desc d;

  fpar_test_env_init(&e, 2);
  a = fault_args_for(&e, out);
  d = fault_desc(name, kernel, &a);
  expect_fault(&e, &d, FPAR_ESTACKOVERFLOW,
               (const char *[]){"FIBERPAR_STACK_SIZE", item, NULL});
  check_queue_still_works(&e);
  fpar_test_env_fini(&e);
}

START_TEST(test_stack_overflow_in_item0) {
  expect_stack_overflow("item0_overflows", item0_overflows_kernel,
                        "work-item 0");
}
END_TEST

START_TEST(test_stack_overflow_without_barrier_names_item) {
  expect_stack_overflow("item3_overflows", item3_overflows_kernel,
                        "work-item 3");
}
END_TEST

START_TEST(test_stack_overflow_in_later_item) {
  expect_stack_overflow("item5_overflows_after_barrier",
                        item5_overflows_after_barrier_kernel, "work-item 5");
}
END_TEST

/* ---- Local memory misuse ------------------------------------------------- */

/* Asks for twice the arena. */
static void oversized_object_kernel(fpar_item *it, void *p) {
  fault_args *a = p;
  unsigned char *obj = fpar_group_local_memory(it, 2 * a->arena, 0);

  obj[0] = 1;
}

/* Work-item 3 asks for a bigger object 0 than the others. */
static void disagreeing_object_kernel(fpar_item *it, void *p) {
  size_t lid = fpar_local_linear_id(it);
  unsigned char *obj = fpar_group_local_memory(it, lid == 3 ? 72 : 64, 0);

  (void)p;
  obj[lid] = 1;
}

/* Asks for launch-time local buffer 3 of a launch that has none. */
static void missing_local_buffer_kernel(fpar_item *it, void *p) {
  unsigned char *buf = fpar_local_buffer(it, 3);

  (void)p;
  buf[0] = 1;
}

START_TEST(test_group_local_object_over_arena) {
  uint64_t out[FAULT_GROUP];
  fpar_test_env e;
  fault_args a;
  fpar_launch_desc d;

  fpar_test_env_init(&e, 2);
  a = fault_args_for(&e, out);
  d = fault_desc("oversized_object", oversized_object_kernel, &a);
  expect_fault(&e, &d, FPAR_ELOCALMEM,
               (const char *[]){"FIBERPAR_LOCAL_MEM_SIZE", NULL});
  check_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_group_local_size_disagreement) {
  uint64_t out[FAULT_GROUP];
  fpar_test_env e;
  fault_args a;
  fpar_launch_desc d;

  fpar_test_env_init(&e, 2);
  a = fault_args_for(&e, out);
  d = fault_desc("disagreeing_object", disagreeing_object_kernel, &a);
  expect_fault(&e, &d, FPAR_EGROUPLOCAL, (const char *[]){"work-item 3", NULL});
  check_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_missing_local_buffer) {
  uint64_t out[FAULT_GROUP];
  fpar_test_env e;
  fault_args a;
  fpar_launch_desc d;

  fpar_test_env_init(&e, 2);
  a = fault_args_for(&e, out);
  d = fault_desc("missing_local_buffer", missing_local_buffer_kernel, &a);
  expect_fault(&e, &d, FPAR_ELOCALBUF, NULL);
  check_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

/* Launch-time local buffers too big for the arena are refused by
 * fpar_launch itself: nothing runs and no event is returned. */
START_TEST(test_local_buffers_over_arena) {
  uint64_t out[FAULT_GROUP];
  fpar_test_env e;
  fault_args a;
  fpar_launch_desc d;
  fpar_local_buffer_desc fixed, per_item;
  fpar_event *ev = NULL;

  fpar_test_env_init(&e, 2);
  a = fault_args_for(&e, out);
  memset(&fixed, 0, sizeof fixed);
  fixed.bytes = 2 * a.arena;
  memset(&per_item, 0, sizeof per_item);
  per_item.bytes_per_item = a.arena / 4; /* 2 arenas for 8 work-items */
  d = fault_desc("huge_local_buffer", missing_local_buffer_kernel, &a);
  d.local_buffers = &fixed;
  d.num_local_buffers = 1;
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_ELOCALMEM);
  ck_assert_ptr_null(ev);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "FIBERPAR_LOCAL_MEM_SIZE"));
  d.local_buffers = &per_item;
  ck_assert_fpar_err(fpar_launch(e.q, &d, &ev), FPAR_ELOCALMEM);
  ck_assert_ptr_null(ev);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "FIBERPAR_LOCAL_MEM_SIZE"));
  check_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- A fault among good groups ------------------------------------------- */

/* Group bad_group diverges (its work-item 0 skips the barrier); every other
 * group reverses its values through group-local memory. */
static void one_bad_group_kernel(fpar_item *it, void *p) {
  fault_args *a = p;
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0);
  size_t gid = fpar_global_id(it, 0);
  uint64_t *tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);

  if (fpar_group_id(it, 0) == a->bad_group && lid == 0)
    return;
  tmp[lid] = good_input(gid);
  fpar_barrier(it);
  a->out[gid] = tmp[n - 1 - lid];
}

START_TEST(test_fault_in_one_group_of_many) {
  enum { GROUPS = 16, N = GROUPS * FAULT_GROUP };
  uint64_t out[N];
  fpar_test_env e;
  fault_args a;
  fpar_launch_desc d;

  fpar_test_env_init(&e, 2);
  a = fault_args_for(&e, out);
  a.bad_group = 3;
  d = fault_desc("one_bad_group", one_bad_group_kernel, &a);
  d.global = fpar_range1(N);
  expect_fault(&e, &d, FPAR_EDIVERGENCE,
               (const char *[]){"work-group (3,0,0)", NULL});
  /* The queue reports the failure once, then is clean again. */
  ck_assert_fpar_err(fpar_queue_wait(e.q), FPAR_EDIVERGENCE);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  check_queue_still_works(&e);
  fpar_test_env_fini(&e);
}
END_TEST

/* Groups bad_group, bad_group + 3, ... diverge; the others reverse their
 * values as one_bad_group_kernel's do. */
static void every_third_group_kernel(fpar_item *it, void *p) {
  fault_args *a = p;
  size_t g = fpar_group_id(it, 0);

  if (g >= a->bad_group && (g - a->bad_group) % 3 == 0 &&
      fpar_local_id(it, 0) == 0)
    return;
  one_bad_group_kernel(it, p);
}

static const char *const fault_schedules[] = {"forward", "reverse",
                                              "shuffle:3"};

/* Of many groups that fault, on two workers and the waiting host thread,
 * in any FIBERPAR_SCHEDULE order, the launch reports the lowest, every
 * time: a message that changes from run to run would send its reader
 * after the wrong group. */
START_TEST(test_lowest_faulting_group_reported) {
  enum { GROUPS = 64, N = GROUPS * FAULT_GROUP, ROUNDS = 40 };
  uint64_t *out = malloc(N * sizeof *out);
  fpar_test_env e;
  fault_args a;
  fpar_launch_desc d;

  ck_assert_int_eq(setenv("FIBERPAR_SCHEDULE", fault_schedules[_i], 1), 0);
  fpar_test_env_init(&e, 2);
  a = fault_args_for(&e, out);
  a.bad_group = 5;
  d = fault_desc("every_third_group", every_third_group_kernel, &a);
  d.global = fpar_range1(N);
  for (int round = 0; round < ROUNDS; round++)
    expect_fault(&e, &d, FPAR_EDIVERGENCE,
                 (const char *[]){"work-group (5,0,0)", NULL});
  check_queue_still_works(&e);
  fpar_test_env_fini(&e);
  unsetenv("FIBERPAR_SCHEDULE");
  free(out);
}
END_TEST

/* ---- Many faults --------------------------------------------------------- */

START_TEST(test_repeated_faults) {
  enum { ROUNDS = 50 };
  static const struct {
    const char *name;
    fpar_kernel_fn kernel;
    int code;
  } faults[] = {
      {"item0_skips_barrier", item0_skips_barrier_kernel, FPAR_EDIVERGENCE},
      {"item5_returns_early", item5_returns_early_kernel, FPAR_EDIVERGENCE},
      {"parity_barriers", parity_barriers_kernel, FPAR_EBARRIER},
      {"item5_overflows_after_barrier", item5_overflows_after_barrier_kernel,
       FPAR_ESTACKOVERFLOW},
      {"disagreeing_object", disagreeing_object_kernel, FPAR_EGROUPLOCAL},
      {"missing_local_buffer", missing_local_buffer_kernel, FPAR_ELOCALBUF},
  };
  uint64_t out[FAULT_GROUP];
  fpar_test_env e;
  fault_args a;
  size_t round;

  fpar_test_env_init(&e, 2);
  a = fault_args_for(&e, out);
  for (round = 0; round < ROUNDS; round++) {
    size_t k = round % (sizeof faults / sizeof faults[0]);
    fpar_launch_desc d = fault_desc(faults[k].name, faults[k].kernel, &a);
    expect_fault(&e, &d, faults[k].code, NULL);
    check_queue_still_works(&e);
  }
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *faults_suite(void) {
  Suite *s = suite_create("faults");
  TCase *tc;

  tc = fpar_test_case("divergence");
  tcase_add_test(tc, test_item0_returns_others_wait);
  tcase_add_test(tc, test_item5_returns_others_wait);
  tcase_add_test(tc, test_items_at_different_barriers);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("stack_overflow");
  tcase_add_test(tc, test_stack_overflow_in_item0);
  tcase_add_test(tc, test_stack_overflow_without_barrier_names_item);
  tcase_add_test(tc, test_stack_overflow_in_later_item);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("local_memory");
  tcase_add_test(tc, test_group_local_object_over_arena);
  tcase_add_test(tc, test_group_local_size_disagreement);
  tcase_add_test(tc, test_missing_local_buffer);
  tcase_add_test(tc, test_local_buffers_over_arena);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("recovery");
  tcase_add_test(tc, test_fault_in_one_group_of_many);
  tcase_add_loop_test(tc, test_lowest_faulting_group_reported, 0,
                      sizeof fault_schedules / sizeof *fault_schedules);
  tcase_add_test(tc, test_repeated_faults);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(faults_suite());
}
