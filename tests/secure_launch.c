/* SPDX-License-Identifier: MIT */
/* secure_launch.c - the smallest program that runs one launch, for
 * tests/setuid_trace.sh to install setuid root: it prints the ids it runs
 * with and exits 0 when the launch computed the right result.  Linked with
 * the library statically, so that a copy runs anywhere (a setuid program
 * ignores LD_LIBRARY_PATH). */
#include <fiberpar.h>
#include <stdio.h>
#include <unistd.h>

#define N 256

static void triple(fpar_item *it, void *args) {
  unsigned *out = args;
  size_t i = fpar_global_id(it, 0);

  out[i] = 3 * (unsigned)i;
}

int main(void) {
  unsigned out[N];
  fpar_runtime *rt;
  fpar_queue *q;
  int err;
  size_t i;

  if ((err = fpar_runtime_create(&rt, NULL)) != 0 ||
      (err = fpar_queue_create(rt, 0, &q)) != 0 ||
      (err = fpar_parallel_for(q, fpar_range1(N), fpar_range1(64), triple, out,
                               NULL)) != 0 ||
      (err = fpar_queue_wait(q)) != 0) {
    fprintf(stderr, "secure_launch: %s: %s\n", fpar_err_name(err),
            fpar_last_error());
    return 1;
  }
  for (i = 0; i < N; i++)
    if (out[i] != 3 * i) {
      fprintf(stderr, "secure_launch: out[%zu] = %u, expected %zu\n", i, out[i],
              3 * i);
      return 1;
    }
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
  printf("secure_launch: ok, uid %ld euid %ld\n", (long)getuid(),
         (long)geteuid());
  return 0;
}
