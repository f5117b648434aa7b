/* SPDX-License-Identifier: MIT */
/* display.c - what FIBERPAR_DISPLAY=1 prints about a new runtime besides
 * its placement (which sched/topo.c prints): the library, the workers and
 * the knobs that shape every launch, like OpenMP's OMP_DISPLAY_ENV. */
#include <stdio.h>

#include "fiberpar/simd.h"
#include "lib/env.h"
#include "lib/internal.h"
#include "sched/context.h"

/* "64 KiB", "1 MiB", or bytes when no unit divides the size. */
static const char *fpar__size_text(size_t size, char *buf, size_t len) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB"};
  unsigned u = 0;

  while (u + 1 < sizeof units / sizeof *units && size >= 1024 &&
         size % 1024 == 0) {
    size /= 1024;
    u++;
  }
  snprintf(buf, len, "%zu %s", size, units[u]);
  return buf;
}

void fpar__runtime_display(const fpar_runtime *rt) {
  const fpar__sched_config *c = &rt->cfg;
  char stack[32], local[32];

  if (c->display != FPAR_DISPLAY_ALL)
    return;
  fprintf(stderr,
          "fiberpar: libfiberpar %s: %u worker%s, fiber stacks of %s, local "
          "memory %s per worker, groups of up to %zu work-items, FP "
          "environment %s, SIMD %s with %u lanes, context switch %s\n",
          fpar_version_string(), c->num_threads, c->num_threads == 1 ? "" : "s",
          fpar__size_text(c->stack_size, stack, sizeof stack),
          fpar__size_text(c->local_mem_size, local, sizeof local),
          c->max_group_size, c->fpenv == FPAR_FPENV_ITEM ? "item" : "shared",
          fpar_math_isa(), fpar_math_lanes(), fpar__ctx_impl_name);
  /* Only the program's own options ask for this in that mode: the
   * caller's FIBERPAR_DISPLAY is ignored with the rest. */
  if (fpar__env_secure())
    fprintf(stderr, "fiberpar: secure-execution mode: the FIBERPAR_* and "
                    "HWLOC_* environment variables are ignored\n");
}
