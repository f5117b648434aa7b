/* SPDX-License-Identifier: MIT */
/* test_real.c - the real-kernel suite (examples/real) at small sizes: every
 * kernel's port, best form and OpenMP reference, and its OpenCL version
 * when an OpenCL platform is there, against the serial reference; the
 * driver's refusal of unknown kernels and bad sizes; and a missing OpenCL
 * platform, which skips the OpenCL version instead of failing. */
#include <stdlib.h>

#include "real.h"
#include "testutil.h"

/* Built with a sanitizer, the OpenCL implementation (not instrumented, and
 * with its own leaks and threads) is left out. */
#define OPENCL_HERE (!FPAR_TEST_SANITIZED)

static const real_kernel *const kernels[] = {
    &real_nw,        &real_lud,        &real_srad,
    &real_backprop,  &real_pathfinder, &real_stencil,
    &real_reduction, &real_scan,       &real_spmv};

/* Kernel _i of the suite, every version, at its check size. */
START_TEST(test_kernel) {
  char why[1024];

  ck_assert_msg(real_check_kernel(kernels[_i], 0, OPENCL_HERE, why, sizeof why),
                "%s: %s", kernels[_i]->name, why);
}
END_TEST

/* Sizes the kernels' rules allow but their check sizes do not use:
 * several blocks per launch, partial pyramids, a last group of another
 * size. */
START_TEST(test_other_sizes) {
  static const struct {
    const real_kernel *k;
    long n;
  } cases[] = {{&real_nw, 192},
               {&real_lud, 48},
               {&real_srad, 144},
               {&real_backprop, 48},
               {&real_pathfinder, 777},
               {&real_stencil, 64},
               {&real_reduction, 1L << 15},
               {&real_scan, 3L << 16},
               {&real_spmv, 384}};
  char why[1024];

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ck_assert_msg(real_check_kernel(cases[i].k, cases[i].n, 0, why, sizeof why),
                  "%s=%ld: %s", cases[i].k->name, cases[i].n, why);
}
END_TEST

/* The driver refuses what it cannot run, with the reason and the usage. */
START_TEST(test_bad_input) {
  static const char *const bad[][3] = {
      {"real", "nosuch", "unknown kernel nosuch"},
      {"real", "nw=100", "nw: bad size 100"},
      {"real", "lud=0", "lud: bad size 0"},
      {"real", "srad=abc", "srad: bad size abc"},
      {"real", "spmv=", "spmv: bad size "},
      {"real", "--reps", "--reps needs a number"},
      {"real", "--only", "--only needs versions"},
      {"real", "--frobnicate", "unknown option --frobnicate"}};
  real_options opts;
  char err[4096];

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *argv[2] = {(char *)bad[i][0], (char *)bad[i][1]};

    ck_assert_int_eq(real_parse(2, argv, &opts, err, sizeof err), -1);
    ck_assert_msg(strstr(err, bad[i][2]) != NULL, "%s: said %s", bad[i][1],
                  err);
    ck_assert_msg(strstr(err, "usage: real") != NULL, "no usage after %s", err);
  }
  {
    char *argv[3] = {"real", "--only", "port,bogus"};

    ck_assert_int_eq(real_parse(3, argv, &opts, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "--only port,bogus: not a list") != NULL,
                  "said %s", err);
  }
  {
    char *argv[6] = {"real",   "--reps",    "9",
                     "--only", "best,port", "scan=131072"};

    ck_assert_int_eq(real_parse(6, argv, &opts, err, sizeof err), 0);
    ck_assert_int_eq(opts.reps, 9);
    ck_assert_uint_eq(opts.versions, 1u << REAL_PORT | 1u << REAL_BEST);
    ck_assert_int_eq(opts.opencl, 0);
    ck_assert_uint_eq(opts.count, 1);
    ck_assert_ptr_eq(opts.kernels[0], &real_scan);
    ck_assert_int_eq(opts.sizes[0], 131072);
  }
  {
    char *argv[2] = {"real", "--help"};

    ck_assert_int_eq(real_parse(2, argv, &opts, err, sizeof err), 1);
    ck_assert_msg(strstr(err, "usage: real") == err, "said %s", err);
  }
}
END_TEST

/* No OpenCL platform: opening says why, the check still passes without
 * the OpenCL version. */
START_TEST(test_no_platform) {
  char why[1024];

  setenv("OCL_ICD_VENDORS", "/nonexistent-icd-dir", 1);
  setenv("OPENCL_VENDOR_PATH", "/nonexistent-icd-dir", 1);
  ck_assert_ptr_null(bench_ocl_open(why, sizeof why));
  ck_assert_msg(strlen(why) > 0, "no reason given");
  ck_assert_msg(real_check_kernel(&real_reduction, 0, 1, why, sizeof why), "%s",
                why);
}
END_TEST

static Suite *real_suite(void) {
  Suite *s = suite_create("real");
  TCase *tc = tcase_create("kernels");

  tcase_set_timeout(tc, 4 * FPAR_TEST_TIMEOUT);
  tcase_add_loop_test(tc, test_kernel, 0,
                      (int)(sizeof kernels / sizeof kernels[0]));
  tcase_add_test(tc, test_other_sizes);
  suite_add_tcase(s, tc);
  tc = tcase_create("driver");
  tcase_set_timeout(tc, FPAR_TEST_TIMEOUT);
  tcase_add_test(tc, test_bad_input);
  tcase_add_test(tc, test_no_platform);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(real_suite());
}
