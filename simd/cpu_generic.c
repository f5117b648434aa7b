/* cpu_generic.c - vector width where the build knows it statically
 * (AArch64 always has 128-bit NEON). */
#include "simd/cpu.h"

unsigned fpar__simd_f32_lanes(void) {
#if defined(__aarch64__) || defined(__ARM_NEON)
  return 4;
#else
  return 1;
#endif
}
