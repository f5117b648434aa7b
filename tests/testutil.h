/* SPDX-License-Identifier: MIT */
/* testutil.h - shared helpers of the Check suites.
 *
 * Every suite runs in Check's forked mode and every test case has a
 * timeout, so a hang or a crash fails one test instead of the suite. */
#ifndef FPAR_TESTUTIL_H
#define FPAR_TESTUTIL_H

#include <check.h>
#include <fiberpar.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FPAR_TEST_TIMEOUT 60

/* Built with a sanitizer, whose runtime maps memory of its own as it goes:
 * counts of the process's mappings and resident memory then say nothing
 * about the library. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FPAR_TEST_SANITIZED 1
#else
#define FPAR_TEST_SANITIZED 0
#endif
#if defined(__SANITIZE_THREAD__)
#define FPAR_TEST_TSAN 1
#else
#define FPAR_TEST_TSAN 0
#endif

/* Built against the ucontext switch (tests/test_*_ucontext). */
#ifndef FPAR_TEST_UCONTEXT
#define FPAR_TEST_UCONTEXT 0
#endif

/* ck_assert that a libfiberpar call returned 0, printing the code's name
 * and the detail message otherwise. */
#define ck_assert_fpar_ok(expr)                                                \
  do {                                                                         \
    int fpar_rc_ = (expr);                                                     \
    ck_assert_msg(fpar_rc_ == 0, "%s returned %s: %s", #expr,                  \
                  fpar_err_name(fpar_rc_), fpar_last_error());                 \
  } while (0)

/* ck_assert that a call returned the error code want. */
#define ck_assert_fpar_err(expr, want)                                         \
  do {                                                                         \
    int fpar_rc_ = (expr);                                                     \
    ck_assert_msg(fpar_rc_ == (want), "%s returned %s, expected %s (%s)",      \
                  #expr, fpar_err_name(fpar_rc_), fpar_err_name(want),         \
                  fpar_last_error());                                          \
  } while (0)

/* Standard error sent to a temporary file from fpar_test_stderr_begin()
 * to fpar_test_stderr_end(), which gives what was written. */
typedef struct fpar_test_stderr {
  FILE *f;
  int saved;
} fpar_test_stderr;

static inline void fpar_test_stderr_begin(fpar_test_stderr *c) {
  c->f = tmpfile();
  ck_assert_ptr_nonnull(c->f);
  fflush(stderr);
  c->saved = dup(2);
  ck_assert_int_ge(c->saved, 0);
  dup2(fileno(c->f), 2);
}

/* Restore stderr and copy what it got into out (size bytes,
 * NUL-terminated). */
static inline void fpar_test_stderr_end(fpar_test_stderr *c, char *out,
                                        size_t size) {
  size_t n;

  fflush(stderr);
  dup2(c->saved, 2);
  close(c->saved);
  rewind(c->f);
  n = fread(out, 1, size - 1, c->f);
  out[n] = '\0';
  fclose(c->f);
}

/* fpar_runtime_create(rt, NULL) with what it prints on stderr captured
 * into out (size bytes, NUL-terminated). */
static inline int fpar_test_create_captured(fpar_runtime **rt, char *out,
                                            size_t size) {
  fpar_test_stderr c;
  int err;

  fpar_test_stderr_begin(&c);
  err = fpar_runtime_create(rt, NULL);
  fpar_test_stderr_end(&c, out, size);
  return err;
}

/* The whole file at path, up to 1 MiB, NUL-terminated (the caller frees
 * it). */
static inline char *fpar_test_read_file(const char *path) {
  FILE *f = fopen(path, "r");
  char *buf = malloc(1 << 20);
  size_t n;

  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(buf);
  n = fread(buf, 1, (1 << 20) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* How often needle occurs in haystack, without overlaps. */
static inline int fpar_test_count(const char *haystack, const char *needle) {
  int n = 0;

  while ((haystack = strstr(haystack, needle)) != NULL) {
    n++;
    haystack += strlen(needle);
  }
  return n;
}

/* A runtime and one queue. */
typedef struct fpar_test_env {
  fpar_runtime *rt;
  fpar_queue *q;
} fpar_test_env;

/* threads == 0: the runtime's default. */
static inline void fpar_test_env_init(fpar_test_env *e, unsigned threads) {
  fpar_runtime_opts o;

  fpar_runtime_opts_init(&o);
  o.num_threads = threads;
  ck_assert_fpar_ok(fpar_runtime_create(&e->rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(e->rt, 0, &e->q));
}

static inline void fpar_test_env_fini(fpar_test_env *e) {
  fpar_queue_destroy(e->q);
  ck_assert_fpar_ok(fpar_runtime_destroy(e->rt));
}

/* Like fpar_test_env_init(), with the runtime's sub-group size set (0: the
 * CPU's SIMD width). */
static inline void fpar_test_env_init_subgroup(fpar_test_env *e,
                                               unsigned threads,
                                               unsigned subgroup) {
  fpar_runtime_opts o;

  fpar_runtime_opts_init(&o);
  o.num_threads = threads;
  o.subgroup_size = subgroup;
  ck_assert_fpar_ok(fpar_runtime_create(&e->rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(e->rt, 0, &e->q));
  if (subgroup != 0)
    ck_assert_uint_eq(fpar_runtime_subgroup_size(e->rt), subgroup);
}

/* The state of a launch, which must be readable. */
static inline fpar_event_state fpar_test_state(const fpar_event *ev) {
  fpar_event_state state = FPAR_FAILED;

  ck_assert_fpar_ok(fpar_event_status(ev, &state));
  return state;
}

/* Wait for a launch by polling its state, so that the calling thread runs
 * none of its groups (a thread that waits in fpar_event_wait() does), and
 * return its state. */
static inline fpar_event_state fpar_test_poll(const fpar_event *ev) {
  fpar_event_state state = FPAR_QUEUED;

  while (state == FPAR_QUEUED || state == FPAR_RUNNING) {
    usleep(1000);
    ck_assert_fpar_ok(fpar_event_status(ev, &state));
  }
  return state;
}

/* Wait for a launch that must succeed; a fault fails the test with the
 * launch's own message. */
static inline void fpar_test_wait_ok(fpar_event *ev) {
  int rc = fpar_event_wait(ev);
  const char *msg = fpar_event_error(ev);

  ck_assert_msg(rc == 0, "launch failed with %s: %s", fpar_err_name(rc),
                msg != NULL ? msg : "(no message)");
  fpar_event_release(ev);
}

/* Wait for a launch that must fail with `code` and a message that contains
 * `what` and, unless it is NULL, `rule`. */
static inline void fpar_test_wait_fault(fpar_event *ev, int code,
                                        const char *what, const char *rule) {
  int rc = fpar_event_wait(ev);
  const char *msg = fpar_event_error(ev);

  ck_assert_msg(rc == code, "launch returned %s, expected %s (message: %s)",
                fpar_err_name(rc), fpar_err_name(code),
                msg != NULL ? msg : "(none)");
  ck_assert_msg(msg != NULL, "the failed launch has no message");
  ck_assert_msg(strstr(msg, what) != NULL,
                "message \"%s\" does not contain \"%s\"", msg, what);
  ck_assert_msg(rule == NULL || strstr(msg, rule) != NULL,
                "message \"%s\" does not name \"%s\"", msg, rule);
  fpar_event_release(ev);
}

/* Recursion whose frames all stay live, to overflow a fiber stack: each
 * frame hands its 1 KiB array to the next, so the compiler can neither
 * drop nor reuse them. */
static __attribute__((noinline, unused)) size_t
fpar_test_recurse_deep(volatile unsigned char *parent, size_t depth) {
  volatile unsigned char frame[1024];

  frame[0] = (unsigned char)(parent[0] + 1);
  frame[sizeof frame - 1] = (unsigned char)depth;
  if (depth == 0)
    return frame[0];
  return fpar_test_recurse_deep(frame, depth - 1) + frame[sizeof frame - 1];
}

/* 3-D ids and ranges, dimension 0 fastest. */
static inline size_t fpar_test_volume(const size_t r[3]) {
  return r[0] * r[1] * r[2];
}

static inline size_t fpar_test_linear(const size_t id[3], const size_t r[3]) {
  return id[0] + r[0] * (id[1] + r[1] * id[2]);
}

static inline void fpar_test_id_of(size_t linear, const size_t r[3],
                                   size_t id[3]) {
  id[0] = linear % r[0];
  id[1] = linear / r[0] % r[1];
  id[2] = linear / (r[0] * r[1]);
}

/* Whether every id[d] < r[d]: a group function uses it before it indexes
 * a record array with an id the library gave it. */
static inline int fpar_test_id_in_range(const size_t id[3], const size_t r[3]) {
  return id[0] < r[0] && id[1] < r[1] && id[2] < r[2];
}

static inline TCase *fpar_test_case(const char *name) {
  TCase *tc = tcase_create(name);

  tcase_set_timeout(tc, FPAR_TEST_TIMEOUT);
  return tc;
}

/* Whether this CPU runs the instruction set the test was compiled for (the
 * per-ISA builds of the lane suites skip, exit 77, where it does not). */
static inline int fpar_test_cpu_runs_build(void) {
#if defined(__x86_64__)
  __builtin_cpu_init();
#if defined(__AVX512F__)
  if (!__builtin_cpu_supports("avx512f"))
    return 0;
#endif
#if defined(__AVX2__)
  if (!__builtin_cpu_supports("avx2"))
    return 0;
#endif
#if defined(__FMA__)
  if (!__builtin_cpu_supports("fma"))
    return 0;
#endif
#endif
  return 1;
}

/* Run the suite in forked mode and turn the result into an exit status. */
static inline int fpar_test_run(Suite *s) {
  SRunner *r = srunner_create(s);
  int failed;

  srunner_set_fork_status(r, CK_FORK);
  srunner_run_all(r, CK_NORMAL);
  failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
