/* SPDX-License-Identifier: MIT */
/* blur_roi.c - a 3x3 box blur of a region of interest of an image of
 * awkward size, as OpenCL 2.0 writes it: the launch covers exactly the
 * region (a global offset places it in the image) in 16x16 work-groups,
 * and the groups at the region's right and bottom edges are smaller
 * (non-uniform work-groups).  No padding of the image, no rounding up of
 * the launch, no "if (x >= width) return" before the barrier.
 *
 * Each group loads its tile and a one-pixel halo into local memory
 * (clamped at the image border), waits at the barrier, and averages.
 * The tile's size is the group's own (fpar_local_range); the local
 * buffer has the enqueued size, enough for every group.  Checked against
 * a plain C blur of the same region; pixels outside it stay untouched.
 */
#include <fiberpar.h>
#include <stdio.h>
#include <stdlib.h>

#include "example.h"

#define WIDTH 1021 /* a prime */
#define HEIGHT 767
#define TILE 16

/* The region of interest: x in [ROI_X, ROI_X + ROI_W), y likewise. */
#define ROI_X 37
#define ROI_Y 101
#define ROI_W 900 /* 56 groups of 16 and one of 4 */
#define ROI_H 555 /* 34 groups of 16 and one of 11 */

typedef struct blur_args {
  const float *in;
  float *out;
} blur_args;

static size_t clamp(long v, size_t n) {
  return v < 0 ? 0 : (size_t)v >= n ? n - 1 : (size_t)v;
}

static float pixel(const float *img, long x, long y) {
  return img[clamp(y, HEIGHT) * WIDTH + clamp(x, WIDTH)];
}

static void blur_kernel(fpar_item *it, void *p) {
  const blur_args *a = p;
  /* The tile of this group, with its halo: its own size, laid out with
   * the enqueued row length (the buffer holds the enqueued tile). */
  size_t tw = fpar_local_range(it, 0) + 2, th = fpar_local_range(it, 1) + 2;
  size_t stride = fpar_enqueued_local_range(it, 0) + 2;
  float *tile = fpar_local_buffer(it, 0);
  long x0 = (long)(fpar_global_id(it, 0) - fpar_local_id(it, 0)) - 1;
  long y0 = (long)(fpar_global_id(it, 1) - fpar_local_id(it, 1)) - 1;
  size_t lid = fpar_local_linear_id(it);
  size_t n = fpar_local_range(it, 0) * fpar_local_range(it, 1), k;
  size_t lx = fpar_local_id(it, 0) + 1, ly = fpar_local_id(it, 1) + 1;
  float sum = 0;

  for (k = lid; k < tw * th; k += n)
    tile[k / tw * stride + k % tw] =
        pixel(a->in, x0 + (long)(k % tw), y0 + (long)(k / tw));
  fpar_barrier(it);
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      sum += tile[(ly + dy) * stride + lx + dx];
  a->out[fpar_global_id(it, 1) * WIDTH + fpar_global_id(it, 0)] = sum / 9;
}

static void blur_reference(const float *in, float *out) {
  for (long y = ROI_Y; y < ROI_Y + ROI_H; y++)
    for (long x = ROI_X; x < ROI_X + ROI_W; x++) {
      float sum = 0;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          sum += pixel(in, x + dx, y + dy);
      out[y * WIDTH + x] = sum / 9;
    }
}

int main(void) {
  const fpar_local_buffer_desc tile = {(TILE + 2) * (TILE + 2) * sizeof(float),
                                       0, 0};
  size_t n = (size_t)WIDTH * HEIGHT, i, wrong = 0;
  float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out),
        *want = malloc(n * sizeof *want);
  blur_args a = {in, out};
  fpar_launch_desc d;
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;

  if (in == NULL || out == NULL || want == NULL)
    return 1;
  for (i = 0; i < n; i++) {
    in[i] = (float)((i * 2654435761u) >> 24);
    out[i] = want[i] = -1.0f;
  }
  example_open(&rt, &q);
  fpar_launch_desc_init(&d);
  d.name = "blur_roi";
  d.kernel = blur_kernel;
  d.args = &a;
  d.global = fpar_range2(ROI_W, ROI_H);
  d.local = fpar_range2(TILE, TILE);
  d.global_offset[0] = ROI_X;
  d.global_offset[1] = ROI_Y;
  d.local_buffers = &tile;
  d.num_local_buffers = 1;
  example_wait(fpar_launch(q, &d, &ev), &ev);
  example_close(rt, q);

  blur_reference(in, want);
  for (i = 0; i < n; i++)
    wrong += out[i] != want[i];
  printf("blur_roi: %dx%d region at (%d,%d) of a %dx%d image, %dx%d groups "
         "(the last ones %dx%d): %s\n",
         ROI_W, ROI_H, ROI_X, ROI_Y, WIDTH, HEIGHT, TILE, TILE, ROI_W % TILE,
         ROI_H % TILE, wrong ? "WRONG" : "ok");
  if (wrong)
    fprintf(stderr, "blur_roi: %zu pixels differ from the C blur\n", wrong);
  free(in), free(out), free(want);
  return wrong != 0;
}
