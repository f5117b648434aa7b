/* SPDX-License-Identifier: MIT */
/* vmath.h - the SLEEF-backed math behind <fiberpar/simd.h>.
 *
 * One noinst library per instruction set (vmath_<isa>.c, each built with
 * its own compiler flags) defines the entry points of its lane width and a
 * table of them; fpar_math_f32/f64 (dispatch.c) picks the widest table the
 * CPU supports at run time.  Only these files include <sleef.h>.
 */
#ifndef FPAR_SIMD_VMATH_H
#define FPAR_SIMD_VMATH_H

#include <fiberpar/simd.h>

typedef void (*fpar__vm_f32_fn)(float *out, const float *x, const float *y);
typedef void (*fpar__vm_f64_fn)(double *out, const double *x,
                                const double *y);

/* The entry points of one instruction set. */
typedef struct fpar__vm_table {
  const char *isa;
  unsigned lanes; /* elements per call */
  fpar__vm_f32_fn f32[FPAR_MATH_COUNT];
  fpar__vm_f64_fn f64[FPAR_MATH_COUNT];
} fpar__vm_table;

extern const fpar__vm_table fpar__vm_avx512f, fpar__vm_avx2, fpar__vm_sse2,
    fpar__vm_scalar;

#endif
