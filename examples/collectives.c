/* SPDX-License-Identifier: MIT */
/* collectives.c - work-group collectives in two real kernels, each checked
 * against plain C.
 *
 * Stream compaction: keep the elements of x above a threshold, in order.
 * Pass 1 counts each group's survivors with one reduction; the host turns
 * the counts into group offsets; pass 2 gives every survivor its place
 * with one exclusive scan of the keep flags.  Written by hand, each group
 * would scan its flags in local memory with a Blelloch or Hillis-Steele
 * tree: a local array, log2(L) barriers and index arithmetic; here it is
 * one call.  Pass 2 is also written as a phase kernel (FPAR_PHASE_GROUP),
 * which needs no fibers.
 *
 * Softmax of each row (one row per work-group, as in attention): the
 * row's maximum and the sum of exponentials are two reductions; by hand
 * they are two trees over local memory.  Collectives combine in local-id
 * order, so the result equals the plain C loops bit for bit.
 */
#include <fiberpar.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "example.h"

#define N (1u << 20)
#define L 256
#define THRESHOLD 0.7f

typedef struct compact_args {
  const float *x;
  uint32_t *counts;        /* pass 1: survivors per group */
  const uint32_t *offsets; /* pass 2: first place of each group */
  float *out;
} compact_args;

static void count_kernel(fpar_item *it, void *p) {
  compact_args *a = p;
  uint32_t keep = a->x[fpar_global_id(it, 0)] > THRESHOLD;
  uint32_t count = fpar_group_reduce_add_u32(it, keep);

  if (fpar_local_id(it, 0) == 0)
    a->counts[fpar_group_id(it, 0)] = count;
}

static void scatter_kernel(fpar_item *it, void *p) {
  compact_args *a = p;
  float v = a->x[fpar_global_id(it, 0)];
  uint32_t keep = v > THRESHOLD;
  uint32_t at = fpar_group_scan_exclusive_add_u32(it, keep);

  if (keep)
    a->out[a->offsets[fpar_group_id(it, 0)] + at] = v;
}

/* Pass 2 as a phase kernel: the scan is a phase boundary, its result
 * arrives in the state. */
typedef struct scatter_state {
  uint32_t at;
} scatter_state;

FPAR_PHASE_KERNEL(scatter_phases, it, p, scatter_state, st) {
  compact_args *a = p;
  float v = a->x[fpar_global_id(it, 0)]; /* prologue: every phase */

  FPAR_PHASE_BEGIN();
  FPAR_PHASE_GROUP(st->at, it, scan_exclusive_add_u32, v > THRESHOLD);
  if (v > THRESHOLD)
    a->out[a->offsets[fpar_group_id(it, 0)] + st->at] = v;
  FPAR_PHASE_END();
}

typedef struct softmax_args {
  const float *x;
  float *y;
} softmax_args;

static void softmax_kernel(fpar_item *it, void *p) {
  softmax_args *a = p;
  size_t i = fpar_global_linear_id(it);
  float m = fpar_group_reduce_max_f32(it, a->x[i]);
  float e = expf(a->x[i] - m);

  a->y[i] = e / fpar_group_reduce_add_f32(it, e);
}

static int check_compaction(const float *x, const float *out, size_t kept) {
  size_t k = 0;

  for (size_t i = 0; i < N; i++)
    if (x[i] > THRESHOLD && (k >= kept || out[k++] != x[i]))
      return 0;
  return k == kept;
}

int main(void) {
  float *x = malloc(N * sizeof *x), *out = malloc(N * sizeof *out);
  float *y = malloc(N * sizeof *y);
  uint32_t *counts = malloc(N / L * sizeof *counts);
  uint32_t *offsets = malloc(N / L * sizeof *offsets);
  compact_args ca = {x, counts, offsets, out};
  softmax_args sa = {x, y};
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  uint32_t kept = 0;
  int wrong = 0;

  for (size_t i = 0; i < N; i++)
    x[i] = (float)((i * 2654435761u) >> 8 & 0xffff) / 65536.0f;
  example_open(&rt, &q);

  /* Compaction on fibers, then pass 2 again as a phase kernel. */
  example_wait(fpar_parallel_for(q, fpar_range1(N), fpar_range1(L),
                                 count_kernel, &ca, &ev),
               &ev);
  for (size_t g = 0; g < N / L; g++)
    offsets[g] = kept, kept += counts[g];
  example_wait(fpar_parallel_for(q, fpar_range1(N), fpar_range1(L),
                                 scatter_kernel, &ca, &ev),
               &ev);
  if (!check_compaction(x, out, kept)) {
    fprintf(stderr, "compaction (fibers): wrong result\n");
    wrong = 1;
  }
  memset(out, 0, N * sizeof *out);
  example_wait(fpar_parallel_for_kernel(q, fpar_range1(N), fpar_range1(L),
                                        &scatter_phases, &ca, &ev),
               &ev);
  if (!check_compaction(x, out, kept)) {
    fprintf(stderr, "compaction (phase kernel): wrong result\n");
    wrong = 1;
  }

  /* Softmax of each row of L values. */
  example_wait(fpar_parallel_for(q, fpar_range1(N), fpar_range1(L),
                                 softmax_kernel, &sa, &ev),
               &ev);
  for (size_t r = 0; r < N / L && !wrong; r++) {
    const float *row = x + r * L;
    float m = row[0], s = 0;
    for (size_t i = 1; i < L; i++)
      m = fmaxf(m, row[i]);
    for (size_t i = 0; i < L; i++)
      s += expf(row[i] - m);
    for (size_t i = 0; i < L; i++)
      if (y[r * L + i] != expf(row[i] - m) / s) {
        fprintf(stderr, "softmax: row %zu, element %zu: %g, not %g\n", r, i,
                (double)y[r * L + i], (double)(expf(row[i] - m) / s));
        wrong = 1;
        break;
      }
  }
  example_close(rt, q);
  printf("compaction: kept %u of %u elements above %.2f (fibers and phase "
         "kernel); softmax of %u rows of %u: %s\n",
         kept, N, (double)THRESHOLD, N / L, L, wrong ? "WRONG" : "ok");
  free(x), free(out), free(y), free(counts), free(offsets);
  return wrong;
}
