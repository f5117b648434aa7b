/* SPDX-License-Identifier: MIT */
/* bind.c - binding a worker's thread to its place's CPUs and its memory
 * to its place's NUMA node (see topo.h). */
#include "sched/machine/topo.h"
#include "sched/machine/topo_internal.h"

int fpar__topo_bind_thread(struct fpar__topo *t, unsigned w) {
  if (t->pin == FPAR_PIN_NONE)
    return 0;
  if (hwloc_set_cpubind(t->topology, t->places[t->worker_place[w]].cpuset,
                        HWLOC_CPUBIND_THREAD) != 0)
    return FPAR_ETOPOLOGY;
  return 0;
}

void fpar__topo_bind_area(struct fpar__topo *t, unsigned w, void *addr,
                          size_t len) {
  if (t->pin == FPAR_PIN_NONE)
    return;
  /* Not strict: without NUMA support the pages stay first-touch, which for
   * a pinned worker touching its own memory is the same node. */
  (void)hwloc_set_area_membind(t->topology, addr, len,
                               t->places[t->worker_place[w]].nodeset,
                               HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET);
}
