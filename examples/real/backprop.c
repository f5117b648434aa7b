/* SPDX-License-Identifier: MIT */
/* backprop.c - Rodinia back-propagation: one training step of a network
 * of 65536 input units, 16 hidden units and one output unit.
 *
 * A run: layerforward (the hidden units' sums of weighted inputs, as
 * partial sums), the host's part (squash the hidden units, the output
 * layer, its error, the hidden units' errors, the output weights), then
 * adjust_weights (every input weight with momentum).
 * OpenCL (backprop.cl): 16 x 16 work-groups, one per 16 input units,
 * local memory and a tree of barriers for the sums (7 barriers), 1 barrier
 * in adjust_weights.
 * port: the same two kernels as phase kernels.
 * best: scoped groups (fpar_parallel) of 1024 input units, each a plain C
 * loop over its rows that the compiler vectorizes across the 16 hidden
 * units; no barrier.
 * openmp: the same row blocks under `parallel for`.
 * Rodinia's kernel also stores its partly reduced products back into the
 * weights (its CUDA host uploads the weights again before adjusting them);
 * that store is left out.  Weights start uniform in [-0.005, 0.005): with
 * Rodinia's [0, 1) every hidden unit saturates at 65536 inputs and the
 * adjustment does nothing.  Checked against the serial step in float:
 * |d| <= 1e-7 + 1e-4 |want| for the weights and their changes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real.h"

#define BP_HID 16    /* hidden units */
#define BP_W 17      /* weights per input unit: bias and 16 */
#define BP_BLOCK 16  /* Rodinia's HEIGHT: input units per work-group */
#define BP_ROWS 1024 /* best and openmp: input units per group */
#define BP_ETA 0.3f
#define BP_MOMENTUM 0.3f

typedef struct bp_args {
  const float *input; /* in + 1 units, [0] the bias */
  const float *delta; /* the hidden units' errors, [1..16] */
  float *w, *oldw;    /* (in + 1) x 17 */
  float *partial;     /* partial sums, 16 per block */
  int in, hid;
} bp_args;

/* The host's part of the network: hidden and output units. */
typedef struct bp_host {
  float hidden[BP_HID + 1], delta[BP_HID + 1];
  float who[BP_HID + 1][2], oldwho[BP_HID + 1][2]; /* hidden -> output */
} bp_host;

typedef struct bp {
  int in;
  float *input, *w, *oldw, *winit, *partial;
  float *want_w, *want_oldw;
  bp_host host, host_init;
  bp_args args;
  bench_ocl_buf *cinput, *cdelta, *cw, *coldw, *cpartial;
  bench_ocl_kernel *forward, *adjust;
} bp;

static int bp_size_ok(long n) {
  return n >= BP_BLOCK && n <= 1L << 24 && n % BP_BLOCK == 0;
}

static float bp_squash(float x) {
  return (float)(1.0 / (1.0 + exp(-x)));
}

/* The host's part of a step, from nblocks partial sums of the hidden
 * units (nblocks x 16): Rodinia's bpnn_layerforward, bpnn_output_error,
 * bpnn_hidden_error and bpnn_adjust_weights of the output layer. */
static void bp_host_step(bp_host *h, const float *w, const float *partial,
                         size_t nblocks) {
  const float target = 0.1f;
  float out, sum, out_delta;

  h->hidden[0] = 1.0f;
  for (int j = 1; j <= BP_HID; j++) {
    sum = 0.0f;
    for (size_t k = 0; k < nblocks; k++)
      sum += partial[k * BP_HID + (size_t)j - 1];
    h->hidden[j] = bp_squash(sum + w[j]);
  }
  sum = 0.0f;
  for (int k = 0; k <= BP_HID; k++)
    sum += h->who[k][1] * h->hidden[k];
  out = bp_squash(sum);
  out_delta = out * (1.0f - out) * (target - out);
  for (int j = 1; j <= BP_HID; j++)
    h->delta[j] =
        h->hidden[j] * (1.0f - h->hidden[j]) * out_delta * h->who[j][1];
  for (int k = 0; k <= BP_HID; k++) {
    float dw =
        BP_ETA * out_delta * h->hidden[k] + BP_MOMENTUM * h->oldwho[k][1];

    h->who[k][1] += dw;
    h->oldwho[k][1] = dw;
  }
}

/* ---- best and openmp: blocks of rows in plain C ------------------------- */

/* Sums of input units r0 + 1 .. r1 times their weights, per hidden unit. */
static void bp_forward_rows(const bp_args *a, int r0, int r1, float *sums) {
  float acc[BP_HID] = {0};

  for (int r = r0 + 1; r <= r1; r++) {
    const float *wr = a->w + (size_t)r * BP_W + 1;
    float x = a->input[r];

    for (int j = 0; j < BP_HID; j++)
      acc[j] += wr[j] * x;
  }
  memcpy(sums, acc, sizeof acc);
}

/* Adjust the weights of input units r0 + 1 .. r1 (and the bias row with
 * the first block).  The hidden units' scaled errors are copied first and
 * the rows are restrict, so that the loop over the 16 hidden units
 * vectorizes. */
static void bp_adjust_rows(const bp_args *a, int r0, int r1) {
  float d[BP_HID];

  for (int j = 0; j < BP_HID; j++)
    d[j] = BP_ETA * a->delta[j + 1];
  for (int r = r0 == 0 ? 0 : r0 + 1; r <= r1; r++) {
    float *restrict wr = a->w + (size_t)r * BP_W + 1;
    float *restrict oldr = a->oldw + (size_t)r * BP_W + 1;
    float x = r == 0 ? 1.0f : a->input[r];

    for (int j = 0; j < BP_HID; j++) {
      float dw = d[j] * x + BP_MOMENTUM * oldr[j];

      wr[j] += dw;
      oldr[j] = dw;
    }
  }
}

static void *bp_setup(long n) {
  bp *s = calloc(1, sizeof *s);
  size_t weights = ((size_t)n + 1) * BP_W;
  bp_args a;

  if (s == NULL)
    return NULL;
  s->in = (int)n;
  s->input = real_alloc(((size_t)n + 1) * sizeof(float));
  s->w = real_alloc(weights * sizeof(float));
  s->oldw = real_alloc(weights * sizeof(float));
  s->winit = real_alloc(weights * sizeof(float));
  s->want_w = real_alloc(weights * sizeof(float));
  s->want_oldw = real_alloc(weights * sizeof(float));
  s->partial = real_alloc(((size_t)n / BP_BLOCK + 1) * BP_HID * sizeof(float));
  s->input[0] = 1.0f;
  for (int i = 1; i <= s->in; i++)
    s->input[i] = real_rand01((uint32_t)i, 5);
  for (size_t i = 0; i < weights; i++)
    s->winit[i] = (real_rand01((uint32_t)i, 6) - 0.5f) * 0.01f;
  for (int k = 0; k <= BP_HID; k++) {
    s->host_init.who[k][1] = (real_rand01((uint32_t)k, 7) - 0.5f) * 0.1f;
    s->host_init.oldwho[k][1] = 0.0f;
  }
  /* The serial reference: one block of all rows. */
  memcpy(s->want_w, s->winit, weights * sizeof(float));
  memset(s->want_oldw, 0, weights * sizeof(float));
  s->host = s->host_init;
  a = (bp_args){s->input, s->host.delta, s->want_w, s->want_oldw,
                NULL,     s->in,         BP_HID};
  bp_forward_rows(&a, 0, s->in, s->partial);
  bp_host_step(&s->host, s->want_w, s->partial, 1);
  bp_adjust_rows(&a, 0, s->in);
  return s;
}

static void bp_release(void *p) {
  bp *s = p;

  free(s->input), free(s->w), free(s->oldw), free(s->winit);
  free(s->want_w), free(s->want_oldw), free(s->partial), free(s);
}

static int bp_ocl_init(void *p, bench_ocl *o) {
  bp *s = p;
  size_t weights = ((size_t)s->in + 1) * BP_W * sizeof(float);

  s->forward = real_cl_kernel(o, "backprop", "bpnn_layerforward");
  s->adjust = real_cl_kernel(o, "backprop", "bpnn_adjust_weights");
  s->cinput =
      bench_ocl_buffer(o, s->input, ((size_t)s->in + 1) * sizeof(float));
  s->cdelta = bench_ocl_buffer(o, s->host.delta, sizeof s->host.delta);
  s->cw = bench_ocl_buffer(o, s->w, weights);
  s->coldw = bench_ocl_buffer(o, s->oldw, weights);
  s->cpartial = bench_ocl_buffer(
      o, s->partial, (size_t)s->in / BP_BLOCK * BP_HID * sizeof(float));
  return s->forward == NULL || s->adjust == NULL || s->cinput == NULL ||
         s->cdelta == NULL || s->cw == NULL || s->coldw == NULL ||
         s->cpartial == NULL;
}

static int bp_prepare(void *p, real_version v, real_env *env) {
  bp *s = p;
  size_t weights = ((size_t)s->in + 1) * BP_W * sizeof(float);
  int err;

  s->host = s->host_init;
  err = real_put(env, v, s->cw, s->w, s->winit, weights);
  if (v == REAL_POCL) {
    float *old = bench_ocl_map(env->ocl, s->coldw, 0, weights, 1);

    if (old == NULL)
      return -1;
    memset(old, 0, weights);
    return err | bench_ocl_unmap(env->ocl, s->coldw, old);
  }
  memset(s->oldw, 0, weights);
  return err;
}

/* ---- port ------------------------------------------------------------------
 */

typedef struct bp_local {
  float input_node[BP_BLOCK];
  float weight_matrix[BP_BLOCK * BP_BLOCK];
} bp_local;

/* The tree's stride, a loop counter around barriers: group-uniform. */
typedef struct bp_forward_uniform {
  int power_two;
} bp_forward_uniform;

FPAR_PHASE_KERNEL_LOCAL_UNIFORM_STATELESS(backprop_port_forward, it, args,
                                          bp_forward_uniform, u, bp_local, lm) {
  const bp_args *a = args;
  const int HEIGHT = BP_BLOCK, WIDTH = BP_BLOCK, hid = a->hid;
  const int by = (int)fpar_group_id(it, 1);
  const int tx = (int)fpar_local_id(it, 0), ty = (int)fpar_local_id(it, 1);
  const int index =
      (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  float *weight_matrix = lm->weight_matrix;

  FPAR_PHASE_BEGIN();
  if (tx == 0)
    lm->input_node[ty] = a->input[HEIGHT * by + ty + 1];
  FPAR_PHASE_BARRIER();
  weight_matrix[ty * WIDTH + tx] = a->w[index];
  FPAR_PHASE_BARRIER();
  weight_matrix[ty * WIDTH + tx] =
      weight_matrix[ty * WIDTH + tx] * lm->input_node[ty];
  FPAR_PHASE_BARRIER();
  for (u->power_two = 2; u->power_two <= HEIGHT; u->power_two *= 2) {
    if (ty % u->power_two == 0)
      weight_matrix[ty * WIDTH + tx] +=
          weight_matrix[(ty + u->power_two / 2) * WIDTH + tx];
    FPAR_PHASE_BARRIER();
  }
  if (tx == 0)
    a->partial[by * hid + ty] = weight_matrix[tx * WIDTH + ty];
  FPAR_PHASE_END();
}

/* Nothing crosses adjust_weights' barrier. */
FPAR_PHASE_KERNEL_STATELESS(backprop_port_adjust, it, args) {
  const bp_args *a = args;
  const int HEIGHT = BP_BLOCK, hid = a->hid;
  const int by = (int)fpar_group_id(it, 1);
  const int tx = (int)fpar_local_id(it, 0), ty = (int)fpar_local_id(it, 1);
  const int index =
      (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  const int index_y = HEIGHT * by + ty + 1, index_x = tx + 1;
  const float *delta = a->delta, *ly = a->input;
  float *w = a->w, *oldw = a->oldw;

  FPAR_PHASE_BEGIN();
  w[index] +=
      ((BP_ETA * delta[index_x] * ly[index_y]) + (BP_MOMENTUM * oldw[index]));
  oldw[index] =
      ((BP_ETA * delta[index_x] * ly[index_y]) + (BP_MOMENTUM * oldw[index]));
  FPAR_PHASE_BARRIER();
  if (ty == 0 && by == 0) {
    w[index_x] += ((BP_ETA * delta[index_x]) + (BP_MOMENTUM * oldw[index_x]));
    oldw[index_x] = ((BP_ETA * delta[index_x]) + (BP_MOMENTUM * oldw[index_x]));
  }
  FPAR_PHASE_END();
}

/* ---- best ------------------------------------------------------------------
 */

static void bp_best_forward(fpar_group *g, void *args) {
  const bp_args *a = args;
  int b = (int)fpar_group_get_id(g, 0), r0 = b * BP_ROWS;
  int r1 = r0 + BP_ROWS < a->in ? r0 + BP_ROWS : a->in;

  bp_forward_rows(a, r0, r1, a->partial + (size_t)b * BP_HID);
}

static void bp_best_adjust(fpar_group *g, void *args) {
  const bp_args *a = args;
  int r0 = (int)fpar_group_get_id(g, 0) * BP_ROWS;

  bp_adjust_rows(a, r0, r0 + BP_ROWS < a->in ? r0 + BP_ROWS : a->in);
}

/* ---- a step
 * ------------------------------------------------------------------ */

static int bp_run(void *p, real_version v, real_env *env) {
  bp *s = p;
  bp_args *a = &s->args;
  const size_t blocks = (size_t)s->in / BP_BLOCK;
  const int chunks = (s->in + BP_ROWS - 1) / BP_ROWS;
  const float *w, *partial;
  int err = 0;

  *a = (bp_args){s->input,   s->host.delta, s->w,  s->oldw,
                 s->partial, s->in,         BP_HID};
  /* layerforward */
  switch (v) {
  case REAL_POCL: {
    size_t global[2] = {BP_BLOCK, (size_t)s->in},
           local[2] = {BP_BLOCK, BP_BLOCK};

    err |= bench_ocl_args(s->forward, "bbbii", s->cinput, s->cw, s->cpartial,
                          s->in, BP_HID);
    err |= bench_ocl_enqueue(s->forward, 2, global, local);
    break;
  }
  case REAL_PORT:
    err |= real_launch(env, &backprop_port_forward,
                       fpar_range2(BP_BLOCK, (size_t)s->in),
                       fpar_range2(BP_BLOCK, BP_BLOCK), a, sizeof *a);
    err |= real_wait(env);
    break;
  case REAL_BEST:
    err |=
        real_parallel(env, "backprop_best_forward", fpar_range1((size_t)chunks),
                      fpar_range1(1), bp_best_forward, a);
    err |= real_wait(env);
    break;
  default:
#pragma omp parallel for schedule(static)
    for (int b = 0; b < chunks; b++) {
      int r0 = b * BP_ROWS, r1 = r0 + BP_ROWS < s->in ? r0 + BP_ROWS : s->in;

      bp_forward_rows(a, r0, r1, s->partial + (size_t)b * BP_HID);
    }
  }
  if (err != 0)
    return err;
  /* The host's part reads the partial sums and the bias weights. */
  w = real_get(env, v, s->cw, s->w, BP_W * sizeof(float));
  partial = real_get(env, v, s->cpartial, s->partial,
                     blocks * BP_HID * sizeof(float));
  if (w == NULL || partial == NULL)
    return -1;
  bp_host_step(&s->host, w, partial,
               v == REAL_POCL || v == REAL_PORT ? blocks : (size_t)chunks);
  real_done(env, v, s->cpartial, partial);
  real_done(env, v, s->cw, w);
  if (v == REAL_POCL) {
    float *d = bench_ocl_map(env->ocl, s->cdelta, 0, sizeof s->host.delta, 1);

    if (d == NULL)
      return -1;
    memcpy(d, s->host.delta, sizeof s->host.delta);
    err |= bench_ocl_unmap(env->ocl, s->cdelta, d);
  }
  /* adjust_weights */
  switch (v) {
  case REAL_POCL: {
    size_t global[2] = {BP_BLOCK, (size_t)s->in},
           local[2] = {BP_BLOCK, BP_BLOCK};

    err |= bench_ocl_args(s->adjust, "bibibb", s->cdelta, BP_HID, s->cinput,
                          s->in, s->cw, s->coldw);
    err |= bench_ocl_enqueue(s->adjust, 2, global, local);
    return real_finish(env, v, err);
  }
  case REAL_PORT:
    err |= real_launch(env, &backprop_port_adjust,
                       fpar_range2(BP_BLOCK, (size_t)s->in),
                       fpar_range2(BP_BLOCK, BP_BLOCK), a, sizeof *a);
    return real_finish(env, v, err);
  case REAL_BEST:
    err |=
        real_parallel(env, "backprop_best_adjust", fpar_range1((size_t)chunks),
                      fpar_range1(1), bp_best_adjust, a);
    return real_finish(env, v, err);
  default:
#pragma omp parallel for schedule(static)
    for (int b = 0; b < chunks; b++) {
      int r0 = b * BP_ROWS;

      bp_adjust_rows(a, r0, r0 + BP_ROWS < s->in ? r0 + BP_ROWS : s->in);
    }
    return err;
  }
}

static int bp_check(void *p, real_version v, real_env *env, char *why,
                    size_t len) {
  bp *s = p;
  size_t weights = ((size_t)s->in + 1) * BP_W;

  return real_match_f32(env, v, s->cw, s->w, s->want_w, weights, 1e-4, 1e-7,
                        why, len) &&
         real_match_f32(env, v, s->coldw, s->oldw, s->want_oldw, weights, 1e-4,
                        1e-7, why, len);
}

const real_kernel real_backprop = {
    "backprop",
    "scoped-row-blocks",
    "the number of input units, a multiple of 16 up to 2^24",
    65536,
    1024,
    bp_size_ok,
    bp_setup,
    bp_release,
    bp_ocl_init,
    bp_prepare,
    bp_run,
    bp_check};
