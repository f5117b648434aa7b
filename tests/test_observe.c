/* SPDX-License-Identifier: MIT */
/* test_observe.c - what the runtime shows of itself: worker thread names,
 * FIBERPAR_DISPLAY=1's fields and FIBERPAR_TRACE's file (its JSON is
 * parsed by tests/test_trace.sh). */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#include <fiberpar/simd.h>

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

/* fpar_runtime_create() with stderr captured into out (size bytes). */
static int create_captured(fpar_runtime **rt, char *out, size_t size) {
  FILE *f = tmpfile();
  int saved = dup(2), err;
  size_t n;

  ck_assert_ptr_nonnull(f);
  fflush(stderr);
  dup2(fileno(f), 2);
  err = fpar_runtime_create(rt, NULL);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(f);
  n = fread(out, 1, size - 1, f);
  out[n] = '\0';
  fclose(f);
  return err;
}

#define ck_assert_contains(haystack, needle)                                   \
  ck_assert_msg(strstr((haystack), (needle)) != NULL,                          \
                "\"%s\" not found in:\n%s", (needle), (haystack))

/* FIBERPAR_DISPLAY=1 prints every field, with the values the environment
 * set; the default prints nothing when nothing is shared. */
START_TEST(test_display_fields) {
  char out[8192], want[160], cpus[64];
  fpar_runtime *rt;

  ck_assert_int_eq(setenv("FIBERPAR_NUM_THREADS", "2", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_PIN", "none", 1), 0);
  ck_assert_fpar_ok(create_captured(&rt, out, sizeof out));
  ck_assert_str_eq(out, "");
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));

  ck_assert_int_eq(setenv("FIBERPAR_DISPLAY", "1", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_STACK_SIZE", "96K", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_LOCAL_MEM_SIZE", "3M", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_FPENV", "item", 1), 0);
  ck_assert_fpar_ok(create_captured(&rt, out, sizeof out));
  snprintf(want, sizeof want, "fiberpar: libfiberpar %s: 2 workers,",
           FPAR_VERSION_STRING);
  ck_assert_contains(out, want);
  ck_assert_fpar_ok(fpar_runtime_worker_cpus(rt, 1, cpus, sizeof cpus));
  snprintf(want, sizeof want, "fiberpar: worker 1: CPUs %s (not bound)", cpus);
  ck_assert_contains(out, want);
  ck_assert_contains(out, "fiber stacks of 96 KiB,");
  ck_assert_contains(out, "local memory 3 MiB per worker,");
  ck_assert_contains(out, "groups of up to 4096 work-items,");
  ck_assert_contains(out, "FP environment item,");
  snprintf(want, sizeof want, "SIMD %s with %u lanes,", fpar_math_isa(),
           fpar_math_lanes());
  ck_assert_contains(out, want);
  ck_assert_contains(out, "context switch ");
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));

  ck_assert_int_eq(setenv("FIBERPAR_FPENV", "shared", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_STACK_SIZE", "100000", 1), 0);
  ck_assert_fpar_ok(create_captured(&rt, out, sizeof out));
  ck_assert_contains(out, "fiber stacks of 100 KiB,"); /* whole pages */
  ck_assert_contains(out, "FP environment shared,");
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

static Suite *observe_suite(void) {
  Suite *s = suite_create("observe");
  TCase *tc = tcase_create("names");

  tcase_set_timeout(tc, FPAR_TEST_TIMEOUT);
  tcase_add_test(tc, test_thread_names);
  suite_add_tcase(s, tc);
  tc = tcase_create("display");
  tcase_set_timeout(tc, FPAR_TEST_TIMEOUT);
  tcase_add_test(tc, test_display_fields);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(observe_suite());
}
