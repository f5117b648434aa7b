/* SPDX-License-Identifier: MIT */
/* subgroups.c - two kernels that sub-groups and group copies make simpler,
 * each checked against plain C:
 *
 *  - a warp-style reduction: each sub-group sums its values with one
 *    fpar_sub_group_reduce_add_f64() instead of a tree of barriers over
 *    local memory, then one barrier combines the sub-groups' sums;
 *  - a tiled matrix transpose: the group fetches its 16 x 16 tile with one
 *    fpar_async_work_group_copy() per tile row, joined into one event,
 *    instead of a load per work-item and a barrier, and every work-item
 *    writes the element the tile holds transposed. */
#include <string.h>

#include "example.h"

/* ---- Reduction ----------------------------------------------------------- */

#define RED_L 250 /* work-items per group: sub-groups of 16, the last of 10 */

typedef struct red_args {
  const double *in;
  double *partial; /* per group */
} red_args;

static void reduce_kernel(fpar_item *it, void *p) {
  red_args *a = p;
  size_t nsg = fpar_num_sub_groups(it);
  double *sums = fpar_group_local_memory(it, nsg * sizeof *sums, 0);
  double s = fpar_sub_group_reduce_add_f64(it, a->in[fpar_global_id(it, 0)]);

  if (fpar_sub_group_local_id(it) == 0)
    sums[fpar_sub_group_id(it)] = s;
  fpar_barrier(it);
  if (fpar_local_id(it, 0) == 0) {
    double t = 0;
    for (size_t k = 0; k < nsg; k++)
      t += sums[k];
    a->partial[fpar_group_id(it, 0)] = t;
  }
}

static int run_reduce(fpar_queue *q) {
  const size_t groups = 400, n = RED_L * groups;
  double *in = malloc(n * sizeof *in), *partial = malloc(groups * 8);
  double total = 0, ref = 0;
  red_args a = {in, partial};
  fpar_launch_desc d;
  fpar_event *ev;

  for (size_t i = 0; i < n; i++) {
    in[i] = (double)(i % 1000) * 0.5; /* sums are exact in double */
    ref += in[i];
  }
  fpar_launch_desc_init(&d);
  d.name = "warp_reduce";
  d.kernel = reduce_kernel;
  d.args = &a;
  d.global = fpar_range1(n);
  d.local = fpar_range1(RED_L);
  d.subgroup_size = 16;
  example_wait(fpar_launch(q, &d, &ev), &ev);
  for (size_t g = 0; g < groups; g++)
    total += partial[g];
  printf("sub-group reduction of %zu doubles: %.1f (plain C %.1f)\n", n, total,
         ref);
  free(in);
  free(partial);
  return total != ref;
}

/* ---- Transpose ------------------------------------------------------------
 */

#define TILE 16

typedef struct tr_args {
  const float *a; /* rows x cols */
  float *b;       /* cols x rows */
  size_t rows, cols;
} tr_args;

/* Group (gx, gy) holds tile rows gy*16.., columns gx*16..; work-item
 * (x, y) writes b[col = gx*16 + y][row = gy*16 + x] = tile[x][y]. */
static void transpose_kernel(fpar_item *it, void *p) {
  tr_args *t = p;
  float *tile =
      fpar_group_local_memory_for_overwrite(it, TILE * TILE * sizeof *tile, 64);
  size_t x = fpar_local_id(it, 0), y = fpar_local_id(it, 1);
  size_t r0 = fpar_group_id(it, 1) * TILE, c0 = fpar_group_id(it, 0) * TILE;
  fpar_copy_event e = 0;

  /* Tile row k <- matrix row r0 + k, columns c0..c0+15: 16 copies joined
   * into one event. */
  for (size_t k = 0; k < TILE; k++)
    e = fpar_async_work_group_copy(it, tile + k * TILE,
                                   t->a + (r0 + k) * t->cols + c0, TILE,
                                   sizeof *tile, e);
  fpar_wait_group_events(it, 1, &e);
  t->b[(c0 + y) * t->rows + r0 + x] = tile[x * TILE + y];
}

static int run_transpose(fpar_queue *q) {
  const size_t rows = 20 * TILE, cols = 13 * TILE;
  float *a = malloc(rows * cols * 4), *b = malloc(rows * cols * 4);
  tr_args t = {a, b, rows, cols};
  size_t wrong = 0;
  fpar_event *ev;

  for (size_t i = 0; i < rows * cols; i++)
    a[i] = (float)i;
  memset(b, 0, rows * cols * 4);
  example_wait(fpar_parallel_for(q, fpar_range2(cols, rows),
                                 fpar_range2(TILE, TILE), transpose_kernel, &t,
                                 &ev),
               &ev);
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++)
      wrong += b[c * rows + r] != a[r * cols + c];
  printf("transpose %zu x %zu with group copies: %zu elements wrong\n", rows,
         cols, wrong);
  free(a);
  free(b);
  return wrong != 0;
}

int main(void) {
  fpar_runtime *rt;
  fpar_queue *q;
  int bad;

  example_open(&rt, &q);
  bad = run_reduce(q) | run_transpose(q);
  example_close(rt, q);
  return bad;
}
