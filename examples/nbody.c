/* SPDX-License-Identifier: MIT */
/* nbody.c - Aparapi's tiled NBody (../shared/seeds/001) as an nd_range
 * kernel: a launch-time local buffer of 4 floats per work-item (Aparapi's
 * LocalFloatBuffer(4)), a work-group size the runtime chooses
 * (FPAR_LOCAL_AUTO), and per tile: barrier, every work-item copies one body
 * into local memory, barrier, every work-item accumulates the whole tile.
 * One step of N = 4096 bodies is checked against a serial NBody.
 */
#include <fiberpar.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "example.h"

#define N 4096
#define BODYSIZE 4 /* x, y, z, mass */
#define EPS2 0.01f

typedef struct nbody_args {
  const float *pos_xyzm; /* N bodies */
  float *acc_xyz;        /* N accelerations */
} nbody_args;

static void nbody_kernel(fpar_item *it, void *p) {
  const nbody_args *a = p;
  float *pos_xyzm_local = fpar_local_buffer(it, 0);
  size_t global_size = fpar_global_range(it, 0);
  size_t local_size = fpar_local_range(it, 0);
  size_t local_id = fpar_local_id(it, 0);
  size_t me = fpar_global_id(it, 0);
  float my_x = a->pos_xyzm[me * BODYSIZE + 0];
  float my_y = a->pos_xyzm[me * BODYSIZE + 1];
  float my_z = a->pos_xyzm[me * BODYSIZE + 2];
  float ax = 0, ay = 0, az = 0;
  size_t num_tiles = global_size / local_size;

  for (size_t i = 0; i < num_tiles; ++i) {
    /* Load one tile into local memory. */
    size_t idx = i * local_size + local_id;
    fpar_barrier(it);
    for (int k = 0; k < BODYSIZE; k++)
      pos_xyzm_local[local_id * BODYSIZE + k] = a->pos_xyzm[idx * BODYSIZE + k];
    /* Synchronize to make sure data is available for processing. */
    fpar_barrier(it);
    for (size_t j = 0; j < local_size; ++j) {
      float r_x = pos_xyzm_local[j * BODYSIZE + 0] - my_x;
      float r_y = pos_xyzm_local[j * BODYSIZE + 1] - my_y;
      float r_z = pos_xyzm_local[j * BODYSIZE + 2] - my_z;
      float d2 = r_x * r_x + r_y * r_y + r_z * r_z + EPS2;
      float inv = 1.0f / sqrtf(d2);
      float s = pos_xyzm_local[j * BODYSIZE + 3] * inv * inv * inv;
      ax += r_x * s;
      ay += r_y * s;
      az += r_z * s;
    }
  }
  a->acc_xyz[me * 3 + 0] = ax;
  a->acc_xyz[me * 3 + 1] = ay;
  a->acc_xyz[me * 3 + 2] = az;
}

/* The same interactions, serially and in double precision. */
static void nbody_serial(const float *pos, double *acc) {
  for (int i = 0; i < N; i++) {
    double ax = 0, ay = 0, az = 0;
    for (int j = 0; j < N; j++) {
      double rx = pos[j * 4] - pos[i * 4], ry = pos[j * 4 + 1] - pos[i * 4 + 1];
      double rz = pos[j * 4 + 2] - pos[i * 4 + 2];
      double d2 = rx * rx + ry * ry + rz * rz + EPS2;
      double s = pos[j * 4 + 3] / (d2 * sqrt(d2));
      ax += rx * s, ay += ry * s, az += rz * s;
    }
    acc[i * 3] = ax, acc[i * 3 + 1] = ay, acc[i * 3 + 2] = az;
  }
}

int main(void) {
  float *pos = malloc(N * BODYSIZE * sizeof *pos), *acc = malloc(N * 3 * 4);
  double *ref = malloc(N * 3 * sizeof *ref), err2 = 0, ref2 = 0;
  nbody_args args = {pos, acc};
  /* Aparapi's LocalFloatBuffer(BODYSIZE): 4 floats per work-item. */
  fpar_local_buffer_desc tile = {0, BODYSIZE * sizeof(float), 0};
  fpar_launch_desc d;
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;

  srand(7);
  for (int i = 0; i < N * BODYSIZE; i++)
    pos[i] = (float)rand() / (float)RAND_MAX * (i % 4 == 3 ? 1.0f : 10.0f);
  example_open(&rt, &q);
  fpar_launch_desc_init(&d);
  d.name = "nbody";
  d.kernel = nbody_kernel;
  d.args = &args;
  d.global = fpar_range1(N);
  d.local = FPAR_LOCAL_AUTO; /* the runtime chooses, as Aparapi does */
  d.local_buffers = &tile;
  d.num_local_buffers = 1;
  example_wait(fpar_launch(q, &d, &ev), &ev);
  example_close(rt, q);

  nbody_serial(pos, ref);
  for (int i = 0; i < N * 3; i++) {
    err2 += (acc[i] - ref[i]) * (acc[i] - ref[i]);
    ref2 += ref[i] * ref[i];
  }
  printf("nbody N=%d, tiles of a runtime-chosen size: relative L2 error "
         "%.2e: %s\n",
         N, sqrt(err2 / ref2), sqrt(err2 / ref2) < 1e-5 ? "ok" : "WRONG");
  free(pos), free(acc), free(ref);
  return sqrt(err2 / ref2) < 1e-5 ? 0 : 1;
}
