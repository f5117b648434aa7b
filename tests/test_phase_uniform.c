/* SPDX-License-Identifier: MIT */
/* test_phase_uniform.c - phase kernels with a group-uniform part of the
 * state (FPAR_PHASE_KERNEL_UNIFORM, FPAR_PHASE_KERNEL_LOCAL_UNIFORM, and
 * their _STATELESS forms).
 *
 * A windowed Kogge-Stone scan, the shape of SHOC's bottom scan: the window,
 * its seed and the scan's step are the same in every work-item (the
 * uniform part), the values differ (the state).  It runs as loops, as
 * debug loops and on fibers, with odd group sizes (a row's last calls run
 * out of line) and in 2-D groups, and each result is checked against a
 * serial scan.  A tree reduction in SHOC's shape, whose only value across
 * its barriers is the tree's stride, runs in every mode and is checked
 * against serial sums.  A kernel that writes a different value into the uniform
 * part in each work-item fails in debug mode with a message naming both
 * work-items and the barrier, and the runtime stays usable.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testutil_phase.h"

#define SCAN_MAX_GROUP 256

typedef struct scan_args {
  const uint32_t *in;
  uint32_t *out;
  size_t n; /* elements of each group's region */
} scan_args;

typedef struct scan_local {
  uint32_t sums[2 * SCAN_MAX_GROUP];
  uint32_t carry;
} scan_local;

typedef struct scan_uniform {
  size_t window; /* first element of the window in the region */
  uint32_t seed; /* the sum of the region before the window */
  size_t d;      /* the Kogge-Stone step */
} scan_uniform;

typedef struct scan_state {
  uint32_t v, t;
} scan_state;

/* Each group scans its region of a->n elements, a window of one element
 * per work-item at a time (exclusive). */
FPAR_PHASE_KERNEL_LOCAL_UNIFORM(phase_window_scan, it, p, scan_uniform, u,
                                scan_state, st, scan_local, lm) {
  const scan_args *a = p;
  const size_t lid = fpar_local_linear_id(it);
  const size_t size = fpar_local_range(it, 0) * fpar_local_range(it, 1);
  const size_t base = fpar_group_linear_id(it) * a->n;

  FPAR_PHASE_BEGIN();
  u->seed = 0;
  for (u->window = 0; u->window < a->n; u->window += size) {
    st->v = u->window + lid < a->n ? a->in[base + u->window + lid] : 0;
    lm->sums[lid] = 0;
    lm->sums[lid + size] = st->v;
    FPAR_PHASE_BARRIER();
    for (u->d = 1; u->d < size; u->d *= 2) {
      st->t = lm->sums[lid + size - u->d];
      FPAR_PHASE_BARRIER();
      lm->sums[lid + size] += st->t;
      FPAR_PHASE_BARRIER();
    }
    if (u->window + lid < a->n)
      a->out[base + u->window + lid] = u->seed + lm->sums[lid + size] - st->v;
    if (lid == size - 1)
      lm->carry = lm->sums[lid + size];
    FPAR_PHASE_BARRIER();
    u->seed += lm->carry;
    FPAR_PHASE_BARRIER();
  }
  FPAR_PHASE_END();
}

/* The same without a local struct: the sums live in a launch-time local
 * buffer, and the uniform part counts rounds of a doubling. */
typedef struct double_uniform {
  unsigned round;
} double_uniform;

FPAR_PHASE_KERNEL_UNIFORM(phase_doubling, it, p, double_uniform, u, uint64_t,
                          st) {
  uint64_t *out = p;
  uint64_t *buf = fpar_local_buffer(it, 0);
  const size_t lid = fpar_local_id(it, 0), size = fpar_local_range(it, 0);

  FPAR_PHASE_BEGIN();
  *st = fpar_global_id(it, 0);
  for (u->round = 0; u->round < 5; u->round++) {
    buf[lid] = *st;
    FPAR_PHASE_BARRIER();
    *st += buf[(lid + u->round + 1) % size];
    FPAR_PHASE_BARRIER();
  }
  out[fpar_global_id(it, 0)] = *st;
  FPAR_PHASE_END();
}

/* A "uniform" value that is not: each work-item writes its own id. */
FPAR_PHASE_KERNEL_UNIFORM_STATELESS(phase_not_uniform, it, p, double_uniform,
                                    u) {
  uint32_t *out = p;

  FPAR_PHASE_BEGIN();
  u->round = (unsigned)fpar_local_id(it, 0) / 4;
  FPAR_PHASE_BARRIER();
  out[fpar_global_id(it, 0)] = u->round;
  FPAR_PHASE_END();
}

/* SHOC's reduction: each group adds grid-strided pairs of elements into
 * local memory, then halves them with a tree of barriers; work-item 0
 * writes the group's sum.  Groups of a power of two up to TREE_MAX. */
#define TREE_MAX 256

typedef struct tree_args {
  const uint32_t *in;
  uint32_t *sums; /* one per group */
  unsigned n;
} tree_args;

typedef struct tree_local {
  uint32_t sdata[TREE_MAX];
} tree_local;

typedef struct tree_uniform {
  unsigned s;
} tree_uniform;

FPAR_PHASE_KERNEL_LOCAL_UNIFORM_STATELESS(phase_tree_sum, it, p, tree_uniform,
                                          u, tree_local, lm) {
  const tree_args *a = p;
  const unsigned tid = (unsigned)fpar_local_id(it, 0);
  const unsigned size = (unsigned)fpar_local_range(it, 0);

  FPAR_PHASE_BEGIN();
  {
    const unsigned grid = size * 2 * (unsigned)fpar_group_range(it, 0);
    unsigned i = (unsigned)fpar_group_id(it, 0) * size * 2 + tid;

    while (i < a->n) {
      lm->sdata[tid] += a->in[i] + a->in[i + size];
      i += grid;
    }
  }
  FPAR_PHASE_BARRIER();
  for (u->s = size / 2; u->s > 0; u->s >>= 1) {
    if (tid < u->s)
      lm->sdata[tid] += lm->sdata[tid + u->s];
    FPAR_PHASE_BARRIER();
  }
  if (tid == 0)
    a->sums[fpar_group_id(it, 0)] = lm->sdata[0];
  FPAR_PHASE_END();
}

static const struct {
  size_t x, y, n;
} scan_shapes[] = {
    {16, 1, 160}, {256, 1, 1000}, {37, 1, 300}, {21, 1, 21},
    {8, 4, 97},   {5, 3, 64},     {1, 1, 9},
};

START_TEST(test_window_scan) {
  const size_t lx = scan_shapes[_i].x, ly = scan_shapes[_i].y;
  const size_t n = scan_shapes[_i].n, groups = 3;
  uint32_t in[3 * 1000], want[3 * 1000], out[3 * 1000];
  scan_args a = {in, out, n};
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  for (size_t g = 0; g < groups; g++) {
    uint32_t acc = 0;

    for (size_t i = 0; i < n; i++) {
      in[g * n + i] = (uint32_t)(g * 7919 + i * 104729) % 1000;
      want[g * n + i] = acc;
      acc += in[g * n + i];
    }
  }
  for (int m = 0; m < 3; m++) {
    fpar_event *ev;

    memset(out, 0xa5, sizeof out);
    ck_assert_fpar_ok(submit(&e, &phase_window_scan,
                             fpar_range2(groups * lx, ly), fpar_range2(lx, ly),
                             &a, modes[m], NULL, 0, &ev));
    fpar_test_wait_ok(ev);
    for (size_t i = 0; i < groups * n; i++)
      ck_assert_msg(out[i] == want[i],
                    "%s, group %zux%zu, n %zu: element %zu is %u, not %u",
                    mode_names[m], lx, ly, n, i, out[i], want[i]);
  }
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_doubling_local_buffer) {
  enum { n = 96, L = 24 };
  const fpar_local_buffer_desc buf = {L * sizeof(uint64_t), 0, 64};
  uint64_t out[n], want[n];
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  /* The reference: the same rounds, group by group, in plain C. */
  for (size_t g = 0; g < n / L; g++) {
    uint64_t v[L], next[L];

    for (size_t l = 0; l < L; l++)
      v[l] = g * L + l;
    for (unsigned r = 0; r < 5; r++) {
      for (size_t l = 0; l < L; l++)
        next[l] = v[l] + v[(l + r + 1) % L];
      memcpy(v, next, sizeof v);
    }
    memcpy(want + g * L, v, sizeof v);
  }
  for (int m = 0; m < 3; m++) {
    fpar_event *ev;

    memset(out, 0, sizeof out);
    ck_assert_fpar_ok(submit(&e, &phase_doubling, fpar_range1(n),
                             fpar_range1(L), out, modes[m], &buf, 1, &ev));
    fpar_test_wait_ok(ev);
    for (size_t i = 0; i < n; i++)
      ck_assert_msg(out[i] == want[i], "%s: work-item %zu", mode_names[m], i);
  }
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_tree_sum_stateless) {
  enum { groups = 6 };
  const unsigned size = 1u << (_i + 1), n = groups * size * 2 * 5;
  uint32_t in[groups * TREE_MAX * 2 * 5], sums[groups], want[groups];
  tree_args a = {in, sums, n};
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  memset(want, 0, sizeof want);
  for (unsigned i = 0; i < n; i++) {
    in[i] = (i * 2654435761u) >> 20;
    want[i / (size * 2) % groups] += in[i];
  }
  for (int m = 0; m < NUM_MODES; m++) {
    fpar_event *ev;

    memset(sums, 0xa5, sizeof sums);
    ck_assert_fpar_ok(submit(&e, &phase_tree_sum, fpar_range1(groups * size),
                             fpar_range1(size), &a, modes[m], NULL, 0, &ev));
    fpar_test_wait_ok(ev);
    for (unsigned g = 0; g < groups; g++)
      ck_assert_msg(sums[g] == want[g],
                    "%s, groups of %u: group %u sums %u, not %u", mode_names[m],
                    size, g, sums[g], want[g]);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* Debug mode checks the uniform part: work-items 0-3 leave 0, the first
 * call made (debug runs in reverse) is work-item 31's, which leaves 7. */
START_TEST(test_not_uniform_reported) {
  uint32_t out[64];
  fpar_event *ev;
  fpar_test_env e;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(submit(&e, &phase_not_uniform, fpar_range1(64),
                           fpar_range1(32), out, FPAR_PHASE_DEBUG, NULL, 0,
                           &ev));
  fpar_test_wait_fault(ev, FPAR_EDIVERGENCE,
                       "kernel 'phase_not_uniform', work-group (0,0,0): "
                       "work-item 27 leaves the group-uniform state "
                       "different from work-item 31 at the barrier at ",
                       "test_phase_uniform.c:");
  /* The runtime stays usable: a correct kernel runs after it. */
  {
    uint64_t dbl[24];
    const fpar_local_buffer_desc buf = {24 * sizeof(uint64_t), 0, 64};

    ck_assert_fpar_ok(submit(&e, &phase_doubling, fpar_range1(24),
                             fpar_range1(24), dbl, FPAR_PHASE_DEBUG, &buf, 1,
                             &ev));
    fpar_test_wait_ok(ev);
  }
  fpar_test_env_fini(&e);
}
END_TEST

int main(void) {
  Suite *s = suite_create("phase_uniform");
  TCase *tc = fpar_test_case("results");

  tcase_add_loop_test(tc, test_window_scan, 0,
                      sizeof scan_shapes / sizeof *scan_shapes);
  tcase_add_test(tc, test_doubling_local_buffer);
  /* Groups of 2 to TREE_MAX work-items. */
  tcase_add_loop_test(tc, test_tree_sum_stateless, 0, 8);
  suite_add_tcase(s, tc);
  tc = fpar_test_case("faults");
  tcase_add_test(tc, test_not_uniform_reported);
  suite_add_tcase(s, tc);
  return fpar_test_run(s);
}
