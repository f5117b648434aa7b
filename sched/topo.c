/* topo.c - hwloc topology, worker placement and NUMA binding. */
#include <hwloc.h>
#include <stdlib.h>

#include "sched/topo.h"

typedef struct fpar__place {
  hwloc_cpuset_t cpuset;   /* where the worker runs */
  hwloc_nodeset_t nodeset; /* where its memory lives */
} fpar__place;

struct fpar__topo {
  hwloc_topology_t topology;
  fpar_pin pin;
  unsigned num_workers;
  fpar__place *places;
};

static int fpar__topo_place_all(struct fpar__topo *t, unsigned num_threads) {
  hwloc_obj_type_t type = t->pin == FPAR_PIN_PU ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
  int n = hwloc_get_nbobjs_by_type(t->topology, type);
  unsigned w;

  if (n <= 0 && type == HWLOC_OBJ_CORE) { /* some VMs report no cores */
    type = HWLOC_OBJ_PU;
    n = hwloc_get_nbobjs_by_type(t->topology, type);
  }
  if (n <= 0)
    return FPAR_ETOPOLOGY;
  t->num_workers = num_threads ? num_threads : (unsigned)n;
  t->places = calloc(t->num_workers, sizeof *t->places);
  if (t->places == NULL)
    return FPAR_ENOMEM;
  for (w = 0; w < t->num_workers; w++) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(t->topology, type, w % (unsigned)n);
    fpar__place *p = &t->places[w];
    p->cpuset = hwloc_bitmap_dup(obj->cpuset);
    p->nodeset = hwloc_bitmap_dup(obj->nodeset);
    if (p->cpuset == NULL || p->nodeset == NULL)
      return FPAR_ENOMEM;
  }
  return 0;
}

int fpar__topo_create(struct fpar__topo **out, fpar_pin pin,
                      unsigned num_threads) {
  struct fpar__topo *t = calloc(1, sizeof *t);
  int err;

  if (t == NULL)
    return FPAR_ENOMEM;
  t->pin = pin;
  if (hwloc_topology_init(&t->topology) != 0) {
    free(t);
    return FPAR_ETOPOLOGY;
  }
  if (hwloc_topology_load(t->topology) != 0) {
    hwloc_topology_destroy(t->topology);
    free(t);
    return FPAR_ETOPOLOGY;
  }
  err = fpar__topo_place_all(t, num_threads);
  if (err) {
    fpar__topo_destroy(t);
    return err;
  }
  *out = t;
  return 0;
}

void fpar__topo_destroy(struct fpar__topo *t) {
  unsigned w;

  if (t == NULL)
    return;
  for (w = 0; t->places && w < t->num_workers; w++) {
    hwloc_bitmap_free(t->places[w].cpuset);
    hwloc_bitmap_free(t->places[w].nodeset);
  }
  free(t->places);
  hwloc_topology_destroy(t->topology);
  free(t);
}

unsigned fpar__topo_num_workers(const struct fpar__topo *t) {
  return t->num_workers;
}

int fpar__topo_bind_thread(struct fpar__topo *t, unsigned w) {
  if (t->pin == FPAR_PIN_NONE)
    return 0;
  if (hwloc_set_cpubind(t->topology, t->places[w].cpuset,
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
  (void)hwloc_set_area_membind(t->topology, addr, len, t->places[w].nodeset,
                               HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET);
}
