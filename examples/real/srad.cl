/* SPDX-License-Identifier: MIT */
/* srad.cl - Rodinia SRAD v2 (speckle reducing anisotropic diffusion), two
 * kernels per iteration over 16 x 16 tiles of the image J (rows x cols,
 * row-major): srad_1 loads the tile and its four neighbouring rows and
 * columns into local memory (the image's edge clamps) and computes the
 * directional derivatives and the diffusion coefficient c; srad_2 loads c
 * with its south and east neighbours and updates J in place. */
#define BS 16

__kernel __attribute__((reqd_work_group_size(BS, BS, 1))) void
srad_1(__global const float *J, __global float *C, __global float *dN,
       __global float *dS, __global float *dW, __global float *dE, int cols,
       int rows, float q0sqr) {
  __local float temp[BS][BS], temp_result[BS][BS], north[BS][BS],
      south[BS][BS], east[BS][BS], west[BS][BS];
  int bx = get_group_id(0), by = get_group_id(1);
  int tx = get_local_id(0), ty = get_local_id(1);
  int gx = get_num_groups(0), gy = get_num_groups(1);
  int index = cols * BS * by + BS * bx + cols * ty + tx;
  int index_n = cols * BS * by + BS * bx + tx - cols;
  int index_s = cols * BS * by + BS * bx + cols * BS + tx;
  int index_w = cols * BS * by + BS * bx + cols * ty - 1;
  int index_e = cols * BS * by + BS * bx + cols * ty + BS;
  float n, w, e, s, jc, g2, l, num, den, qsqr, c;

  (void)rows;
  /* The rows above and below the tile (the image's first and last rows
   * at its edges). */
  if (by == 0)
    north[ty][tx] = J[BS * bx + tx];
  else
    north[ty][tx] = J[index_n];
  if (by == gy - 1)
    south[ty][tx] = J[cols * BS * (gy - 1) + BS * bx + cols * (BS - 1) + tx];
  else
    south[ty][tx] = J[index_s];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (bx == 0)
    west[ty][tx] = J[cols * BS * by + cols * ty];
  else
    west[ty][tx] = J[index_w];
  if (bx == gx - 1)
    east[ty][tx] = J[cols * BS * by + BS * (gx - 1) + cols * ty + BS - 1];
  else
    east[ty][tx] = J[index_e];
  barrier(CLK_LOCAL_MEM_FENCE);
  temp[ty][tx] = J[index];
  barrier(CLK_LOCAL_MEM_FENCE);
  jc = temp[ty][tx];
  n = (ty == 0 ? north[ty][tx] : temp[ty - 1][tx]) - jc;
  s = (ty == BS - 1 ? south[ty][tx] : temp[ty + 1][tx]) - jc;
  w = (tx == 0 ? west[ty][tx] : temp[ty][tx - 1]) - jc;
  e = (tx == BS - 1 ? east[ty][tx] : temp[ty][tx + 1]) - jc;
  g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  l = (n + s + w + e) / jc;
  num = (0.5f * g2) - ((1.0f / 16.0f) * (l * l));
  den = 1 + (0.25f * l);
  qsqr = num / (den * den);
  /* The diffusion coefficient (equation 33), saturated to [0, 1]. */
  den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
  c = 1.0f / (1.0f + den);
  temp_result[ty][tx] = c < 0 ? 0 : c > 1 ? 1 : c;
  barrier(CLK_LOCAL_MEM_FENCE);
  C[index] = temp_result[ty][tx];
  dE[index] = e;
  dW[index] = w;
  dS[index] = s;
  dN[index] = n;
}

__kernel __attribute__((reqd_work_group_size(BS, BS, 1))) void
srad_2(__global float *J, __global const float *C, __global const float *dN,
       __global const float *dS, __global const float *dW,
       __global const float *dE, int cols, int rows, float lambda) {
  __local float south_c[BS][BS], east_c[BS][BS], c_temp[BS][BS],
      c_result[BS][BS], temp[BS][BS];
  int bx = get_group_id(0), by = get_group_id(1);
  int tx = get_local_id(0), ty = get_local_id(1);
  int gx = get_num_groups(0), gy = get_num_groups(1);
  int index = cols * BS * by + BS * bx + cols * ty + tx;
  int index_s = cols * BS * by + BS * bx + cols * BS + tx;
  int index_e = cols * BS * by + BS * bx + cols * ty + BS;
  float cc, cn, cs, ce, cw, d_sum;

  (void)rows;
  temp[ty][tx] = J[index];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (by == gy - 1)
    south_c[ty][tx] = C[cols * BS * (gy - 1) + BS * bx + cols * (BS - 1) + tx];
  else
    south_c[ty][tx] = C[index_s];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (bx == gx - 1)
    east_c[ty][tx] = C[cols * BS * by + BS * (gx - 1) + cols * ty + BS - 1];
  else
    east_c[ty][tx] = C[index_e];
  barrier(CLK_LOCAL_MEM_FENCE);
  c_temp[ty][tx] = C[index];
  barrier(CLK_LOCAL_MEM_FENCE);
  cc = c_temp[ty][tx];
  cn = cc;
  cw = cc;
  cs = ty == BS - 1 ? south_c[ty][tx] : c_temp[ty + 1][tx];
  ce = tx == BS - 1 ? east_c[ty][tx] : c_temp[ty][tx + 1];
  /* The divergence (equation 58) and the image update (equation 61). */
  d_sum = cn * dN[index] + cs * dS[index] + cw * dW[index] + ce * dE[index];
  c_result[ty][tx] = temp[ty][tx] + 0.25f * lambda * d_sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  J[index] = c_result[ty][tx];
}
