/* SPDX-License-Identifier: MIT */
/* rows_kernels.h - the kernels of the rows benchmark (rows_bench.c): their
 * bodies, shared with the plain C and OpenMP loops they are compared with,
 * and the sets of FPAR_KERNELs built from them with and without
 * -fopenmp-simd (rows_kernels.c, compiled once per set). */
#ifndef FPAR_ROWS_KERNELS_H
#define FPAR_ROWS_KERNELS_H

#include <fiberpar.h>
#include <stdint.h>

/* Arguments of every kernel: a 1-D output, or two grids of sx * sy * sz
 * floats (the range's interior plus a halo of one cell). */
typedef struct rb_args {
  const float *in;
  float *out;
  uint32_t *u;
  size_t sx, sxy; /* strides of dimensions 1 and 2, in floats */
} rb_args;

/* 1-D, scalar integer work: eight steps of a linear congruential
 * generator seeded with the global id. */
static inline void rb_lcg8(const rb_args *a, size_t i) {
  uint32_t x = (uint32_t)i;

  for (int k = 0; k < 8; k++)
    x = x * 1664525u + 1013904223u;
  a->u[i] = x;
}

/* 1-D, float work: a recurrence of 64 dependent steps. */
static inline void rb_rec64(const rb_args *a, size_t i) {
  float x = a->in[i];

  for (int k = 0; k < 64; k++)
    x = x * 0.999f + 0.5f;
  a->out[i] = x;
}

/* 2-D 5-point Jacobi step at interior cell (x, y). */
static inline void rb_jacobi(const rb_args *a, size_t x, size_t y) {
  size_t i = (x + 1) + a->sx * (y + 1);
  const float *c = a->in + i;

  a->out[i] = 0.25f * (c[-1] + c[1] + c[-a->sx] + c[a->sx]);
}

/* 3-D 7-point stencil at interior cell (x, y, z). */
static inline void rb_st7(const rb_args *a, size_t x, size_t y, size_t z) {
  size_t sx = a->sx, sxy = a->sxy, i = (x + 1) + sx * (y + 1) + sxy * (z + 1);
  const float *c = a->in + i;

  a->out[i] =
      0.4f * c[0] + 0.1f * (c[-1] + c[1] + c[-sx] + c[sx] + c[-sxy] + c[sxy]);
}

/* The cases, in the order of rb_kernels' arrays. */
enum { RB_LCG8, RB_REC64, RB_JACOBI, RB_ST7, RB_CASES };

/* One set of the kernels: FPAR_KERNELs, and (old_row, where the set has
 * them) the same bodies with the row runner of version 0.1 of the header
 * (one row per call, one item shared by the row), which programs built
 * against it still run; their kernel is the FPAR_KERNEL's fn. */
typedef struct rb_kernels {
  const char *flags; /* how the set was compiled */
  const fpar_kernel *kernel[RB_CASES];
  fpar_row_fn old_row[RB_CASES];
} rb_kernels;

/* Built with the flags of `pkg-config --cflags fiberpar`. */
extern const rb_kernels rb_simd;
/* Built with none of them (-O2 only). */
extern const rb_kernels rb_plain;

#endif
