/* SPDX-License-Identifier: MIT */
/* scan.cl - SHOC Scan: an exclusive prefix sum of n ints (n a multiple of
 * 4) in three kernels.  reduce: each work-group sums its region of the
 * input (tree in local memory); top_scan: one work-group scans the
 * groups' sums; bottom_scan: each work-group scans its region in windows
 * of 4 x its size elements (int4 per work-item, a serial scan in
 * registers, a Kogge-Stone scan of the work-items' sums in local memory),
 * seeded with its group's scanned sum. */

__kernel void reduce(__global const int *in, __global int *isums, const int n,
                     __local int *lmem) {
  /* The region this group sums, as the bottom scan will see it (int4s);
   * the last group takes what is left. */
  int region_size = ((n / 4) / get_num_groups(0)) * 4;
  int block_start = get_group_id(0) * region_size;
  int block_stop = (get_group_id(0) == get_num_groups(0) - 1)
                       ? n
                       : block_start + region_size;
  int tid = get_local_id(0);
  int i = block_start + tid;
  int sum = 0;

  while (i < block_stop) {
    sum += in[i];
    i += get_local_size(0);
  }
  lmem[tid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (tid < s)
      lmem[tid] += lmem[tid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0)
    isums[get_group_id(0)] = lmem[0];
}

/* A Kogge-Stone scan of the work-items' values through local memory of
 * twice the group's size; exclusive (1) or inclusive (0). */
inline int scanLocalMem(int val, __local int *lmem, int exclusive) {
  int idx = get_local_id(0);

  lmem[idx] = 0;
  idx += get_local_size(0);
  lmem[idx] = val;
  barrier(CLK_LOCAL_MEM_FENCE);
  int t;
  for (int i = 1; i < get_local_size(0); i *= 2) {
    t = lmem[idx - i];
    barrier(CLK_LOCAL_MEM_FENCE);
    lmem[idx] += t;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return lmem[idx - exclusive];
}

__kernel void top_scan(__global int *isums, const int n, __local int *lmem) {
  int val = 0;

  if (get_local_id(0) < n)
    val = isums[get_local_id(0)];
  val = scanLocalMem(val, lmem, 1);
  if (get_local_id(0) < n)
    isums[get_local_id(0)] = val;
}

__kernel void bottom_scan(__global const int *in, __global const int *isums,
                          __global int *out, const int n, __local int *lmem) {
  __local int s_seed;
  __global const int4 *in4 = (__global const int4 *)in;
  __global int4 *out4 = (__global int4 *)out;
  int n4 = n / 4;
  int region_size = n4 / get_num_groups(0);
  int block_start = get_group_id(0) * region_size;
  int block_stop = (get_group_id(0) == get_num_groups(0) - 1)
                       ? n4
                       : block_start + region_size;
  int i = block_start + get_local_id(0);
  unsigned int window = block_start;
  int seed = isums[get_group_id(0)];

  while (window < block_stop) {
    int4 val_4;
    int4 ex;

    if (i < block_stop)
      val_4 = in4[i];
    else
      val_4 = (int4)(0);
    /* Serial exclusive scan of the int4 in registers. */
    ex.x = 0;
    ex.y = val_4.x;
    ex.z = ex.y + val_4.y;
    ex.w = ex.z + val_4.z;
    /* Exclusive scan of the work-items' sums in local memory. */
    int res = scanLocalMem(ex.w + val_4.w, lmem, 1);
    ex += res + seed;
    if (i < block_stop)
      out4[i] = ex;
    /* The last work-item's inclusive sum seeds the next window. */
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == get_local_size(0) - 1)
      s_seed = ex.w + val_4.w;
    barrier(CLK_LOCAL_MEM_FENCE);
    seed = s_seed;
    window += get_local_size(0);
    i += get_local_size(0);
  }
}
