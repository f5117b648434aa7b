/* SPDX-License-Identifier: MIT */
/* topo.c - discovering the machine with hwloc, restricted to the
 * process's CPU set (or a local rank's share of it); the topology's life
 * and what it tells (see topo.h). */
#include <errno.h>
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "sched/base/error.h"
#include "sched/machine/topo.h"
#include "sched/machine/topo_internal.h"

/* ---- The runtime's CPU set ------------------------------------------- */

/* This rank's share of set: its slice of the cores (close together, so a
 * share stays within a NUMA node where it can), or one core when there are
 * more ranks than cores. */
static void fpar__topo_local_share(struct fpar__topo *t, hwloc_cpuset_t set) {
  hwloc_obj_type_t type = HWLOC_OBJ_CORE;
  int n = hwloc_get_nbobjs_inside_cpuset_by_type(t->topology, set, type);
  unsigned first, end, k;
  hwloc_cpuset_t share = hwloc_bitmap_alloc();

  if (n <= 0) {
    type = HWLOC_OBJ_PU;
    n = hwloc_get_nbobjs_inside_cpuset_by_type(t->topology, set, type);
  }
  if (share == NULL || n <= 0) {
    hwloc_bitmap_free(share);
    return;
  }
  if ((unsigned)n >= t->local_ranks) {
    first = (unsigned)n * t->local_rank / t->local_ranks;
    end = (unsigned)n * (t->local_rank + 1) / t->local_ranks;
  } else {
    first = t->local_rank % (unsigned)n;
    end = first + 1;
  }
  for (k = first; k < end; k++)
    hwloc_bitmap_or(
        share, share,
        hwloc_get_obj_inside_cpuset_by_type(t->topology, set, type, k)->cpuset);
  hwloc_bitmap_copy(set, share);
  hwloc_bitmap_free(share);
}

/* Restrict the topology to the process's binding (or this local rank's
 * share of an unbound process), so that every count and object from here
 * on is that of the allowed set. */
static int fpar__topo_restrict(struct fpar__topo *t,
                               const fpar__sched_config *cfg) {
  hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(t->topology);
  hwloc_cpuset_t set = hwloc_bitmap_alloc();
  int err = 0;

  if (set == NULL)
    return fpar__set_error(FPAR_ENOMEM, "no memory for the CPU set");
  /* On Linux the process binding is the union of its threads' bindings;
   * without binding support, the allowed set (cgroup cpuset) is all. */
  if (hwloc_get_cpubind(t->topology, set, HWLOC_CPUBIND_PROCESS) != 0)
    hwloc_bitmap_copy(set, allowed);
  hwloc_bitmap_and(set, set, allowed);
  if (hwloc_bitmap_iszero(set))
    hwloc_bitmap_copy(set, allowed);
  if (cfg->local_ranks > 1 && cfg->pin != FPAR_PIN_LIST &&
      hwloc_bitmap_isequal(set, allowed)) {
    t->local_rank = cfg->local_rank;
    t->local_ranks = cfg->local_ranks;
    t->from = hwloc_bitmap_dup(set);
    fpar__topo_local_share(t, set);
  }
  if (hwloc_topology_restrict(t->topology, set,
                              HWLOC_RESTRICT_FLAG_REMOVE_CPULESS) != 0)
    err = fpar__set_error(FPAR_ETOPOLOGY,
                          "hwloc could not restrict the topology to the "
                          "process's CPU set: %s",
                          strerror(errno));
  hwloc_bitmap_free(set);
  if (err == 0 && (t->set = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(
                       t->topology))) == NULL)
    err = fpar__set_error(FPAR_ENOMEM, "no memory for the CPU set");
  return err;
}

/* ---- Life cycle --------------------------------------------------------- */

int fpar__topo_create(struct fpar__topo **out, const fpar__sched_config *cfg) {
  struct fpar__topo *t = calloc(1, sizeof *t);
  int err;

  if (t == NULL)
    return fpar__set_error(FPAR_ENOMEM, "no memory for the topology");
  t->pin = cfg->pin;
  if (hwloc_topology_init(&t->topology) != 0) {
    free(t);
    return fpar__set_error(FPAR_ETOPOLOGY, "hwloc could not start: %s",
                           strerror(errno));
  }
  if (hwloc_topology_load(t->topology) != 0)
    err = fpar__set_error(FPAR_ETOPOLOGY,
                          "hwloc could not discover this machine: %s",
                          strerror(errno));
  else if ((err = fpar__topo_restrict(t, cfg)) == 0 &&
           (err = fpar__topo_make_places(t, cfg)) == 0)
    err = fpar__topo_claim_places(t, cfg->num_threads);
  if (err != 0) {
    fpar__topo_destroy(t);
    return err;
  }
  *out = t;
  return 0;
}

void fpar__topo_destroy(struct fpar__topo *t) {
  unsigned k;

  if (t == NULL)
    return;
  fpar__topo_release_places(t);
  for (k = 0; k < t->num_places; k++) {
    hwloc_bitmap_free(t->places[k].cpuset);
    hwloc_bitmap_free(t->places[k].nodeset);
    hwloc_bitmap_free(t->places[k].claim);
  }
  free(t->places);
  free(t->worker_place);
  hwloc_bitmap_free(t->set);
  hwloc_bitmap_free(t->from);
  hwloc_topology_destroy(t->topology);
  free(t);
}

/* ---- Queries ------------------------------------------------------------ */

unsigned fpar__topo_num_workers(const struct fpar__topo *t) {
  return t->num_workers;
}

unsigned fpar__topo_per_place(const struct fpar__topo *t) {
  return t->per_place;
}

void fpar__topo_places(const struct fpar__topo *t, unsigned *num, int *shared) {
  *num = t->num_places;
  *shared = t->shared;
}

int fpar__topo_share(const struct fpar__topo *t, unsigned *rank,
                     unsigned *ranks, char *buf, size_t size) {
  if (t->from == NULL)
    return -1;
  *rank = t->local_rank;
  *ranks = t->local_ranks;
  return hwloc_bitmap_list_snprintf(buf, size, t->from);
}

void fpar__topo_counts(const struct fpar__topo *t, int *cores, int *pus,
                       int *nodes) {
  *cores = hwloc_get_nbobjs_by_type(t->topology, HWLOC_OBJ_CORE);
  *pus = hwloc_get_nbobjs_by_type(t->topology, HWLOC_OBJ_PU);
  *nodes = hwloc_get_nbobjs_by_type(t->topology, HWLOC_OBJ_NUMANODE);
}

int fpar__topo_cpus_text(const struct fpar__topo *t, int w, char *buf,
                         size_t size) {
  hwloc_const_cpuset_t cpus = w < 0 || t->pin == FPAR_PIN_NONE
                                  ? t->set
                                  : t->places[t->worker_place[w]].cpuset;

  return hwloc_bitmap_list_snprintf(buf, size, cpus);
}

int fpar__topo_numa_node(const struct fpar__topo *t, unsigned w) {
  hwloc_const_nodeset_t nodes = t->places[t->worker_place[w]].nodeset;

  if (t->pin == FPAR_PIN_NONE || hwloc_bitmap_weight(nodes) != 1)
    return -1;
  return hwloc_bitmap_first(nodes);
}
