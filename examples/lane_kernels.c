/* SPDX-License-Identifier: MIT */
/* lane_kernels.c - the bundled kernels in lane form (see lane_kernels.h).
 * W = FPAR_SIMD_WIDTH lanes per call: build with -march=native. */
#include "lane_kernels.h"

#define W FPAR_SIMD_WIDTH

/* Submit a lane kernel, wait for it, return its status. */
static int lk_run(fpar_queue *q, const char *name, fpar_kernel_fn kernel,
                  void *args, fpar_range global, fpar_range local,
                  const fpar_local_buffer_desc *buffer) {
  fpar_launch_desc d;
  fpar_event *ev;
  int err;

  fpar_launch_desc_init(&d);
  d.name = name;
  d.kernel = kernel;
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
  return lk_run(q, "reduce_lanes", red_kernel, &a, fpar_range1(n / RED_ITEM),
                fpar_range1(RED_LOCAL), NULL);
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

  return lk_run(q, fast ? "nbody_lanes_fast" : "nbody_lanes", nb_kernel, &a,
                fpar_range1(n), fpar_range1(NB_LOCAL), &tile);
}

/* ---- SGEMM --------------------------------------------------------------- */

#define MM_T 64 /* tile edge: rows and columns of C, step of k */
#define MM_R 4  /* rows of C per work-item */

typedef struct mm_args {
  const float *a, *b;
  float *c;
  size_t n;
} mm_args;

/* A work-group of (64, 16) work-items computes a 64x64 tile of C; the
 * sub-group at (x0, y) computes rows 4y..4y+3, columns x0..x0+W-1, with
 * four vector accumulators.  Per k step it copies its part of the A and B
 * tiles into local memory, barrier, multiplies the tiles, barrier. */
static inline void mm_body(fpar_lanes *lk, void *p) {
  const mm_args *m = p;
  size_t n = m->n, x0 = lk->it->local_id[0], y = lk->it->local_id[1];
  size_t row0 = fpar_group_id(lk->it, 1) * MM_T + MM_R * y;
  size_t col0 = fpar_group_id(lk->it, 0) * MM_T;
  float(*as)[MM_T] = fpar_group_local_memory_for_overwrite(
      lk->it, sizeof(float[MM_T][MM_T]), 64);
  float(*bs)[MM_T] = fpar_group_local_memory_for_overwrite(
      lk->it, sizeof(float[MM_T][MM_T]), 64);
  fpar_vf32 acc[MM_R] = {{0}};

  for (size_t kt = 0; kt < n; kt += MM_T) {
    for (int r = 0; r < MM_R; r++) {
      fpar_vf32_store(&as[MM_R * y + r][x0],
                      fpar_vf32_load(m->a + (row0 + r) * n + kt + x0));
      fpar_vf32_store(
          &bs[MM_R * y + r][x0],
          fpar_vf32_load(m->b + (kt + MM_R * y + r) * n + col0 + x0));
    }
    fpar_barrier(lk->it);
    for (size_t k = 0; k < MM_T; k++) {
      fpar_vf32 bv = fpar_vf32_load(&bs[k][x0]);
      for (int r = 0; r < MM_R; r++)
        acc[r] += as[MM_R * y + r][k] * bv;
    }
    fpar_barrier(lk->it);
  }
  for (int r = 0; r < MM_R; r++)
    fpar_vf32_store(m->c + (row0 + r) * n + col0 + x0, acc[r]);
}
FPAR_DEFINE_LANE_KERNEL(mm_kernel, mm_body)

int lk_sgemm(fpar_queue *q, const float *a, const float *b, float *c,
             size_t n) {
  mm_args m = {a, b, c, n};

  return lk_run(q, "sgemm_lanes", mm_kernel, &m, fpar_range2(n, n / MM_R),
                fpar_range2(MM_T, MM_T / MM_R), NULL);
}

/* ---- Jacobi stencil ------------------------------------------------------ */

#define ST_X 64    /* columns per work group */
#define ST_ROWS 32 /* rows per work-item: each computes a column strip */
#define ST_PITCH (ST_X + 2)

typedef struct st_args {
  const float *in;
  float *out;
  size_t nx, ny;
} st_args;

/* Copy grid row gy, columns gx0 .. gx0+W-1 and, for the group's edge
 * sub-groups, the halo cell beside them, into tile row `row` (0 outside the
 * grid). */
static inline void st_load_row(float *row, const st_args *s, size_t x0,
                               size_t gx0, long gy) {
  const float *src = s->in + (size_t)gy * s->nx + gx0;
  int inside = gy >= 0 && (size_t)gy < s->ny;

  fpar_vf32_store(row + x0 + 1, inside ? fpar_vf32_load(src) : (fpar_vf32){0});
  if (x0 == 0)
    row[0] = inside && gx0 > 0 ? src[-1] : 0;
  if (x0 + W == ST_X)
    row[ST_X + 1] = inside && gx0 + W < s->nx ? src[W] : 0;
}

/* A work group of 64 work-items covers 64 columns x 32 rows: each
 * sub-group copies its columns of the 34 tile rows (the cells and a
 * one-cell halo) into local memory, barrier, then averages the four
 * neighbours of its 32 x W cells; grid boundary cells keep their value.
 * (Computing a strip per work-item keeps fibers few: one per 32 x W
 * cells.) */
static inline void st_body(fpar_lanes *lk, void *p) {
  const st_args *s = p;
  float(*tile)[ST_PITCH] = fpar_group_local_memory_for_overwrite(
      lk->it, sizeof(float[ST_ROWS + 2][ST_PITCH]), 64);
  size_t x0 = lk->it->local_id[0], gx0 = lk->global_first;
  long gy0 = (long)(fpar_global_id(lk->it, 1) * ST_ROWS);
  fpar_vmask side =
      (lk->global_id0 == 0) | (lk->global_id0 == (int32_t)s->nx - 1);

  for (long r = 0; r < ST_ROWS + 2; r++)
    st_load_row(tile[r], s, x0, gx0, gy0 + r - 1);
  fpar_barrier(lk->it);
  for (long r = 1; r <= ST_ROWS; r++) {
    size_t gy = (size_t)(gy0 + r - 1);
    fpar_vf32 c = fpar_vf32_load(&tile[r][x0 + 1]);
    fpar_vf32 avg = 0.25f * (fpar_vf32_load(&tile[r - 1][x0 + 1]) +
                             fpar_vf32_load(&tile[r + 1][x0 + 1]) +
                             fpar_vf32_load(&tile[r][x0]) +
                             fpar_vf32_load(&tile[r][x0 + 2]));
    fpar_vmask edge = gy == 0 || gy == s->ny - 1 ? fpar_vmask_first(W) : side;
    fpar_vf32_store(s->out + gy * s->nx + gx0, fpar_vf32_select(edge, c, avg));
  }
}
FPAR_DEFINE_LANE_KERNEL(st_kernel, st_body)

int lk_jacobi(fpar_queue *q, const float *in, float *out, size_t nx,
              size_t ny) {
  st_args s = {in, out, nx, ny};

  return lk_run(q, "jacobi_lanes", st_kernel, &s, fpar_range2(nx, ny / ST_ROWS),
                fpar_range2(ST_X, 1), NULL);
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

  return lk_run(q, "barrier_lanes", bl_kernel, &a, fpar_range1(local * groups),
                fpar_range1(local), NULL);
}
