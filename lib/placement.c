/* SPDX-License-Identifier: MIT */
/* placement.c - where a runtime's workers run: its CPU set, each worker's
 * CPUs and NUMA node, oversubscription (the public queries over
 * sched/machine/topo.h). */
#include "lib/internal.h"
#include "sched/base/error.h"
#include "sched/machine/topo.h"

/* Copy the CPU list of a worker (-1: the runtime's set) into buf, or fail
 * naming the size it needs. */
static int fpar__cpus_to_buffer(const fpar_runtime *rt, int worker, char *buf,
                                size_t size, const char *caller) {
  int len = fpar__runtime_usable(rt, caller);

  if (len != 0)
    return len;
  if (buf == NULL || size == 0)
    return fpar__set_error(FPAR_EINVAL, "%s: buf is NULL or size is 0", caller);
  len = fpar__topo_cpus_text(fpar__sched_topo(rt->sched), worker, buf, size);
  if (len < 0 || (size_t)len >= size)
    return fpar__set_error(FPAR_EINVAL,
                           "%s: the CPU list needs %d bytes, buf has %zu",
                           caller, len + 1, size);
  return 0;
}

static int fpar__check_worker(const fpar_runtime *rt, unsigned worker,
                              const char *caller) {
  int err = fpar__runtime_usable(rt, caller);

  if (err != 0)
    return err;
  if (worker >= rt->cfg.num_threads)
    return fpar__set_error(FPAR_EINVAL,
                           "%s: worker %u does not exist (the runtime has %u)",
                           caller, worker, rt->cfg.num_threads);
  return 0;
}

int fpar_runtime_cpuset(const fpar_runtime *rt, char *buf, size_t size) {
  return fpar__cpus_to_buffer(rt, -1, buf, size, "fpar_runtime_cpuset");
}

int fpar_runtime_worker_cpus(const fpar_runtime *rt, unsigned worker, char *buf,
                             size_t size) {
  int err = fpar__check_worker(rt, worker, "fpar_runtime_worker_cpus");

  return err ? err
             : fpar__cpus_to_buffer(rt, (int)worker, buf, size,
                                    "fpar_runtime_worker_cpus");
}

int fpar_runtime_worker_numa_node(const fpar_runtime *rt, unsigned worker,
                                  int *node) {
  int err = fpar__check_worker(rt, worker, "fpar_runtime_worker_numa_node");

  if (err)
    return err;
  if (node == NULL)
    return fpar__set_error(FPAR_EINVAL,
                           "fpar_runtime_worker_numa_node: node is NULL");
  *node = fpar__topo_numa_node(fpar__sched_topo(rt->sched), worker);
  return 0;
}

unsigned fpar_runtime_oversubscription(const fpar_runtime *rt) {
  return fpar__topo_per_place(fpar__sched_topo(rt->sched));
}

int fpar_runtime_topology(const fpar_runtime *rt, unsigned *cores,
                          unsigned *pus, unsigned *numa_nodes) {
  int err = fpar__runtime_usable(rt, "fpar_runtime_topology"), c, p, n;

  if (err != 0)
    return err;
  fpar__topo_counts(fpar__sched_topo(rt->sched), &c, &p, &n);
  if (cores != NULL)
    *cores = (unsigned)c;
  if (pus != NULL)
    *pus = (unsigned)p;
  if (numa_nodes != NULL)
    *numa_nodes = (unsigned)n;
  return 0;
}
