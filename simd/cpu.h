/* cpu.h - what the CPU's vector units can do, for run-time dispatch. */
#ifndef FPAR_SIMD_CPU_H
#define FPAR_SIMD_CPU_H

/* Single-precision lanes of the widest vector unit the CPU and the OS
 * support (16 with AVX-512, 8 with AVX, 4 with SSE or NEON, 1 without). */
unsigned fpar__simd_f32_lanes(void);

#endif
