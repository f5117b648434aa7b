/* SPDX-License-Identifier: MIT */
/* vmath_impl.h - the entry points of one instruction set, instantiated by
 * vmath_<isa>.c after it defines:
 *
 *   VM_TABLE            name of the table (fpar__vm_<isa>)
 *   VM_ISA              its name for fpar_math_isa()
 *   VF, VD              native float and double vectors
 *   VF_LANES, VD_LANES  their lanes
 *   VF_LOAD/STORE, VD_LOAD/STORE(p[, v])  unaligned memory access
 *   SF(fn, u), SD(fn, u)  SLEEF's float and double function fn with
 *                       accuracy suffix u for this instruction set
 *
 * Each entry computes FPAR_SIMD_WIDTH lanes (the including file's width)
 * in native vectors; rsqrt is 1/sqrt with SLEEF's correctly rounded sqrt.
 */
#include <sleef.h>

#include "simd/vmath.h"

#define VM_UNARY(name, fexpr, dexpr)                                          \
  void FPAR__VM_NAME(name, f32, FPAR_SIMD_WIDTH)(float *out, const float *x,  \
                                                 const float *y) {            \
    (void)y;                                                                  \
    for (int i = 0; i < FPAR_SIMD_WIDTH; i += VF_LANES) {                     \
      VF a = VF_LOAD(x + i);                                                  \
      VF_STORE(out + i, fexpr);                                               \
    }                                                                         \
  }                                                                           \
  void FPAR__VM_NAME(name, f64, FPAR_SIMD_WIDTH)(double *out, const double *x, \
                                                 const double *y) {           \
    (void)y;                                                                  \
    for (int i = 0; i < FPAR_SIMD_WIDTH; i += VD_LANES) {                     \
      VD a = VD_LOAD(x + i);                                                  \
      VD_STORE(out + i, dexpr);                                               \
    }                                                                         \
  }

VM_UNARY(sin, SF(sin, u10)(a), SD(sin, u10)(a))
VM_UNARY(cos, SF(cos, u10)(a), SD(cos, u10)(a))
VM_UNARY(tan, SF(tan, u10)(a), SD(tan, u10)(a))
VM_UNARY(exp, SF(exp, u10)(a), SD(exp, u10)(a))
VM_UNARY(exp2, SF(exp2, u10)(a), SD(exp2, u10)(a))
VM_UNARY(log, SF(log, u10)(a), SD(log, u10)(a))
VM_UNARY(log2, SF(log2, u10)(a), SD(log2, u10)(a))
VM_UNARY(sqrt, SF(sqrt, u05)(a), SD(sqrt, u05)(a))
VM_UNARY(rsqrt, VF_DIV(VF_ONE, SF(sqrt, u05)(a)),
         VD_DIV(VD_ONE, SD(sqrt, u05)(a)))
VM_UNARY(erf, SF(erf, u10)(a), SD(erf, u10)(a))
VM_UNARY(tanh, SF(tanh, u10)(a), SD(tanh, u10)(a))

void FPAR__VM_NAME(pow, f32, FPAR_SIMD_WIDTH)(float *out, const float *x,
                                              const float *y) {
  for (int i = 0; i < FPAR_SIMD_WIDTH; i += VF_LANES)
    VF_STORE(out + i, SF(pow, u10)(VF_LOAD(x + i), VF_LOAD(y + i)));
}

void FPAR__VM_NAME(pow, f64, FPAR_SIMD_WIDTH)(double *out, const double *x,
                                              const double *y) {
  for (int i = 0; i < FPAR_SIMD_WIDTH; i += VD_LANES)
    VD_STORE(out + i, SD(pow, u10)(VD_LOAD(x + i), VD_LOAD(y + i)));
}

const fpar__vm_table VM_TABLE = {
    VM_ISA,
    FPAR_SIMD_WIDTH,
    {
#define VM_F32_ENTRY(name, arity) FPAR__VM_NAME(name, f32, FPAR_SIMD_WIDTH),
        FPAR_MATH_OPS(VM_F32_ENTRY)
#undef VM_F32_ENTRY
    },
    {
#define VM_F64_ENTRY(name, arity) FPAR__VM_NAME(name, f64, FPAR_SIMD_WIDTH),
        FPAR_MATH_OPS(VM_F64_ENTRY)
#undef VM_F64_ENTRY
    }};
