/* SPDX-License-Identifier: MIT */
/* display.c - FIBERPAR_DISPLAY (see display.h): the placement of a new
 * runtime's workers, and the library and knobs it runs with. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fiberpar.h"
#include "sched/diag/display.h"
#include "sched/fiber/context.h"
#include "sched/machine/topo.h"

static const char *fpar__pin_name(fpar_pin pin) {
  static const char *const names[] = {"default", "core", "pu",
                                      "none",    "numa", "list"};
  return (unsigned)pin < sizeof names / sizeof names[0] ? names[pin] : "?";
}

static const char *fpar__plural(int n) {
  return n == 1 ? "" : "s";
}

/* The CPU list of worker w (-1: the whole set), or NULL without memory;
 * the caller frees it. */
static char *fpar__cpus_alloc(const struct fpar__topo *t, int w) {
  int len = fpar__topo_cpus_text(t, w, NULL, 0);
  char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;

  if (buf != NULL)
    fpar__topo_cpus_text(t, w, buf, (size_t)len + 1);
  return buf;
}

/* One line: the CPU set, its size and the policy, like OpenMP's
 * OMP_DISPLAY_AFFINITY header. */
static void fpar__print_set(const struct fpar__topo *t, fpar_pin pin,
                            const char *set) {
  char host[64] = "?", rank[160] = "";
  char *from = NULL;
  int cores, pus, nodes, len;
  unsigned r, ranks, workers = fpar__topo_num_workers(t);

  fpar__topo_counts(t, &cores, &pus, &nodes);
  gethostname(host, sizeof host - 1);
  if ((len = fpar__topo_share(t, &r, &ranks, NULL, 0)) >= 0) {
    if ((from = malloc((size_t)len + 1)) != NULL)
      fpar__topo_share(t, &r, &ranks, from, (size_t)len + 1);
    snprintf(rank, sizeof rank,
             " (local rank %u of %u: its share of the unbound set %s)", r,
             ranks, from != NULL ? from : "?");
    free(from);
  }
  fprintf(stderr,
          "fiberpar: host %s pid %ld: CPU set %s%s: %d core%s, %d PU%s, %d "
          "NUMA node%s; pin %s, %u worker%s\n",
          host, (long)getpid(), set, rank, cores, fpar__plural(cores), pus,
          fpar__plural(pus), nodes, fpar__plural(nodes), fpar__pin_name(pin),
          workers, fpar__plural((int)workers));
}

/* One line per worker: its CPUs and the NUMA node of its memory. */
static void fpar__print_worker(const struct fpar__topo *t, fpar_pin pin,
                               unsigned w) {
  char *cpus = fpar__cpus_alloc(t, (int)w);
  char node[32] = "the node of first touch";

  if (fpar__topo_numa_node(t, w) >= 0)
    snprintf(node, sizeof node, "NUMA node %d", fpar__topo_numa_node(t, w));
  fprintf(stderr, "fiberpar: worker %u: CPUs %s%s, memory on %s\n", w,
          cpus != NULL ? cpus : "?", pin == FPAR_PIN_NONE ? " (not bound)" : "",
          node);
  free(cpus);
}

void fpar__display_placement(const struct fpar__topo *t,
                             const fpar__sched_config *cfg) {
  unsigned per_place = fpar__topo_per_place(t), workers, places, w;
  char *set;
  int shared;

  if (cfg->display == FPAR_DISPLAY_QUIET ||
      (cfg->display == FPAR_DISPLAY_WARN && per_place <= 1))
    return;
  workers = fpar__topo_num_workers(t);
  fpar__topo_places(t, &places, &shared);
  set = fpar__cpus_alloc(t, -1);
  if (cfg->display == FPAR_DISPLAY_ALL) {
    fpar__print_set(t, cfg->pin, set != NULL ? set : "?");
    for (w = 0; w < workers; w++)
      fpar__print_worker(t, cfg->pin, w);
  }
  if (per_place > 1)
    fprintf(stderr,
            "fiberpar: warning: oversubscribed: up to %u workers share one "
            "place (%u worker%s on %u %s%s of CPU set %s%s); "
            "FIBERPAR_DISPLAY=0 silences this\n",
            per_place, workers, fpar__plural((int)workers), places,
            cfg->pin == FPAR_PIN_PU     ? "PU"
            : cfg->pin == FPAR_PIN_LIST ? "listed place"
                                        : "core",
            fpar__plural((int)places), set != NULL ? set : "?",
            shared ? ", places also used by another runtime of this process"
                   : "");
  free(set);
}

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

void fpar__display_runtime(const fpar__sched_config *c, const char *isa,
                           unsigned lanes) {
  char stack[32], local[32];

  /* A reordering schedule changes results that depend on the order of
   * work-items: say so, and how to repeat a shuffle, unless told to be
   * quiet. */
  if (c->display != FPAR_DISPLAY_QUIET && c->order.kind == FPAR__ORDER_REVERSE)
    fprintf(stderr, "fiberpar: FIBERPAR_SCHEDULE=reverse: work-items and "
                    "groups run in reverse order\n");
  if (c->display != FPAR_DISPLAY_QUIET && c->order.kind == FPAR__ORDER_SHUFFLE)
    fprintf(stderr,
            "fiberpar: work-items and groups run shuffled; "
            "FIBERPAR_SCHEDULE=shuffle:%#llx repeats this order\n",
            (unsigned long long)c->order.seed);
  if (c->display != FPAR_DISPLAY_ALL)
    return;
  fprintf(stderr,
          "fiberpar: libfiberpar %s: %u worker%s, fiber stacks of %s, local "
          "memory %s per worker, groups of up to %zu work-items, FP "
          "environment %s, SIMD %s with %u lanes, context switch %s\n",
          FPAR_VERSION_STRING, c->num_threads, c->num_threads == 1 ? "" : "s",
          fpar__size_text(c->stack_size, stack, sizeof stack),
          fpar__size_text(c->local_mem_size, local, sizeof local),
          c->max_group_size, c->fpenv == FPAR_FPENV_ITEM ? "item" : "shared",
          isa, lanes, fpar__ctx_impl_name);
  /* Only the program's own options ask for this in that mode: the
   * caller's FIBERPAR_DISPLAY is ignored with the rest. */
  if (c->secure)
    fprintf(stderr, "fiberpar: secure-execution mode: the FIBERPAR_* and "
                    "HWLOC_* environment variables are ignored\n");
}
