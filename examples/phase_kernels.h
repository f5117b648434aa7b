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

/* The phase form of the same kernel: what lives across a barrier (the
 * local-memory pointer, the loop counter) is in the work-item's state;
 * lid is recomputed by the prologue at every phase. */
typedef struct reduce_state {
  float *tmp;
  unsigned s;
} reduce_state;

FPAR_PHASE_KERNEL(reduce_phases, it, args, reduce_state, st) {
  float **a = args;
  size_t lid = fpar_local_id(it, 0);

  FPAR_PHASE_BEGIN();
  st->tmp = fpar_group_local_memory(it, RED_WG * sizeof(float), 64);
  st->tmp[lid] = a[0][fpar_global_id(it, 0)];
  for (st->s = RED_WG / 2; st->s > 0; st->s >>= 1) {
    FPAR_PHASE_BARRIER();
    if (lid < st->s)
      st->tmp[lid] += st->tmp[lid + st->s];
  }
  if (lid == 0)
    a[1][fpar_group_id(it, 0)] = st->tmp[0];
  FPAR_PHASE_END();
}

#endif
