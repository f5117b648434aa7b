/* SPDX-License-Identifier: MIT */
/* phase_matmul.c - C = A B for 512 x 512 floats as a phase kernel with
 * 16 x 16 tiles of A and B in the group's local struct (two barriers per
 * tile step), a 2-D launch run as loops and on fibers, checked against a
 * plain C product.
 *
 *   ./examples/phase_matmul   prints the largest difference and "ok"
 */
#include <math.h>
#include <string.h>

#include "example.h"

#define N 512
#define TILE 16

typedef struct matmul_args {
  const float *a, *b;
  float *c;
} matmul_args;

typedef struct matmul_state {
  float acc;
  size_t t; /* first column of A (row of B) of the current tile step */
} matmul_state;

/* The group's tiles of A and B. */
typedef struct matmul_local {
  float as[TILE][TILE], bs[TILE][TILE];
} matmul_local;

FPAR_PHASE_KERNEL_LOCAL(matmul, it, args, matmul_state, st, matmul_local, lm) {
  const matmul_args *m = args;
  size_t tx = fpar_local_id(it, 0), ty = fpar_local_id(it, 1);
  size_t col = fpar_global_id(it, 0), row = fpar_global_id(it, 1);

  FPAR_PHASE_BEGIN();
  st->acc = 0;
  for (st->t = 0; st->t < N; st->t += TILE) {
    lm->as[ty][tx] = m->a[row * N + st->t + tx];
    lm->bs[ty][tx] = m->b[(st->t + ty) * N + col];
    FPAR_PHASE_BARRIER();
    for (size_t k = 0; k < TILE; k++)
      st->acc += lm->as[ty][k] * lm->bs[k][tx];
    FPAR_PHASE_BARRIER();
  }
  m->c[row * N + col] = st->acc;
  FPAR_PHASE_END();
}

static void product(fpar_queue *q, const matmul_args *m, fpar_phase_mode mode) {
  fpar_launch_desc d;
  fpar_event *ev;

  fpar_launch_desc_init(&d);
  d.def = &matmul;
  d.phase_mode = mode;
  d.args = (void *)m;
  d.global = fpar_range2(N, N);
  d.local = fpar_range2(TILE, TILE);
  example_wait(fpar_launch(q, &d, &ev), &ev);
}

int main(void) {
  float *a = malloc(N * N * 4), *b = malloc(N * N * 4);
  float *loops = malloc(N * N * 4), *fibers = malloc(N * N * 4);
  matmul_args m = {a, b, loops};
  double worst = 0;
  fpar_runtime *rt;
  fpar_queue *q;
  int ok;

  if (a == NULL || b == NULL || loops == NULL || fibers == NULL)
    return 1;
  for (size_t i = 0; i < N * N; i++) {
    a[i] = (float)((i * 2654435761u) >> 20 & 0xff) / 256.0f - 0.5f;
    b[i] = (float)((i * 2246822519u) >> 20 & 0xff) / 256.0f - 0.5f;
  }
  example_open(&rt, &q);
  product(q, &m, FPAR_PHASE_LOOPS);
  m.c = fibers;
  product(q, &m, FPAR_PHASE_FIBERS);
  example_close(rt, q);

  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < N; j++) {
      double want = 0;
      for (size_t k = 0; k < N; k++)
        want += (double)a[i * N + k] * b[k * N + j];
      worst = fmax(worst, fabs(loops[i * N + j] - want));
    }
  ok = worst < 1e-3 && memcmp(loops, fibers, N * N * 4) == 0;
  printf("C = A B, %d x %d, %d x %d tiles: largest difference from the "
         "double-precision product %.2e; loops and fibers %s: %s\n",
         N, N, TILE, TILE, worst,
         memcmp(loops, fibers, N * N * 4) == 0 ? "agree" : "DIFFER",
         ok ? "ok" : "WRONG");
  free(a), free(b), free(loops), free(fibers);
  return ok ? 0 : 1;
}
