/* SPDX-License-Identifier: MIT */
/* test_runtime.c - runtime options, FIBERPAR_* environment variables, and
 * the runtime's life cycle.
 *
 * Every test runs in its own forked process, so a test may set environment
 * variables freely; each still unsets what it set before it ends. */
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "testutil.h"

#define KIB ((size_t)1024)
#define MIB (1024 * KIB)

#define FILL_N 4096

/* Assert that haystack contains needle, printing both otherwise. */
#define ck_assert_contains(haystack, needle)                                   \
  ck_assert_msg(strstr((haystack), (needle)) != NULL,                          \
                "\"%s\" does not contain \"%s\"", (haystack), (needle))

static uint64_t now_ns(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ---- Kernels ------------------------------------------------------------- */

/* out[i] = 3 * i + 1. */
static void fill_kernel(fpar_item *it, void *args) {
  uint64_t *out = args;
  size_t i = fpar_global_id(it, 0);

  out[i] = 3 * (uint64_t)i + 1;
}

/* Work-groups that wait for each other, to count how many run at once. */
typedef struct concurrency_probe {
  atomic_uint inside;    /* groups in the kernel now */
  atomic_uint peak;      /* most groups ever in the kernel at once */
  atomic_uint arrived;   /* groups that have entered the kernel so far */
  atomic_uint timed_out; /* groups that gave up waiting */
  unsigned target;       /* wait until this many have arrived */
  uint64_t wait_ns;      /* or until this much time has passed */
} concurrency_probe;

/* One work-item per group: enter, wait until probe->target groups have
 * arrived (or the time runs out), leave.  A worker runs one group at a
 * time, so without a timeout all target groups were inside together, which
 * takes at least target workers.  The wait yields its core: with more
 * workers than cores, and under Valgrind (which runs one thread at a time
 * and hands its lock unfairly), a group that only spins can keep the
 * others from ever starting. */
static void rendezvous_kernel(fpar_item *it, void *args) {
  concurrency_probe *p = args;
  unsigned now = atomic_fetch_add(&p->inside, 1) + 1;
  unsigned peak = atomic_load(&p->peak);
  uint64_t deadline = now_ns() + p->wait_ns;

  (void)it;
  while (now > peak && !atomic_compare_exchange_weak(&p->peak, &peak, now))
    ;
  atomic_fetch_add(&p->arrived, 1);
  while (atomic_load(&p->arrived) < p->target) {
    if (now_ns() > deadline) {
      atomic_fetch_add(&p->timed_out, 1);
      break;
    }
    sched_yield();
  }
  atomic_fetch_sub(&p->inside, 1);
}

/* ---- Helpers ------------------------------------------------------------- */

/* Run fill_kernel over FILL_N items on a fresh queue of rt and check every
 * result. */
static void check_runtime_runs_kernels(fpar_runtime *rt) {
  uint64_t *out = calloc(FILL_N, sizeof *out);
  fpar_queue *q;
  size_t i;

  ck_assert_ptr_nonnull(out);
  ck_assert_fpar_ok(fpar_queue_create(rt, 0, &q));
  ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(FILL_N), fpar_range1(64),
                                      fill_kernel, out, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(q));
  fpar_queue_destroy(q);
  for (i = 0; i < FILL_N; i++)
    ck_assert_uint_eq(out[i], 3 * (uint64_t)i + 1);
  free(out);
}

/* Run one launch of `groups` single-item groups of rendezvous_kernel on
 * the workers alone: the test polls the event (fpar_test_poll()), since a
 * thread that waits in fpar_queue_wait() would run groups too. */
static void run_probe(fpar_queue *q, concurrency_probe *p, unsigned groups,
                      unsigned target, uint64_t wait_ns) {
  fpar_event *ev;

  atomic_init(&p->inside, 0);
  atomic_init(&p->peak, 0);
  atomic_init(&p->arrived, 0);
  atomic_init(&p->timed_out, 0);
  p->target = target;
  p->wait_ns = wait_ns;
  ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(groups), fpar_range1(1),
                                      rendezvous_kernel, p, &ev));
  ck_assert_int_eq(fpar_test_poll(ev), FPAR_COMPLETE);
  fpar_event_release(ev);
}

/* Assert that rt has exactly n workers that run work-groups at the same
 * time: n groups can all be inside a kernel at once, n + 1 cannot. */
static void check_concurrent_workers(fpar_runtime *rt, unsigned n) {
  concurrency_probe p;
  fpar_queue *q;

  ck_assert_uint_eq(fpar_runtime_num_threads(rt), n);
  ck_assert_fpar_ok(fpar_queue_create(rt, 0, &q));
  run_probe(q, &p, n, n, 20000000000ull);
  ck_assert_msg(atomic_load(&p.timed_out) == 0,
                "%u groups never ran at the same time on %u workers", n, n);
  ck_assert_uint_eq(atomic_load(&p.peak), n);

  run_probe(q, &p, n + 1, n + 1, 50000000ull);
  ck_assert_uint_le(atomic_load(&p.peak), n);
  fpar_queue_destroy(q);
}

/* Number of processors online; an upper bound for a default worker count. */
static unsigned online_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);

  return n > 0 ? (unsigned)n : 1;
}

/* fpar_runtime_create must fail with want, leaving *rt alone. */
static void check_create_fails(const fpar_runtime_opts *opts, int want) {
  fpar_runtime *sentinel = (fpar_runtime *)&sentinel;
  fpar_runtime *rt = sentinel;

  ck_assert_fpar_err(fpar_runtime_create(&rt, opts), want);
  ck_assert_ptr_eq(rt, sentinel);
}

/* ---- Creation and options ------------------------------------------------ */

START_TEST(test_create_with_defaults) {
  fpar_runtime *rt;
  unsigned n;

  ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
  n = fpar_runtime_num_threads(rt);
  ck_assert_uint_ge(n, 1);
  ck_assert_uint_le(n, online_cpus());
  ck_assert_uint_eq(fpar_runtime_max_group_size(rt), 4096);
  ck_assert_uint_eq(fpar_runtime_local_mem_size(rt), 1 * MIB);
  ck_assert_uint_eq(fpar_runtime_stack_size(rt), 64 * KIB);
  check_concurrent_workers(rt, n);
  check_runtime_runs_kernels(rt);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

START_TEST(test_zeroed_opts_mean_defaults) {
  fpar_runtime *with_null, *with_zero;
  fpar_runtime_opts o;

  fpar_runtime_opts_init(&o);
  ck_assert_uint_eq(o.num_threads, 0);
  ck_assert_int_eq(o.pin, FPAR_PIN_DEFAULT);
  ck_assert_uint_eq(o.stack_size, 0);
  ck_assert_uint_eq(o.local_mem_size, 0);
  ck_assert_uint_eq(o.max_group_size, 0);
  ck_assert_uint_eq(o.spin_us, 0);
  ck_assert_fpar_ok(fpar_runtime_create(&with_null, NULL));
  ck_assert_fpar_ok(fpar_runtime_create(&with_zero, &o));
  ck_assert_uint_eq(fpar_runtime_num_threads(with_zero),
                    fpar_runtime_num_threads(with_null));
  ck_assert_uint_eq(fpar_runtime_max_group_size(with_zero), 4096);
  ck_assert_uint_eq(fpar_runtime_local_mem_size(with_zero), 1 * MIB);
  ck_assert_uint_eq(fpar_runtime_stack_size(with_zero), 64 * KIB);
  ck_assert_fpar_ok(fpar_runtime_destroy(with_zero));
  ck_assert_fpar_ok(fpar_runtime_destroy(with_null));
}
END_TEST

/* Options as a program built against another version of <fiberpar.h>
 * passes them: the size its header gave, and members this library may not
 * have. */
typedef struct grown_opts {
  fpar_runtime_opts opts;
  uint64_t newer_member;
} grown_opts;

START_TEST(test_opts_from_other_headers) {
  fpar_runtime_opts o;
  grown_opts g;
  fpar_runtime *rt;

  /* Not initialised with fpar_runtime_opts_init(). */
  memset(&o, 0, sizeof o);
  o.num_threads = 1;
  ck_assert_fpar_err(fpar_runtime_create(&rt, &o), FPAR_EINVAL);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "fpar_runtime_opts.size"));
  /* An older header, without the members from max_stacks on: they read
   * as their defaults. */
  fpar_runtime_opts_init(&o);
  o.num_threads = 1;
  o.max_stacks = 1; /* out of range, but beyond the old size */
  o.size = offsetof(fpar_runtime_opts, max_stacks);
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  ck_assert_uint_eq(fpar_runtime_num_threads(rt), 1);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  /* A newer header whose new member is left at its default: fine; set:
   * refused, since this library cannot honour it. */
  memset(&g, 0, sizeof g);
  fpar_runtime_opts_init(&g.opts);
  g.opts.size = sizeof g;
  g.opts.num_threads = 1;
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &g.opts));
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  g.newer_member = 1;
  ck_assert_fpar_err(fpar_runtime_create(&rt, &g.opts), FPAR_EINVAL);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "newer <fiberpar.h>"));
}
END_TEST

START_TEST(test_version) {
  ck_assert_uint_eq(fpar_version(), FPAR_VERSION);
  ck_assert_str_eq(fpar_version_string(), FPAR_VERSION_STRING);
  /* The header's version is the package's. */
  ck_assert_str_eq(FPAR_VERSION_STRING, PACKAGE_VERSION);
  ck_assert_uint_eq(FPAR_VERSION, FPAR_VERSION_MAJOR * 10000 +
                                      FPAR_VERSION_MINOR * 100 +
                                      FPAR_VERSION_PATCH);
}
END_TEST

START_TEST(test_num_threads_option) {
  static const unsigned counts[] = {1, 3};
  fpar_runtime_opts o;
  fpar_runtime *rt;
  size_t i;

  for (i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    fpar_runtime_opts_init(&o);
    o.num_threads = counts[i];
    ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
    check_concurrent_workers(rt, counts[i]);
    check_runtime_runs_kernels(rt);
    ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  }
}
END_TEST

START_TEST(test_size_options) {
  fpar_runtime_opts o;
  fpar_runtime *rt;

  fpar_runtime_opts_init(&o);
  o.num_threads = 1;
  o.stack_size = 256 * KIB;
  o.local_mem_size = 2 * MIB;
  o.max_group_size = 64;
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  ck_assert_uint_eq(fpar_runtime_stack_size(rt), 256 * KIB);
  ck_assert_uint_eq(fpar_runtime_local_mem_size(rt), 2 * MIB);
  ck_assert_uint_eq(fpar_runtime_max_group_size(rt), 64);
  check_runtime_runs_kernels(rt);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

START_TEST(test_max_group_size_option_limits_launches) {
  fpar_runtime_opts o;
  fpar_test_env e;
  uint64_t *out = calloc(FILL_N, sizeof *out);
  size_t i;

  ck_assert_ptr_nonnull(out);
  fpar_runtime_opts_init(&o);
  o.max_group_size = 64;
  ck_assert_fpar_ok(fpar_runtime_create(&e.rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(e.rt, 0, &e.q));
  ck_assert_fpar_err(fpar_parallel_for(e.q, fpar_range1(FILL_N),
                                       fpar_range1(128), fill_kernel, out,
                                       NULL),
                     FPAR_EGROUPSIZE);
  ck_assert_contains(fpar_last_error(), "128");
  ck_assert_contains(fpar_last_error(), "64");
  /* Exactly the limit is allowed. */
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(FILL_N), fpar_range1(64),
                                      fill_kernel, out, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  for (i = 0; i < FILL_N; i++)
    ck_assert_uint_eq(out[i], 3 * (uint64_t)i + 1);
  fpar_test_env_fini(&e);
  free(out);
}
END_TEST

START_TEST(test_stack_size_rounded_to_pages) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  fpar_runtime_opts o;
  fpar_runtime *rt;

  /* 100000 bytes is not a whole number of pages on any page size the
   * library supports; the usable stack is rounded up. */
  fpar_runtime_opts_init(&o);
  o.num_threads = 1;
  o.stack_size = 100000;
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  ck_assert_uint_eq(fpar_runtime_stack_size(rt),
                    (100000 + page - 1) / page * page);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

START_TEST(test_out_of_range_options) {
  fpar_runtime_opts o;

  fpar_runtime_opts_init(&o);
  o.stack_size = 4096; /* below the 16 KiB minimum */
  check_create_fails(&o, FPAR_EINVAL);

  fpar_runtime_opts_init(&o);
  o.stack_size = 1;
  check_create_fails(&o, FPAR_EINVAL);

  fpar_runtime_opts_init(&o);
  o.pin = (fpar_pin)99;
  check_create_fails(&o, FPAR_EINVAL);

  fpar_runtime_opts_init(&o);
  o.fpenv = (fpar_fpenv)99;
  check_create_fails(&o, FPAR_EINVAL);
}
END_TEST

START_TEST(test_null_arguments) {
  ck_assert_fpar_err(fpar_runtime_create(NULL, NULL), FPAR_EINVAL);
  ck_assert_fpar_ok(fpar_runtime_destroy(NULL));
}
END_TEST

/* ---- Environment variables ----------------------------------------------- */

START_TEST(test_env_num_threads) {
  fpar_runtime_opts o;
  fpar_runtime *rt;

  ck_assert_int_eq(setenv("FIBERPAR_NUM_THREADS", "3", 1), 0);
  ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
  check_concurrent_workers(rt, 3);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));

  /* The environment wins over the options. */
  ck_assert_int_eq(setenv("FIBERPAR_NUM_THREADS", "1", 1), 0);
  fpar_runtime_opts_init(&o);
  o.num_threads = 3;
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  check_concurrent_workers(rt, 1);
  check_runtime_runs_kernels(rt);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  unsetenv("FIBERPAR_NUM_THREADS");
}
END_TEST

START_TEST(test_env_pin_policies) {
  static const char *const policies[] = {"core", "pu", "none"};
  unsigned by_policy[3];
  fpar_runtime *rt;
  size_t i;

  for (i = 0; i < 3; i++) {
    ck_assert_int_eq(setenv("FIBERPAR_PIN", policies[i], 1), 0);
    ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
    by_policy[i] = fpar_runtime_num_threads(rt);
    ck_assert_uint_ge(by_policy[i], 1);
    ck_assert_uint_le(by_policy[i], online_cpus());
    check_runtime_runs_kernels(rt);
    ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  }
  unsetenv("FIBERPAR_PIN");
  /* core and none: one worker per core; pu: one per hardware thread, so at
   * least as many. */
  ck_assert_uint_eq(by_policy[2], by_policy[0]);
  ck_assert_uint_ge(by_policy[1], by_policy[0]);
}
END_TEST

START_TEST(test_env_fpenv_policies) {
  static const char *const policies[] = {"item", "shared"};
  fpar_runtime *rt;
  size_t i;

  for (i = 0; i < 2; i++) {
    ck_assert_int_eq(setenv("FIBERPAR_FPENV", policies[i], 1), 0);
    ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
    check_runtime_runs_kernels(rt);
    ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  }
  unsetenv("FIBERPAR_FPENV");
}
END_TEST

START_TEST(test_env_pin_overrides_option) {
  fpar_runtime_opts o;
  fpar_runtime *rt;

  /* An invalid FIBERPAR_PIN is rejected even when the options choose a
   * policy: the environment is always consulted. */
  ck_assert_int_eq(setenv("FIBERPAR_PIN", "sideways", 1), 0);
  fpar_runtime_opts_init(&o);
  o.pin = FPAR_PIN_NONE;
  check_create_fails(&o, FPAR_EENV);
  ck_assert_int_eq(setenv("FIBERPAR_PIN", "none", 1), 0);
  o.pin = FPAR_PIN_CORE;
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  check_runtime_runs_kernels(rt);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  unsetenv("FIBERPAR_PIN");
}
END_TEST

/* A bad value in one variable. */
typedef struct bad_env {
  const char *name;
  const char *value;
} bad_env;

START_TEST(test_env_bad_values) {
  static const bad_env cases[] = {
      {"FIBERPAR_NUM_THREADS", "abc"},
      {"FIBERPAR_NUM_THREADS", "0"},
      {"FIBERPAR_NUM_THREADS", "-2"},
      {"FIBERPAR_NUM_THREADS", "2x"},
      {"FIBERPAR_PIN", "sideways"},
      {"FIBERPAR_STACK_SIZE", "1K"}, /* below the 16 KiB minimum */
      {"FIBERPAR_STACK_SIZE", "64Q"},
      {"FIBERPAR_LOCAL_MEM_SIZE", "lots"},
      {"FIBERPAR_LOCAL_MEM_SIZE", "-1M"},
      {"FIBERPAR_SPIN_US", "soon"},
      {"FIBERPAR_FPENV", "sideways"},
  };
  size_t i;

  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(setenv(cases[i].name, cases[i].value, 1), 0);
    check_create_fails(NULL, FPAR_EENV);
    ck_assert_contains(fpar_last_error(), cases[i].name);
    ck_assert_contains(fpar_last_error(), cases[i].value);
    unsetenv(cases[i].name);
  }
}
END_TEST

START_TEST(test_env_size_suffixes) {
  fpar_runtime *rt;

  ck_assert_int_eq(setenv("FIBERPAR_LOCAL_MEM_SIZE", "2M", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_STACK_SIZE", "128K", 1), 0);
  ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
  ck_assert_uint_eq(fpar_runtime_local_mem_size(rt), 2 * MIB);
  ck_assert_uint_eq(fpar_runtime_local_mem_size(rt), 2097152);
  ck_assert_uint_eq(fpar_runtime_stack_size(rt), 131072);
  check_runtime_runs_kernels(rt);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));

  /* Plain byte counts need no suffix. */
  ck_assert_int_eq(setenv("FIBERPAR_LOCAL_MEM_SIZE", "65536", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_STACK_SIZE", "32768", 1), 0);
  ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
  ck_assert_uint_eq(fpar_runtime_local_mem_size(rt), 65536);
  ck_assert_uint_eq(fpar_runtime_stack_size(rt), 32768);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  unsetenv("FIBERPAR_LOCAL_MEM_SIZE");
  unsetenv("FIBERPAR_STACK_SIZE");
}
END_TEST

START_TEST(test_env_sizes_override_options) {
  fpar_runtime_opts o;
  fpar_runtime *rt;

  ck_assert_int_eq(setenv("FIBERPAR_STACK_SIZE", "128K", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_LOCAL_MEM_SIZE", "512K", 1), 0);
  fpar_runtime_opts_init(&o);
  o.stack_size = 256 * KIB;
  o.local_mem_size = 4 * MIB;
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  ck_assert_uint_eq(fpar_runtime_stack_size(rt), 128 * KIB);
  ck_assert_uint_eq(fpar_runtime_local_mem_size(rt), 512 * KIB);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  unsetenv("FIBERPAR_STACK_SIZE");
  unsetenv("FIBERPAR_LOCAL_MEM_SIZE");
}
END_TEST

/* ---- Life cycle ---------------------------------------------------------- */

START_TEST(test_destroy_refused_while_queue_exists) {
  uint64_t *out = calloc(FILL_N, sizeof *out);
  fpar_test_env e;
  size_t i;

  ck_assert_ptr_nonnull(out);
  fpar_test_env_init(&e, 0);
  ck_assert_fpar_err(fpar_runtime_destroy(e.rt), FPAR_EBUSY);
  ck_assert_contains(fpar_last_error(), "queue");

  /* Nothing was destroyed: the runtime and its queue still work. */
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(FILL_N), fpar_range1(32),
                                      fill_kernel, out, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  for (i = 0; i < FILL_N; i++)
    ck_assert_uint_eq(out[i], 3 * (uint64_t)i + 1);
  check_runtime_runs_kernels(e.rt);
  fpar_test_env_fini(&e);
  free(out);
}
END_TEST

START_TEST(test_two_runtimes_at_once) {
  fpar_runtime *a, *b;

  ck_assert_fpar_ok(fpar_runtime_create(&a, NULL));
  ck_assert_fpar_ok(fpar_runtime_create(&b, NULL));
  check_runtime_runs_kernels(a);
  check_runtime_runs_kernels(b);
  ck_assert_fpar_ok(fpar_runtime_destroy(a));
  check_runtime_runs_kernels(b);
  ck_assert_fpar_ok(fpar_runtime_destroy(b));
}
END_TEST

START_TEST(test_create_destroy_repeatedly) {
  fpar_runtime *rt;
  int i;

  for (i = 0; i < 50; i++) {
    ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
    if (i % 10 == 0)
      check_runtime_runs_kernels(rt);
    ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  }
}
END_TEST

static Suite *runtime_suite(void) {
  Suite *s = suite_create("runtime");
  TCase *tc;

  tc = fpar_test_case("create");
  tcase_add_test(tc, test_create_with_defaults);
  tcase_add_test(tc, test_zeroed_opts_mean_defaults);
  tcase_add_test(tc, test_opts_from_other_headers);
  tcase_add_test(tc, test_version);
  tcase_add_test(tc, test_num_threads_option);
  tcase_add_test(tc, test_size_options);
  tcase_add_test(tc, test_max_group_size_option_limits_launches);
  tcase_add_test(tc, test_stack_size_rounded_to_pages);
  tcase_add_test(tc, test_out_of_range_options);
  tcase_add_test(tc, test_null_arguments);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("environment");
  tcase_add_test(tc, test_env_num_threads);
  tcase_add_test(tc, test_env_pin_policies);
  tcase_add_test(tc, test_env_pin_overrides_option);
  tcase_add_test(tc, test_env_fpenv_policies);
  tcase_add_test(tc, test_env_bad_values);
  tcase_add_test(tc, test_env_size_suffixes);
  tcase_add_test(tc, test_env_sizes_override_options);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("lifecycle");
  tcase_add_test(tc, test_destroy_refused_while_queue_exists);
  tcase_add_test(tc, test_two_runtimes_at_once);
  tcase_add_test(tc, test_create_destroy_repeatedly);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(runtime_suite());
}
