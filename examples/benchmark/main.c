/* SPDX-License-Identifier: MIT */
/* main.c - the benchmark's driver: picks the sections named on the command
 * line (all by default), refuses unknown ones, and runs each once; every
 * section prints RESULT, RATIO and INFO lines (docs/bench.md). */
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../lane_kernels.h"
#include "bench.h"

static void usage(FILE *f) {
  fprintf(f, "usage: bench [--omp-default] [section...]\n"
             "Runs libfiberpar beside plain C / OpenMP on the same data, "
             "every figure\nrepeated, min and median printed.  Sections "
             "(default: all, in this order):\n");
  for (size_t i = 0; i < bench_num_sections; i++)
    fprintf(f, "  %-12s %s\n", bench_sections[i].name, bench_sections[i].what);
  fprintf(f, "--omp-default: OpenMP threads wait as libgomp does by default "
             "(spinning a\nwhile) instead of passively; see docs/bench.md.\n");
}

static const bench_section *find_section(const char *name) {
  for (size_t i = 0; i < bench_num_sections; i++)
    if (strcmp(bench_sections[i].name, name) == 0)
      return &bench_sections[i];
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
  for (size_t i = 0; i < bench_num_sections; i++) {
    int wanted = argc <= first;
    for (int a = first; a < argc; a++)
      wanted |= strcmp(argv[a], bench_sections[i].name) == 0;
    if (wanted)
      bench_sections[i].run();
  }
  return 0;
}
