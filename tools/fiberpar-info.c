/* SPDX-License-Identifier: MIT */
/* fiberpar-info - what libfiberpar sees on this machine (like clinfo or
 * hwloc-ls): the library, the CPUs and workers, the vector unit, the
 * sizes, and what a barrier and an empty launch cost here.  It uses the
 * public API only. */
#include <fiberpar.h>
#include <fiberpar/simd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INFO_GROUP 256     /* work-items per group of the barrier kernel */
#define INFO_BARRIERS 64   /* barriers per work-item */
#define INFO_MAX_REPS 4096 /* most repetitions kept for the median */

static void usage(FILE *f) {
  fprintf(f, "Usage: fiberpar-info [--quick] [--help]\n"
             "Print what libfiberpar sees on this machine: the library "
             "version,\n"
             "the CPU set and topology, the workers and where they are "
             "pinned, the\n"
             "SIMD instruction set and lanes, stack and local memory sizes, "
             "then\n"
             "measure for about two seconds what a barrier (ns per work-item "
             "per\n"
             "barrier, one worker) and an empty launch (us, all workers) "
             "cost.\n"
             "\n"
             "  --quick  measure for about 0.2 seconds (for CI)\n"
             "  --help   print this text\n"
             "\n"
             "The FIBERPAR_* environment variables apply as in any program "
             "(see\n"
             "docs/environment.md).  Exit status: 0, 1 when no runtime can be "
             "created,\n"
             "2 for bad arguments.\n");
}

static double now_s(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int fail(const char *what, int err) {
  fprintf(stderr, "fiberpar-info: %s: %s: %s\n", what, fpar_err_name(err),
          fpar_last_error()[0] != '\0' ? fpar_last_error()
                                       : fpar_strerror(err));
  return 1;
}

static int create(fpar_runtime **rt, unsigned threads, fpar_pin pin,
                  fpar_display display) {
  fpar_runtime_opts o;

  fpar_runtime_opts_init(&o);
  o.num_threads = threads;
  o.pin = pin;
  o.display = display;
  return fpar_runtime_create(rt, &o);
}

/* ---- What the runtime sees ---------------------------------------------- */

static void print_size(const char *what, size_t bytes) {
  if (bytes % (1024 * 1024) == 0)
    printf("%-22s %zu MiB\n", what, bytes / (1024 * 1024));
  else if (bytes % 1024 == 0)
    printf("%-22s %zu KiB\n", what, bytes / 1024);
  else
    printf("%-22s %zu bytes\n", what, bytes);
}

static int describe(fpar_runtime *rt) {
  unsigned n = fpar_runtime_num_threads(rt), w, cores, pus, nodes;
  char cpus[4096];
  int err;

  if ((err = fpar_runtime_cpuset(rt, cpus, sizeof cpus)) != 0 ||
      (err = fpar_runtime_topology(rt, &cores, &pus, &nodes)) != 0)
    return fail("the runtime's CPU set", err);
  printf("%-22s %s (library), %s (header)\n", "libfiberpar",
         fpar_version_string(), FPAR_VERSION_STRING);
  printf("%-22s %s\n", "allowed CPUs", cpus);
  printf("%-22s %u core%s, %u hardware thread%s, %u NUMA node%s\n",
         "topology of the set", cores, cores == 1 ? "" : "s", pus,
         pus == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s");
  printf("%-22s %u (up to %u per place)\n", "workers", n,
         fpar_runtime_oversubscription(rt));
  for (w = 0; w < n; w++) {
    int node;
    char label[32];
    if ((err = fpar_runtime_worker_cpus(rt, w, cpus, sizeof cpus)) != 0 ||
        (err = fpar_runtime_worker_numa_node(rt, w, &node)) != 0)
      return fail("worker placement", err);
    snprintf(label, sizeof label, "  worker %u", w);
    if (node >= 0)
      printf("%-22s CPUs %s, memory on NUMA node %d\n", label, cpus, node);
    else
      printf("%-22s CPUs %s, memory where first touched\n", label, cpus);
  }
  printf("%-22s %s, %u lanes (fpar_math_isa)\n", "SIMD", fpar_math_isa(),
         fpar_math_lanes());
  printf("%-22s %u\n", "sub-group size", fpar_runtime_subgroup_size(rt));
  print_size("fiber stack", fpar_runtime_stack_size(rt));
  print_size("local memory", fpar_runtime_local_mem_size(rt));
  printf("%-22s %zu work-items\n", "largest group",
         fpar_runtime_max_group_size(rt));
  return 0;
}

/* ---- What things cost here ---------------------------------------------- */

static void barrier_kernel(fpar_item *it, void *args) {
  int b;

  (void)args;
  for (b = 0; b < INFO_BARRIERS; b++)
    fpar_barrier(it);
}

static void empty_kernel(fpar_item *it, void *args) {
  (void)it;
  (void)args;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

/* Repeat a launch of kernel over global/local for about `seconds` (at
 * least 3 times); per[] receives the time of each divided by `units`.
 * Returns the number of repetitions, or a negative error. */
static int time_launches(fpar_queue *q, const char *name, fpar_kernel_fn kernel,
                         size_t global, size_t local, double units,
                         double seconds, double *per) {
  fpar_launch_desc d;
  double end = now_s() + seconds;
  int reps = 0, err;

  fpar_launch_desc_init(&d);
  d.name = name;
  d.kernel = kernel;
  d.global = fpar_range1(global);
  d.local = fpar_range1(local);
  while (reps < INFO_MAX_REPS && (reps < 3 || now_s() < end)) {
    fpar_event *ev;
    double t = now_s();
    if ((err = fpar_launch(q, &d, &ev)) != 0)
      return err;
    err = fpar_event_wait(ev);
    fpar_event_release(ev);
    if (err != 0)
      return err;
    per[reps++] = (now_s() - t) / units;
  }
  qsort(per, (size_t)reps, sizeof *per, cmp_double);
  return reps;
}

static int measure(fpar_runtime *rt, double seconds) {
  static double per[INFO_MAX_REPS];
  fpar_runtime *one;
  fpar_queue *q;
  size_t groups = 8;
  int reps, err;

  /* Barriers on one worker: the cost of a switch, without the others. */
  if ((err = create(&one, 1, FPAR_PIN_DEFAULT, FPAR_DISPLAY_QUIET)) != 0)
    return fail("creating a one-worker runtime", err);
  if ((err = fpar_queue_create(one, 0, &q)) != 0)
    return fail("fpar_queue_create", err);
  reps = time_launches(
      q, "fiberpar-info barrier", barrier_kernel, groups * INFO_GROUP,
      INFO_GROUP, 1e-9 * groups * INFO_GROUP * INFO_BARRIERS, seconds / 2, per);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(one);
  if (reps < 0)
    return fail("the barrier kernel", reps);
  printf("%-22s min %.2f ns, median %.2f ns per work-item per barrier "
         "(one worker, groups of %d, %d runs)\n",
         "barrier", per[0], per[reps / 2], INFO_GROUP, reps);

  /* An empty launch on all workers: submit and wait. */
  if ((err = fpar_queue_create(rt, 0, &q)) != 0)
    return fail("fpar_queue_create", err);
  reps = time_launches(q, "fiberpar-info empty", empty_kernel, 1, 1, 1e-6,
                       seconds / 2, per);
  fpar_queue_destroy(q);
  if (reps < 0)
    return fail("the empty kernel", reps);
  printf("%-22s min %.2f us, median %.2f us per submit + wait (%u workers, "
         "%d runs)\n",
         "empty launch", per[0], per[reps / 2], fpar_runtime_num_threads(rt),
         reps);
  return 0;
}

int main(int argc, char **argv) {
  double seconds = 2.0;
  fpar_runtime *rt;
  int a, err, status;

  for (a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
      usage(stdout);
      return 0;
    }
    if (strcmp(argv[a], "--quick") == 0) {
      seconds = 0.2;
      continue;
    }
    fprintf(stderr, "fiberpar-info: unknown argument '%s'\n", argv[a]);
    usage(stderr);
    return 2;
  }
  if ((err = create(&rt, 0, FPAR_PIN_DEFAULT, FPAR_DISPLAY_DEFAULT)) != 0)
    return fail("cannot create a runtime", err);
  status = describe(rt);
  fflush(stdout);
  if (status == 0)
    status = measure(rt, seconds);
  fpar_runtime_destroy(rt);
  return status;
}
