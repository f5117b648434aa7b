/* SPDX-License-Identifier: MIT */
/* test_error.c - error codes, their names and texts, and the per-thread
 * detail message of the last failed call. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* The table behind the codes, expanded once for the tests to walk. */
typedef struct error_entry {
  int value;
  const char *name;
  const char *message;
} error_entry;

static const error_entry error_table[] = {
#define ERROR_ENTRY(name, value, msg) {FPAR_##name, "FPAR_" #name, msg},
    FPAR_ERRNO_MAP(ERROR_ENTRY)
#undef ERROR_ENTRY
};

#define NUM_ERRORS (sizeof error_table / sizeof error_table[0])

/* Assert that haystack contains needle, printing both otherwise. */
#define ck_assert_contains(haystack, needle)                                   \
  ck_assert_msg(strstr((haystack), (needle)) != NULL,                          \
                "\"%s\" does not contain \"%s\"", (haystack), (needle))

static void count_kernel(fpar_item *it, void *args) {
  (void)it;
  __atomic_fetch_add((int *)args, 1, __ATOMIC_RELAXED);
}

/* ---- The code table ------------------------------------------------------ */

START_TEST(test_codes_negative_and_distinct) {
  size_t i, j;

  ck_assert_uint_eq(NUM_ERRORS, 23);
  for (i = 0; i < NUM_ERRORS; i++) {
    ck_assert_msg(error_table[i].value < 0, "%s is %d, not negative",
                  error_table[i].name, error_table[i].value);
    ck_assert_msg(error_table[i].value > FPAR_ERRNO_MAX,
                  "%s is %d, not above FPAR_ERRNO_MAX", error_table[i].name,
                  error_table[i].value);
    for (j = 0; j < i; j++)
      ck_assert_msg(error_table[i].value != error_table[j].value,
                    "%s and %s share the value %d", error_table[i].name,
                    error_table[j].name, error_table[i].value);
  }
}
END_TEST

START_TEST(test_strerror_gives_table_text) {
  size_t i;

  for (i = 0; i < NUM_ERRORS; i++)
    ck_assert_str_eq(fpar_strerror(error_table[i].value),
                     error_table[i].message);
  ck_assert_str_eq(fpar_strerror(0), "success");
}
END_TEST

START_TEST(test_err_name_gives_code_name) {
  size_t i;

  for (i = 0; i < NUM_ERRORS; i++)
    ck_assert_str_eq(fpar_err_name(error_table[i].value), error_table[i].name);
  /* A few spelled out, so that a broken table cannot pass by itself. */
  ck_assert_str_eq(fpar_err_name(FPAR_EINVAL), "FPAR_EINVAL");
  ck_assert_str_eq(fpar_err_name(FPAR_ENONDIV), "FPAR_ENONDIV");
  ck_assert_str_eq(fpar_err_name(FPAR_ENOTSUP), "FPAR_ENOTSUP");
  ck_assert_str_eq(fpar_err_name(-5), "FPAR_ENONDIV");
}
END_TEST

START_TEST(test_unknown_codes) {
  static const int unknown[] = {FPAR_ERRNO_MAX, -25,    -1000, 1, 2, 17,
                                INT_MIN,        INT_MAX};
  size_t i;

  for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    ck_assert_str_eq(fpar_strerror(unknown[i]), "unknown error");
    ck_assert_str_eq(fpar_err_name(unknown[i]), "FPAR_EUNKNOWN");
  }
}
END_TEST

/* ---- fpar_last_error ----------------------------------------------------- */

START_TEST(test_last_error_empty_before_any_failure) {
  ck_assert_ptr_nonnull(fpar_last_error());
  ck_assert_str_eq(fpar_last_error(), "");
}
END_TEST

START_TEST(test_last_error_names_nondivisible_values) {
  fpar_test_env e;
  int runs = 0;

  fpar_test_env_init(&e, 0);
  ck_assert_fpar_err(fpar_parallel_for(e.q, fpar_range1(1000), fpar_range1(64),
                                       count_kernel, &runs, NULL),
                     FPAR_ENONDIV);
  ck_assert_contains(fpar_last_error(), "1000");
  ck_assert_contains(fpar_last_error(), "64");
  ck_assert_contains(fpar_last_error(), "dimension 0");

  /* The offending dimension is the second one here. */
  ck_assert_fpar_err(fpar_parallel_for(e.q, fpar_range2(8, 1000),
                                       fpar_range2(4, 13), count_kernel, &runs,
                                       NULL),
                     FPAR_ENONDIV);
  ck_assert_contains(fpar_last_error(), "1000");
  ck_assert_contains(fpar_last_error(), "13");
  ck_assert_contains(fpar_last_error(), "dimension 1");

  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_int_eq(runs, 0);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_last_error_replaced_by_next_failure) {
  fpar_test_env e;
  fpar_range no_dims = {0, {4, 1, 1}};
  fpar_launch_desc d;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_err(
      fpar_parallel_for(e.q, no_dims, fpar_range1(4), count_kernel, NULL, NULL),
      FPAR_EDIM);
  ck_assert_contains(fpar_last_error(), "dimension");

  fpar_launch_desc_init(&d);
  d.name = "missing_kernel";
  d.global = fpar_range1(4);
  ck_assert_fpar_err(fpar_launch(e.q, &d, NULL), FPAR_ENULLKERNEL);
  ck_assert_contains(fpar_last_error(), "missing_kernel");
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_last_error_for_null_runtime_pointer) {
  ck_assert_fpar_err(fpar_runtime_create(NULL, NULL), FPAR_EINVAL);
  ck_assert_str_ne(fpar_last_error(), "");
}
END_TEST

/* A helper thread's failure and its view of fpar_last_error. */
typedef struct thread_result {
  char before[64]; /* its message before it failed */
  char after[256]; /* its message after it failed */
  int rc;
} thread_result;

static void *fail_on_other_thread(void *arg) {
  thread_result *r = arg;

  snprintf(r->before, sizeof r->before, "%s", fpar_last_error());
  r->rc = fpar_queue_create(NULL, 0, NULL);
  snprintf(r->after, sizeof r->after, "%s", fpar_last_error());
  return NULL;
}

START_TEST(test_last_error_is_per_thread) {
  fpar_test_env e;
  thread_result r;
  pthread_t t;
  char mine[256];

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_err(fpar_parallel_for(e.q, fpar_range1(100), fpar_range1(7),
                                       count_kernel, NULL, NULL),
                     FPAR_ENONDIV);
  snprintf(mine, sizeof mine, "%s", fpar_last_error());
  ck_assert_str_ne(mine, "");

  memset(&r, 0, sizeof r);
  ck_assert_int_eq(pthread_create(&t, NULL, fail_on_other_thread, &r), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);

  /* The other thread started with no message and got its own. */
  ck_assert_str_eq(r.before, "");
  ck_assert_int_eq(r.rc, FPAR_EINVAL);
  ck_assert_str_ne(r.after, "");
  ck_assert_str_ne(r.after, mine);
  /* This thread's message is untouched. */
  ck_assert_str_eq(fpar_last_error(), mine);
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *error_suite(void) {
  Suite *s = suite_create("error");
  TCase *tc;

  tc = fpar_test_case("codes");
  tcase_add_test(tc, test_codes_negative_and_distinct);
  tcase_add_test(tc, test_strerror_gives_table_text);
  tcase_add_test(tc, test_err_name_gives_code_name);
  tcase_add_test(tc, test_unknown_codes);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("last_error");
  tcase_add_test(tc, test_last_error_empty_before_any_failure);
  tcase_add_test(tc, test_last_error_names_nondivisible_values);
  tcase_add_test(tc, test_last_error_replaced_by_next_failure);
  tcase_add_test(tc, test_last_error_for_null_runtime_pointer);
  tcase_add_test(tc, test_last_error_is_per_thread);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(error_suite());
}
