/* SPDX-License-Identifier: MIT */
/* heat_mpi_omp.c - the heat example's reference: the same decomposition,
 * halo exchange and overlap as heat_mpi.c, with the sweep as an OpenMP
 * loop (MPI + OpenMP), for `make bench-mpi`.
 *
 *   OMP_NUM_THREADS=1 mpirun -np 2 --bind-to core \
 *     ./examples/heat_mpi_omp [nx [rows [iterations]]]
 *
 * Without helper threads MPI progresses only inside MPI calls, so the
 * usual overlap is: start the exchange, sweep the inner rows, complete the
 * exchange, sweep the edge rows.
 */
#include <omp.h>
#include <stdio.h>

#include "heat_mpi_grid.h"

/* Rows first, first + step, ... (count of them), in parallel. */
static void sweep_rows(heat_grid *g, size_t first, size_t step, size_t count) {
#pragma omp parallel for schedule(static)
  for (size_t k = 0; k < count; k++) {
    size_t y = first + k * step;
    heat_update_row(g->cur + y * g->pitch, g->next + y * g->pitch, g->pitch,
                    g->nx);
  }
}

int main(int argc, char **argv) {
  heat_grid g;
  double t0, seconds;
  int bad;

  heat_mpi_init(&argc, &argv);
  if (heat_grid_init(&g, argc, argv) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);

  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (int it = 0; it < g.iterations; it++) {
    MPI_Request req[4];

    heat_halo_start(&g, req);
    sweep_rows(&g, 2, 1, g.rows - 2);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    sweep_rows(&g, 1, g.rows - 1, 2);
    heat_grid_swap(&g);
  }
  seconds = heat_elapsed(t0);

  if (g.rank == 0)
    printf("heat_mpi_omp: %d OpenMP thread(s) per rank\n",
           omp_get_max_threads());
  bad = heat_report(&g, "heat_mpi_omp", seconds);
  heat_grid_free(&g);
  MPI_Finalize();
  return bad;
}
