/* testutil.h - shared helpers of the Check suites.
 *
 * Every suite runs in Check's forked mode and every test case has a
 * timeout, so a hang or a crash fails one test instead of the suite. */
#ifndef FPAR_TESTUTIL_H
#define FPAR_TESTUTIL_H

#include <check.h>
#include <fiberpar.h>
#include <stdlib.h>

#define FPAR_TEST_TIMEOUT 60

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

static inline TCase *fpar_test_case(const char *name) {
  TCase *tc = tcase_create(name);

  tcase_set_timeout(tc, FPAR_TEST_TIMEOUT);
  return tc;
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
