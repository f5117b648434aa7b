/* SPDX-License-Identifier: MIT */
/* config.h - the knobs a runtime is made with: its options with the
 * FIBERPAR_* environment applied and the defaults resolved (by
 * lib/runtime.c), read by the rooms that place, size and start its
 * workers. */
#ifndef FPAR_SCHED_BASE_CONFIG_H
#define FPAR_SCHED_BASE_CONFIG_H

#include <stddef.h>

#include "fiberpar.h"
#include "sched/base/order.h"

typedef struct fpar__sched_config {
  unsigned num_threads; /* 0: one per core (or PU) */
  fpar_pin pin;         /* resolved: never FPAR_PIN_DEFAULT */
  size_t stack_size;
  size_t local_mem_size;
  size_t max_group_size;
  unsigned spin_us;
  fpar_fpenv fpenv;       /* resolved: never FPAR_FPENV_DEFAULT */
  unsigned subgroup_size; /* resolved: never 0 */
  size_t max_stacks;      /* fiber stacks per worker; 0: from the budget */
  int stack_guard_prot;   /* PROT_NONE guards even where marks exist */
  /* Placement (see machine/topo.h).  places is read only at creation. */
  const char *places;      /* FPAR_PIN_LIST: "0,2,4-7" */
  const char *places_name; /* names the list in messages */
  int places_error;        /* FPAR_EENV or FPAR_EINVAL for a bad list */
  unsigned local_rank;     /* the launcher's rank on this node */
  unsigned local_ranks;    /* ranks on this node; 0 = no launcher */
  fpar_display display;    /* resolved: never FPAR_DISPLAY_DEFAULT */
  const char *trace_path;  /* FIBERPAR_TRACE file; NULL: no trace.  Read
                              only at creation. */
  int secure;              /* secure-execution mode: the environment was
                              not read (lib/env.h) */
  fpar__order order;       /* FIBERPAR_SCHEDULE: work-items' and groups'
                              order; forward unless set */
} fpar__sched_config;

#endif
