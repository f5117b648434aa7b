/* SPDX-License-Identifier: MIT */
/* cpu_x86.c - vector width of an x86 CPU (cpuid via the compiler's
 * __builtin_cpu_supports, which also checks that the OS saves the wide
 * registers). */
#include "simd/cpu.h"

unsigned fpar__simd_f32_lanes(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return 16;
  if (__builtin_cpu_supports("avx"))
    return 8;
  if (__builtin_cpu_supports("sse2"))
    return 4;
  return 1;
}

const char *fpar__simd_isa(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return "avx512f";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "avx2";
  if (__builtin_cpu_supports("sse2"))
    return "sse2";
  return "scalar";
}
