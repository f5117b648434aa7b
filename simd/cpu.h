/* SPDX-License-Identifier: MIT */
/* cpu.h - what the CPU's vector units can do, for run-time dispatch. */
#ifndef FPAR_SIMD_CPU_H
#define FPAR_SIMD_CPU_H

/* Single-precision lanes of the widest vector unit the CPU and the OS
 * support (16 with AVX-512, 8 with AVX, 4 with SSE or NEON, 1 without). */
unsigned fpar__simd_f32_lanes(void);

/* The widest instruction set with a math table that the CPU runs:
 * "avx512f", "avx2" (with FMA), "sse2" or "scalar". */
const char *fpar__simd_isa(void);

#endif
