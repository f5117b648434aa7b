/* SPDX-License-Identifier: MIT */
/* test_subgroups_lanes.c - the sub-group queries and ballot of lane
 * kernels (<fiberpar/simd.h>) on odd and 3-D group shapes, against the
 * plain C numbering of sub-groups (W lanes along dimension 0 of a row, the
 * last one of a row partial), and the fault of a scalar sub-group
 * operation called in a lane kernel. */
#include <fiberpar/simd.h>
#include <stdio.h>

#include "testutil.h"

#define THREADS 2
#define W ((size_t)FPAR_SIMD_WIDTH)

typedef struct lane_record {
  size_t id, num, size, max_size;
  int32_t local_id;
  uint64_t ballot;
  unsigned visits;
} lane_record;

typedef struct lanes_args {
  lane_record *out; /* per global linear id */
} lanes_args;

static int predicate(size_t g) {
  return (g * 7 + 3) % 5 < 2;
}

static inline void query_body(fpar_lanes *lk, void *p) {
  lanes_args *a = p;
  fpar_item *it = lk->it;
  fpar_vi32 lid = fpar_sub_group_local_id_vi32(lk);
  size_t g0 = fpar_global_linear_id(it);
  fpar_vmask pred = fpar_vmask_first(0);
  uint64_t bits;

  for (int i = 0; i < FPAR_SIMD_WIDTH; i++)
    pred[i] = predicate(g0 + (size_t)i) ? -1 : 0;
  bits = fpar_sub_group_ballot_vmask(lk, pred);
  for (unsigned i = 0; i < lk->active; i++) {
    lane_record *r = &a->out[g0 + i];
    r->visits++;
    r->id = fpar_sub_group_id(it);
    r->num = fpar_num_sub_groups(it);
    r->size = fpar_sub_group_size(it);
    r->max_size = fpar_sub_group_max_size(it);
    r->local_id = lid[i];
    r->ballot = bits;
  }
}
FPAR_DEFINE_LANE_KERNEL(query_kernel, query_body)

static const struct {
  unsigned dims;
  size_t local[3], groups[3];
} shapes[] = {
    {1, {3 * W + 5, 1, 1}, {3, 1, 1}},
    {3, {2 * W + 1, 3, 2}, {2, 1, 2}},
    {2, {W, 5, 1}, {2, 2, 1}},
    {3, {7, 2, 3}, {1, 2, 2}},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

START_TEST(test_queries_and_ballot) {
  size_t gr[3], n, k, gid[3];
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;
  lanes_args a;
  unsigned dd;

  for (k = 0; k < 3; k++)
    gr[k] = shapes[_i].local[k] * shapes[_i].groups[k];
  n = fpar_test_volume(gr);
  a.out = calloc(n, sizeof *a.out);
  ck_assert_ptr_nonnull(a.out);
  fpar_test_env_init(&e, THREADS);
  fpar_launch_desc_init(&d);
  d.kernel = query_kernel;
  d.lanes = FPAR_SIMD_WIDTH;
  d.subgroup_size = FPAR_SIMD_WIDTH;
  d.args = &a;
  d.global = (fpar_range){shapes[_i].dims, {gr[0], gr[1], gr[2]}};
  d.local = (fpar_range){
      shapes[_i].dims,
      {shapes[_i].local[0], shapes[_i].local[1], shapes[_i].local[2]}};
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_ok(ev);
  for (k = 0; k < n; k++) {
    const size_t *lr = shapes[_i].local;
    const lane_record *r = &a.out[k];
    size_t l[3], per_row = (lr[0] + W - 1) / W, first, size, j;
    uint64_t bits = 0;
    fpar_test_id_of(k, gr, gid);
    for (dd = 0; dd < 3; dd++)
      l[dd] = gid[dd] % lr[dd];
    first = l[0] / W * W;
    size = lr[0] - first < W ? lr[0] - first : W;
    for (j = 0; j < size; j++) {
      size_t gl[3] = {gid[0] - l[0] + first + j, gid[1], gid[2]};
      bits |= (uint64_t)predicate(fpar_test_linear(gl, gr)) << j;
    }
    ck_assert_msg(r->visits == 1, "item %zu: %u visits", k, r->visits);
    ck_assert_msg(r->id == (l[1] + lr[1] * l[2]) * per_row + l[0] / W &&
                      r->num == per_row * lr[1] * lr[2] && r->size == size &&
                      r->max_size == W && r->local_id == (int32_t)(l[0] % W),
                  "item %zu: id %zu num %zu size %zu max %zu lid %d", k, r->id,
                  r->num, r->size, r->max_size, (int)r->local_id);
    ck_assert_msg(r->ballot == bits, "item %zu: ballot %#llx, expected %#llx",
                  k, (unsigned long long)r->ballot, (unsigned long long)bits);
  }
  fpar_test_env_fini(&e);
  free(a.out);
}
END_TEST

static inline void scalar_op_body(fpar_lanes *lk, void *p) {
  (void)p;
  fpar_sub_group_reduce_add_f32(lk->it, 1.0f);
}
FPAR_DEFINE_LANE_KERNEL(scalar_op_kernel, scalar_op_body)

/* Only with W > 1 is a lane kernel told apart from an ordinary one. */
START_TEST(test_scalar_operation_in_lane_kernel) {
  fpar_launch_desc d;
  fpar_test_env e;
  fpar_event *ev;

  if (FPAR_SIMD_WIDTH == 1)
    return;
  fpar_test_env_init(&e, THREADS);
  fpar_launch_desc_init(&d);
  d.kernel = scalar_op_kernel;
  d.lanes = FPAR_SIMD_WIDTH;
  d.global = fpar_range1(4 * W);
  d.local = fpar_range1(2 * W);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_fault(ev, FPAR_EINVAL, "fpar_sub_group_reduce_add_f32",
                       "lane forms");
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *lanes_suite(void) {
  Suite *s = suite_create("subgroups_lanes");
  TCase *tc = fpar_test_case("lanes");

  tcase_add_loop_test(tc, test_queries_and_ballot, 0, NSHAPES);
  tcase_add_test(tc, test_scalar_operation_in_lane_kernel);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(lanes_suite());
}
