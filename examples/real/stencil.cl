/* SPDX-License-Identifier: MIT */
/* stencil.cl - Parboil stencil: one time step of a 3-D 7-point Jacobi
 * stencil, Anext = c1 * (sum of the six neighbours) - c0 * A0, on an
 * nx x ny x nz grid whose boundary stays fixed.  A 32 x 4 work-group
 * covers a 32 x 4 column of the grid and marches along z, keeping the
 * cells below, at and above in registers and the current plane's tile in
 * local memory (its x and y neighbours, from global memory at the tile's
 * edges): two barriers per plane. */
#define TX 32
#define TY 4
#define IDX(i, j, k) ((i) + nx * ((j) + ny * (k)))

__kernel __attribute__((reqd_work_group_size(TX, TY, 1))) void
stencil(float c0, float c1, __global const float *A0, __global float *Anext,
        int nx, int ny, int nz) {
  __local float sh[TY][TX];
  int lx = get_local_id(0), ly = get_local_id(1);
  int i = get_global_id(0), j = get_global_id(1);
  bool interior = i > 0 && j > 0 && i < nx - 1 && j < ny - 1;
  float bottom = A0[IDX(i, j, 0)], current = A0[IDX(i, j, 1)];
  float top = A0[IDX(i, j, 2)];

  for (int k = 1; k < nz - 1; k++) {
    sh[ly][lx] = current;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (interior) {
      float w = lx > 0 ? sh[ly][lx - 1] : A0[IDX(i - 1, j, k)];
      float e = lx < TX - 1 ? sh[ly][lx + 1] : A0[IDX(i + 1, j, k)];
      float s = ly > 0 ? sh[ly - 1][lx] : A0[IDX(i, j - 1, k)];
      float n = ly < TY - 1 ? sh[ly + 1][lx] : A0[IDX(i, j + 1, k)];

      Anext[IDX(i, j, k)] = (top + bottom + w + e + s + n) * c1 - current * c0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    bottom = current;
    current = top;
    if (k + 2 < nz)
      top = A0[IDX(i, j, k + 2)];
  }
}
