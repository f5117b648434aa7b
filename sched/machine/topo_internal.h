/* SPDX-License-Identifier: MIT */
/* topo_internal.h - the machine room's own view of a topology, shared by
 * its files: topo.c discovers the machine and the runtime's CPU set,
 * places.c divides the set into places, claim.c gives the workers their
 * places, bind.c binds threads and memory to them.  Only files of
 * sched/machine/ include it. */
#ifndef FPAR_SCHED_MACHINE_TOPO_INTERNAL_H
#define FPAR_SCHED_MACHINE_TOPO_INTERNAL_H

#include <hwloc.h>

#include "fiberpar.h"
#include "sched/base/config.h"

typedef struct fpar__place {
  hwloc_cpuset_t cpuset;   /* where a worker on it runs */
  hwloc_nodeset_t nodeset; /* where the worker's memory lives */
  hwloc_cpuset_t claim;    /* the PUs it counts as using in this process */
} fpar__place;

struct fpar__topo {
  hwloc_topology_t topology;
  fpar_pin pin;
  hwloc_cpuset_t set;  /* the CPUs this runtime may use */
  hwloc_cpuset_t from; /* the process's set, when set is a rank's share */
  unsigned local_rank, local_ranks;
  unsigned num_places;
  fpar__place *places;
  unsigned num_workers;
  unsigned *worker_place; /* index into places */
  unsigned per_place;     /* workers on the busiest place */
  int shared;             /* another runtime uses some of our places */
  int claimed;            /* our workers are counted in pu_usage */
};

/* Divide the runtime's set into places: one per core or PU (as t->pin
 * says), or one per entry of cfg->places (FPAR_PIN_LIST).  Returns 0, or
 * FPAR_ETOPOLOGY, FPAR_ENOMEM or cfg->places_error (a bad list) with
 * fpar_last_error set. */
int fpar__topo_make_places(struct fpar__topo *t, const fpar__sched_config *cfg);

/* Give each of num_threads workers (0: one per place) a place, the least
 * used first, and count them as using it (pu_usage.h).  Returns 0, or
 * FPAR_ENOMEM with fpar_last_error set. */
int fpar__topo_claim_places(struct fpar__topo *t, unsigned num_threads);

/* Stop counting the workers fpar__topo_claim_places() counted. */
void fpar__topo_release_places(struct fpar__topo *t);

#endif
