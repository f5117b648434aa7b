/* SPDX-License-Identifier: MIT */
/* cpu_generic.c - vector width on CPUs without a vector math table. */
#include "simd/cpu.h"

unsigned fpar__simd_f32_lanes(void) {
  return 1; /* the lane header has no NEON width yet */
}

const char *fpar__simd_isa(void) { return "scalar"; }
