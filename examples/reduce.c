/* SPDX-License-Identifier: MIT */
/* reduce.c - the README's example: sum 2^22 floats with a work-group tree
 * reduction in group-local memory (groups of 256, 8 barriers each), checked
 * against a serial sum in double precision.  Prints the sum and "ok". */
#include <fiberpar.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1u << 22)
#define WG 256

typedef struct reduce_args {
  const float *in; /* N inputs */
  float *sums;     /* one sum per work-group */
} reduce_args;

/* Each work-group sums its WG inputs in group-local memory. */
FPAR_KERNEL(reduce, it, args) {
  reduce_args *a = args;
  float *tmp = fpar_group_local_memory(it, WG * sizeof(float), 64);
  size_t lid = fpar_local_id(it, 0);

  tmp[lid] = a->in[fpar_global_id(it, 0)];
  for (size_t s = WG / 2; s > 0; s >>= 1) {
    fpar_barrier(it);
    if (lid < s)
      tmp[lid] += tmp[lid + s];
  }
  if (lid == 0)
    a->sums[fpar_group_id(it, 0)] = tmp[0];
}

int main(void) {
  float *in = malloc(N * sizeof *in), *sums = malloc(N / WG * sizeof *sums);
  reduce_args args = {in, sums};
  double serial = 0, total = 0;
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  unsigned workers;
  int err;

  if (in == NULL || sums == NULL)
    return 1;
  for (size_t i = 0; i < N; i++) {
    in[i] = (float)((i * 2654435761u) >> 8 & 0xffff) / 65536.0f;
    serial += in[i];
  }
  /* One pinned worker per core, a queue, one launch of N / WG groups. */
  if ((err = fpar_runtime_create(&rt, NULL)) != 0 ||
      (err = fpar_queue_create(rt, 0, &q)) != 0 ||
      (err = fpar_parallel_for_kernel(q, fpar_range1(N), fpar_range1(WG),
                                      &reduce, &args, &ev)) != 0) {
    fprintf(stderr, "reduce: %s: %s\n", fpar_err_name(err), fpar_last_error());
    return 1;
  }
  if (fpar_event_wait(ev) != 0) { /* the kernel failed: say where */
    fprintf(stderr, "reduce: %s\n", fpar_event_error(ev));
    return 1;
  }
  workers = fpar_runtime_num_threads(rt);
  fpar_event_release(ev);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);

  for (size_t g = 0; g < N / WG; g++)
    total += sums[g];
  free(in);
  free(sums);
  if (fabs(total - serial) > 1e-6 * serial) {
    printf("sum of %u floats: %.3f, serial %.3f: WRONG\n", N, total, serial);
    return 1;
  }
  printf("sum of %u floats on %u workers: %.3f (serial %.3f): ok\n", N, workers,
         total, serial);
  return 0;
}
