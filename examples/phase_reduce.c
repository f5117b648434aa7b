/* SPDX-License-Identifier: MIT */
/* phase_reduce.c - the work-group tree reduction of reduce.c (2^22 floats,
 * groups of 256, 8 barriers) written twice (phase_kernels.h): as an
 * ordinary kernel whose work-items are fibers that meet at fpar_barrier(),
 * and as a phase kernel that the runtime runs as one loop per phase.  The
 * phase kernel also runs on fibers (FPAR_PHASE_FIBERS), the reference for
 * debugging.  All three are checked against a serial sum; the two runs of
 * the phase kernel must agree bit for bit.
 *
 *   ./examples/phase_reduce   prints the sums and times, and "ok"
 */
#include <math.h>
#include <string.h>

#include "benchmark/bench_util.h"
#include "example.h"
#include "phase_kernels.h"

#define N (1u << 22)
#define WG RED_WG

/* Run k in the given mode; returns the sum of the group sums in
 * sums[0..N/WG) and the time taken. */
static double run(fpar_queue *q, const fpar_kernel *k, fpar_phase_mode mode,
                  float **args, double *seconds) {
  fpar_launch_desc d;
  fpar_event *ev;
  double t0 = bench_now(), total = 0;

  fpar_launch_desc_init(&d);
  d.def = k;
  d.phase_mode = mode;
  d.args = args;
  d.global = fpar_range1(N);
  d.local = fpar_range1(WG);
  example_wait(fpar_launch(q, &d, &ev), &ev);
  *seconds = bench_now() - t0;
  for (size_t g = 0; g < N / WG; g++)
    total += args[1][g];
  return total;
}

int main(void) {
  float *in = malloc(N * sizeof *in), *sums[2];
  double serial = 0, total[3], t[3];
  fpar_runtime *rt;
  fpar_queue *q;
  int ok = 1;

  sums[0] = malloc(N / WG * sizeof(float));
  sums[1] = malloc(N / WG * sizeof(float));
  if (in == NULL || sums[0] == NULL || sums[1] == NULL)
    return 1;
  for (size_t i = 0; i < N; i++) {
    in[i] = (float)((i * 2654435761u) >> 8 & 0xffff) / 65536.0f;
    serial += in[i];
  }
  example_open(&rt, &q);
  {
    float *fibers[2] = {in, sums[0]}, *phases[2] = {in, sums[1]};
    total[0] = run(q, &reduce_fibers, FPAR_PHASE_DEFAULT, fibers, &t[0]);
    total[1] = run(q, &reduce_phases, FPAR_PHASE_LOOPS, phases, &t[1]);
    ok &= memcmp(sums[0], sums[1], N / WG * sizeof(float)) == 0;
    total[2] = run(q, &reduce_phases, FPAR_PHASE_FIBERS, phases, &t[2]);
    ok &= memcmp(sums[0], sums[1], N / WG * sizeof(float)) == 0;
  }
  example_close(rt, q);

  printf("sum of %u floats, groups of %d (serial %.3f):\n", N, WG, serial);
  printf("  fiber kernel            %.3f  %8.2f ms\n", total[0], t[0] * 1e3);
  printf("  phase kernel, loops     %.3f  %8.2f ms\n", total[1], t[1] * 1e3);
  printf("  phase kernel, fibers    %.3f  %8.2f ms\n", total[2], t[2] * 1e3);
  for (int k = 0; k < 3; k++)
    ok &= fabs(total[k] - serial) <= 1e-6 * serial;
  printf("%s\n", ok ? "ok" : "WRONG");
  free(in), free(sums[0]), free(sums[1]);
  return ok ? 0 : 1;
}
