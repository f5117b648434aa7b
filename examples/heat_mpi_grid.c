/* SPDX-License-Identifier: MIT */
/* heat_mpi_grid.c - decomposition, halo exchange and serial check of the
 * distributed heat example (see heat_mpi_grid.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat_mpi_grid.h"

/* Initial temperature of global cell (x, y), border included (0 .. nx + 1,
 * 0 .. ny + 1): an uneven pattern, so that a wrong neighbour or a stale
 * ghost row changes the result. */
static float heat_initial(size_t x, size_t y) {
  return (float)((x * 7 + y * 13) % 17) / 16.0f;
}

/* Fill the rows first_row .. first_row + rows + 1 of the global grid
 * (ghost rows included) into a. */
static void heat_fill(float *a, size_t nx, size_t first_row, size_t rows) {
  size_t pitch = nx + 2;

  for (size_t y = 0; y < rows + 2; y++)
    for (size_t x = 0; x < pitch; x++)
      a[y * pitch + x] = heat_initial(x, first_row + y);
}

static long heat_arg(int argc, char **argv, int k, long fallback) {
  return argc > k ? strtol(argv[k], NULL, 10) : fallback;
}

void heat_mpi_init(int *argc, char ***argv) {
  int provided;

  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  if (provided < MPI_THREAD_FUNNELED) {
    fprintf(stderr, "heat_mpi: this MPI does not support threads\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int heat_grid_init(heat_grid *g, int argc, char **argv) {
  long nx = heat_arg(argc, argv, 1, 512), rows = heat_arg(argc, argv, 2, 64);
  long iterations = heat_arg(argc, argv, 3, 50);
  size_t floats;

  MPI_Comm_rank(MPI_COMM_WORLD, &g->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g->ranks);
  if (nx < 1 || rows < 2 || iterations < 1 || nx > 1L << 20 ||
      rows > 1L << 20 || iterations > 1L << 20) {
    if (g->rank == 0)
      fprintf(stderr, "usage: heat_mpi [nx [rows_per_rank [iterations]]]: "
                      "nx >= 1, rows_per_rank >= 2, iterations >= 1\n");
    return 1;
  }
  g->nx = (size_t)nx;
  g->rows = (size_t)rows;
  g->pitch = g->nx + 2;
  g->iterations = (int)iterations;
  floats = (g->rows + 2) * g->pitch;
  g->cur = aligned_alloc(64, (floats * sizeof(float) + 63) / 64 * 64);
  g->next = aligned_alloc(64, (floats * sizeof(float) + 63) / 64 * 64);
  if (g->cur == NULL || g->next == NULL) {
    fprintf(stderr, "heat_mpi: rank %d: no memory for the grid\n", g->rank);
    return 1;
  }
  /* Both arrays hold the fixed border, which no sweep writes. */
  heat_fill(g->cur, g->nx, (size_t)g->rank * g->rows, g->rows);
  memcpy(g->next, g->cur, floats * sizeof(float));
  return 0;
}

void heat_grid_free(heat_grid *g) {
  free(g->cur);
  free(g->next);
}

void heat_halo_start(const heat_grid *g, MPI_Request req[4]) {
  int up = g->rank > 0 ? g->rank - 1 : MPI_PROC_NULL;
  int down = g->rank + 1 < g->ranks ? g->rank + 1 : MPI_PROC_NULL;
  int n = (int)g->pitch;
  float *top_ghost = g->cur, *bottom_ghost = g->cur + (g->rows + 1) * g->pitch;
  float *first = g->cur + g->pitch, *last = g->cur + g->rows * g->pitch;

  /* From MPI_PROC_NULL nothing arrives: the top and bottom ranks keep the
   * grid's fixed border in their outer ghost rows. */
  MPI_Irecv(top_ghost, n, MPI_FLOAT, up, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(bottom_ghost, n, MPI_FLOAT, down, 1, MPI_COMM_WORLD, &req[1]);
  MPI_Isend(first, n, MPI_FLOAT, up, 1, MPI_COMM_WORLD, &req[2]);
  MPI_Isend(last, n, MPI_FLOAT, down, 0, MPI_COMM_WORLD, &req[3]);
}

void heat_update_row(const float *in, float *out, size_t pitch, size_t nx) {
#pragma omp simd
  for (size_t x = 1; x <= nx; x++)
    out[x] =
        0.25f * ((in[x - pitch] + in[x + pitch]) + (in[x - 1] + in[x + 1]));
}

void heat_grid_swap(heat_grid *g) {
  float *t = g->cur;

  g->cur = g->next;
  g->next = t;
}

/* The whole grid on one process, iterated the same number of times. */
static float *heat_serial(size_t nx, size_t ny, int iterations) {
  size_t pitch = nx + 2, floats = (ny + 2) * pitch;
  float *a = malloc(floats * sizeof *a), *b = malloc(floats * sizeof *b);

  if (a == NULL || b == NULL) {
    free(a);
    free(b);
    return NULL;
  }
  heat_fill(a, nx, 0, ny);
  memcpy(b, a, floats * sizeof *a);
  for (int it = 0; it < iterations; it++) {
    float *t;
    for (size_t y = 1; y <= ny; y++)
      heat_update_row(a + y * pitch, b + y * pitch, pitch, nx);
    t = a;
    a = b;
    b = t;
  }
  free(b);
  return a;
}

double heat_check(const heat_grid *g) {
  size_t ny = g->rows * (size_t)g->ranks, own = g->rows * g->pitch;
  float *all = NULL, *ref = NULL;
  double worst = 0;

  if (g->rank == 0 && (all = malloc(ny * g->pitch * sizeof *all)) == NULL)
    MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Gather(g->cur + g->pitch, (int)own, MPI_FLOAT, all, (int)own, MPI_FLOAT,
             0, MPI_COMM_WORLD);
  if (g->rank != 0)
    return 0;
  if ((ref = heat_serial(g->nx, ny, g->iterations)) == NULL)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t y = 0; y < ny; y++)
    for (size_t x = 1; x <= g->nx; x++) {
      double d = fabs((double)all[y * g->pitch + x] -
                      (double)ref[(y + 1) * g->pitch + x]);
      worst = d > worst ? d : worst;
    }
  free(all);
  free(ref);
  return worst;
}

double heat_elapsed(double t0) {
  double mine = MPI_Wtime() - t0, slowest;

  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int heat_report(const heat_grid *g, const char *program, double seconds) {
  double diff = heat_check(g);
  int wrong = diff > 1e-5;

  if (g->rank == 0) {
    printf("%s: %d rank(s), %zu x %zu cells per rank, %d iterations: %.4f s, "
           "%.3f Gcell/s per rank\n",
           program, g->ranks, g->nx, g->rows, g->iterations, seconds,
           (double)g->nx * (double)g->rows * g->iterations / seconds * 1e-9);
    printf("%s: largest difference from the serial run %.3g: %s\n", program,
           diff, wrong ? "WRONG" : "ok");
  }
  MPI_Bcast(&wrong, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return wrong;
}
