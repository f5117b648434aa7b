/* SPDX-License-Identifier: MIT */
/* dispatch.c - array math with the widest vector unit of the CPU: the one
 * run-time dispatch of the library's own vector code. */
#include <stdatomic.h>
#include <string.h>

#include "config.h"
#include "sched/base/error.h"
#include "simd/cpu.h"
#include "simd/vmath.h"

static const fpar__vm_table *fpar__vm_choose(void) {
  const char *isa = fpar__simd_isa();

#ifdef FPAR_HAVE_VMATH_AVX512F
  if (strcmp(isa, "avx512f") == 0)
    return &fpar__vm_avx512f;
#endif
#ifdef FPAR_HAVE_VMATH_AVX2
  if (strcmp(isa, "avx512f") == 0 || strcmp(isa, "avx2") == 0)
    return &fpar__vm_avx2;
#endif
#ifdef FPAR_HAVE_VMATH_SSE2
  if (strcmp(isa, "scalar") != 0)
    return &fpar__vm_sse2;
#endif
  (void)isa;
  return &fpar__vm_scalar;
}

/* Chosen once; racing first calls choose the same table. */
static const fpar__vm_table *fpar__vm_table_get(void) {
  static _Atomic(const fpar__vm_table *) chosen;
  const fpar__vm_table *t = atomic_load_explicit(&chosen, memory_order_acquire);

  if (t == NULL) {
    t = fpar__vm_choose();
    atomic_store_explicit(&chosen, t, memory_order_release);
  }
  return t;
}

const char *fpar_math_isa(void) {
  return fpar__vm_table_get()->isa;
}

unsigned fpar_math_lanes(void) {
  return fpar__vm_table_get()->lanes;
}

/* Whole calls of `lanes` elements, then the tail through a padded buffer
 * (padding 1 keeps every function away from exceptional inputs). */
#define FPAR__MATH_ARRAY(T, field)                                             \
  const fpar__vm_table *t = fpar__vm_table_get();                              \
  size_t w = t->lanes, i;                                                      \
  T bx[16], by[16], bo[16];                                                    \
                                                                               \
  if ((unsigned)op >= FPAR_MATH_COUNT || out == NULL || x == NULL ||           \
      (op == FPAR_MATH_pow && y == NULL))                                      \
    return fpar__set_error(FPAR_EINVAL,                                        \
                           "fpar_math: unknown operation %d or NULL array",    \
                           (int)op);                                           \
  if (y == NULL)                                                               \
    y = x;                                                                     \
  for (i = 0; i + w <= n; i += w)                                              \
    t->field[op](out + i, x + i, y + i);                                       \
  if (i < n) {                                                                 \
    size_t k, left = n - i;                                                    \
    for (k = 0; k < w; k++) {                                                  \
      bx[k] = k < left ? x[i + k] : 1;                                         \
      by[k] = k < left ? y[i + k] : 1;                                         \
    }                                                                          \
    t->field[op](bo, bx, by);                                                  \
    memcpy(out + i, bo, left * sizeof(T));                                     \
  }                                                                            \
  return 0;

int fpar_math_f32(fpar_math_op op, float *out, const float *x, const float *y,
                  size_t n) {
  FPAR__MATH_ARRAY(float, f32)
}

int fpar_math_f64(fpar_math_op op, double *out, const double *x,
                  const double *y, size_t n) {
  FPAR__MATH_ARRAY(double, f64)
}
