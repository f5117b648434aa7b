/* SPDX-License-Identifier: MIT */
/* reduction.cl - SHOC Reduction: each work-group adds a grid-strided share
 * of the input (two elements per step) into local memory, reduces it with
 * a tree of barriers and writes one partial sum; reduceNoLocal adds the
 * partial sums in one work-item. */

__kernel void reduce(__global const float *g_idata, __global float *g_odata,
                     __local float *sdata, const unsigned int n) {
  const unsigned int tid = get_local_id(0);
  unsigned int i = get_group_id(0) * (get_local_size(0) * 2) + tid;
  const unsigned int gridSize = get_local_size(0) * 2 * get_num_groups(0);
  const unsigned int blockSize = get_local_size(0);

  sdata[tid] = 0;
  /* Reduce multiple elements per work-item, strided by the grid size. */
  while (i < n) {
    sdata[tid] += g_idata[i] + g_idata[i + blockSize];
    i += gridSize;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  /* Reduce in local memory. */
  for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0)
    g_odata[get_group_id(0)] = sdata[0];
}

__kernel void reduceNoLocal(__global float *g_idata, __global float *g_odata,
                            unsigned int n) {
  float sum = 0.0f;

  for (unsigned int i = 0; i < n; i++)
    sum += g_idata[i];
  g_odata[0] = sum;
}
