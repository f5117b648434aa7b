/* SPDX-License-Identifier: MIT */
/* test_racecheck.c - racecheck (issue 24): in a ThreadSanitizer build,
 * races between the work-items of a group are reported, at the kernel's
 * lines, with the work-items named, and nothing inside the runtime, in
 * every form (fiber and phase kernels, FPAR_KERNEL's barrier-free groups
 * and lane kernels); the correct kernels draw no report and give exact
 * results.  The kernels
 * (tests/racecheck_kernels.c) run in a program of their own whose
 * standard error goes to a file; the suite skips (77) outside a TSan
 * build. */
#include "racecheck_run.h"

#ifndef RACECHECK_KERNELS
#define RACECHECK_KERNELS "tests/racecheck_kernels"
#endif
#ifndef RACECHECK_KERNELS_SCALAR
#define RACECHECK_KERNELS_SCALAR "tests/racecheck_kernels_scalar"
#endif

/* Whether every report's summary names a line of racecheck_kernels.c in
 * the function of kernel `name` (a phase kernel's body is a function
 * whose name starts with the kernel's). */
static int summaries_name_kernel_line(const char *out, const char *name,
                                      char *bad, size_t len) {
  static const char head[] = "SUMMARY: ThreadSanitizer: data race ";
  const char *p = out;
  int seen = 0;

  while ((p = strstr(p, head)) != NULL) {
    const char *end = strchr(p, '\n'), *file, *in;
    char line[512];

    snprintf(line, sizeof line, "%.*s",
             (int)(end != NULL ? (size_t)(end - p) : strlen(p)), p);
    file = strstr(line, "racecheck_kernels.c:");
    in = strstr(line, " in ");
    if (file == NULL || file[sizeof "racecheck_kernels.c:" - 1] < '0' ||
        file[sizeof "racecheck_kernels.c:" - 1] > '9' || in == NULL ||
        strncmp(in + 4, name, strlen(name)) != 0) {
      snprintf(bad, len, "%s", line);
      return 0;
    }
    seen = 1;
    p += sizeof head - 1;
  }
  snprintf(bad, len, "no summary line");
  return seen;
}

/* A racy case of program prog: reported, in the kernel, naming its
 * work-items. */
static void expect_race_in(const char *prog, const char *name) {
  int status;
  char *out = fpar_racecheck_run(prog, name, &status), bad[512];

  ck_assert_msg(strstr(out, "WARNING: ThreadSanitizer: data race") != NULL,
                "%s: no race reported (status %d):\n%s", name, status, out);
  ck_assert_msg(
      fpar_racecheck_top_frames_in(out, "racecheck_kernels.c", bad, sizeof bad),
      "%s: a report's top frame is not in the kernel: %s\n%s", name, bad, out);
  ck_assert_msg(summaries_name_kernel_line(out, name, bad, sizeof bad),
                "%s: a report names no line of the kernel: %s\n%s", name, bad,
                out);
  ck_assert_msg(strstr(out, "work-item") != NULL,
                "%s: the report names no work-item:\n%s", name, out);
  ck_assert_msg(strstr(out, name) != NULL,
                "%s: the report names no kernel:\n%s", name, out);
  ck_assert_int_eq(status, 66);
  free(out);
}

static void expect_race(const char *name) {
  expect_race_in(RACECHECK_KERNELS, name);
}

/* A case of program prog that draws no report, with exact results. */
static void expect_clean_in(const char *prog, const char *name) {
  int status;
  char *out = fpar_racecheck_run(prog, name, &status);

  ck_assert_msg(strstr(out, "ThreadSanitizer") == NULL,
                "%s: reported (status %d):\n%s", name, status, out);
  ck_assert_msg(status == 0, "%s: exit status %d:\n%s", name, status, out);
  free(out);
}

START_TEST(test_forgotten_barrier_fibers) {
  expect_race("reduce_forgotten_barrier");
}
END_TEST

START_TEST(test_forgotten_barrier_phase) {
  expect_race("phase_forgotten_barrier");
}
END_TEST

START_TEST(test_same_local_word) {
  expect_race("same_local_word");
}
END_TEST

START_TEST(test_neighbour_before_barrier) {
  expect_race("neighbour_before_barrier");
}
END_TEST

/* The work-items and groups of a launch adding into one global word with
 * plain loads and stores (racecheck_kernels.c says why every work-item
 * adds, so that the report does not hang on how groups are placed). */
START_TEST(test_global_word_plain_add) {
  expect_race("global_word_plain_add");
}
END_TEST

/* Two work-items of a barrier-free FPAR_KERNEL, whose groups a normal
 * build runs through the kernel's row runner, write one word: each
 * work-item is an identity of its own. */
START_TEST(test_row_kernel_same_word) {
  expect_race("row_kernel_same_word");
}
END_TEST

/* Two calls (sub-groups) of a lane kernel write one word. */
START_TEST(test_lane_kernel_same_word) {
  expect_race("lane_kernel_same_word");
}
END_TEST

static const char *const clean_cases[] = {
    "reduce_fixed", "phase_fixed",        "collectives",
    "subgroups",    "group_copies",       "atomics",
    "ping_pong",    "row_kernel_doubled", "lane_kernel_doubled"};

START_TEST(test_correct_kernels) {
  expect_clean_in(RACECHECK_KERNELS, clean_cases[_i]);
}
END_TEST

/* Two lanes of one call write one word: a call of W > 1 lanes is one
 * identity, so this is not seen there (docs/racecheck.md); built with
 * FPAR_SIMD_FORCE_SCALAR, each lane is a call and the race is reported.
 * The correct lane kernel stays clean and exact in both. */
START_TEST(test_lanes_one_call) {
  expect_clean_in(RACECHECK_KERNELS, "lanes_of_one_call_same_word");
  expect_race_in(RACECHECK_KERNELS_SCALAR, "lanes_of_one_call_same_word");
  expect_race_in(RACECHECK_KERNELS_SCALAR, "lane_kernel_same_word");
  expect_clean_in(RACECHECK_KERNELS_SCALAR, "lane_kernel_doubled");
}
END_TEST

static Suite *racecheck_suite(void) {
  Suite *s = suite_create("racecheck");
  TCase *tc = fpar_test_case("racecheck");

  tcase_add_test(tc, test_forgotten_barrier_fibers);
  tcase_add_test(tc, test_forgotten_barrier_phase);
  tcase_add_test(tc, test_same_local_word);
  tcase_add_test(tc, test_neighbour_before_barrier);
  tcase_add_test(tc, test_global_word_plain_add);
  tcase_add_test(tc, test_row_kernel_same_word);
  tcase_add_test(tc, test_lane_kernel_same_word);
  tcase_add_test(tc, test_lanes_one_call);
  tcase_add_loop_test(tc, test_correct_kernels, 0,
                      (int)(sizeof clean_cases / sizeof clean_cases[0]));
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (!FPAR_TEST_TSAN) {
    printf("SKIP: racecheck needs a ThreadSanitizer build\n");
    return 77;
  }
  return fpar_test_run(racecheck_suite());
}
