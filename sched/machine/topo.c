/* SPDX-License-Identifier: MIT */
/* topo.c - hwloc topology restricted to the process's CPU set, worker
 * placement and NUMA binding (see topo.h). */
#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/base/error.h"
#include "sched/machine/pu_usage.h"
#include "sched/machine/topo.h"

/* Largest OS CPU number a place list may name. */
#define FPAR__MAX_CPU 65535ul

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

/* ---- Places ------------------------------------------------------------ */

/* Append a place running on cpuset and counted as claim (NULL: cpuset). */
static int fpar__topo_add_place(struct fpar__topo *t,
                                hwloc_const_cpuset_t cpuset,
                                hwloc_const_cpuset_t claim) {
  fpar__place *p = &t->places[t->num_places];

  p->cpuset = hwloc_bitmap_dup(cpuset);
  p->claim = hwloc_bitmap_dup(claim != NULL ? claim : cpuset);
  p->nodeset = hwloc_bitmap_alloc();
  if (p->nodeset != NULL)
    hwloc_cpuset_to_nodeset(t->topology, cpuset, p->nodeset);
  t->num_places++;
  if (p->cpuset == NULL || p->claim == NULL || p->nodeset == NULL)
    return fpar__set_error(FPAR_ENOMEM, "no memory for the worker places");
  return 0;
}

/* One place per core (or PU); FPAR_PIN_NUMA widens each core to the CPUs
 * of its NUMA node but still counts the core as the worker's. */
static int fpar__topo_object_places(struct fpar__topo *t) {
  hwloc_obj_type_t type = t->pin == FPAR_PIN_PU ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
  int n = hwloc_get_nbobjs_by_type(t->topology, type), k, err = 0;
  hwloc_cpuset_t node_cpus = hwloc_bitmap_alloc();

  if (n <= 0 && type == HWLOC_OBJ_CORE) { /* some VMs report no cores */
    type = HWLOC_OBJ_PU;
    n = hwloc_get_nbobjs_by_type(t->topology, type);
  }
  if (n <= 0)
    err = fpar__set_error(FPAR_ETOPOLOGY,
                          "hwloc found no %s in this "
                          "process's CPU set",
                          type == HWLOC_OBJ_PU ? "PU" : "core");
  else if (node_cpus == NULL ||
           (t->places = calloc((size_t)n, sizeof *t->places)) == NULL)
    err = fpar__set_error(FPAR_ENOMEM, "no memory for the worker places");
  for (k = 0; err == 0 && k < n; k++) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(t->topology, type, (unsigned)k);
    if (t->pin == FPAR_PIN_NUMA) {
      hwloc_cpuset_from_nodeset(t->topology, node_cpus, obj->nodeset);
      hwloc_bitmap_and(node_cpus, node_cpus, t->set);
      err = fpar__topo_add_place(t, node_cpus, obj->cpuset);
    } else {
      err = fpar__topo_add_place(t, obj->cpuset, NULL);
    }
  }
  hwloc_bitmap_free(node_cpus);
  return err;
}

/* Parse one entry "a" or "a-b" of a place list into cpus. */
static int fpar__topo_parse_entry(const char *s, const char *end,
                                  hwloc_cpuset_t cpus) {
  unsigned long a, b;
  char *stop;

  if (s == end || *s < '0' || *s > '9')
    return -1;
  a = b = strtoul(s, &stop, 10);
  if (stop < end && *stop == '-') {
    s = stop + 1;
    if (s == end || *s < '0' || *s > '9')
      return -1;
    b = strtoul(s, &stop, 10);
  }
  if (stop != end || a > b || b > FPAR__MAX_CPU)
    return -1;
  hwloc_bitmap_set_range(cpus, (unsigned)a, (int)b);
  return 0;
}

/* One place per comma-separated entry of cfg->places, each inside the
 * runtime's set. */
static int fpar__topo_list_places(struct fpar__topo *t,
                                  const fpar__sched_config *cfg) {
  const char *s = cfg->places, *end;
  size_t n = 1;
  hwloc_cpuset_t cpus = hwloc_bitmap_alloc();
  int err = 0;

  for (end = s; *end != '\0'; end++)
    n += *end == ',';
  if (cpus == NULL || (t->places = calloc(n, sizeof *t->places)) == NULL) {
    hwloc_bitmap_free(cpus);
    return fpar__set_error(FPAR_ENOMEM, "no memory for the worker places");
  }
  for (; err == 0; s = end + 1) {
    char *set_text = NULL;
    end = strchr(s, ',');
    if (end == NULL)
      end = s + strlen(s);
    hwloc_bitmap_zero(cpus);
    if (fpar__topo_parse_entry(s, end, cpus) != 0) {
      err = fpar__set_error(cfg->places_error,
                            "%s=\"%s\": entry \"%.*s\" is not an OS CPU "
                            "number (0-%lu) or a range a-b; expected a list "
                            "such as 0,2,4-7 (each entry one place)",
                            cfg->places_name, cfg->places, (int)(end - s), s,
                            FPAR__MAX_CPU);
    } else if (!hwloc_bitmap_isincluded(cpus, t->set)) {
      hwloc_bitmap_andnot(cpus, cpus, t->set);
      hwloc_bitmap_list_asprintf(&set_text, t->set);
      err = fpar__set_error(cfg->places_error,
                            "%s=\"%s\": CPU %d is not in this process's "
                            "allowed CPU set %s (its binding)",
                            cfg->places_name, cfg->places,
                            hwloc_bitmap_first(cpus),
                            set_text != NULL ? set_text : "?");
      free(set_text);
    } else {
      err = fpar__topo_add_place(t, cpus, NULL);
    }
    if (*end == '\0')
      break;
  }
  hwloc_bitmap_free(cpus);
  return err;
}

/* ---- Workers ------------------------------------------------------------ */

/* Most workers of the process's runtimes bound to one PU of p. */
static unsigned fpar__place_usage(const fpar__place *p) {
  unsigned most = 0;
  int pu;

  hwloc_bitmap_foreach_begin(pu, p->claim) {
    unsigned u = fpar__pu_usage_get((unsigned)pu);
    most = u > most ? u : most;
  }
  hwloc_bitmap_foreach_end();
  return most;
}

/* Count (delta = 1) or uncount (-1) our workers in pu_usage; the caller
 * holds its lock. */
static void fpar__topo_claim(struct fpar__topo *t, int delta) {
  unsigned w;
  int pu;

  for (w = 0; w < t->num_workers; w++) {
    hwloc_bitmap_foreach_begin(pu, t->places[t->worker_place[w]].claim) {
      fpar__pu_usage_add((unsigned)pu, delta);
    }
    hwloc_bitmap_foreach_end();
  }
}

/* Give each worker the least used place (the first of equals, so a lone
 * runtime puts worker w on place w), counting the other runtimes'
 * workers, then count ours. */
static int fpar__topo_assign(struct fpar__topo *t, unsigned num_threads) {
  unsigned *load = calloc(t->num_places, sizeof *load);
  unsigned w, k;
  int err;

  t->num_workers = num_threads ? num_threads : t->num_places;
  t->worker_place = calloc(t->num_workers, sizeof *t->worker_place);
  if (load == NULL || t->worker_place == NULL) {
    free(load);
    return fpar__set_error(FPAR_ENOMEM, "no memory for the worker places");
  }
  if ((err = fpar__pu_usage_lock()) != 0) {
    free(load);
    return fpar__set_error(err, "no memory for the place registry");
  }
  if (t->pin != FPAR_PIN_NONE &&
      (err = fpar__pu_usage_reserve((unsigned)hwloc_bitmap_last(t->set))) !=
          0) {
    fpar__pu_usage_unlock();
    free(load);
    return fpar__set_error(err, "no memory for the place registry");
  }
  for (k = 0; t->pin != FPAR_PIN_NONE && k < t->num_places; k++) {
    load[k] = fpar__place_usage(&t->places[k]);
    t->shared |= load[k] != 0;
  }
  for (w = 0; w < t->num_workers; w++) {
    unsigned best = 0;
    for (k = 1; k < t->num_places; k++)
      if (load[k] < load[best])
        best = k;
    t->worker_place[w] = best;
    load[best]++;
  }
  for (k = 0; k < t->num_places; k++)
    t->per_place = load[k] > t->per_place ? load[k] : t->per_place;
  if (t->pin != FPAR_PIN_NONE) {
    fpar__topo_claim(t, 1);
    t->claimed = 1;
  }
  fpar__pu_usage_unlock();
  free(load);
  return 0;
}

/* ---- Display ------------------------------------------------------------ */

static const char *fpar__pin_name(fpar_pin pin) {
  static const char *const names[] = {"default", "core", "pu",
                                      "none",    "numa", "list"};
  return (unsigned)pin < sizeof names / sizeof names[0] ? names[pin] : "?";
}

static const char *fpar__plural(int n) {
  return n == 1 ? "" : "s";
}

/* One line: the CPU set, its size and the policy, like OpenMP's
 * OMP_DISPLAY_AFFINITY header. */
static void fpar__topo_print_set(const struct fpar__topo *t, const char *set) {
  char host[64] = "?", rank[160] = "";
  char *from = NULL;
  int cores, pus, nodes;

  fpar__topo_counts(t, &cores, &pus, &nodes);
  gethostname(host, sizeof host - 1);
  if (t->from != NULL) {
    hwloc_bitmap_list_asprintf(&from, t->from);
    snprintf(rank, sizeof rank,
             " (local rank %u of %u: its share of the unbound set %s)",
             t->local_rank, t->local_ranks, from != NULL ? from : "?");
    free(from);
  }
  fprintf(stderr,
          "fiberpar: host %s pid %ld: CPU set %s%s: %d core%s, %d PU%s, %d "
          "NUMA node%s; pin %s, %u worker%s\n",
          host, (long)getpid(), set, rank, cores, fpar__plural(cores), pus,
          fpar__plural(pus), nodes, fpar__plural(nodes), fpar__pin_name(t->pin),
          t->num_workers, fpar__plural((int)t->num_workers));
}

/* One line per worker: its CPUs and the NUMA node of its memory. */
static void fpar__topo_print_worker(const struct fpar__topo *t, unsigned w) {
  char *cpus = NULL;
  char node[32] = "the node of first touch";

  hwloc_bitmap_list_asprintf(&cpus, t->pin == FPAR_PIN_NONE
                                        ? t->set
                                        : t->places[t->worker_place[w]].cpuset);
  if (fpar__topo_numa_node(t, w) >= 0)
    snprintf(node, sizeof node, "NUMA node %d", fpar__topo_numa_node(t, w));
  fprintf(stderr, "fiberpar: worker %u: CPUs %s%s, memory on %s\n", w,
          cpus != NULL ? cpus : "?",
          t->pin == FPAR_PIN_NONE ? " (not bound)" : "", node);
  free(cpus);
}

static void fpar__topo_display(const struct fpar__topo *t,
                               fpar_display display) {
  char *set = NULL;
  unsigned w;

  if (display == FPAR_DISPLAY_QUIET ||
      (display == FPAR_DISPLAY_WARN && t->per_place <= 1))
    return;
  hwloc_bitmap_list_asprintf(&set, t->set);
  if (display == FPAR_DISPLAY_ALL) {
    fpar__topo_print_set(t, set != NULL ? set : "?");
    for (w = 0; w < t->num_workers; w++)
      fpar__topo_print_worker(t, w);
  }
  if (t->per_place > 1)
    fprintf(stderr,
            "fiberpar: warning: oversubscribed: up to %u workers share one "
            "place (%u worker%s on %u %s%s of CPU set %s%s); "
            "FIBERPAR_DISPLAY=0 silences this\n",
            t->per_place, t->num_workers, fpar__plural((int)t->num_workers),
            t->num_places,
            t->pin == FPAR_PIN_PU     ? "PU"
            : t->pin == FPAR_PIN_LIST ? "listed place"
                                      : "core",
            fpar__plural((int)t->num_places), set != NULL ? set : "?",
            t->shared ? ", places also used by another runtime of this process"
                      : "");
  free(set);
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
           (err = cfg->pin == FPAR_PIN_LIST ? fpar__topo_list_places(t, cfg)
                                            : fpar__topo_object_places(t)) == 0)
    err = fpar__topo_assign(t, cfg->num_threads);
  if (err != 0) {
    fpar__topo_destroy(t);
    return err;
  }
  fpar__topo_display(t, cfg->display);
  *out = t;
  return 0;
}

void fpar__topo_destroy(struct fpar__topo *t) {
  unsigned k;

  if (t == NULL)
    return;
  if (t->claimed && fpar__pu_usage_lock() == 0) {
    fpar__topo_claim(t, -1);
    fpar__pu_usage_unlock();
  }
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

/* ---- Queries and binding ------------------------------------------------ */

unsigned fpar__topo_num_workers(const struct fpar__topo *t) {
  return t->num_workers;
}

unsigned fpar__topo_per_place(const struct fpar__topo *t) {
  return t->per_place;
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
