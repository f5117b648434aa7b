/* SPDX-License-Identifier: MIT */
/* vmath_sse2.c - 4-lane math entry points (x86-64 baseline SSE2). */
#include <emmintrin.h>

#define VM_TABLE fpar__vm_sse2
#define VM_ISA "sse2"
#define VF __m128
#define VD __m128d
#define VF_LANES 4
#define VD_LANES 2
#define VF_LOAD(p) _mm_loadu_ps(p)
#define VF_STORE(p, v) _mm_storeu_ps((p), (v))
#define VD_LOAD(p) _mm_loadu_pd(p)
#define VD_STORE(p, v) _mm_storeu_pd((p), (v))
#define VF_DIV(a, b) _mm_div_ps((a), (b))
#define VD_DIV(a, b) _mm_div_pd((a), (b))
#define VF_ONE _mm_set1_ps(1.0f)
#define VD_ONE _mm_set1_pd(1.0)
#define SF(fn, u) Sleef_##fn##f4_##u##sse2
#define SD(fn, u) Sleef_##fn##d2_##u##sse2

#include "simd/vmath_impl.h"
