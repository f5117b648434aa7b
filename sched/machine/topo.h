/* SPDX-License-Identifier: MIT */
/* topo.h - the machine as the scheduler sees it: the CPUs the process may
 * use, which of them each worker is pinned to, and which NUMA node holds
 * its memory.  The machine room (topo.c, places.c, claim.c, bind.c) is
 * the only user of hwloc.
 *
 * The topology is restricted to the process's allowed CPU set (its
 * binding), or, when a launcher's local-rank variables are present and the
 * process is not bound, to this rank's share of the cores.  The pinning
 * policy divides that set into places (cores, PUs, cores widened to their
 * NUMA node, or the entries of an explicit list); workers take the least
 * used places first, counting the workers of the process's other runtimes,
 * so that runtimes do not pin on top of each other while places are free.
 */
/* Room machine of sched/ (docs/layout.md): the hwloc topology, places,
 * pinning, NUMA binding, PU usage.  The rooms, in the order they may
 * include one another: base, machine, fiber, group, diag, exec; a room
 * includes its own headers and those of the rooms before it, never one
 * after it (tests/test_layout.sh checks).  machine includes base; fiber,
 * group, diag, exec and lib/ include it. */
#ifndef FPAR_SCHED_MACHINE_TOPO_H
#define FPAR_SCHED_MACHINE_TOPO_H

#include <stddef.h>

#include "fiberpar.h"
#include "sched/base/config.h"

struct fpar__topo;

/* Discover the machine and place cfg->num_threads workers (0 = one per
 * place) by cfg->pin.  Returns 0, or FPAR_ETOPOLOGY, FPAR_ENOMEM or
 * cfg->places_error (bad place list) with fpar_last_error set. */
int fpar__topo_create(struct fpar__topo **t, const fpar__sched_config *cfg);
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

/* Write the OS CPU list of worker w's place (w < 0: the whole set) to buf
 * like snprintf; returns the length of the full list. */
int fpar__topo_cpus_text(const struct fpar__topo *t, int w, char *buf,
                         size_t size);

/* OS index of worker w's NUMA node; -1 if unbound or several. */
int fpar__topo_numa_node(const struct fpar__topo *t, unsigned w);

/* Workers on the busiest place (see fpar_runtime_oversubscription). */
unsigned fpar__topo_per_place(const struct fpar__topo *t);

/* Cores, hardware threads (PUs) and NUMA nodes of the set. */
void fpar__topo_counts(const struct fpar__topo *t, int *cores, int *pus,
                       int *nodes);

/* The places the set was divided into (*num), and whether another runtime
 * of the process uses some of them (*shared). */
void fpar__topo_places(const struct fpar__topo *t, unsigned *num, int *shared);

/* When the set is this local rank's share of an unbound process's set:
 * store the rank and the ranks, write the process's CPU list to buf like
 * snprintf and return its full length; else return -1. */
int fpar__topo_share(const struct fpar__topo *t, unsigned *rank,
                     unsigned *ranks, char *buf, size_t size);

#endif
