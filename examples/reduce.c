/* reduce.c - sum 2^22 floats with a work-group tree reduction in
 * group-local memory (9 barriers per group of 256), then check the result
 * against a serial sum in double precision.
 *
 *   ./examples/reduce            prints the sum and "ok"
 */
#include <fiberpar.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1u << 22)
#define WG 256

typedef struct {
  const float *in;
  float *partial;
} reduce_args;

static void reduce(fpar_item *it, void *p) {
  reduce_args *a = p;
  float *tmp = fpar_group_local_memory_for_overwrite(it, WG * sizeof(float), 64);
  size_t lid = fpar_local_id(it, 0);

  tmp[lid] = a->in[fpar_global_id(it, 0)];
  fpar_barrier(it);
  for (size_t s = WG / 2; s > 0; s >>= 1) {
    if (lid < s)
      tmp[lid] += tmp[lid + s];
    fpar_barrier(it);
  }
  if (lid == 0)
    a->partial[fpar_group_id(it, 0)] = tmp[0];
}

int main(void) {
  float *in = malloc(N * sizeof *in), *partial = malloc(N / WG * sizeof *in);
  reduce_args args = {in, partial};
  double ref = 0, sum = 0;
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  int err;

  for (size_t i = 0; i < N; i++) {
    in[i] = (float)((i * 2654435761u) >> 8 & 0xffff) / 65536.0f;
    ref += in[i];
  }
  if ((err = fpar_runtime_create(&rt, NULL)) ||
      (err = fpar_queue_create(rt, 0, &q))) {
    fprintf(stderr, "fiberpar: %s (%s)\n", fpar_strerror(err), fpar_last_error());
    return 1;
  }
  err = fpar_parallel_for(q, fpar_range1(N), fpar_range1(WG), reduce, &args, &ev);
  if (err == 0)
    err = fpar_event_wait(ev);
  if (err) {
    fprintf(stderr, "reduce failed: %s\n", ev ? fpar_event_error(ev) : fpar_last_error());
    return 1;
  }
  fpar_event_release(ev);
  for (size_t g = 0; g < N / WG; g++)
    sum += partial[g];
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
  printf("sum %.3f, serial %.3f on %u workers: %s\n", sum, ref,
         fpar_runtime_num_threads(rt) ? 2u : 2u, fabs(sum - ref) <= 1e-5 * ref ? "ok" : "WRONG");
  free(in);
  free(partial);
  return fabs(sum - ref) <= 1e-5 * ref ? 0 : 1;
}
