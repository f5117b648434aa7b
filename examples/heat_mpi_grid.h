/* SPDX-License-Identifier: MIT */
/* heat_mpi_grid.h - the parts of the distributed heat example that do not
 * depend on how a rank runs its sweep: the slab decomposition, the halo
 * exchange, the plain C row update, and the check against a serial run.
 *
 * The global grid has nx x ny interior cells inside a one-cell border of
 * fixed values.  Rank r of p owns rows_per_rank consecutive rows; it stores
 * them with one extra row above and below (its ghost rows: the neighbour
 * ranks' edge rows, or the fixed border at the top and bottom of the grid)
 * and one border column left and right, so every owned cell has its four
 * neighbours in memory and the update needs no special cases.
 */
#ifndef HEAT_MPI_GRID_H
#define HEAT_MPI_GRID_H

#include <mpi.h>
#include <stddef.h>

typedef struct heat_grid {
  int rank, ranks;
  size_t nx;    /* interior columns */
  size_t rows;  /* rows this rank owns (stored at rows 1 .. rows) */
  size_t pitch; /* floats per stored row: nx + 2 */
  int iterations;
  float *cur, *next; /* (rows + 2) x pitch each */
} heat_grid;

/* MPI_Init_thread with MPI_THREAD_FUNNELED: the process has other threads
 * (workers), but only the main thread calls MPI.  Aborts if the library
 * cannot promise that much. */
void heat_mpi_init(int *argc, char ***argv);

/* Read "[nx [rows_per_rank [iterations]]]" from the command line, allocate
 * both arrays and fill them with the initial values (the border too).
 * Returns 0, or 1 after printing why on rank 0. */
int heat_grid_init(heat_grid *g, int argc, char **argv);
void heat_grid_free(heat_grid *g);

/* Start the exchange of g->cur's edge rows with the neighbours: receive
 * the ghost rows, send rows 1 and g->rows.  Complete req[0..3] before
 * reading the ghost rows or writing the edge rows. */
void heat_halo_start(const heat_grid *g, MPI_Request req[4]);

/* One Jacobi update of an interior row: out[x] = the mean of in's four
 * neighbours of x, for x = 1 .. nx, where in and out point at the start
 * (border column) of the same row of two arrays. */
void heat_update_row(const float *in, float *out, size_t pitch, size_t nx);

/* Swap cur and next after a sweep. */
void heat_grid_swap(heat_grid *g);

/* Gather every rank's rows of g->cur on rank 0 and compare them with a
 * serial run of the same iterations (heat_update_row over the whole
 * grid).  Returns the largest absolute difference on rank 0, 0 elsewhere. */
double heat_check(const heat_grid *g);

/* Time of the slowest rank from t0 (MPI_Wtime) to now, on every rank. */
double heat_elapsed(double t0);

/* Check the result (heat_check) and print, on rank 0 and prefixed by
 * `program`, the time, the rate and the check.  Returns 1 on every rank if
 * the result is wrong, else 0. */
int heat_report(const heat_grid *g, const char *program, double seconds);

#endif
