/* SPDX-License-Identifier: MIT */
/* test_observe.c - what the runtime shows of itself: worker thread names,
 * FIBERPAR_DISPLAY=1's fields and FIBERPAR_TRACE's file (its JSON is
 * parsed by tests/test_trace.sh). */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

/* How many threads of this process are named `name`. */
static int threads_named(const char *name) {
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  int n = 0;

  ck_assert_ptr_nonnull(d);
  while ((e = readdir(d)) != NULL) {
    char path[300], comm[64] = "";
    FILE *f;
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    if ((f = fopen(path, "r")) == NULL)
      continue; /* the thread has exited */
    if (fgets(comm, sizeof comm, f) != NULL)
      comm[strcspn(comm, "\n")] = '\0';
    fclose(f);
    n += strcmp(comm, name) == 0;
  }
  closedir(d);
  return n;
}

static fpar_runtime *create(unsigned threads) {
  fpar_runtime_opts o;
  fpar_runtime *rt;

  fpar_runtime_opts_init(&o);
  o.num_threads = threads;
  o.display = FPAR_DISPLAY_QUIET; /* more workers than cores: no warning */
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  return rt;
}

/* Workers are named fpar-wN in the process's first runtime and
 * fparK-wN in its K-th later one; the names go with the threads. */
START_TEST(test_thread_names) {
  fpar_runtime *first = create(3), *second = create(2);

  ck_assert_int_eq(threads_named("fpar-w0"), 1);
  ck_assert_int_eq(threads_named("fpar-w1"), 1);
  ck_assert_int_eq(threads_named("fpar-w2"), 1);
  ck_assert_int_eq(threads_named("fpar-w3"), 0);
  ck_assert_int_eq(threads_named("fpar1-w0"), 1);
  ck_assert_int_eq(threads_named("fpar1-w1"), 1);
  ck_assert_fpar_ok(fpar_runtime_destroy(first));
  ck_assert_int_eq(threads_named("fpar-w0"), 0);
  ck_assert_int_eq(threads_named("fpar1-w1"), 1);
  ck_assert_fpar_ok(fpar_runtime_destroy(second));
  ck_assert_int_eq(threads_named("fpar1-w0"), 0);
}
END_TEST

static Suite *observe_suite(void) {
  Suite *s = suite_create("observe");
  TCase *tc = tcase_create("names");

  tcase_set_timeout(tc, FPAR_TEST_TIMEOUT);
  tcase_add_test(tc, test_thread_names);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(observe_suite());
}
