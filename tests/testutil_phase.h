/* SPDX-License-Identifier: MIT */
/* testutil_phase.h - what the phase-kernel suites share: the modes every
 * phase kernel runs in, and a launch of a kernel def in one. */
#ifndef FPAR_TESTUTIL_PHASE_H
#define FPAR_TESTUTIL_PHASE_H

#include "testutil.h"

static const fpar_phase_mode modes[] = {
    FPAR_PHASE_LOOPS,       FPAR_PHASE_DEBUG,       FPAR_PHASE_FIBERS,
    FPAR_PHASE_LOOPS_FUSED, FPAR_PHASE_LOOPS_SPLIT, FPAR_PHASE_LOOPS_SCALAR};
static const char *const mode_names[] = {
    "loops", "debug", "fibers", "loops-fused", "loops-split", "loops-scalar"};

/* The modes above: the first three are the ways a phase kernel runs, the
 * last three the forms of its loops, which FPAR_PHASE_LOOPS chooses
 * from. */
#define NUM_MODES 6

/* Submit k in the given mode with optional launch-time local buffers. */
static inline int submit(fpar_test_env *e, const fpar_kernel *k,
                         fpar_range global, fpar_range local, void *args,
                         fpar_phase_mode mode,
                         const fpar_local_buffer_desc *bufs, unsigned nbufs,
                         fpar_event **ev) {
  fpar_launch_desc d;

  fpar_launch_desc_init(&d);
  d.def = k;
  d.phase_mode = mode;
  d.args = args;
  d.global = global;
  d.local = local;
  d.local_buffers = bufs;
  d.num_local_buffers = nbufs;
  return fpar_launch(e->q, &d, ev);
}

#endif
