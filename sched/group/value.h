/* SPDX-License-Identifier: MIT */
/* value.h - the values that work-group collectives (collective_combine.c)
 * and sub-group operations (subgroup.c) combine: each type's arithmetic as
 * both compute it, and its bits in the low end of a uint64_t.  Integer
 * sums wrap (signed ones too); the minimum and maximum of floating-point
 * values are fmin and fmax (a NaN loses to a number), computed inline as
 * the lane operations of <fiberpar/simd.h> compute them. */
#ifndef FPAR_SCHED_GROUP_VALUE_H
#define FPAR_SCHED_GROUP_VALUE_H

#include <fiberpar/simd.h>
#include <stdint.h>
#include <string.h>

/* fpar__add_T, fpar__min_T and fpar__max_T for an integer type T (U: its
 * unsigned type) and a floating-point one. */
#define FPAR__VALUE_INT(T, U, t)                                               \
  static inline T fpar__add_##t(T a, T b) {                                    \
    return (T)((U)a + (U)b);                                                   \
  }                                                                            \
  static inline T fpar__min_##t(T a, T b) {                                    \
    return b < a ? b : a;                                                      \
  }                                                                            \
  static inline T fpar__max_##t(T a, T b) {                                    \
    return b > a ? b : a;                                                      \
  }
#define FPAR__VALUE_FLOAT(T, t, FMIN, FMAX)                                    \
  static inline T fpar__add_##t(T a, T b) {                                    \
    return a + b;                                                              \
  }                                                                            \
  static inline T fpar__min_##t(T a, T b) {                                    \
    return FMIN(a, b);                                                         \
  }                                                                            \
  static inline T fpar__max_##t(T a, T b) {                                    \
    return FMAX(a, b);                                                         \
  }

FPAR__VALUE_INT(int32_t, uint32_t, i32)
FPAR__VALUE_INT(uint32_t, uint32_t, u32)
FPAR__VALUE_INT(int64_t, uint64_t, i64)
FPAR__VALUE_INT(uint64_t, uint64_t, u64)
FPAR__VALUE_FLOAT(float, f32, fpar__f32_fmin, fpar__f32_fmax)
FPAR__VALUE_FLOAT(double, f64, fpar__f64_fmin, fpar__f64_fmax)

/* A value's bits (fpar__bits_T) and the value of bits (fpar__T_bits). */
static inline uint64_t fpar__bits_i32(int32_t v) {
  return (uint32_t)v;
}
static inline int32_t fpar__i32_bits(uint64_t b) {
  return (int32_t)(uint32_t)b;
}
static inline uint64_t fpar__bits_u32(uint32_t v) {
  return v;
}
static inline uint32_t fpar__u32_bits(uint64_t b) {
  return (uint32_t)b;
}
static inline uint64_t fpar__bits_f32(float v) {
  uint32_t u;

  memcpy(&u, &v, sizeof u);
  return u;
}
static inline float fpar__f32_bits(uint64_t b) {
  uint32_t u = (uint32_t)b;
  float v;

  memcpy(&v, &u, sizeof v);
  return v;
}
static inline uint64_t fpar__bits_f64(double v) {
  uint64_t u;

  memcpy(&u, &v, sizeof u);
  return u;
}
static inline double fpar__f64_bits(uint64_t b) {
  double v;

  memcpy(&v, &b, sizeof v);
  return v;
}

#endif
