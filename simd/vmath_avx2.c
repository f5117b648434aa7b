/* SPDX-License-Identifier: MIT */
/* vmath_avx2.c - 8-lane math entry points (built with -mavx2 -mfma). */
#include <immintrin.h>

#define VM_TABLE fpar__vm_avx2
#define VM_ISA "avx2"
#define VF __m256
#define VD __m256d
#define VF_LANES 8
#define VD_LANES 4
#define VF_LOAD(p) _mm256_loadu_ps(p)
#define VF_STORE(p, v) _mm256_storeu_ps((p), (v))
#define VD_LOAD(p) _mm256_loadu_pd(p)
#define VD_STORE(p, v) _mm256_storeu_pd((p), (v))
#define VF_DIV(a, b) _mm256_div_ps((a), (b))
#define VD_DIV(a, b) _mm256_div_pd((a), (b))
#define VF_ONE _mm256_set1_ps(1.0f)
#define VD_ONE _mm256_set1_pd(1.0)
#define SF(fn, u) Sleef_##fn##f8_##u##avx2
#define SD(fn, u) Sleef_##fn##d4_##u##avx2

#include "simd/vmath_impl.h"
