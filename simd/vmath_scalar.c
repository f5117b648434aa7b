/* SPDX-License-Identifier: MIT */
/* vmath_scalar.c - 1-lane math entry points (any CPU). */
#define FPAR_SIMD_FORCE_SCALAR 1

#define VM_TABLE fpar__vm_scalar
#define VM_ISA "scalar"
#define VF float
#define VD double
#define VF_LANES 1
#define VD_LANES 1
#define VF_LOAD(p) (*(p))
#define VF_STORE(p, v) (*(p) = (v))
#define VD_LOAD(p) (*(p))
#define VD_STORE(p, v) (*(p) = (v))
#define VF_DIV(a, b) ((a) / (b))
#define VD_DIV(a, b) ((a) / (b))
#define VF_ONE 1.0f
#define VD_ONE 1.0
#define SF(fn, u) Sleef_##fn##f_##u
#define SD(fn, u) Sleef_##fn##_##u

#include "simd/vmath_impl.h"
