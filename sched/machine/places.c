/* SPDX-License-Identifier: MIT */
/* places.c - dividing a runtime's CPU set into the places workers are
 * pinned to: its cores or PUs (FPAR_PIN_NUMA widens each core to its NUMA
 * node), or the entries of a place list (FIBERPAR_PIN=0,2,4-7 or
 * fpar_runtime_opts.places), which are parsed and checked here. */
#include <stdlib.h>
#include <string.h>

#include "sched/base/error.h"
#include "sched/machine/topo_internal.h"

/* Largest OS CPU number a place list may name. */
#define FPAR__MAX_CPU 65535ul

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

int fpar__topo_make_places(struct fpar__topo *t,
                           const fpar__sched_config *cfg) {
  return cfg->pin == FPAR_PIN_LIST ? fpar__topo_list_places(t, cfg)
                                   : fpar__topo_object_places(t);
}
