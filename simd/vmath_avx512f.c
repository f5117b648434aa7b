/* SPDX-License-Identifier: MIT */
/* vmath_avx512f.c - 16-lane math entry points (built with -mavx512f). */
#include <immintrin.h>

#define VM_TABLE fpar__vm_avx512f
#define VM_ISA "avx512f"
#define VF __m512
#define VD __m512d
#define VF_LANES 16
#define VD_LANES 8
#define VF_LOAD(p) _mm512_loadu_ps(p)
#define VF_STORE(p, v) _mm512_storeu_ps((p), (v))
#define VD_LOAD(p) _mm512_loadu_pd(p)
#define VD_STORE(p, v) _mm512_storeu_pd((p), (v))
#define VF_DIV(a, b) _mm512_div_ps((a), (b))
#define VD_DIV(a, b) _mm512_div_pd((a), (b))
#define VF_ONE _mm512_set1_ps(1.0f)
#define VD_ONE _mm512_set1_pd(1.0)
#define SF(fn, u) Sleef_##fn##f16_##u##avx512f
#define SD(fn, u) Sleef_##fn##d8_##u##avx512f

#include "simd/vmath_impl.h"
