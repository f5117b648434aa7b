/* SPDX-License-Identifier: MIT */
/* nw.cl - Rodinia Needleman-Wunsch: one launch per anti-diagonal of 16 x
 * 16 blocks of the score matrix, one work-group of 16 per block.  The
 * group loads its block's substitution scores and the scores above and to
 * the left into local memory, sweeps the block's 31 anti-diagonals with a
 * barrier after each, and writes the block back.  Block bx of the launch
 * is block (bx0 + bx, by0 - bx) of the matrix. */
#define BS 16
#define SCORE(i, j) score[(j) + (i) * (BS + 1)]
#define REF(i, j) ref[(j) + (i) * BS]

int maximum3(int a, int b, int c) {
  int k = a > b ? a : b;
  return k > c ? k : c;
}

__kernel __attribute__((reqd_work_group_size(BS, 1, 1))) void
nw_kernel(__global const int *reference, __global int *items, int cols,
          int penalty, int bx0, int by0) {
  __local int score[(BS + 1) * (BS + 1)];
  __local int ref[BS * BS];
  int bx = get_group_id(0), tx = get_local_id(0);
  int base = cols * BS * (by0 - bx) + BS * (bx0 + bx);
  int index = base + tx + cols + 1;
  int index_n = base + tx + 1;
  int index_w = base + cols;

  if (tx == 0)
    SCORE(0, 0) = items[base];
  for (int ty = 0; ty < BS; ty++)
    REF(ty, tx) = reference[index + cols * ty];
  barrier(CLK_LOCAL_MEM_FENCE);
  SCORE(tx + 1, 0) = items[index_w + cols * tx];
  barrier(CLK_LOCAL_MEM_FENCE);
  SCORE(0, tx + 1) = items[index_n];
  barrier(CLK_LOCAL_MEM_FENCE);
  /* The upper-left triangle of the block, then the lower-right one. */
  for (int m = 0; m < BS; m++) {
    if (tx <= m) {
      int x = tx + 1, y = m - tx + 1;
      SCORE(y, x) = maximum3(SCORE(y - 1, x - 1) + REF(y - 1, x - 1),
                             SCORE(y, x - 1) - penalty,
                             SCORE(y - 1, x) - penalty);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int m = BS - 2; m >= 0; m--) {
    if (tx <= m) {
      int x = tx + BS - m, y = BS - tx;
      SCORE(y, x) = maximum3(SCORE(y - 1, x - 1) + REF(y - 1, x - 1),
                             SCORE(y, x - 1) - penalty,
                             SCORE(y - 1, x) - penalty);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int ty = 0; ty < BS; ty++)
    items[index + cols * ty] = SCORE(ty + 1, tx + 1);
}
