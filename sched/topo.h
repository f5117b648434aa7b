/* topo.h - the machine as the scheduler sees it: which CPUs each worker is
 * pinned to and which NUMA node holds its memory.  The only user of hwloc.
 */
#ifndef FPAR_SCHED_TOPO_H
#define FPAR_SCHED_TOPO_H

#include <stddef.h>

#include "fiberpar.h"

struct fpar__topo;

/* Discover the machine and place num_threads workers (0 = one per core, or
 * per PU for FPAR_PIN_PU) round-robin over cores (or PUs).  Returns 0,
 * FPAR_ETOPOLOGY or FPAR_ENOMEM. */
int fpar__topo_create(struct fpar__topo **t, fpar_pin pin,
                      unsigned num_threads);
void fpar__topo_destroy(struct fpar__topo *t);

/* Number of workers placed. */
unsigned fpar__topo_num_workers(const struct fpar__topo *t);

/* Bind the calling thread to worker w's CPUs (no-op for FPAR_PIN_NONE).
 * Returns 0 or FPAR_ETOPOLOGY. */
int fpar__topo_bind_thread(struct fpar__topo *t, unsigned w);

/* Bind [addr, addr + len) to worker w's NUMA node.  Best effort: machines
 * without NUMA support keep the first-touch placement. */
void fpar__topo_bind_area(struct fpar__topo *t, unsigned w, void *addr,
                          size_t len);

#endif
