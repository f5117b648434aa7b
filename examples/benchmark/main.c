/* SPDX-License-Identifier: MIT */
/* main.c - the benchmark's driver: picks the sections named on the command
 * line (all by default), refuses unknown ones, and runs each once; every
 * section prints RESULT, RATIO and INFO lines (docs/bench.md). */
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../lane_kernels.h"
#include "bench.h"

static const struct section {
  const char *name;
  void (*run)(void);
  const char *what;
} sections[] = {
    {"barrier", bench_barrier,
     "ns per work-item per barrier of fibers, beside loop fission"},
    {"free", bench_free, "barrier-free kernels against OpenMP loops"},
    {"launch", bench_launch,
     "empty launch + wait and batches, beside OpenMP, PoCL, HIP-CPU"},
    {"memory", bench_memory, "resident memory of a 1024-work-item group"},
    {"scoped", bench_scoped, "scoped parallelism against OpenMP SIMD"},
    {"lanes", bench_lanes, "lane-form kernels against OpenMP SIMD"},
    {"phase", bench_phase, "phase kernels against fibers, OpenMP and PoCL"},
    {"ranges", bench_ranges, "non-uniform work-groups against uniform ones"},
    {"subgroups", bench_subgroups,
     "sub-group operations and group copies against hand-written forms"},
    {"collectives", bench_collectives,
     "work-group reduce and scan against hand-written forms"},
    {"timestep", bench_timestep,
     "time-stepped 2-D and 3-D stencils, one launch per step, vs OpenMP"},
};

#define NUM_SECTIONS (sizeof sections / sizeof *sections)

static void usage(FILE *f) {
  fprintf(f, "usage: bench [--omp-default] [section...]\n"
             "Runs libfiberpar beside plain C / OpenMP on the same data, "
             "every figure\nrepeated, min and median printed.  Sections "
             "(default: all, in this order):\n");
  for (size_t i = 0; i < NUM_SECTIONS; i++)
    fprintf(f, "  %-12s %s\n", sections[i].name, sections[i].what);
  fprintf(f, "--omp-default: OpenMP threads wait as libgomp does by default "
             "(spinning a\nwhile) instead of passively; see docs/bench.md.\n");
}

static const struct section *find_section(const char *name) {
  for (size_t i = 0; i < NUM_SECTIONS; i++)
    if (strcmp(sections[i].name, name) == 0)
      return &sections[i];
  return NULL;
}

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
  int first = 1, omp_default = 0;

  /* The launch section's child process: OpenMP regions only. */
  if (argc == 2 && strcmp(argv[1], "omp-region") == 0) {
    bench_omp_region_times();
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--omp-default") == 0)
    omp_default = 1, first = 2;
  for (int a = first; a < argc; a++) {
    if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
      usage(stdout);
      return 0;
    }
    if (find_section(argv[a]) == NULL) {
      fprintf(stderr, "bench: unknown section '%s'\n", argv[a]);
      usage(stderr);
      return 2;
    }
  }
  if (!lk_isa_runs()) {
    printf("SKIP   bench built for %s: this CPU does not run it\n", lk_isa());
    return 0;
  }
  if (!omp_default)
    use_passive_openmp(argv);
  /* A line at a time, so that a run piped to a file or tee shows progress
   * and a child process's lines (launch, timestep) keep their place. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (size_t i = 0; i < NUM_SECTIONS; i++) {
    int wanted = argc <= first;
    for (int a = first; a < argc; a++)
      wanted |= strcmp(argv[a], sections[i].name) == 0;
    if (wanted)
      sections[i].run();
  }
  return 0;
}
