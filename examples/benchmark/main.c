/* SPDX-License-Identifier: MIT */
/* main.c - the benchmark's driver: runs the sections named on the command
 * line (all by default) once each; every section prints RESULT, RATIO and
 * INFO lines. */
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../lane_kernels.h"
#include "bench.h"

static const struct section {
  const char *name;
  void (*run)(void);
} sections[] = {
    {"barrier", bench_barrier},     {"free", bench_free},
    {"launch", bench_launch},       {"memory", bench_memory},
    {"scoped", bench_scoped},       {"lanes", bench_lanes},
    {"phase", bench_phase},         {"ranges", bench_ranges},
    {"subgroups", bench_subgroups}, {"collectives", bench_collectives},
};

#define NUM_SECTIONS (sizeof sections / sizeof *sections)

/* OpenMP threads that spin-wait after a parallel region (libgomp's default)
 * take a core from our workers in the next measurement; both sides must
 * wait passively between runs.  libgomp reads the setting when it loads,
 * so the benchmark runs itself again with it set. */
static void use_passive_openmp(char **argv) {
  const char *policy = getenv("OMP_WAIT_POLICY");

  if (policy != NULL && strcasecmp(policy, "passive") == 0)
    return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);
  fprintf(stderr, "bench: cannot re-run with OMP_WAIT_POLICY=passive; "
                  "comparisons with OpenMP may be unfair\n");
}

int main(int argc, char **argv) {
  /* The launch section's child process: OpenMP regions only. */
  if (argc == 2 && strcmp(argv[1], "omp-region") == 0) {
    bench_omp_region_times();
    return 0;
  }
  if (!lk_isa_runs()) {
    printf("SKIP   bench built for %s: this CPU does not run it\n", lk_isa());
    return 0;
  }
  use_passive_openmp(argv);
  for (size_t i = 0; i < NUM_SECTIONS; i++) {
    int wanted = argc < 2;
    for (int a = 1; a < argc; a++)
      wanted |= strcmp(argv[a], sections[i].name) == 0;
    if (wanted)
      sections[i].run();
  }
  return 0;
}
