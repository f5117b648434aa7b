/* SPDX-License-Identifier: MIT */
/* reduce_kernels.h - the work-group tree reduction of the race suites,
 * correct: one sum per group of REDUCE_LOCAL values, as a fiber kernel (a
 * barrier ends every step) and as a phase kernel (a phase boundary begins
 * every step), and the plain C reference in the tree's order.
 *
 * tests/racecheck_kernels.c checks that racecheck reports neither kernel,
 * tests/test_schedule.c that both give the reference's bits under every
 * FIBERPAR_SCHEDULE.  Each file keeps its broken forms of the reduction
 * (the barrier forgotten) to itself, so that a report points at their own
 * lines; they may use the arguments, state and local struct below.
 *
 * The includer defines REDUCE_T, the element type (int32_t, float), and
 * includes this header once. */
#ifndef FPAR_REDUCE_KERNELS_H
#define FPAR_REDUCE_KERNELS_H

#include <fiberpar.h>
#include <stddef.h>
#include <string.h>

#ifndef REDUCE_T
#error "define REDUCE_T, the element type, before including reduce_kernels.h"
#endif

/* Work-items per group: the phase kernel's local struct has a value for
 * each.  A power of two. */
#define REDUCE_LOCAL 64

/* A value per work-item in, a sum per group out. */
typedef struct reduce_args {
  const REDUCE_T *in;
  REDUCE_T *out;
} reduce_args;

/* The phase kernel's state (the step) and local struct (the values). */
typedef struct reduce_state {
  size_t s;
} reduce_state;

typedef struct reduce_local {
  REDUCE_T tmp[REDUCE_LOCAL];
} reduce_local;

/* The tree reduction with its barrier at the end of every step. */
static void reduce_fixed(fpar_item *it, void *p) {
  const reduce_args *a = p;
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0);
  REDUCE_T *tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);

  tmp[lid] = a->in[fpar_global_id(it, 0)];
  fpar_barrier(it);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (lid < s)
      tmp[lid] += tmp[lid + s];
    fpar_barrier(it);
  }
  if (lid == 0)
    a->out[fpar_group_id(it, 0)] = tmp[0];
}

/* The same reduction as a phase kernel (groups of REDUCE_LOCAL). */
FPAR_PHASE_KERNEL_LOCAL(phase_fixed, it, p, reduce_state, st, reduce_local,
                        lm) {
  const reduce_args *a = p;
  const size_t lid = fpar_local_id(it, 0);

  FPAR_PHASE_BEGIN();
  lm->tmp[lid] = a->in[fpar_global_id(it, 0)];
  for (st->s = REDUCE_LOCAL / 2; st->s > 0; st->s >>= 1) {
    FPAR_PHASE_BARRIER();
    if (lid < st->s)
      lm->tmp[lid] += lm->tmp[lid + st->s];
  }
  if (lid == 0)
    a->out[fpar_group_id(it, 0)] = lm->tmp[0];
  FPAR_PHASE_END();
}

/* The sums of `groups` groups of REDUCE_LOCAL values, added in the tree's
 * order (so bit for bit the kernels' for floats too). */
static void reduce_reference(const REDUCE_T *in, REDUCE_T *out, size_t groups) {
  for (size_t g = 0; g < groups; g++) {
    REDUCE_T tmp[REDUCE_LOCAL];

    memcpy(tmp, in + g * REDUCE_LOCAL, sizeof tmp);
    for (size_t s = REDUCE_LOCAL / 2; s > 0; s >>= 1)
      for (size_t i = 0; i < s; i++)
        tmp[i] += tmp[i + s];
    out[g] = tmp[0];
  }
}

#endif
