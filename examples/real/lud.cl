/* SPDX-License-Identifier: MIT */
/* lud.cl - Rodinia LU decomposition (no pivoting, in place, row-major
 * matrix_dim x matrix_dim) in 16 x 16 blocks: at each step the diagonal
 * block is factored by one work-group of 16, the perimeter blocks of its
 * block row and column are solved by work-groups of 32 (one block pair
 * each), and the internal blocks are updated by 16 x 16 work-groups. */
#define BS 16

__kernel void lud_diagonal(__global float *m, __local float *shadow,
                           int matrix_dim, int offset) {
  int i, j;
  int tx = get_local_id(0);
  int array_offset = offset * matrix_dim + offset;

  for (i = 0; i < BS; i++) {
    shadow[i * BS + tx] = m[array_offset + tx];
    array_offset += matrix_dim;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (i = 0; i < BS - 1; i++) {
    if (tx > i) {
      for (j = 0; j < i; j++)
        shadow[tx * BS + i] -= shadow[tx * BS + j] * shadow[j * BS + i];
      shadow[tx * BS + i] /= shadow[i * BS + i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tx > i) {
      for (j = 0; j < i + 1; j++)
        shadow[(i + 1) * BS + tx] -= shadow[(i + 1) * BS + j] * shadow[j * BS + tx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  array_offset = (offset + 1) * matrix_dim + offset;
  for (i = 1; i < BS; i++) {
    m[array_offset + tx] = shadow[i * BS + tx];
    array_offset += matrix_dim;
  }
}

__kernel void lud_perimeter(__global float *m, __local float *dia,
                            __local float *peri_row, __local float *peri_col,
                            int matrix_dim, int offset) {
  int i, j, array_offset;
  int idx;
  int bx = get_group_id(0);
  int tx = get_local_id(0);

  if (tx < BS) {
    idx = tx;
    array_offset = offset * matrix_dim + offset;
    for (i = 0; i < BS / 2; i++) {
      dia[i * BS + idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = offset * matrix_dim + offset;
    for (i = 0; i < BS; i++) {
      peri_row[i * BS + idx] = m[array_offset + (bx + 1) * BS + idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = tx - BS;
    array_offset = (offset + BS / 2) * matrix_dim + offset;
    for (i = BS / 2; i < BS; i++) {
      dia[i * BS + idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = (offset + (bx + 1) * BS) * matrix_dim + offset;
    for (i = 0; i < BS; i++) {
      peri_col[i * BS + idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (tx < BS) { /* the block of the row: forward substitution with L */
    idx = tx;
    for (i = 1; i < BS; i++)
      for (j = 0; j < i; j++)
        peri_row[i * BS + idx] -= dia[i * BS + j] * peri_row[j * BS + idx];
  } else { /* the block of the column: solve with U */
    idx = tx - BS;
    for (i = 0; i < BS; i++) {
      for (j = 0; j < i; j++)
        peri_col[idx * BS + i] -= peri_col[idx * BS + j] * dia[j * BS + i];
      peri_col[idx * BS + i] /= dia[i * BS + i];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (tx < BS) {
    idx = tx;
    array_offset = (offset + 1) * matrix_dim + offset;
    for (i = 1; i < BS; i++) {
      m[array_offset + (bx + 1) * BS + idx] = peri_row[i * BS + idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = tx - BS;
    array_offset = (offset + (bx + 1) * BS) * matrix_dim + offset;
    for (i = 0; i < BS; i++) {
      m[array_offset + idx] = peri_col[i * BS + idx];
      array_offset += matrix_dim;
    }
  }
}

__kernel void lud_internal(__global float *m, __local float *peri_row,
                           __local float *peri_col, int matrix_dim,
                           int offset) {
  int bx = get_group_id(0);
  int by = get_group_id(1);
  int tx = get_local_id(0);
  int ty = get_local_id(1);
  int i;
  float sum;
  int global_row_id = offset + (by + 1) * BS;
  int global_col_id = offset + (bx + 1) * BS;

  peri_row[ty * BS + tx] = m[(offset + ty) * matrix_dim + global_col_id + tx];
  peri_col[ty * BS + tx] = m[(global_row_id + ty) * matrix_dim + offset + tx];
  barrier(CLK_LOCAL_MEM_FENCE);
  sum = 0;
  for (i = 0; i < BS; i++)
    sum += peri_col[ty * BS + i] * peri_row[i * BS + tx];
  m[(global_row_id + ty) * matrix_dim + global_col_id + tx] -= sum;
}
