/* SPDX-License-Identifier: MIT */
/* test_phase_debug.c - what debug mode shows in an unoptimised build: a
 * local variable kept across FPAR_PHASE_BARRIER() (the mistake the state
 * struct exists for).
 *
 * The kernels here are compiled at -O0 (the pragma below), as a kernel
 * being debugged would be, so its locals live in stack slots.  On fibers
 * the slot happens to keep the value and the mistake stays hidden; as
 * loops every work-item reads whatever the previous call left; in debug
 * mode each call runs out of line on a stack filled with 0xff bytes, so
 * the lost value reads as 0xffffffff.  GCC only (the pragma); with other
 * compilers, and under AddressSanitizer (which lays out stack frames
 * itself), the test is skipped.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O0")
/* GCC sees the mistake too ("may be used uninitialized"); here it is
 * deliberate. */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <stdint.h>
#include <stdlib.h>

#include "testutil_phase.h"

/* `lost` is declared in the prologue and set in the first phase, so the
 * second phase's call reads a variable it never wrote. */
FPAR_PHASE_KERNEL(phase_lost_local, it, p, char, st) {
  uint32_t *out = p;
  uint32_t lost;

  FPAR_PHASE_BEGIN();
  lost = (uint32_t)fpar_global_id(it, 0);
  FPAR_PHASE_BARRIER();
  out[fpar_global_id(it, 0)] = lost;
  FPAR_PHASE_END();
}

START_TEST(test_lost_local_poisoned) {
  fpar_test_env e;
  const size_t L = 32;
  uint32_t out[3][64];
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  for (int m = 0; m < 3; m++) {
    ck_assert_fpar_ok(submit(&e, &phase_lost_local, fpar_range1(2 * L),
                             fpar_range1(L), out[m], modes[m], NULL, 0, &ev));
    fpar_test_wait_ok(ev);
  }
  for (size_t i = 0; i < 2 * L; i++)
    ck_assert_uint_eq(out[1][i], 0xffffffffu); /* debug */
  ck_assert_uint_ne(out[0][1], 1);             /* loops: another item's */
  fpar_test_env_fini(&e);
}
END_TEST

int main(void) {
  Suite *s;
  TCase *tc;

#if defined(__clang__) || !defined(__GNUC__) || defined(__SANITIZE_ADDRESS__)
  return 77; /* no GCC pragma, or AddressSanitizer's own stack frames */
#endif
  s = suite_create("phase debug");
  tc = fpar_test_case("debug");
  tcase_add_test(tc, test_lost_local_poisoned);
  suite_add_tcase(s, tc);
  return fpar_test_run(s);
}
