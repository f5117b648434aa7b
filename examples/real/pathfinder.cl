/* SPDX-License-Identifier: MIT */
/* pathfinder.cl - Rodinia PathFinder: the cheapest path from the first to
 * the last row of a grid of weights, moving down to one of the three
 * cells below at each row.  A launch advances `iteration` rows (the
 * pyramid): each work-group of 256 loads a block of the current row into
 * local memory and advances it row by row with two barriers per row; the
 * block shrinks by one cell at each side per row, so blocks overlap by
 * the pyramid's height (border) and each writes its inner cells. */
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
#define CLAMP_RANGE(x, min, max) x = (x < (min)) ? min : ((x > (max)) ? max : x)
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

__kernel void dynproc_kernel(int iteration, __global const int *gpuWall,
                             __global const int *gpuSrc,
                             __global int *gpuResults, int cols, int rows,
                             int startStep, int border, int HALO,
                             __local int *prev, __local int *result) {
  int BLOCK_SIZE = get_local_size(0);
  int bx = get_group_id(0);
  int tx = get_local_id(0);
  /* The block's inner part, and where it starts in the row. */
  int small_block_cols = BLOCK_SIZE - (iteration * HALO * 2);
  int blkX = (small_block_cols * bx) - border;
  int blkXmax = blkX + BLOCK_SIZE - 1;
  int xidx = blkX + tx;
  /* The cells of the block inside the grid. */
  int validXmin = (blkX < 0) ? -blkX : 0;
  int validXmax = (blkXmax > cols - 1) ? BLOCK_SIZE - 1 - (blkXmax - cols + 1)
                                       : BLOCK_SIZE - 1;
  int W = tx - 1;
  int E = tx + 1;
  bool isValid;
  bool computed;

  (void)rows;
  W = (W < validXmin) ? validXmin : W;
  E = (E > validXmax) ? validXmax : E;
  isValid = IN_RANGE(tx, validXmin, validXmax);
  if (IN_RANGE(xidx, 0, cols - 1))
    prev[tx] = gpuSrc[xidx];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = 0; i < iteration; i++) {
    computed = false;
    if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && isValid) {
      computed = true;
      int left = prev[W];
      int up = prev[tx];
      int right = prev[E];
      int shortest = MIN(left, up);
      shortest = MIN(shortest, right);
      int index = cols * (startStep + i) + xidx;
      result[tx] = shortest + gpuWall[index];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i == iteration - 1)
      break;
    if (computed)
      prev[tx] = result[tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (computed)
    gpuResults[xidx] = result[tx];
}
