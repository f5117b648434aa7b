/* SPDX-License-Identifier: MIT */
/* heat_mpi.c - a 2-D heat equation (Jacobi iteration) over MPI ranks, each
 * rank sweeping its part of the grid with a libfiberpar kernel, and the
 * halo exchange hidden behind the sweep.
 *
 *   mpirun -np 2 --bind-to core ./examples/heat_mpi [nx [rows [iterations]]]
 *
 * Each rank owns `rows` rows of nx cells (heat_mpi_grid.h draws the
 * layout).  One iteration:
 *
 *   1. start the halo exchange: MPI_Irecv the two ghost rows, MPI_Isend the
 *      rank's first and last rows;
 *   2. submit the sweep of the inner rows (2 .. rows - 1), which need no
 *      ghost row, to the asynchronous queue: the workers start on it at
 *      once;
 *   3. meanwhile drive MPI on this thread until the halos have arrived;
 *   4. submit the sweep of the two edge rows, which read the ghost rows;
 *   5. wait for both sweeps and swap the arrays.
 *
 * The sweep is a scoped-parallelism kernel in SIMD lanes: each work group
 * sweeps GROUP_ROWS rows, W cells per step (W = FPAR_SIMD_WIDTH, from the
 * -march this file is compiled with).  Only this thread calls MPI
 * (MPI_THREAD_FUNNELED): the workers never do.
 *
 * The runtime takes the rank's binding from the launcher: with
 * --bind-to core each rank gets one worker on its own core (see
 * docs/placement.md).  At the end, rank 0 compares the grid with a serial run,
 * and every rank checks that its kernels ran on CPUs inside its binding.
 * Exit status 0 means both held.
 */
#include <fiberpar.h>
#include <fiberpar/simd.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "heat_mpi_grid.h"

#define W FPAR_SIMD_WIDTH
#define GROUP_ROWS 8 /* grid rows per work group */

/* ---- The sweep kernel -------------------------------------------------- */

/* Rows first, first + step, ... (count of them) of one sweep from in to
 * out.  The inner rows are first = 2, step = 1; the two edge rows are
 * first = 1, step = rows - 1. */
typedef struct sweep {
  const float *in;
  float *out;
  size_t pitch, first, step, count;
  _Atomic uint64_t *cpus_seen; /* CPUs the kernel ran on (a bit each) */
} sweep;

/* W floats at p: all of them (full), or only the lanes on in m, touching
 * no memory for the others. */
static inline fpar_vf32 load(const float *p, fpar_vmask m, int full) {
  return full ? fpar_vf32_load(p) : fpar_vf32_load_mask(p, m);
}

/* The mean of the four neighbours of W adjacent cells (SIMD lanes) at c,
 * as heat_update_row computes it lane by lane. */
static inline fpar_vf32 mean4(const float *c, size_t pitch, fpar_vmask m,
                              int full) {
  return 0.25f * ((load(c - pitch, m, full) + load(c + pitch, m, full)) +
                  (load(c - 1, m, full) + load(c + 1, m, full)));
}

/* A row runner (scoped parallelism): one row of a group's logical items,
 * item (x, k) being cell x + 1 of the sweep's k-th row (column 0 is the
 * border).  W cells per step, with plain loads while all W lanes are
 * inside the row; only the row's last step is masked.  Writing the loop
 * here, rather than a body per W cells (FPAR_DEFINE_LANES_ROW), keeps the
 * row's pointers in registers across the vector stores. */
static void sweep_row(fpar_s_item *si, void *args, size_t x_end) {
  const sweep *s = args;
  size_t k = si->global_id[1], pitch = s->pitch;
  size_t x = si->global_id[0], end = x + (x_end - si->local_id[0]);
  const float *in;
  float *out;

  if (k >= s->count) /* the last group may reach past the sweep's rows */
    return;
  in = s->in + (s->first + k * s->step) * pitch + 1;
  out = s->out + (in - s->in);
  for (; x + W <= end; x += W)
    fpar_vf32_store(out + x, mean4(in + x, pitch, fpar_vmask_first(W), 1));
  if (x < end) {
    fpar_vmask tail = fpar_vmask_first((unsigned)(end - x));
    fpar_vf32_store_mask(out + x, mean4(in + x, pitch, tail, 0), tail);
  }
}

/* Note the CPU this group runs on: one shared read, and an atomic write
 * only the first time a CPU shows up. */
static void note_cpu(_Atomic uint64_t *seen) {
  int cpu = sched_getcpu();
  uint64_t bit = (uint64_t)1 << (cpu % 64);

  if (cpu >= 0 && cpu < CPU_SETSIZE &&
      !(atomic_load_explicit(&seen[cpu / 64], memory_order_relaxed) & bit))
    atomic_fetch_or_explicit(&seen[cpu / 64], bit, memory_order_relaxed);
}

/* A work group (scoped parallelism): GROUP_ROWS rows of nx cells, swept
 * row by row, W cells per step. */
static void sweep_group(fpar_group *g, void *args) {
  const sweep *s = args;

  note_cpu(s->cpus_seen);
  fpar_distribute_items_rows(g, sweep_row, args);
}

/* Submit a sweep without waiting for it. */
static void submit_sweep(fpar_queue *q, sweep *s, size_t nx, fpar_event **ev) {
  size_t groups = (s->count + GROUP_ROWS - 1) / GROUP_ROWS;

  if (fpar_parallel(q, fpar_range2(1, groups), fpar_range2(nx, GROUP_ROWS),
                    sweep_group, s, ev) != 0) {
    fprintf(stderr, "heat_mpi: launch refused: %s\n", fpar_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static void wait_sweep(fpar_event *ev) {
  if (fpar_event_wait(ev) != 0) {
    fprintf(stderr, "heat_mpi: sweep failed: %s\n", fpar_event_error(ev));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  fpar_event_release(ev);
}

/* Complete the halo exchange while the inner sweep runs.  When the rank
 * has one core, the worker running the sweep shares it with this thread,
 * and MPI_Waitall would spin on it: MPI_Testall drives the transfers, and
 * sched_yield() hands the core back in between.  Once the sweep is done
 * there is nothing left to overlap, and MPI_Waitall finishes the job. */
static void wait_halos(MPI_Request req[4], const fpar_event *inner) {
  int done = 0;

  for (;;) {
    MPI_Testall(4, req, &done, MPI_STATUSES_IGNORE);
    if (done)
      return;
    if (inner == NULL || fpar_event_result(inner) != FPAR_EBUSY) {
      MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
      return;
    }
    sched_yield();
  }
}

/* ---- Where the rank ran ------------------------------------------------ */

/* Print the rank's binding and the CPUs its kernels ran on; 1 if any of
 * them lies outside the binding. */
static int report_cpus(const heat_grid *g, fpar_runtime *rt,
                       const cpu_set_t *bound, _Atomic uint64_t *seen) {
  char runtime_cpus[256], ran[512] = "", *p = ran;
  int outside = 0;

  if (fpar_runtime_cpuset(rt, runtime_cpus, sizeof runtime_cpus) != 0)
    strcpy(runtime_cpus, "?");
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
    if (atomic_load(&seen[cpu / 64]) >> (cpu % 64) & 1) {
      p += snprintf(p, (size_t)(ran + sizeof ran - p), "%s%d",
                    p == ran ? "" : ",", cpu);
      outside |= !CPU_ISSET(cpu, bound);
    }
  printf("heat_mpi: rank %d: %u worker(s) on CPUs %s; kernels ran on CPUs "
         "%s: %s\n",
         g->rank, fpar_runtime_num_threads(rt), runtime_cpus, ran,
         outside ? "OUTSIDE the binding" : "inside the binding");
  return outside;
}

int main(int argc, char **argv) {
  static _Atomic uint64_t seen[CPU_SETSIZE / 64];
  cpu_set_t bound;
  heat_grid g;
  fpar_runtime *rt;
  fpar_queue *q;
  double t0, seconds;
  int bad;

  heat_mpi_init(&argc, &argv);
  /* The binding the launcher gave this rank (applied by now). */
  sched_getaffinity(0, sizeof bound, &bound);
  if (heat_grid_init(&g, argc, argv) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  if (fpar_runtime_create(&rt, NULL) != 0 || fpar_queue_create(rt, 0, &q)) {
    fprintf(stderr, "heat_mpi: rank %d: %s\n", g.rank, fpar_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (int it = 0; it < g.iterations; it++) {
    sweep inner = {g.cur, g.next, g.pitch, 2, 1, g.rows - 2, seen};
    sweep edges = {g.cur, g.next, g.pitch, 1, g.rows - 1, 2, seen};
    fpar_event *inner_done = NULL, *edges_done;
    MPI_Request req[4];

    heat_halo_start(&g, req);
    if (inner.count > 0)
      submit_sweep(q, &inner, g.nx, &inner_done);
    wait_halos(req, inner_done);
    submit_sweep(q, &edges, g.nx, &edges_done);
    if (inner_done != NULL)
      wait_sweep(inner_done);
    wait_sweep(edges_done);
    heat_grid_swap(&g);
  }
  seconds = heat_elapsed(t0);

  bad = report_cpus(&g, rt, &bound, seen);
  bad |= heat_report(&g, "heat_mpi", seconds);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
  heat_grid_free(&g);
  MPI_Finalize();
  return bad;
}
