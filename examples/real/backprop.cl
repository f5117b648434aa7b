/* SPDX-License-Identifier: MIT */
/* backprop.cl - Rodinia back-propagation: one layer of a neural network
 * with `in` input units and 16 hidden units.  layerforward: a 16 x 16
 * work-group per 16 input units multiplies its inputs by their weights in
 * local memory and sums each hidden unit's 16 products with a tree of
 * barriers (one partial sum per group and hidden unit); adjust_weights
 * updates every weight with the hidden units' errors and momentum.
 * Weights are (in + 1) x 17, row 0 and column 0 the biases. */
#define HEIGHT 16
#define WIDTH 16
#define ETA 0.3f
#define MOMENTUM 0.3f

__kernel __attribute__((reqd_work_group_size(WIDTH, HEIGHT, 1))) void
bpnn_layerforward(__global const float *input_cuda,
                  __global const float *input_hidden_cuda,
                  __global float *hidden_partial_sum, int in, int hid) {
  __local float input_node[HEIGHT];
  __local float weight_matrix[HEIGHT * WIDTH];
  int by = get_group_id(1);
  int tx = get_local_id(0);
  int ty = get_local_id(1);
  int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_in = HEIGHT * by + ty + 1;

  (void)in;
  if (tx == 0)
    input_node[ty] = input_cuda[index_in];
  barrier(CLK_LOCAL_MEM_FENCE);
  weight_matrix[ty * WIDTH + tx] = input_hidden_cuda[index];
  barrier(CLK_LOCAL_MEM_FENCE);
  weight_matrix[ty * WIDTH + tx] = weight_matrix[ty * WIDTH + tx] * input_node[ty];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int power_two = 2; power_two <= HEIGHT; power_two *= 2) {
    if (ty % power_two == 0)
      weight_matrix[ty * WIDTH + tx] += weight_matrix[(ty + power_two / 2) * WIDTH + tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tx == 0)
    hidden_partial_sum[by * hid + ty] = weight_matrix[tx * WIDTH + ty];
}

__kernel __attribute__((reqd_work_group_size(WIDTH, HEIGHT, 1))) void
bpnn_adjust_weights(__global const float *delta, int hid,
                    __global const float *ly, int in, __global float *w,
                    __global float *oldw) {
  int by = get_group_id(1);
  int tx = get_local_id(0);
  int ty = get_local_id(1);
  int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_y = HEIGHT * by + ty + 1;
  int index_x = tx + 1;

  (void)in;
  w[index] += ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
  oldw[index] = ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
  barrier(CLK_LOCAL_MEM_FENCE);
  if (ty == 0 && by == 0) {
    w[index_x] += ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
    oldw[index_x] = ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
  }
}
