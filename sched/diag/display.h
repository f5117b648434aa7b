/* SPDX-License-Identifier: MIT */
/* display.h - FIBERPAR_DISPLAY: what a new runtime prints about itself on
 * stderr, like OpenMP's OMP_DISPLAY_ENV and OMP_DISPLAY_AFFINITY. */
#ifndef FPAR_SCHED_DIAG_DISPLAY_H
#define FPAR_SCHED_DIAG_DISPLAY_H

#include "sched/base/config.h"

struct fpar__topo;

/* Where the workers of a new scheduler were placed: with
 * FPAR_DISPLAY_ALL the CPU set and each worker's CPUs and NUMA node; with
 * FPAR_DISPLAY_ALL or _WARN a warning when workers share a place
 * (cfg->display says which). */
void fpar__display_placement(const struct fpar__topo *t,
                             const fpar__sched_config *cfg);

/* With FPAR_DISPLAY_ALL: the library and the knobs that shape every
 * launch of a runtime made with cfg, whose vector math runs `isa` with
 * `lanes` lanes (the caller's to say: the engine does not know it), and,
 * in secure-execution mode (cfg->secure), that the environment was
 * ignored. */
void fpar__display_runtime(const fpar__sched_config *cfg, const char *isa,
                           unsigned lanes);

#endif
