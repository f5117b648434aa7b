/* SPDX-License-Identifier: MIT */
/* common.c - the benchmark's runtime and launch helpers: every section
 * opens its runtime, launches and waits through these, and exits with the
 * library's message on any error. */
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"

void bench_check(int err, const char *what) {
  if (err) {
    fprintf(stderr, "bench: %s: %s (%s)\n", what, fpar_strerror(err),
            fpar_last_error());
    exit(1);
  }
}

fpar_runtime *bench_runtime(unsigned threads, fpar_fpenv fpenv) {
  fpar_runtime_opts o;
  fpar_runtime *rt;

  fpar_runtime_opts_init(&o);
  o.num_threads = threads;
  o.fpenv = fpenv;
  bench_check(fpar_runtime_create(&rt, &o), "runtime");
  return rt;
}

void bench_wait(fpar_event *ev, const char *what) {
  if (fpar_event_wait(ev) != 0) {
    fprintf(stderr, "bench: %s failed: %s\n", what, fpar_event_error(ev));
    exit(1);
  }
  fpar_event_release(ev);
}

void bench_run(fpar_queue *q, fpar_range g, fpar_range l, fpar_kernel_fn k,
               void *args) {
  fpar_event *ev;

  bench_check(fpar_parallel_for(q, g, l, k, args, &ev), "submit");
  bench_wait(ev, "kernel");
}

void bench_run_desc(fpar_queue *q, const fpar_launch_desc *d) {
  fpar_event *ev;

  bench_check(fpar_launch(q, d, &ev), "submit");
  bench_wait(ev, "kernel");
}

const char *bench_fpenv_name(fpar_fpenv e) {
  return e == FPAR_FPENV_SHARED ? "shared fpenv" : "own fpenv";
}

int bench_omp_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
