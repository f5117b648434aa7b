/* SPDX-License-Identifier: MIT */
/* test_simd_finite.c - the lane min and max reductions and scans of
 * <fiberpar/simd.h> in a build with -ffinite-math-only (as kernels built
 * with -ffast-math are), against a scalar fold of the lanes that are on.
 *
 * Those operations fill the lanes that are off with a value every step
 * passes over.  A NaN fill relies on the fmin rule's NaN test, which the
 * compiler folds away under -ffinite-math-only: the fill then won, and a
 * partial mask gave NaN at 4 and 8 lanes.  The build runs this file at the
 * machine's width, at 8 lanes and at 4 lanes, with finite data only.
 */
#include <fiberpar/simd.h>

#include <stdint.h>
#include <stdio.h>

#include "testutil.h"

#define W FPAR_SIMD_WIDTH
#define NMASKS (1u << W)

/* Random vectors per mask pattern: more where there are few patterns. */
#define PER_MASK (W <= 8 ? 64 : 2)

static uint64_t rng_state;

static uint32_t rng_next(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}

/* Small integers, zeros of both signs among them, and large magnitudes. */
static float finite_f32(void) {
  switch (rng_next() % 8) {
  case 0:
    return -0.0f;
  case 1:
    return 0.0f;
  case 2:
    return rng_next() % 2 ? 3.0e38f : -3.0e38f;
  default:
    return (float)((int)(rng_next() % 41) - 20);
  }
}

/* The model: min or max of the lanes that are on before `end`, the first
 * of equal values winning (the header's rule); the identity if none. */
static float fold(int max, const float *v, uint32_t bits, int end) {
  float acc = max ? -__builtin_inff() : __builtin_inff();
  int first = 1;

  for (int i = 0; i < end; i++) {
    if (!((bits >> i) & 1))
      continue;
    if (first)
      acc = v[i], first = 0;
    else if (max ? v[i] > acc : v[i] < acc)
      acc = v[i];
  }
  return acc;
}

static int same_bits(float a, float b) {
  union {
    float f;
    uint32_t u;
  } x = {a}, y = {b};

  return x.u == y.u;
}

static fpar_vmask mask_of(uint32_t bits) {
  fpar_vmask m = fpar_vmask_first(0);

  for (int i = 0; i < W; i++)
    m[i] = (bits >> i) & 1 ? -1 : 0;
  return m;
}

START_TEST(test_finite_reduce) {
  rng_state = 21;
  for (uint32_t bits = 0; bits < NMASKS; bits++)
    for (int rep = 0; rep < PER_MASK; rep++) {
      fpar_vmask m = mask_of(bits);
      float v[W];
      double d[W];

      for (int i = 0; i < W; i++)
        v[i] = finite_f32(), d[i] = v[i];
      for (int max = 0; max < 2; max++) {
        float want = fold(max, v, bits, W);
        fpar_vf32 fv = fpar_vf32_load(v);
        fpar_vf64 dv = fpar_vf64_load(d);
        float got =
            max ? fpar_vf32_reduce_max(fv, m) : fpar_vf32_reduce_min(fv, m);
        double dgot =
            max ? fpar_vf64_reduce_max(dv, m) : fpar_vf64_reduce_min(dv, m);

        ck_assert_msg(same_bits(got, want),
                      "vf32_reduce_%s mask %#x = %a, want %a",
                      max ? "max" : "min", bits, (double)got, (double)want);
        ck_assert_msg(same_bits((float)dgot, want) && dgot == (double)want,
                      "vf64_reduce_%s mask %#x = %a, want %a",
                      max ? "max" : "min", bits, dgot, (double)want);
      }
    }
}
END_TEST

START_TEST(test_finite_scan) {
  rng_state = 22;
  for (uint32_t bits = 0; bits < NMASKS; bits++)
    for (int rep = 0; rep < PER_MASK; rep++) {
      fpar_vmask m = mask_of(bits);
      float v[W];
      fpar_vf32 fv, got[4];

      for (int i = 0; i < W; i++)
        v[i] = finite_f32();
      fv = fpar_vf32_load(v);
      got[0] = fpar_vf32_scan_min(fv, m);
      got[1] = fpar_vf32_scan_max(fv, m);
      got[2] = fpar_vf32_exscan_min(fv, m);
      got[3] = fpar_vf32_exscan_max(fv, m);
      for (int k = 0; k < 4; k++)
        for (int i = 0; i < W; i++) {
          float want = fold(k % 2, v, bits, k < 2 ? i + 1 : i);

          ck_assert_msg(same_bits(got[k][i], want),
                        "vf32_%sscan_%s mask %#x lane %d = %a, want %a",
                        k < 2 ? "" : "ex", k % 2 ? "max" : "min", bits, i,
                        (double)got[k][i], (double)want);
        }
    }
}
END_TEST

static Suite *finite_suite(void) {
  Suite *s = suite_create("simd_finite");
  TCase *tc = fpar_test_case("finite");

  tcase_add_test(tc, test_finite_reduce);
  tcase_add_test(tc, test_finite_scan);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (!fpar_test_cpu_runs_build())
    return 77;
  return fpar_test_run(finite_suite());
}
