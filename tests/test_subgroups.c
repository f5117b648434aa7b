/* SPDX-License-Identifier: MIT */
/* test_subgroups.c - sub-groups of fiber kernels (<fiberpar/subgroup.h>):
 * the queries on odd and 3-D group shapes (partial last sub-groups), every
 * operation on every type against a plain C model of the sub-groups, mixed
 * with barriers, on stacks of their own and on one copied stack, and each
 * misuse with its exact code. */
#include <math.h>
#include <stdio.h>

#include "testutil.h"

#define THREADS 2

/* The shapes: local ranges with sub-group sizes that leave partial last
 * sub-groups, 3-D ones, sub-groups of 1, of the maximum and of sizes that
 * are not powers of two. */
static const struct {
  size_t local[3], groups[3];
  unsigned dims, sg;
} shapes[] = {
    {{100, 1, 1}, {3, 1, 1}, 1, 16}, {{7, 3, 2}, {2, 2, 1}, 3, 4},
    {{64, 1, 1}, {2, 1, 1}, 1, 64},  {{5, 4, 1}, {3, 2, 1}, 2, 1},
    {{33, 2, 1}, {2, 1, 2}, 3, 8},   {{130, 1, 1}, {2, 1, 1}, 1, 64},
    {{50, 2, 1}, {2, 1, 1}, 2, 6},   {{32, 2, 2}, {2, 1, 2}, 3, 8},
    {{16, 1, 1}, {4, 1, 1}, 1, 4},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static fpar_range range_of(const size_t r[3], unsigned dims) {
  fpar_range x = {dims, {r[0], r[1], r[2]}};
  return x;
}

/* ---- The plain C model -------------------------------------------------- */

typedef struct sg_model {
  size_t id, local_id, size, num;
} sg_model;

/* Sub-group of local id l in a group of local range r with size s. */
static sg_model model_of(const size_t l[3], const size_t r[3], size_t s) {
  sg_model m;
  size_t per_row = (r[0] + s - 1) / s, first = l[0] / s * s;

  m.local_id = l[0] % s;
  m.size = r[0] - first < s ? r[0] - first : s;
  m.num = per_row * r[1] * r[2];
  m.id = (l[1] + r[1] * l[2]) * per_row + l[0] / s;
  return m;
}

/* ---- Queries and operations --------------------------------------------- */

typedef struct item_record {
  size_t id, local_id, size, max_size, num;
  float shuffle, xor1, xor2, up, down, bcast, radd, rmin, rmax;
  double dadd, dmin, dshuf;
  int32_t iadd, imin, imax, ishuf;
  uint32_t uadd, umin, umax, uxor;
  uint64_t ballot;
  unsigned visits;
} item_record;

typedef struct ops_args {
  const float *in; /* per global linear id */
  item_record *out;
  int barriers; /* interleave barriers with the operations */
} ops_args;

static float input_value(size_t g) {
  return (float)((g * 37 + 11) % 101) - 50.0f;
}

static size_t shuffle_src(size_t j, size_t n) {
  return (j * 5 + 3) % n;
}

static void ops_kernel(fpar_item *it, void *p) {
  ops_args *a = p;
  size_t g = fpar_global_linear_id(it);
  item_record *r = &a->out[g];
  float v = a->in[g];
  size_t j = fpar_sub_group_local_id(it), n = fpar_sub_group_size(it);
  size_t sgid = fpar_sub_group_id(it);

  r->visits++;
  r->id = sgid;
  r->local_id = j;
  r->size = n;
  r->max_size = fpar_sub_group_max_size(it);
  r->num = fpar_num_sub_groups(it);
  r->shuffle = fpar_sub_group_shuffle_f32(it, v, shuffle_src(j, n));
  if (a->barriers)
    fpar_barrier(it);
  r->xor1 = fpar_sub_group_shuffle_xor_f32(it, v, 1);
  r->xor2 = fpar_sub_group_shuffle_xor_f32(it, v, 2);
  r->up = fpar_sub_group_shuffle_up_f32(it, v, 1);
  r->down = fpar_sub_group_shuffle_down_f32(it, v, 3);
  r->bcast = fpar_sub_group_broadcast_f32(it, v, sgid % n);
  if (a->barriers)
    fpar_barrier(it);
  r->radd = fpar_sub_group_reduce_add_f32(it, v);
  r->rmin = fpar_sub_group_reduce_min_f32(it, v);
  r->rmax = fpar_sub_group_reduce_max_f32(it, v);
  r->dadd = fpar_sub_group_reduce_add_f64(it, (double)v * 0.5);
  r->dmin = fpar_sub_group_reduce_min_f64(it, (double)v);
  r->dshuf = fpar_sub_group_shuffle_f64(it, (double)v, n - 1 - j);
  r->iadd = fpar_sub_group_reduce_add_i32(it, (int32_t)v);
  r->imin = fpar_sub_group_reduce_min_i32(it, (int32_t)v);
  r->imax = fpar_sub_group_reduce_max_i32(it, (int32_t)v);
  r->ishuf = fpar_sub_group_shuffle_i32(it, (int32_t)v, 0);
  r->uadd = fpar_sub_group_reduce_add_u32(it, (uint32_t)(v + 50));
  r->umin = fpar_sub_group_reduce_min_u32(it, (uint32_t)(v + 50));
  r->umax = fpar_sub_group_reduce_max_u32(it, (uint32_t)(v + 50));
  r->uxor = fpar_sub_group_shuffle_xor_u32(it, (uint32_t)j, 4);
  r->ballot = fpar_sub_group_ballot(it, v > 0);
  if (a->barriers)
    fpar_barrier(it);
}

/* Check item (local l of group gid) against the model. */
static void check_item(const item_record *r, const float *in, const size_t l[3],
                       const size_t lr[3], const size_t origin[3],
                       const size_t gr[3], size_t s) {
  sg_model m = model_of(l, lr, s);
  size_t first = l[0] - m.local_id, j = m.local_id, n = m.size, k;
  float vals[64], sum = 0, mn = INFINITY, mx = -INFINITY;
  double dsum = 0, dmn = INFINITY;
  int32_t imn = INT32_MAX, imx = INT32_MIN;
  uint32_t isum = 0, usum = 0, umn = UINT32_MAX, umx = 0;
  uint64_t ballot = 0;
  char where[96];

  snprintf(where, sizeof where, "item (%zu %zu %zu) of group at (%zu %zu %zu)",
           l[0], l[1], l[2], origin[0], origin[1], origin[2]);
  for (k = 0; k < n; k++) {
    size_t gl[3] = {origin[0] + first + k, origin[1] + l[1], origin[2] + l[2]};
    float x = in[fpar_test_linear(gl, gr)];
    vals[k] = x;
    sum += x;
    mn = fminf(mn, x);
    mx = fmaxf(mx, x);
    dsum += (double)x * 0.5;
    dmn = fmin(dmn, (double)x);
    isum += (uint32_t)(int32_t)x;
    imn = (int32_t)x < imn ? (int32_t)x : imn;
    imx = (int32_t)x > imx ? (int32_t)x : imx;
    usum += (uint32_t)(x + 50);
    umn = (uint32_t)(x + 50) < umn ? (uint32_t)(x + 50) : umn;
    umx = (uint32_t)(x + 50) > umx ? (uint32_t)(x + 50) : umx;
    ballot |= (uint64_t)(x > 0) << k;
  }
  ck_assert_msg(r->visits == 1, "%s: %u visits", where, r->visits);
  ck_assert_msg(r->id == m.id && r->local_id == j && r->size == n &&
                    r->max_size == s && r->num == m.num,
                "%s: id %zu local %zu size %zu max %zu num %zu, expected "
                "%zu %zu %zu %zu %zu",
                where, r->id, r->local_id, r->size, r->max_size, r->num, m.id,
                j, n, s, m.num);
  ck_assert_msg(r->shuffle == vals[shuffle_src(j, n)], "%s: shuffle", where);
  ck_assert_msg(r->xor1 == ((j ^ 1) < n ? vals[j ^ 1] : vals[j]), "%s: xor 1",
                where);
  ck_assert_msg(r->xor2 == ((j ^ 2) < n ? vals[j ^ 2] : vals[j]), "%s: xor 2",
                where);
  ck_assert_msg(r->up == (j >= 1 ? vals[j - 1] : vals[j]), "%s: up", where);
  ck_assert_msg(r->down == (j + 3 < n ? vals[j + 3] : vals[j]), "%s: down",
                where);
  ck_assert_msg(r->bcast == vals[m.id % n], "%s: broadcast", where);
  ck_assert_msg(r->radd == sum && r->rmin == mn && r->rmax == mx,
                "%s: float reduce %g %g %g, expected %g %g %g", where, r->radd,
                r->rmin, r->rmax, sum, mn, mx);
  ck_assert_msg(r->dadd == dsum && r->dmin == dmn &&
                    r->dshuf == vals[n - 1 - j],
                "%s: double", where);
  ck_assert_msg(r->iadd == (int32_t)isum && r->imin == imn && r->imax == imx &&
                    r->ishuf == (int32_t)vals[0],
                "%s: int", where);
  ck_assert_msg(r->uadd == usum && r->umin == umn && r->umax == umx &&
                    r->uxor == ((j ^ 4) < n ? (j ^ 4) : j),
                "%s: uint", where);
  ck_assert_msg(r->ballot == ballot, "%s: ballot %#llx, expected %#llx", where,
                (unsigned long long)r->ballot, (unsigned long long)ballot);
}

static void run_ops(fpar_test_env *e, size_t i, int barriers) {
  size_t gr[3], n, k, gid[3], l[3];
  fpar_launch_desc d;
  fpar_event *ev;
  float *in;
  item_record *out;
  ops_args a;

  for (k = 0; k < 3; k++)
    gr[k] = shapes[i].local[k] * shapes[i].groups[k];
  n = fpar_test_volume(gr);
  in = malloc(n * sizeof *in);
  out = calloc(n, sizeof *out);
  ck_assert(in != NULL && out != NULL);
  for (k = 0; k < n; k++)
    in[k] = input_value(k);
  a.in = in;
  a.out = out;
  a.barriers = barriers;
  fpar_launch_desc_init(&d);
  d.kernel = ops_kernel;
  d.args = &a;
  d.global = range_of(gr, shapes[i].dims);
  d.local = range_of(shapes[i].local, shapes[i].dims);
  d.subgroup_size = shapes[i].sg;
  ck_assert_fpar_ok(fpar_launch(e->q, &d, &ev));
  fpar_test_wait_ok(ev);
  for (k = 0; k < n; k++) {
    size_t origin[3];
    unsigned dd;
    fpar_test_id_of(k, gr, gid);
    for (dd = 0; dd < 3; dd++) {
      l[dd] = gid[dd] % shapes[i].local[dd];
      origin[dd] = gid[dd] - l[dd];
    }
    check_item(&out[k], in, l, shapes[i].local, origin, gr, shapes[i].sg);
  }
  free(in);
  free(out);
}

START_TEST(test_operations) {
  fpar_test_env e;

  fpar_test_env_init(&e, THREADS);
  run_ops(&e, (size_t)_i, 0);
  run_ops(&e, (size_t)_i, 1);
  fpar_test_env_fini(&e);
}
END_TEST

/* The same on one copied stack: a worker that may hold only 3 stacks. */
START_TEST(test_operations_copied_stacks) {
  fpar_runtime_opts o;
  fpar_test_env e;

  fpar_runtime_opts_init(&o);
  o.num_threads = THREADS;
  o.max_stacks = 3;
  ck_assert_fpar_ok(fpar_runtime_create(&e.rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(e.rt, 0, &e.q));
  run_ops(&e, (size_t)_i, 1);
  fpar_test_env_fini(&e);
}
END_TEST

/* The default sub-group size is the runtime's, capped at the maximum. */
static void default_size_kernel(fpar_item *it, void *p) {
  size_t *out = p;

  if (fpar_global_linear_id(it) == 0)
    *out = fpar_sub_group_max_size(it);
}

START_TEST(test_default_size) {
  fpar_test_env e;
  size_t got = 0;
  fpar_event *ev;

  fpar_test_env_init_subgroup(&e, THREADS, 4);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(64), fpar_range1(32),
                                      default_size_kernel, &got, &ev));
  fpar_test_wait_ok(ev);
  ck_assert_uint_eq(got, 4);
  fpar_test_env_fini(&e);
  fpar_test_env_init_subgroup(&e, THREADS, 200);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(64), fpar_range1(32),
                                      default_size_kernel, &got, &ev));
  fpar_test_wait_ok(ev);
  ck_assert_uint_eq(got, FPAR_MAX_SUB_GROUP_SIZE);
  fpar_test_env_fini(&e);
}
END_TEST

/* A warp-style reduction: sub-group sums, then one per sub-group through
 * local memory, against a serial sum. */
static void warp_reduce_kernel(fpar_item *it, void *p) {
  int32_t **a = p;
  size_t nsg = fpar_num_sub_groups(it);
  int32_t *sums = fpar_group_local_memory(it, nsg * sizeof *sums, 0);
  int32_t s = fpar_sub_group_reduce_add_i32(it, a[0][fpar_global_id(it, 0)]);

  if (fpar_sub_group_local_id(it) == 0)
    sums[fpar_sub_group_id(it)] = s;
  fpar_barrier(it);
  if (fpar_local_linear_id(it) == 0) {
    int32_t t = 0;
    for (size_t k = 0; k < nsg; k++)
      t += sums[k];
    a[1][fpar_group_id(it, 0)] = t;
  }
}

/* Launch kernel with args over `global` work-items in 1-D groups of
 * `local`, sub-groups of `sg`, on q, and expect it to succeed. */
static void launch_ok(fpar_queue *q, fpar_kernel_fn kernel, void *args,
                      size_t global, size_t local, unsigned sg) {
  fpar_launch_desc d;
  fpar_event *ev;

  fpar_launch_desc_init(&d);
  d.kernel = kernel;
  d.args = args;
  d.global = fpar_range1(global);
  d.local = fpar_range1(local);
  d.subgroup_size = sg;
  ck_assert_fpar_ok(fpar_launch(q, &d, &ev));
  fpar_test_wait_ok(ev);
}

START_TEST(test_warp_reduction) {
  const size_t L = 100, G = 37;
  int32_t *in = malloc(L * G * sizeof *in), *out = calloc(G, sizeof *out);
  int32_t *a[2] = {in, out};
  fpar_test_env e;
  size_t k;

  for (k = 0; k < L * G; k++)
    in[k] = (int32_t)(k % 17) - 8;
  fpar_test_env_init(&e, THREADS);
  launch_ok(e.q, warp_reduce_kernel, a, L * G, L, 16);
  for (k = 0; k < G; k++) {
    int32_t t = 0;
    for (size_t i = k * L; i < (k + 1) * L; i++)
      t += in[i];
    ck_assert_int_eq(out[k], t);
  }
  fpar_test_env_fini(&e);
  free(in);
  free(out);
}
END_TEST

/* Each work-item's global id shuffled across its sub-group (xor 1) and
 * summed over it, in launches whose last group is shorter. */
static void ragged_kernel(fpar_item *it, void *p) {
  uint32_t(*out)[2] = p, id = (uint32_t)fpar_global_id(it, 0);

  out[id][0] = fpar_sub_group_shuffle_xor_u32(it, id, 1);
  out[id][1] = fpar_sub_group_reduce_add_u32(it, id);
}

START_TEST(test_ragged_last_group) {
  /* The last group's 232 work-items end in a sub-group of 8; its 64 make
   * whole ones; so do all groups of 1024. */
  static const size_t globals[] = {1000, 1088, 1024};
  const size_t L = 256, S = 16;
  fpar_test_env e;

  fpar_test_env_init(&e, THREADS);
  for (size_t t = 0; t < sizeof globals / sizeof globals[0]; t++) {
    size_t G = globals[t];
    uint32_t(*out)[2] = calloc(G, sizeof *out);

    ck_assert(out != NULL);
    launch_ok(e.q, ragged_kernel, out, G, L, (unsigned)S);
    for (size_t i = 0; i < G; i++) {
      size_t l[3] = {i % L, 0, 0};
      size_t r[3] = {i / L * L + L <= G ? L : G % L, 1, 1};
      sg_model m = model_of(l, r, S);
      size_t j = m.local_id, first = i - j, n = m.size;
      uint32_t sum = 0;

      for (size_t k = first; k < first + n; k++)
        sum += (uint32_t)k;
      ck_assert_msg(out[i][0] == ((j ^ 1) < n ? first + (j ^ 1) : i),
                    "global %zu, work-item %zu: shuffle_xor gave %u", G, i,
                    out[i][0]);
      ck_assert_msg(out[i][1] == sum,
                    "global %zu, work-item %zu: reduce_add gave %u, expected "
                    "%u",
                    G, i, out[i][1], sum);
    }
    free(out);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Misuse ---------------------------------------------------------------
 */

/* Launch kernel in 1-D groups of `local` with sub-groups of `sg` and
 * expect the fault `code` with a message containing what and rule. */
static void expect_fault(fpar_kernel_fn kernel, size_t local, unsigned sg,
                         int code, const char *what, const char *rule) {
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, THREADS);
  fpar_launch_desc_init(&d);
  d.kernel = kernel;
  d.name = "misuse";
  d.global = fpar_range1(local * 2);
  d.local = fpar_range1(local);
  d.subgroup_size = sg;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_fault(ev, code, what, rule);
  /* The runtime stays usable. */
  d.kernel = default_size_kernel;
  {
    size_t got = 0;
    d.args = &got;
    ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
    fpar_test_wait_ok(ev);
    ck_assert_uint_eq(got, sg);
  }
  fpar_test_env_fini(&e);
}

/* Work-item 5 goes to a barrier while 4..7's others shuffle. */
static void shuffle_vs_barrier_kernel(fpar_item *it, void *p) {
  (void)p;
  fpar_barrier(it);
  if (fpar_local_id(it, 0) == 5)
    fpar_barrier(it);
  else
    fpar_sub_group_shuffle_f32(it, 1.0f, 0);
}

/* The same on one copied stack, where resuming a sub-group's first member
 * goes through the copier. */
START_TEST(test_shuffle_vs_barrier_copied_stacks) {
  fpar_runtime_opts o;
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;

  fpar_runtime_opts_init(&o);
  o.num_threads = THREADS;
  o.max_stacks = 3;
  ck_assert_fpar_ok(fpar_runtime_create(&e.rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(e.rt, 0, &e.q));
  fpar_launch_desc_init(&d);
  d.kernel = shuffle_vs_barrier_kernel;
  d.global = fpar_range1(64);
  d.local = fpar_range1(16);
  d.subgroup_size = 4;
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_fault(ev, FPAR_EDIVERGENCE,
                       "work-item 5 waits at the barrier at",
                       "work-item 4 of its sub-group waits at "
                       "fpar_sub_group_shuffle_f32");
  fpar_test_env_fini(&e);
}
END_TEST

/* Work-item 4 (first of its sub-group) waits at a barrier, 5 shuffles. */
static void barrier_vs_shuffle_kernel(fpar_item *it, void *p) {
  (void)p;
  fpar_barrier(it);
  if (fpar_local_id(it, 0) == 5)
    fpar_sub_group_shuffle_f32(it, 1.0f, 0);
  fpar_barrier(it);
}

/* Work-item 7 returns while 4-6 reduce. */
static void reduce_vs_return_kernel(fpar_item *it, void *p) {
  (void)p;
  fpar_barrier(it);
  if (fpar_local_id(it, 0) != 7)
    fpar_sub_group_reduce_add_i32(it, 1);
}

/* Different operations in one sub-group. */
static void two_ops_kernel(fpar_item *it, void *p) {
  (void)p;
  if (fpar_local_id(it, 0) == 2)
    fpar_sub_group_reduce_max_f32(it, 1.0f);
  else
    fpar_sub_group_reduce_add_f32(it, 1.0f);
}

/* A uniform argument that differs. */
static void xor_mask_kernel(fpar_item *it, void *p) {
  (void)p;
  fpar_sub_group_shuffle_xor_i32(it, 1, fpar_local_id(it, 0) == 3 ? 2 : 1);
}

/* A lane outside a partial sub-group (items 8-9 of a group of 10). */
static void lane_out_of_range_kernel(fpar_item *it, void *p) {
  (void)p;
  fpar_sub_group_broadcast_u32(it, 1, 3);
}

START_TEST(test_lane_out_of_range) {
  expect_fault(lane_out_of_range_kernel, 10, 4, FPAR_EINVAL,
               "work-item 8 passed lane 3 to fpar_sub_group_broadcast_u32 but "
               "its sub-group has 2 work-items",
               NULL);
}
END_TEST

/* Work-item 0 returns at once; the others run as a loop. */
static void late_subgroup_kernel(fpar_item *it, void *p) {
  (void)p;
  if (fpar_sub_group_id(it) != 0)
    fpar_sub_group_ballot(it, 1);
}

START_TEST(test_subgroup_after_loop) {
  if (FPAR_TEST_TSAN) {
    /* Under racecheck (TSan) groups are fibers from their start, which
     * have no such limit: the launch completes. */
    fpar_test_env e;

    fpar_test_env_init(&e, THREADS);
    launch_ok(e.q, late_subgroup_kernel, NULL, 16, 8, 4);
    fpar_test_env_fini(&e);
    return;
  }
  expect_fault(late_subgroup_kernel, 8, 4, FPAR_ENOTSUP,
               "work-item 4 reached fpar_sub_group_ballot after work-item "
               "0 returned",
               "lazy fibers");
}
END_TEST

static void loop_divergence_kernel(fpar_item *it, void *p) {
  (void)p;
  if (fpar_local_id(it, 0) == 6)
    fpar_sub_group_ballot(it, 1);
}

START_TEST(test_loop_member_after_return) {
  /* Under racecheck (TSan) the group is fibers from its start, which see
   * the divergence from the operation's side. */
  expect_fault(loop_divergence_kernel, 8, 4, FPAR_EDIVERGENCE,
               FPAR_TEST_TSAN
                   ? "work-item 6 waits at fpar_sub_group_ballot but "
                     "work-items 4-5 of its sub-group returned"
                   : "work-item 6 reached fpar_sub_group_ballot after "
                     "work-items 4-5 of its sub-group returned",
               NULL);
}
END_TEST

START_TEST(test_outside_kernel) {
  fpar_item *it = NULL;

  ck_assert_int_eq(fpar_sub_group_reduce_add_i32(it, 5), 0);
  ck_assert_str_eq(fpar_err_name(FPAR_ENOTKERNEL), "FPAR_ENOTKERNEL");
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "no kernel"));
  ck_assert_ptr_nonnull(
      strstr(fpar_last_error(), "fpar_sub_group_reduce_add_i32"));
}
END_TEST

static void scoped_fn(fpar_group *g, void *p) {
  (void)g;
  (void)p;
  fpar_sub_group_ballot((fpar_item *)p, 1);
}

/* A scoped launch on a worker that never ran a group (its records are
 * in their first state) and on one whose last group ran sub-group
 * operations (one worker, so the same one): nothing the operations' fast
 * path learnt, or would take for learnt, may let the call through. */
START_TEST(test_in_scoped_group) {
  int32_t in[64], out[1] = {0};
  int32_t *a[2] = {in, out};
  fpar_test_env e;
  fpar_event *ev;
  size_t k;
  int after;

  for (k = 0; k < 64; k++)
    in[k] = (int32_t)k;
  for (after = 0; after < 2; after++) {
    fpar_test_env_init(&e, 1);
    if (after) {
      launch_ok(e.q, warp_reduce_kernel, a, 64, 64, 8);
      ck_assert_int_eq(out[0], 64 * 63 / 2);
    }
    ck_assert_fpar_ok(fpar_parallel(e.q, fpar_range1(2), fpar_range1(4),
                                    scoped_fn, NULL, &ev));
    fpar_test_wait_fault(ev, FPAR_ENOTKERNEL, "fpar_sub_group_ballot",
                         "scoped or hierarchical");
    fpar_test_env_fini(&e);
  }
}
END_TEST

FPAR_PHASE_KERNEL(phase_shuffle, it, p, char, st) {
  (void)p;
  FPAR_PHASE_BEGIN();
  fpar_sub_group_shuffle_f32(it, 1.0f, 0);
  FPAR_PHASE_END();
}

/* Phase kernels have none, run as loops or on fibers. */
START_TEST(test_in_phase_kernel) {
  static const fpar_phase_mode modes[] = {FPAR_PHASE_LOOPS, FPAR_PHASE_FIBERS};
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, THREADS);
  fpar_launch_desc_init(&d);
  d.def = &phase_shuffle;
  d.global = fpar_range1(32);
  d.local = fpar_range1(16);
  d.phase_mode = modes[_i];
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_fault(ev, FPAR_EINVAL,
                       "work-item 0 called fpar_sub_group_shuffle_f32 in a "
                       "phase kernel",
                       NULL);
  fpar_test_env_fini(&e);
}
END_TEST

/* The divergences above and the disagreeing argument, each in a group of
 * whole sub-groups and in one whose last sub-group is partial (which has
 * a steady state of its own). */
static const struct misuse_case {
  fpar_kernel_fn kernel;
  size_t local[2]; /* whole sub-groups, then a partial last one */
  unsigned sg;
  int code;
  const char *what, *rule;
} misuse_cases[] = {
    {shuffle_vs_barrier_kernel,
     {16, 10},
     4,
     FPAR_EDIVERGENCE,
     "work-item 5 waits at the barrier at",
     "work-item 4 of its sub-group waits at fpar_sub_group_shuffle_f32"},
    {barrier_vs_shuffle_kernel,
     {16, 10},
     4,
     FPAR_EDIVERGENCE,
     "work-item 5 waits at fpar_sub_group_shuffle_f32 while work-item 4 of "
     "its sub-group waits at the barrier at",
     "test_subgroups.c:"},
    {reduce_vs_return_kernel,
     {16, 10},
     4,
     FPAR_EDIVERGENCE,
     "work-item 7 returned from the kernel while work-items 4-6 of its "
     "sub-group wait at fpar_sub_group_reduce_add_i32",
     NULL},
    {two_ops_kernel,
     {8, 6},
     8,
     FPAR_EDIVERGENCE,
     "work-item 2 waits at fpar_sub_group_reduce_max_f32 while work-items "
     "0-1 of its sub-group wait at fpar_sub_group_reduce_add_f32",
     NULL},
    {xor_mask_kernel,
     {8, 6},
     8,
     FPAR_EINVAL,
     "work-item 3 passed mask 2 to fpar_sub_group_shuffle_xor_i32 but "
     "work-item 0 passed 1",
     NULL},
};
/* Loop tests over every case in both shapes. */
#define NMISUSE (int)(2 * sizeof misuse_cases / sizeof misuse_cases[0])

/* Case i / 2 in shape i % 2, its kernel run through `kernel`. */
static void expect_misuse(int i, fpar_kernel_fn kernel) {
  const struct misuse_case *c = &misuse_cases[i / 2];

  expect_fault(kernel, c->local[i % 2], c->sg, c->code, c->what, c->rule);
}

/* At the group's first sub-group operation, which takes the slow path. */
START_TEST(test_misuse) {
  expect_misuse(_i, misuse_cases[_i / 2].kernel);
}
END_TEST

/* Once more after an operation every work-item makes, which lets the
 * group's later operations take a steady path: that path must see each
 * of them too. */
static fpar_kernel_fn warm_inner;

static void warm_kernel(fpar_item *it, void *p) {
  fpar_sub_group_broadcast_u32(it, 1, 0);
  warm_inner(it, p);
}

START_TEST(test_misuse_on_steady_path) {
  warm_inner = misuse_cases[_i / 2].kernel;
  expect_misuse(_i, warm_kernel);
}
END_TEST

START_TEST(test_bad_subgroup_size) {
  fpar_launch_desc d;
  fpar_test_env e;

  fpar_test_env_init(&e, THREADS);
  fpar_launch_desc_init(&d);
  d.kernel = default_size_kernel;
  d.global = fpar_range1(128);
  d.local = fpar_range1(128);
  d.subgroup_size = FPAR_MAX_SUB_GROUP_SIZE + 1;
  ck_assert_fpar_err(fpar_launch(e.q, &d, NULL), FPAR_EINVAL);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "subgroup_size 65"));
  d.subgroup_size = 4;
  d.lanes = 8;
  ck_assert_fpar_err(fpar_launch(e.q, &d, NULL), FPAR_EINVAL);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "lane kernel"));
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *subgroups_suite(void) {
  Suite *s = suite_create("subgroups");
  TCase *tc;

  tc = fpar_test_case("operations");
  tcase_add_loop_test(tc, test_operations, 0, NSHAPES);
  tcase_add_loop_test(tc, test_operations_copied_stacks, 0, NSHAPES);
  tcase_add_test(tc, test_default_size);
  tcase_add_test(tc, test_warp_reduction);
  tcase_add_test(tc, test_ragged_last_group);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("misuse");
  tcase_add_loop_test(tc, test_misuse, 0, NMISUSE);
  tcase_add_test(tc, test_shuffle_vs_barrier_copied_stacks);
  tcase_add_test(tc, test_lane_out_of_range);
  tcase_add_test(tc, test_subgroup_after_loop);
  tcase_add_test(tc, test_loop_member_after_return);
  tcase_add_test(tc, test_outside_kernel);
  tcase_add_test(tc, test_in_scoped_group);
  tcase_add_loop_test(tc, test_in_phase_kernel, 0, 2);
  tcase_add_loop_test(tc, test_misuse_on_steady_path, 0, NMISUSE);
  tcase_add_test(tc, test_bad_subgroup_size);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(subgroups_suite());
}
