/* SPDX-License-Identifier: MIT */
/* test_schedule.c - FIBERPAR_SCHEDULE: the order of work-items and groups.
 *
 * A tree reduction that forgets the barrier inside its loop gives another
 * sum when its work-items run in another order; correct kernels (barriers,
 * local memory, work-group collectives, sub-group reductions, phase
 * kernels, scoped item loops) give the same bits under every schedule,
 * equal to a plain C reference.  The orders themselves are checked where
 * they are exact: the work-items of one group (phase kernels move each
 * work-item, fiber kernels each sub-group), and the groups of a launch on
 * one worker that no host thread helps.  A bad value fails the runtime's
 * creation with FPAR_EENV naming the variable and the accepted values.
 */
#include <fiberpar/group.h>
#include <fiberpar/phase.h>
#include <fiberpar/scoped.h>
#include <fiberpar/simd.h>
#include <fiberpar/subgroup.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define REDUCE_T float
#include "reduce_kernels.h"

#define GROUPS 16
#define LOCAL REDUCE_LOCAL

static const char *const schedules[] = {"forward", "reverse", "shuffle:1",
                                        "shuffle:0x2545f4914f6cdd1d"};
#define SCHEDULES (sizeof schedules / sizeof *schedules)

/* A runtime of `threads` workers under FIBERPAR_SCHEDULE=schedule. */
static void env_under(fpar_test_env *e, const char *schedule,
                      unsigned threads) {
  ck_assert_int_eq(setenv("FIBERPAR_SCHEDULE", schedule, 1), 0);
  fpar_test_env_init(e, threads);
}

static float value_at(size_t i) {
  return (float)((i * 2654435761u) >> 20 & 0xff) * 0.125f;
}

/* ---- The reductions ------------------------------------------------------ */

/* The correct tree reduction is reduce_kernels.h's, as a fiber kernel
 * (reduce_fixed) and as a phase kernel (phase_fixed).  This is the README's
 * reduction with the barrier inside its loop forgotten: a work-item reads
 * a neighbour's slot before or after the neighbour updated it, as the
 * order of work-items decides. */
static void reduce_racy(fpar_item *it, void *p) {
  const reduce_args *a = p;
  size_t lid = fpar_local_id(it, 0);
  float *tmp = fpar_group_local_memory(it, LOCAL * sizeof *tmp, 0);

  tmp[lid] = a->in[fpar_global_id(it, 0)];
  fpar_barrier(it);
  for (size_t s = LOCAL / 2; s > 0; s >>= 1) {
    if (lid < s)
      tmp[lid] += tmp[lid + s];
    /* forgotten: fpar_barrier(it); */
  }
  fpar_barrier(it);
  if (lid == 0)
    a->out[fpar_group_id(it, 0)] = tmp[0];
}

/* The same sum with the collectives: work-group and sub-group. */
static void reduce_collective(fpar_item *it, void *p) {
  const reduce_args *a = p;
  float v = a->in[fpar_global_id(it, 0)];
  float g = fpar_group_reduce_add_f32(it, v);
  float s = fpar_sub_group_reduce_add_f32(it, v * 0.5f);

  if (fpar_local_id(it, 0) == 0)
    a->out[fpar_group_id(it, 0)] = g;
  if (fpar_sub_group_local_id(it) == 0)
    a->out[GROUPS + fpar_global_id(it, 0) / fpar_sub_group_size(it)] = s;
}

static float *make_input(void) {
  float *in = malloc(GROUPS * LOCAL * sizeof *in);

  ck_assert_ptr_nonnull(in);
  for (size_t i = 0; i < GROUPS * LOCAL; i++)
    in[i] = value_at(i);
  return in;
}

/* Run kernel k (or phase kernel def) under a schedule; out gets the sums. */
static void run_sums(const char *schedule, fpar_kernel_fn k,
                     const fpar_kernel *def, const float *in, float *out,
                     size_t nout) {
  fpar_test_env e;
  reduce_args a = {in, out};
  fpar_event *ev;

  memset(out, 0xff, nout * sizeof *out);
  env_under(&e, schedule, 2);
  if (def != NULL)
    ck_assert_fpar_ok(fpar_parallel_for_kernel(
        e.q, fpar_range1(GROUPS * LOCAL), fpar_range1(LOCAL), def, &a, &ev));
  else
    ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(GROUPS * LOCAL),
                                        fpar_range1(LOCAL), k, &a, &ev));
  fpar_test_wait_ok(ev);
  fpar_test_env_fini(&e);
}

START_TEST(test_racy_reduction_changes) {
  float *in = make_input(), fwd[GROUPS], rev[GROUPS], want[GROUPS];
  int differ = 0;

  /* Racecheck reports this kernel's race, as it should
   * (tests/test_racecheck.c checks that). */
  if (FPAR_TEST_TSAN) {
    free(in);
    return;
  }

  reduce_reference(in, want, GROUPS);
  run_sums("forward", reduce_racy, NULL, in, fwd, GROUPS);
  run_sums("reverse", reduce_racy, NULL, in, rev, GROUPS);
  for (size_t g = 0; g < GROUPS; g++)
    differ |= memcmp(&fwd[g], &rev[g], sizeof(float)) != 0;
  ck_assert_msg(differ, "the racy reduction gave the same sums forward and "
                        "in reverse");
  /* The correct kernel's sums, so that the difference is the race's. */
  differ = 0;
  for (size_t g = 0; g < GROUPS; g++)
    differ |= memcmp(&fwd[g], &want[g], sizeof(float)) != 0 ||
              memcmp(&rev[g], &want[g], sizeof(float)) != 0;
  ck_assert_msg(differ, "the racy reduction gave the right sums");
  free(in);
}
END_TEST

/* Every correct form: the same bits under every schedule, and the
 * reference's. */
START_TEST(test_correct_kernels_agree) {
  float *in = make_input(), want[GROUPS], got[GROUPS + GROUPS * LOCAL];
  float first[GROUPS + GROUPS * LOCAL];
  const size_t n = GROUPS + GROUPS * LOCAL;

  reduce_reference(in, want, GROUPS);
  for (size_t s = 0; s < SCHEDULES; s++) {
    run_sums(schedules[s], reduce_fixed, NULL, in, got, GROUPS);
    ck_assert_msg(memcmp(got, want, sizeof want) == 0,
                  "barrier reduction under %s differs from the reference",
                  schedules[s]);
    run_sums(schedules[s], NULL, &phase_fixed, in, got, GROUPS);
    ck_assert_msg(memcmp(got, want, sizeof want) == 0,
                  "phase reduction under %s differs from the reference",
                  schedules[s]);
    run_sums(schedules[s], reduce_collective, NULL, in, got, n);
    if (s == 0)
      memcpy(first, got, sizeof first);
    for (size_t g = 0; g < GROUPS; g++)
      ck_assert_msg(got[g] == want[g] ||
                        (got[g] > want[g] - 1e-3f && got[g] < want[g] + 1e-3f),
                    "collective sum %zu under %s: %g, want %g", g, schedules[s],
                    (double)got[g], (double)want[g]);
    ck_assert_msg(memcmp(got, first, sizeof first) == 0,
                  "collectives under %s differ from forward", schedules[s]);
  }
  free(in);
}
END_TEST

/* The lane forms of the work-group collectives, whose calls fold their
 * lanes into the result as they arrive when they come in local-id order:
 * under every schedule, the sum and the exclusive prefixes of each group
 * are the sequential ones in local-id order, bit for bit.  Groups of 100
 * end in a partial call; 1e8 and -1e8 among small values make any other
 * order of the additions show. */
#define LANE_COLL_LOCAL 100
#define LANE_COLL_GROUPS 6
#define LANE_COLL_N (LANE_COLL_LOCAL * LANE_COLL_GROUPS)

typedef struct lane_coll_args {
  const float *in;
  float *sum, *prefix; /* per work-item */
} lane_coll_args;

FPAR_LANE_KERNEL(lane_collectives, lk, p) {
  const lane_coll_args *a = p;
  size_t g = fpar_global_linear_id(lk->it);
  fpar_vf32 x = fpar_vf32_splat(0), pre;
  float sum;

  for (unsigned i = 0; i < lk->active; i++)
    x[i] = a->in[g + i];
  sum = fpar_group_reduce_add_vf32(lk, x);
  pre = fpar_group_scan_exclusive_add_vf32(lk, x);
  for (unsigned i = 0; i < lk->active; i++)
    a->sum[g + i] = sum, a->prefix[g + i] = pre[i];
}

START_TEST(test_lane_collectives_agree) {
  float *in = malloc(3 * LANE_COLL_N * sizeof *in);
  float *sum = in + LANE_COLL_N, *prefix = sum + LANE_COLL_N;
  lane_coll_args a = {in, sum, prefix};

  ck_assert_ptr_nonnull(in);
  for (size_t i = 0; i < LANE_COLL_N; i++)
    in[i] = i % 37 == 5 ? (i % 2 ? -1e8f : 1e8f) : 0.37f * (float)(i % 11);
  for (size_t s = 0; s < SCHEDULES; s++) {
    fpar_test_env e;
    fpar_event *ev;

    memset(sum, 0xff, 2 * LANE_COLL_N * sizeof *sum);
    env_under(&e, schedules[s], 2);
    ck_assert_fpar_ok(fpar_parallel_for_kernel(e.q, fpar_range1(LANE_COLL_N),
                                               fpar_range1(LANE_COLL_LOCAL),
                                               &lane_collectives, &a, &ev));
    fpar_test_wait_ok(ev);
    fpar_test_env_fini(&e);
    for (size_t grp = 0; grp < LANE_COLL_GROUPS; grp++) {
      const float *x = in + grp * LANE_COLL_LOCAL;
      float run = 0, total = x[0];

      for (size_t i = 1; i < LANE_COLL_LOCAL; i++)
        total += x[i];
      for (size_t i = 0; i < LANE_COLL_LOCAL; i++) {
        size_t k = grp * LANE_COLL_LOCAL + i;

        ck_assert_msg(memcmp(&sum[k], &total, sizeof total) == 0,
                      "lane sum of work-item %zu under %s: %a, sequential %a",
                      k, schedules[s], (double)sum[k], (double)total);
        ck_assert_msg(memcmp(&prefix[k], &run, sizeof run) == 0,
                      "lane prefix of work-item %zu under %s: %a, "
                      "sequential %a",
                      k, schedules[s], (double)prefix[k], (double)run);
        run += x[i];
      }
    }
  }
  free(in);
}
END_TEST

/* ---- The orders ---------------------------------------------------------- */

typedef struct order_args {
  unsigned next; /* one group: its work-items run on one thread */
  unsigned at[LOCAL];
} order_args;

/* The next ticket: atomic, since work-items of one barrier interval are
 * unordered (racecheck would report a plain increment). */
static unsigned ticket(unsigned *next) {
  return __atomic_fetch_add(next, 1, __ATOMIC_RELAXED);
}

FPAR_PHASE_KERNEL_STATELESS(record_phase, it, p) {
  order_args *a = p;

  FPAR_PHASE_BEGIN();
  a->at[fpar_local_id(it, 0)] = ticket(&a->next);
  FPAR_PHASE_END();
}

static void record_fiber(fpar_item *it, void *p) {
  order_args *a = p;

  a->at[fpar_local_id(it, 0)] = ticket(&a->next);
}

/* The place work-item lid runs at under reverse, when sub-groups of
 * `unit` move as wholes. */
static unsigned reverse_place(unsigned lid, unsigned unit) {
  return (LOCAL / unit - 1 - lid / unit) * unit + lid % unit;
}

START_TEST(test_item_orders) {
  order_args a;
  fpar_test_env e;
  fpar_event *ev;
  unsigned seen[LOCAL];

  env_under(&e, "reverse", 1);
  memset(&a, 0, sizeof a);
  ck_assert_fpar_ok(fpar_parallel_for_kernel(
      e.q, fpar_range1(LOCAL), fpar_range1(LOCAL), &record_phase, &a, &ev));
  fpar_test_wait_ok(ev);
  for (unsigned i = 0; i < LOCAL; i++)
    ck_assert_uint_eq(a.at[i], reverse_place(i, 1));
  /* A fiber kernel may use sub-group operations: its sub-groups keep
   * their members' order and move as wholes. */
  memset(&a, 0, sizeof a);
  ck_assert_fpar_ok(fpar_parallel_for(
      e.q, fpar_range1(LOCAL), fpar_range1(LOCAL), record_fiber, &a, &ev));
  fpar_test_wait_ok(ev);
  {
    unsigned sg = fpar_runtime_subgroup_size(e.rt);
    for (unsigned i = 0; i < LOCAL; i++)
      ck_assert_uint_eq(a.at[i],
                        reverse_place(i, LOCAL % sg == 0 ? sg : LOCAL));
  }
  fpar_test_env_fini(&e);

  /* A shuffle is a permutation, repeated by its seed. */
  env_under(&e, "shuffle:77", 1);
  memset(&a, 0, sizeof a);
  ck_assert_fpar_ok(fpar_parallel_for_kernel(
      e.q, fpar_range1(LOCAL), fpar_range1(LOCAL), &record_phase, &a, &ev));
  fpar_test_wait_ok(ev);
  memcpy(seen, a.at, sizeof seen);
  {
    unsigned count[LOCAL] = {0}, moved = 0;
    for (unsigned i = 0; i < LOCAL; i++) {
      ck_assert_uint_lt(a.at[i], LOCAL);
      count[a.at[i]]++;
      moved += a.at[i] != i;
    }
    for (unsigned i = 0; i < LOCAL; i++)
      ck_assert_uint_eq(count[i], 1);
    ck_assert_uint_gt(moved, LOCAL / 2);
  }
  memset(&a, 0, sizeof a);
  ck_assert_fpar_ok(fpar_parallel_for_kernel(
      e.q, fpar_range1(LOCAL), fpar_range1(LOCAL), &record_phase, &a, &ev));
  fpar_test_wait_ok(ev);
  ck_assert_int_eq(memcmp(seen, a.at, sizeof seen), 0);
  fpar_test_env_fini(&e);
}
END_TEST

/* Groups of one work-item on one worker, the host only polling: the
 * groups run in the schedule's order. */
typedef struct group_args {
  unsigned next;
  unsigned at[GROUPS];
} group_args;

static void record_group(fpar_item *it, void *p) {
  group_args *a = p;

  a->at[fpar_group_id(it, 0)] = ticket(&a->next);
}

START_TEST(test_group_order) {
  group_args a;
  fpar_test_env e;
  fpar_event *ev;

  env_under(&e, "reverse", 1);
  memset(&a, 0, sizeof a);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(GROUPS), fpar_range1(1),
                                      record_group, &a, &ev));
  ck_assert_int_eq(fpar_test_poll(ev), FPAR_COMPLETE);
  fpar_event_release(ev);
  for (unsigned g = 0; g < GROUPS; g++)
    ck_assert_uint_eq(a.at[g], GROUPS - 1 - g);
  fpar_test_env_fini(&e);
}
END_TEST

/* Scoped item loops with one function per item follow the schedule. */
static void record_s_item(const fpar_s_item *si, void *p) {
  order_args *a = p;

  a->at[fpar_s_item_get_innermost_local_id(si, 0)] = ticket(&a->next);
}

static void scoped_record(fpar_group *g, void *p) {
  fpar_distribute_items(g, record_s_item, p);
}

START_TEST(test_scoped_order) {
  order_args a;
  fpar_test_env e;
  fpar_event *ev;

  env_under(&e, "reverse", 1);
  memset(&a, 0, sizeof a);
  ck_assert_fpar_ok(fpar_parallel(e.q, fpar_range1(1), fpar_range1(LOCAL),
                                  scoped_record, &a, &ev));
  fpar_test_wait_ok(ev);
  for (unsigned i = 0; i < LOCAL; i++)
    ck_assert_uint_eq(a.at[i], LOCAL - 1 - i);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Row runners and lanes ------------------------------------------------
 *
 * The forms whose loops the program inlines (FPAR_KERNEL's runner,
 * FPAR_DEFINE_ITEMS_ROW, lane kernels and lane blocks) follow the schedule
 * too, in 2-D groups of several rows (a runner may run on to the end of
 * its group) whose rows W does not divide (a masked last block). */

#define RX 40
#define RY 3
#define RGROUPS 4
#define RN (RX * RY * RGROUPS)
#define BLOCKS_PER_ROW ((RX + FPAR_SIMD_WIDTH - 1) / FPAR_SIMD_WIDTH)

typedef struct rows_args {
  const float *in;
  uint32_t chain[RGROUPS]; /* order-dependent: what the calls folded in */
  unsigned next;
  unsigned at[RX * RY]; /* the place of each call of group 0 */
  float out[RN];        /* correct: one word per work-item */
  float sums[RY * RGROUPS * BLOCKS_PER_ROW]; /* correct: one per block */
} rows_args;

/* Order-dependent, as a forgotten barrier is: a call folds its id into its
 * group's word, read and written apart, so the word depends on the order
 * of the calls.  (Relaxed atomics, so that racecheck, which runs this
 * suite, sees no data race; test_racecheck reports the plain form.) */
static inline void chain_in(rows_args *a, size_t group, size_t id) {
  uint32_t v = __atomic_load_n(&a->chain[group], __ATOMIC_RELAXED);

  __atomic_store_n(&a->chain[group], v * 31u + (uint32_t)id + 1u,
                   __ATOMIC_RELAXED);
  if (group == 0)
    a->at[id] = ticket(&a->next);
}

static inline float own_value(const rows_args *a, size_t i) {
  return a->in[i] * 0.75f + 1.0f;
}

/* nd_range: FPAR_KERNEL (with its row runner) and FPAR_LANE_KERNEL, in
 * groups of RX x RY along dimension 1. */
FPAR_KERNEL(chain_kernel, it, args) {
  chain_in(args, fpar_group_id(it, 1), fpar_local_linear_id(it));
}

FPAR_KERNEL(own_kernel, it, args) {
  rows_args *a = args;
  size_t i = fpar_global_linear_id(it);

  a->out[i] = own_value(a, i);
}

FPAR_LANE_KERNEL(chain_lanes, lk, args) {
  chain_in(args, fpar_group_id(lk->it, 1), fpar_local_linear_id(lk->it));
}

FPAR_LANE_KERNEL(sum_lanes, lk, args) {
  rows_args *a = args;
  size_t y = fpar_global_id(lk->it, 1), x = fpar_local_id(lk->it, 0);
  fpar_vf32 v = fpar_vf32_load_mask(&a->in[y * RX + x], lk->mask);

  a->sums[y * BLOCKS_PER_ROW + x / FPAR_SIMD_WIDTH] =
      fpar_sub_group_reduce_add_vf32(lk, v);
}

/* Scoped: FPAR_DEFINE_ITEMS_ROW and fpar_distribute_lanes, in groups of
 * RX x RY. */
static inline void chain_item(const fpar_s_item *si, void *p) {
  chain_in(p, fpar_group_get_id(si->group, 1),
           fpar_s_item_get_innermost_local_id(si, 0) +
               RX * fpar_s_item_get_innermost_local_id(si, 1));
}
FPAR_DEFINE_ITEMS_ROW(chain_row, chain_item)

static inline void own_item(const fpar_s_item *si, void *p) {
  rows_args *a = p;
  size_t i = fpar_s_item_get_global_linear_id(si);

  a->out[i] = own_value(a, i);
}
FPAR_DEFINE_ITEMS_ROW(own_row, own_item)

static void chain_block(const fpar_lane_block *b, void *p) {
  chain_in(p, fpar_group_get_id(b->si->group, 1),
           b->first + RX * fpar_s_item_get_innermost_local_id(b->si, 1));
}

static void sum_block(const fpar_lane_block *b, void *p) {
  rows_args *a = p;
  size_t y = fpar_s_item_get_global_id(b->si, 1);
  fpar_vf32 v = fpar_vf32_load_mask(&a->in[y * RX + b->first], b->mask);

  a->sums[y * BLOCKS_PER_ROW + b->first / FPAR_SIMD_WIDTH] =
      fpar_vf32_reduce_add(v, b->mask);
}

static void scoped_chain_rows(fpar_group *g, void *p) {
  fpar_distribute_items_rows(g, chain_row, p);
}

static void scoped_chain_lanes(fpar_group *g, void *p) {
  fpar_distribute_lanes(g, chain_block, p);
}

static void scoped_correct(fpar_group *g, void *p) {
  fpar_distribute_items_rows(g, own_row, p);
  fpar_distribute_lanes(g, sum_block, p);
}

enum { FORM_KERNEL, FORM_LANE_KERNEL, FORM_ITEMS_ROW, FORM_LANES, FORMS };
static const char *const form_names[FORMS] = {"FPAR_KERNEL", "FPAR_LANE_KERNEL",
                                              "FPAR_DEFINE_ITEMS_ROW",
                                              "fpar_distribute_lanes"};

/* Run form f's order-dependent kernel (correct: its correct kernels) under
 * a schedule on `threads` workers into *a. */
static void run_rows(const char *schedule, unsigned threads, int f, int correct,
                     const float *in, rows_args *a) {
  fpar_test_env e;
  fpar_event *ev;
  fpar_range global = fpar_range2(RX, RY * RGROUPS),
             local = fpar_range2(RX, RY);

  memset(a, 0, sizeof *a);
  memset(a->out, 0xff, sizeof a->out);
  memset(a->sums, 0xff, sizeof a->sums);
  a->in = in;
  env_under(&e, schedule, threads);
  if (f == FORM_KERNEL || f == FORM_LANE_KERNEL) {
    const fpar_kernel *k[2][2] = {{&chain_kernel, &own_kernel},
                                  {&chain_lanes, &sum_lanes}};
    ck_assert_fpar_ok(fpar_parallel_for_kernel(
        e.q, global, local, k[f == FORM_LANE_KERNEL][correct], a, &ev));
  } else
    ck_assert_fpar_ok(fpar_parallel(e.q, fpar_range2(1, RGROUPS), local,
                                    correct               ? scoped_correct
                                    : f == FORM_ITEMS_ROW ? scoped_chain_rows
                                                          : scoped_chain_lanes,
                                    a, &ev));
  fpar_test_wait_ok(ev);
  fpar_test_env_fini(&e);
}

/* An order-dependent kernel of each form folds another word under
 * reverse and under each shuffle than forward. */
START_TEST(test_rows_racy_change) {
  static rows_args fwd, a;
  float *in = make_input();

  run_rows("forward", 2, _i, 0, in, &fwd);
  for (size_t s = 1; s < SCHEDULES; s++) {
    int differ = 0;
    run_rows(schedules[s], 2, _i, 0, in, &a);
    for (size_t g = 0; g < RGROUPS; g++)
      differ |= a.chain[g] != fwd.chain[g];
    ck_assert_msg(differ,
                  "%s: the order-dependent kernel folded the same "
                  "words under %s as forward",
                  form_names[_i], schedules[s]);
  }
  free(in);
}
END_TEST

/* The calls of one group under reverse, on one worker: every item alone,
 * last first, for a scoped row runner; every block for lane blocks. */
START_TEST(test_rows_reverse_order) {
  static rows_args a;
  float *in = make_input();
  const size_t n = RX * RY, bn = BLOCKS_PER_ROW * RY;

  run_rows("reverse", 1, FORM_ITEMS_ROW, 0, in, &a);
  for (size_t i = 0; i < n; i++)
    ck_assert_uint_eq(a.at[i], n - 1 - i);
  run_rows("reverse", 1, FORM_LANES, 0, in, &a);
  for (size_t b = 0; b < bn; b++) {
    size_t id =
        b % BLOCKS_PER_ROW * FPAR_SIMD_WIDTH + RX * (b / BLOCKS_PER_ROW);
    ck_assert_uint_eq(a.at[id], bn - 1 - b);
  }
  free(in);
}
END_TEST

/* Correct kernels of every form: the same bits under every schedule. */
START_TEST(test_rows_correct_agree) {
  static rows_args fwd, a;
  float *in = make_input();

  run_rows("forward", 2, _i, 1, in, &fwd);
  if (_i == FORM_KERNEL || _i == FORM_ITEMS_ROW)
    for (size_t i = 0; i < RN; i++)
      ck_assert_msg(fwd.out[i] == own_value(&fwd, i), "%s: item %zu wrong",
                    form_names[_i], i);
  if (_i == FORM_LANE_KERNEL || _i == FORM_LANES)
    for (size_t b = 0; b < sizeof fwd.sums / sizeof *fwd.sums; b++)
      ck_assert_msg(fwd.sums[b] == fwd.sums[b], "%s: block %zu not run",
                    form_names[_i], b);
  for (size_t s = 1; s < SCHEDULES; s++) {
    run_rows(schedules[s], 2, _i, 1, in, &a);
    ck_assert_msg(memcmp(a.out, fwd.out, sizeof a.out) == 0 &&
                      memcmp(a.sums, fwd.sums, sizeof a.sums) == 0,
                  "%s under %s differs from forward", form_names[_i],
                  schedules[s]);
  }
  free(in);
}
END_TEST

START_TEST(test_bad_value) {
  fpar_runtime *rt = NULL;
  static const char *const bad[] = {"backward", "shuffle:", "shuffle:x1",
                                    "shuffle:-3", "reverse:1"};

  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    ck_assert_int_eq(setenv("FIBERPAR_SCHEDULE", bad[k], 1), 0);
    ck_assert_int_eq(fpar_runtime_create(&rt, NULL), FPAR_EENV);
    ck_assert_ptr_nonnull(strstr(fpar_last_error(), "FIBERPAR_SCHEDULE"));
    ck_assert_ptr_nonnull(strstr(fpar_last_error(), bad[k]));
    ck_assert_ptr_nonnull(strstr(fpar_last_error(), "forward"));
    ck_assert_ptr_nonnull(strstr(fpar_last_error(), "shuffle:SEED"));
  }
  /* The runtime stays usable: a good value works afterwards. */
  ck_assert_int_eq(setenv("FIBERPAR_SCHEDULE", "Reverse", 1), 0);
  ck_assert_fpar_ok(fpar_runtime_create(&rt, NULL));
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

static Suite *schedule_suite(void) {
  Suite *s = suite_create("schedule");
  TCase *tc = tcase_create("schedule");

  tcase_set_timeout(tc, FPAR_TEST_TIMEOUT);
  tcase_add_test(tc, test_racy_reduction_changes);
  tcase_add_test(tc, test_correct_kernels_agree);
  tcase_add_test(tc, test_lane_collectives_agree);
  tcase_add_test(tc, test_item_orders);
  tcase_add_test(tc, test_group_order);
  tcase_add_test(tc, test_scoped_order);
  tcase_add_loop_test(tc, test_rows_racy_change, 0, FORMS);
  tcase_add_test(tc, test_rows_reverse_order);
  tcase_add_loop_test(tc, test_rows_correct_agree, 0, FORMS);
  tcase_add_test(tc, test_bad_value);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(schedule_suite());
}
