/* SPDX-License-Identifier: MIT */
/* phase_kernels.h - the work-group tree reduction of reduce.c (groups of
 * RED_WG floats, 8 barriers) in its two forms, shared by
 * examples/phase_reduce.c (checked against a serial sum) and the
 * benchmark (timed against OpenMP).  Each kernel takes float *args[2]:
 * args[0] the input, args[1] one sum per group. */
#ifndef FPAR_EXAMPLES_PHASE_KERNELS_H
#define FPAR_EXAMPLES_PHASE_KERNELS_H

#include <fiberpar.h>

#define RED_WG 256

/* The fiber form: local variables live on each work-item's stack, and the
 * work-items switch at fpar_barrier(). */
FPAR_KERNEL(reduce_fibers, it, args) {
  float **a = args;
  float *tmp = fpar_group_local_memory(it, RED_WG * sizeof(float), 64);
  size_t lid = fpar_local_id(it, 0);

  tmp[lid] = a[0][fpar_global_id(it, 0)];
  for (size_t s = RED_WG / 2; s > 0; s >>= 1) {
    fpar_barrier(it);
    if (lid < s)
      tmp[lid] += tmp[lid + s];
  }
  if (lid == 0)
    a[1][fpar_group_id(it, 0)] = tmp[0];
}

/* The phase form of the same kernel: the group's local array is declared
 * as the kernel's local struct (OpenCL's __local float tmp[256]), what
 * lives across a barrier (the loop counter) is in the work-item's state,
 * and lid is recomputed by the prologue at every phase. */
typedef struct reduce_local {
  float tmp[RED_WG];
} reduce_local;

typedef struct reduce_state {
  unsigned s;
} reduce_state;

FPAR_PHASE_KERNEL_LOCAL(reduce_phases, it, args, reduce_state, st, reduce_local,
                        lm) {
  float **a = args;
  size_t lid = fpar_local_id(it, 0);

  FPAR_PHASE_BEGIN();
  lm->tmp[lid] = a[0][fpar_global_id(it, 0)];
  for (st->s = RED_WG / 2; st->s > 0; st->s >>= 1) {
    FPAR_PHASE_BARRIER();
    if (lid < st->s)
      lm->tmp[lid] += lm->tmp[lid + st->s];
  }
  if (lid == 0)
    a[1][fpar_group_id(it, 0)] = lm->tmp[0];
  FPAR_PHASE_END();
}

#endif
