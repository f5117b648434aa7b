/* SPDX-License-Identifier: MIT */
/* consumer.c - a C11 program built against the installed libfiberpar
 * through find_package(fiberpar): a barrier-free FPAR_KERNEL on an odd
 * 3-D range and a work-group reduction with barriers in group-local
 * memory, each checked against plain C.  Prints "ok" and exits 0. */
#include <fiberpar.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct axpy_args {
  float a;
  const float *x;
  float *y;
} axpy_args;

FPAR_KERNEL(axpy, it, p) {
  axpy_args *s = p;
  size_t i = fpar_global_linear_id(it);
  s->y[i] += s->a * s->x[i];
}

#define WG 64
#define GROUPS 37

/* Each group sums its WG inputs by halving in group-local memory. */
static void group_sum(fpar_item *it, void *p) {
  long **a = p; /* a[0]: inputs, a[1]: one sum per group */
  long *tmp = fpar_group_local_memory(it, WG * sizeof(long), 0);
  size_t lid = fpar_local_id(it, 0);

  tmp[lid] = a[0][fpar_global_id(it, 0)];
  for (size_t s = WG / 2; s > 0; s /= 2) {
    fpar_barrier(it);
    if (lid < s)
      tmp[lid] += tmp[lid + s];
  }
  if (lid == 0)
    a[1][fpar_group_id(it, 0)] = tmp[0];
}

static int check(int err, const char *what) {
  if (err != 0)
    fprintf(stderr, "consumer_c: %s: %s (%s)\n", what, fpar_strerror(err),
            fpar_last_error());
  return err != 0;
}

int main(void) {
  enum { X = 13, Y = 7, Z = 5, N = X * Y * Z };
  static float x[N], y[N];
  static long in[WG * GROUPS], sums[GROUPS];
  long *ra[2] = {in, sums};
  axpy_args aa = {2.5f, x, y};
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  int bad = 0;

  for (int i = 0; i < N; i++) {
    x[i] = (float)(i % 17);
    y[i] = (float)(i % 5);
  }
  for (int i = 0; i < WG * GROUPS; i++)
    in[i] = (i * 7919L) % 1000;
  if (check(fpar_runtime_create(&rt, NULL), "runtime") ||
      check(fpar_queue_create(rt, 0, &q), "queue") ||
      check(fpar_parallel_for_kernel(q, fpar_range3(X, Y, Z),
                                     fpar_range3(1, 7, 5), &axpy, &aa, NULL),
            "axpy") ||
      check(fpar_parallel_for(q, fpar_range1(WG * GROUPS), fpar_range1(WG),
                              group_sum, ra, &ev),
            "group_sum") ||
      check(fpar_event_wait(ev), "wait") ||
      check(fpar_queue_destroy(q), "queue_destroy") ||
      check(fpar_runtime_destroy(rt), "runtime_destroy"))
    return 1;
  fpar_event_release(ev);

  for (int i = 0; i < N; i++)
    bad |= y[i] != (float)(i % 5) + 2.5f * (float)(i % 17);
  for (int g = 0; g < GROUPS; g++) {
    long s = 0;
    for (int i = 0; i < WG; i++)
      s += in[g * WG + i];
    bad |= sums[g] != s;
  }
  printf("consumer_c (libfiberpar %s): %s\n", fpar_version_string(),
         bad ? "WRONG" : "ok");
  return bad;
}
