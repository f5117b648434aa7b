/* SPDX-License-Identifier: MIT */
/* lane_kernels.c - the bundled kernels in lane form (see lane_kernels.h).
 * W = FPAR_SIMD_WIDTH lanes per call: build with -march=native. */
#include "lane_kernels.h"

#include <string.h>

#define W FPAR_SIMD_WIDTH

/* Submit a lane kernel, FPAR_DEFINE_LANE_KERNEL's, with row its row runner
 * or NULL, wait for it, return its status. */
static int lk_run(fpar_queue *q, const char *name, fpar_kernel_fn kernel,
                  fpar_row_fn row, void *args, fpar_range global,
                  fpar_range local, const fpar_local_buffer_desc *buffer) {
  fpar_launch_desc d;
  fpar_event *ev;
  int err;

  fpar_launch_desc_init(&d);
  d.name = name;
  d.kernel = kernel;
  d.row = row;
  d.lanes = W;
  d.subgroup_size = W; /* also when W is 1: each call is a sub-group */
  d.args = args;
  d.global = global;
  d.local = local;
  d.local_buffers = buffer;
  d.num_local_buffers = buffer != NULL;
  if ((err = fpar_launch(q, &d, &ev)) != 0)
    return err;
  err = fpar_event_wait(ev);
  fpar_event_release(ev);
  return err;
}

const char *lk_isa(void) {
#if FPAR_SIMD_WIDTH == 16
  return "avx512f";
#elif FPAR_SIMD_WIDTH == 8
  return "avx2";
#elif FPAR_SIMD_WIDTH == 4
  return "sse2";
#else
  return "scalar";
#endif
}

int lk_isa_runs(void) {
#if FPAR_SIMD_WIDTH > 1
  __builtin_cpu_init();
#endif
#if FPAR_SIMD_WIDTH == 16
  return __builtin_cpu_supports("avx512f");
#elif FPAR_SIMD_WIDTH == 8 && defined(__FMA__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#elif FPAR_SIMD_WIDTH == 8
  return __builtin_cpu_supports("avx2");
#elif FPAR_SIMD_WIDTH == 4
  return __builtin_cpu_supports("sse2");
#else
  return 1;
#endif
}

/* Lane i's sum of src[i], src[i + W], ... over W * n floats (four
 * accumulators hide the add latency; n is a multiple of 4). */
static inline fpar_vf32 lk_sum_block(const float *src, size_t n) {
  fpar_vf32 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};

  for (size_t k = 0; k < n; k += 4) {
    s0 += fpar_vf32_load(src + (k + 0) * W);
    s1 += fpar_vf32_load(src + (k + 1) * W);
    s2 += fpar_vf32_load(src + (k + 2) * W);
    s3 += fpar_vf32_load(src + (k + 3) * W);
  }
  return (s0 + s1) + (s2 + s3);
}

/* ---- Reduction, nd_range ------------------------------------------------- */

#define RED_ITEM 256  /* floats per work-item */
#define RED_LOCAL 256 /* work-items per group */

typedef struct red_args {
  const float *in;
  float *partial;
} red_args;

/* The sub-group's W work-items own W * 256 consecutive floats; lane i adds
 * elements i, i + W, i + 2W, ...  Sub-group sums meet in local memory;
 * after the barrier sub-group 0 adds them up. */
static inline void red_body(fpar_lanes *lk, void *p) {
  const red_args *a = p;
  const size_t subgroups = fpar_num_sub_groups(lk->it);
  float *sums = fpar_group_local_memory_for_overwrite(
      lk->it, subgroups * sizeof(float), 64);
  const float *src = a->in + lk->global_first * RED_ITEM;

  sums[fpar_sub_group_id(lk->it)] =
      fpar_sub_group_reduce_add_vf32(lk, lk_sum_block(src, RED_ITEM));
  fpar_barrier(lk->it);
  if (lk->it->local_id[0] == 0) {
    float total = 0;
    for (size_t i = 0; i < subgroups; i++)
      total += sums[i];
    a->partial[fpar_group_id(lk->it, 0)] = total;
  }
}
FPAR_DEFINE_LANE_KERNEL(red_kernel, red_body)

int lk_reduce_ndrange(fpar_queue *q, const float *in, size_t n, float *partial,
                      size_t *groups) {
  red_args a = {in, partial};

  *groups = n / RED_ITEM / RED_LOCAL;
  return lk_run(q, "reduce_lanes", red_kernel, NULL, &a,
                fpar_range1(n / RED_ITEM), fpar_range1(RED_LOCAL), NULL);
}

/* ---- Sub-group minima and running maxima --------------------------------- */

typedef struct mm_sg_args {
  const float *in;
  float *minima, *running_max;
} mm_sg_args;

/* OpenCL's sub_group_reduce_min and sub_group_scan_inclusive_max on one
 * float per work-item: the steps of a segmented min/max. */
static inline void mm_sg_body(fpar_lanes *lk, void *p) {
  const mm_sg_args *a = p;
  fpar_vf32 v = fpar_vf32_load(a->in + lk->global_first);

  a->minima[lk->global_first / W] = fpar_sub_group_reduce_min_vf32(lk, v);
  fpar_vf32_store(a->running_max + lk->global_first,
                  fpar_vf32_scan_max(v, lk->mask));
}
FPAR_DEFINE_LANE_KERNEL(mm_sg_kernel, mm_sg_body)

int lk_subgroup_minmax(fpar_queue *q, const float *in, size_t n, float *minima,
                       float *running_max) {
  mm_sg_args a = {in, minima, running_max};

  return lk_run(q, "subgroup_minmax_lanes", mm_sg_kernel, NULL, &a,
                fpar_range1(n), fpar_range1(256), NULL);
}

/* ---- Reduction, scoped --------------------------------------------------- */

#define SRED_ITEM 256  /* floats per logical item */
#define SRED_GROUP 256 /* logical items per work group */

typedef struct sred_state {
  const float *in;
  float *sums; /* local memory: one sum per block of W items */
  float *partial;
  const fpar_group *g;
} sred_state;

/* A block of W logical items owns W * 256 consecutive floats, summed in
 * registers like the nd_range kernel's sub-groups. */
static inline void sred_body(const fpar_lane_block *b, void *p) {
  sred_state *s = p;
  const float *src = s->in + b->global_first * SRED_ITEM;

  s->sums[b->first / W] =
      fpar_vf32_reduce_add(lk_sum_block(src, SRED_ITEM), b->mask);
}
FPAR_DEFINE_LANES_ROW(sred_row, sred_body)

static void sred_total(void *p) {
  sred_state *s = p;
  float total = 0;

  for (size_t i = 0; i < SRED_GROUP / W; i++)
    total += s->sums[i];
  s->partial[fpar_group_get_id(s->g, 0)] = total;
}

static void sred_env(fpar_group *g, void *const *mem, void *args) {
  sred_state s = *(sred_state *)args;

  s.sums = mem[0];
  s.g = g;
  fpar_distribute_items_rows(g, sred_row, &s);
  fpar_group_barrier(g);
  fpar_single_item(g, sred_total, &s);
}

static void sred_group(fpar_group *g, void *args) {
  fpar_mem_request sums =
      fpar_require_local_mem(SRED_GROUP / W * sizeof(float), 64, NULL, 0);

  fpar_memory_environment(g, &sums, 1, sred_env, args);
}

int lk_reduce_scoped(fpar_queue *q, const float *in, size_t n, float *partial,
                     size_t *groups) {
  sred_state s = {in, NULL, partial, NULL};
  fpar_event *ev;
  int err;

  *groups = n / SRED_ITEM / SRED_GROUP;
  err = fpar_parallel(q, fpar_range1(*groups), fpar_range1(SRED_GROUP),
                      sred_group, &s, &ev);
  if (err != 0)
    return err;
  err = fpar_event_wait(ev);
  fpar_event_release(ev);
  return err;
}

/* ---- NBody ------------------------------------------------------------- */

#define NB_LOCAL 256
#define NB_EPS2 0.01f

typedef struct nb_args {
  const float *pos; /* x, y, z, mass per body */
  float *acc;       /* x, y, z per body */
  int fast;
} nb_args;

/* Aparapi's NBody with a sub-group of W bodies per call: per tile every
 * sub-group copies its W bodies into the launch-time local buffer (4
 * floats per work-item), then all interact with the whole tile. */
static inline void nb_body(fpar_lanes *lk, void *p) {
  const nb_args *a = p;
  float *tile = fpar_local_buffer(lk->it, 0);
  size_t local = fpar_local_range(lk->it, 0), n = fpar_global_range(lk->it, 0);
  size_t lid0 = lk->it->local_id[0], me0 = lk->global_first;
  fpar_vi32 xyzm = fpar_vi32_iota() * 4;
  const float *mine = a->pos + me0 * 4;
  fpar_vf32 mx = fpar_vf32_gather(mine, xyzm, lk->mask);
  fpar_vf32 my = fpar_vf32_gather(mine + 1, xyzm, lk->mask);
  fpar_vf32 mz = fpar_vf32_gather(mine + 2, xyzm, lk->mask);
  fpar_vf32 ax = {0}, ay = {0}, az = {0};

  for (size_t t = 0; t < n; t += local) {
    fpar_barrier(lk->it);
    memcpy(tile + lid0 * 4, a->pos + (t + lid0) * 4,
           lk->active * 4 * sizeof(float));
    fpar_barrier(lk->it);
    for (size_t j = 0; j < local; j++) {
      const float *b = tile + 4 * j;
      fpar_vf32 rx = b[0] - mx, ry = b[1] - my, rz = b[2] - mz;
      fpar_vf32 d2 = rx * rx + ry * ry + rz * rz + NB_EPS2;
      fpar_vf32 inv = a->fast ? fpar_vf32_rsqrt_fast(d2) : fpar_vf32_rsqrt(d2);
      fpar_vf32 s = b[3] * inv * inv * inv;
      ax += rx * s;
      ay += ry * s;
      az += rz * s;
    }
  }
  for (unsigned i = 0; i < lk->active; i++) {
    a->acc[(me0 + i) * 3 + 0] = ax[i];
    a->acc[(me0 + i) * 3 + 1] = ay[i];
    a->acc[(me0 + i) * 3 + 2] = az[i];
  }
}
FPAR_DEFINE_LANE_KERNEL(nb_kernel, nb_body)

int lk_nbody(fpar_queue *q, const float *pos, float *acc, size_t n, int fast) {
  nb_args a = {pos, acc, fast};
  fpar_local_buffer_desc tile = {0, 4 * sizeof(float), 64};

  return lk_run(q, fast ? "nbody_lanes_fast" : "nbody_lanes", nb_kernel, NULL,
                &a, fpar_range1(n), fpar_range1(NB_LOCAL), &tile);
}

/* ---- SGEMM --------------------------------------------------------------- */

#define MM_ROWS 64 /* rows of C per work-item (and per work-group) */
#define MM_COLS 64 /* columns of C per work-group: 2 per work-item */
#define MM_KB 128  /* step of k: the panel of B a sub-group keeps */
#define MM_MR 4    /* rows of C in registers at a time */

typedef struct mm_args {
  const float *a, *b;
  float *c;
  size_t n;
} mm_args;

/* The sub-group at x0 computes rows row0..row0+63, columns 2 x0 .. 2 x0 +
 * 2W - 1 of C (work-item i owns columns 2 x0 + i and 2 x0 + W + i).  Per
 * step of 128 k it copies its 128 x 2W panel of B into a private array
 * (contiguous, a few pages: rows of B are 4 KiB apart, so read in place
 * every k would touch a new page), then runs down its 64 rows 4 at a
 * time, 4 x 2 vector accumulators in registers: per k, 4 broadcasts of A
 * and 2 panel loads feed 8 FMAs.  No local memory and no barrier: the
 * work-group's sub-groups share A's rows through the cache, and the group
 * runs as a loop. */
static inline void mm_body(fpar_lanes *lk, void *p) {
  const mm_args *m = p;
  size_t n = m->n, row0 = fpar_global_id(lk->it, 1) * MM_ROWS;
  size_t col0 = 2 * lk->global_first;
  float *c = m->c + row0 * n + col0;
  fpar_vf32 panel[MM_KB][2];

  for (size_t kk = 0; kk < n; kk += MM_KB) {
    const float *b = m->b + kk * n + col0;

    for (size_t k = 0; k < MM_KB; k++) {
      panel[k][0] = fpar_vf32_load(b + k * n);
      panel[k][1] = fpar_vf32_load(b + k * n + W);
    }
    for (size_t r0 = 0; r0 < MM_ROWS; r0 += MM_MR) {
      const float *a = m->a + (row0 + r0) * n + kk;
      float *cr = c + r0 * n;
      fpar_vf32 acc[MM_MR][2];

      /* GCC keeps acc in registers only when these loops are unrolled
       * (at -O2 it leaves them as loops over an array on the stack). */
#pragma GCC unroll 8
      for (int r = 0; r < MM_MR; r++) {
        acc[r][0] = kk ? fpar_vf32_load(cr + r * n) : (fpar_vf32){0};
        acc[r][1] = kk ? fpar_vf32_load(cr + r * n + W) : (fpar_vf32){0};
      }
      for (size_t k = 0; k < MM_KB; k++) {
#pragma GCC unroll 8
        for (int r = 0; r < MM_MR; r++) {
          acc[r][0] += a[r * n + k] * panel[k][0];
          acc[r][1] += a[r * n + k] * panel[k][1];
        }
      }
#pragma GCC unroll 8
      for (int r = 0; r < MM_MR; r++) {
        fpar_vf32_store(cr + r * n, acc[r][0]);
        fpar_vf32_store(cr + r * n + W, acc[r][1]);
      }
    }
  }
}
FPAR_DEFINE_LANE_KERNEL(mm_kernel, mm_body)

int lk_sgemm(fpar_queue *q, const float *a, const float *b, float *c,
             size_t n) {
  mm_args m = {a, b, c, n};

  return lk_run(q, "sgemm_lanes", mm_kernel, NULL, &m,
                fpar_range2(n / 2, n / MM_ROWS), fpar_range2(MM_COLS / 2, 1),
                NULL);
}

/* ---- Stencils ----------------------------------------------------------- */

/* A stencil reads its neighbours straight from global memory: they are in
 * the cache already (the rows above and below were read for the row
 * before), so copying a tile with a halo into local memory only adds a
 * pass over the data, a barrier and a fiber per sub-group (measured at a
 * third of the OpenMP loop; see docs/performance.md).  With no
 * barrier a group runs as a loop of row runner calls.  A stencil uses no
 * sub-group operation, so its work-items are independent and its row
 * runner need not go sub-group by sub-group: it takes the rest of the row
 * as one span of cells, tests the boundary once per row, and runs the
 * span as the OpenMP loop does, W cells a step by one moving index
 * (st_span).  The lane kernel, which the runtime calls for a group's
 * first sub-group, runs its lanes as a span too: one code path for every
 * cell.  (Going sub-group by sub-group instead, FPAR_LANE_KERNEL's row
 * runner with the boundary tested in the body, cost about 11 more
 * instructions per sub-group, loop and boundary tests that GCC at -O2
 * neither unswitches nor splits out of the loop: 2.4 times the OpenMP
 * loop's instructions on the Jacobi sweep.)
 */

typedef struct st_args {
  const float *in;
  float *out;
  size_t nx, ny, nz;
} st_args;

/* The two stencils' sums in one order, for a vector or a scalar at c
 * (AT loads one). */
#define ST_AT_VEC(p) fpar_vf32_load(p)
#define ST_AT_ONE(p) (*(p))
#define ST_JACOBI5(AT, c, nx)                                                  \
  (0.25f * (((AT((c) - (nx)) + AT((c) + (nx))) + AT((c)-1)) + AT((c) + 1)))
#define ST_JACOBI7(AT, c, nx, plane)                                           \
  ((1.0f / 7) *                                                                \
   ((((((AT((c)-1) + AT((c) + 1)) + AT((c) - (nx))) + AT((c) + (nx))) +        \
      AT((c) - (plane))) +                                                     \
     AT((c) + (plane))) +                                                      \
    AT(c)))

/* The sum at cells x .. x + W - 1 (ST_AT_VEC) or at cell x (ST_AT_ONE) of
 * a row inside the boundary, c at the row's x = 0: the 7-point one if
 * `seven` (a constant), else the 5-point one. */
#define ST_CELLS(AT, c, x, nx, plane, seven)                                   \
  ((seven) ? ST_JACOBI7(AT, (c) + (x), nx, plane)                              \
           : ST_JACOBI5(AT, (c) + (x), nx))

/* Cells x .. end - 1 of one row of the sweep, c and o at the row's x = 0:
 * on a boundary row (inner 0) out = in, one memcpy as in the OpenMP
 * loop; on an inner row the sum of ST_CELLS, out = in at x = 0 and
 * nx - 1.  A span of W cells or more goes by vectors, W cells a step, the
 * last step overlapping the one before (in and out do not overlap, so
 * cells are written twice with the same value), every cell summed (the
 * sum at x = 0 and nx - 1 reads the rows before and after, which an
 * inner row has), then cells 0 and nx - 1 copied over their sums; a
 * narrower span, a row's masked last sub-group, goes cell by cell. */
static inline __attribute__((always_inline)) void
st_span(const float *c, float *o, size_t x, size_t end, size_t nx, size_t plane,
        int inner, int seven) {
  size_t first = x;

  if (!inner) {
    memcpy(o + x, c + x, (end - x) * sizeof *o);
    return;
  }
  if (end - x < W) {
    /* (x - 1 wraps to a huge value at 0.) */
    for (; x < end; x++)
      o[x] =
          x - 1 < nx - 2 ? ST_CELLS(ST_AT_ONE, c, x, nx, plane, seven) : c[x];
    return;
  }
  for (; x < end - W; x += W)
    fpar_vf32_store(o + x, ST_CELLS(ST_AT_VEC, c, x, nx, plane, seven));
  fpar_vf32_store(o + end - W,
                  ST_CELLS(ST_AT_VEC, c, end - W, nx, plane, seven));
  if (first == 0)
    o[0] = c[0];
  if (end == nx)
    o[nx - 1] = c[nx - 1];
}

/* Cells x .. end - 1 of row (y, z) of the sweep s, the 7-point one if
 * `seven` (a constant), else the 5-point one (z = 0). */
static inline __attribute__((always_inline)) void
st_row(const st_args *s, size_t x, size_t end, size_t y, size_t z, int seven) {
  size_t nx = s->nx, row = (z * s->ny + y) * nx;
  /* (y - 1 and z - 1 wrap to huge values at 0.) */
  int inner = y - 1 < s->ny - 2 && (!seven || z - 1 < s->nz - 2);

  st_span(s->in + row, s->out + row, x, end, nx, nx * s->ny, inner, seven);
}

/* The lane kernel `name` of a stencil, which runs its sub-group's cells
 * as a span, and its row runner `name##_rows` (an fpar_row_fn), which
 * runs the rest of the row as one span. */
#define ST_KERNEL(name, seven)                                                 \
  static inline void name##_body(fpar_lanes *lk, void *p) {                    \
    st_row(p, lk->global_first, lk->global_first + lk->active,                 \
           fpar_global_id(lk->it, 1), fpar_global_id(lk->it, 2), seven);       \
  }                                                                            \
  FPAR_DEFINE_LANE_KERNEL(name, name##_body)                                   \
  static void name##_rows(fpar_item *it, void *p, size_t x_end) {              \
    size_t x = fpar_global_id(it, 0);                                          \
    st_row(p, x, x + (x_end - fpar_local_id(it, 0)), fpar_global_id(it, 1),    \
           fpar_global_id(it, 2), seven);                                      \
  }

ST_KERNEL(jacobi_kernel, 0)
ST_KERNEL(stencil7_kernel, 1)

int lk_jacobi(fpar_queue *q, const float *in, float *out, size_t nx,
              size_t ny) {
  st_args s = {in, out, nx, ny, 1};

  return lk_run(q, "jacobi_lanes", jacobi_kernel, jacobi_kernel_rows, &s,
                fpar_range2(nx, ny), FPAR_LOCAL_AUTO, NULL);
}

int lk_stencil7(fpar_queue *q, const float *in, float *out, size_t nx,
                size_t ny, size_t nz) {
  st_args s = {in, out, nx, ny, nz};

  return lk_run(q, "stencil7_lanes", stencil7_kernel, stencil7_kernel_rows, &s,
                fpar_range3(nx, ny, nz), FPAR_LOCAL_AUTO, NULL);
}

/* ---- Barrier cost ------------------------------------------------------ */

typedef struct bl_args {
  int barriers;
  uint32_t *out;
} bl_args;

static inline void bl_body(fpar_lanes *lk, void *p) {
  const bl_args *a = p;
  size_t local = fpar_local_range(lk->it, 0), x0 = lk->it->local_id[0];
  uint32_t *lmem = fpar_group_local_memory_for_overwrite(lk->it, local * 4, 64);
  fpar_vu32 v = (fpar_vu32)lk->local_id0;

  for (int b = 0; b < a->barriers; b++) {
    v = v * 1664525u + 1013904223u + (uint32_t)b;
    fpar_vu32_store_mask(lmem + x0, v, lk->mask);
    fpar_barrier(lk->it);
  }
  if (x0 == 0) {
    uint32_t s = 0;
    for (size_t i = 0; i < local; i++)
      s += lmem[i];
    a->out[fpar_group_id(lk->it, 0)] = s;
  }
}
FPAR_DEFINE_LANE_KERNEL(bl_kernel, bl_body)

int lk_barrier_loop(fpar_queue *q, size_t local, size_t groups, int barriers,
                    uint32_t *out) {
  bl_args a = {barriers, out};

  return lk_run(q, "barrier_lanes", bl_kernel, NULL, &a,
                fpar_range1(local * groups), fpar_range1(local), NULL);
}
