/* SPDX-License-Identifier: MIT */
/* reduce.c - sum 2^22 floats with a work-group tree reduction in
 * group-local memory (groups of 256, 8 barriers each), checked against a
 * serial sum in double precision.  The kernel is the README's example.
 *
 *   ./examples/reduce      prints the sums and "ok" (exit status 0)
 */
#include <fiberpar.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1u << 22)
#define WG 256

/* Sum each work-group's 256 inputs in group-local memory. */
static void reduce(fpar_item *it, void *args) {
  float **a = args; /* a[0]: input, a[1]: one sum per group */
  float *tmp = fpar_group_local_memory(it, WG * sizeof(float), 64);
  size_t lid = fpar_local_id(it, 0);

  tmp[lid] = a[0][fpar_global_id(it, 0)];
  for (size_t s = WG / 2; s > 0; s >>= 1) {
    fpar_barrier(it);
    if (lid < s)
      tmp[lid] += tmp[lid + s];
  }
  if (lid == 0)
    a[1][fpar_group_id(it, 0)] = tmp[0];
}

static int fail(const char *what, int err) {
  fprintf(stderr, "reduce: %s: %s (%s)\n", what, fpar_strerror(err),
          fpar_last_error());
  return 1;
}

int main(void) {
  float *in = malloc(N * sizeof *in), *sums = malloc(N / WG * sizeof *sums);
  float *args[2] = {in, sums};
  double serial = 0, total = 0;
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  unsigned workers;
  int err, ok;

  if (in == NULL || sums == NULL)
    return 1;
  for (size_t i = 0; i < N; i++) {
    in[i] = (float)((i * 2654435761u) >> 8 & 0xffff) / 65536.0f;
    serial += in[i];
  }
  if ((err = fpar_runtime_create(&rt, NULL)) != 0)
    return fail("runtime", err);
  if ((err = fpar_queue_create(rt, 0, &q)) != 0)
    return fail("queue", err);
  workers = fpar_runtime_num_threads(rt);
  err =
      fpar_parallel_for(q, fpar_range1(N), fpar_range1(WG), reduce, args, &ev);
  if (err != 0)
    return fail("launch", err);
  if ((err = fpar_event_wait(ev)) != 0) {
    fprintf(stderr, "reduce: %s\n", fpar_event_error(ev));
    return 1;
  }
  fpar_event_release(ev);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);

  for (size_t g = 0; g < N / WG; g++)
    total += sums[g];
  ok = fabs(total - serial) <= 1e-6 * serial;
  printf("sum of %u floats on %u workers: %.3f (serial %.3f): %s\n", N, workers,
         total, serial, ok ? "ok" : "WRONG");
  free(in);
  free(sums);
  return ok ? 0 : 1;
}
