/* SPDX-License-Identifier: MIT */
/* spmv.cl - SHOC SpMV, y = A x for a sparse matrix in CSR form (val,
 * cols, rowDelimiters).  The scalar kernel gives each work-item a row;
 * the vector kernel gives each row VEC_WIDTH work-items, which add strided
 * products and reduce them in local memory with a tree of barriers (the
 * sub-group reduction this PoCL lacks: it reports no cl_khr_subgroups). */
#define VEC_WIDTH 32
#define LOCAL 128

__kernel void spmv_csr_scalar_kernel(__global const float *restrict val,
                                     __global const float *restrict vec,
                                     __global const int *restrict cols,
                                     __global const int *restrict rowDelimiters,
                                     const int dim, __global float *restrict out) {
  int myRow = get_global_id(0);

  if (myRow < dim) {
    float t = 0;
    int start = rowDelimiters[myRow];
    int end = rowDelimiters[myRow + 1];

    for (int j = start; j < end; j++) {
      int col = cols[j];
      t += val[j] * vec[col];
    }
    out[myRow] = t;
  }
}

__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1))) void
spmv_csr_vector_kernel(__global const float *restrict val,
                       __global const float *restrict vec,
                       __global const int *restrict cols,
                       __global const int *restrict rowDelimiters,
                       const int dim, __global float *restrict out) {
  int t = get_local_id(0);
  int id = t & (VEC_WIDTH - 1);
  int vecsPerBlock = get_local_size(0) / VEC_WIDTH;
  int myRow = (get_group_id(0) * vecsPerBlock) + (t / VEC_WIDTH);
  __local volatile float partialSums[LOCAL];

  partialSums[t] = 0;
  if (myRow < dim) {
    int vecStart = rowDelimiters[myRow];
    int vecEnd = rowDelimiters[myRow + 1];
    float mySum = 0;

    for (int j = vecStart + id; j < vecEnd; j += VEC_WIDTH) {
      int col = cols[j];
      mySum += val[j] * vec[col];
    }
    partialSums[t] = mySum;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Reduce the partial sums of the row's work-items. */
    int bar = VEC_WIDTH / 2;
    while (bar > 0) {
      if (id < bar)
        partialSums[t] += partialSums[t + bar];
      barrier(CLK_LOCAL_MEM_FENCE);
      bar = bar / 2;
    }
    if (id == 0)
      out[myRow] = partialSums[t];
  }
}
