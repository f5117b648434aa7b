/* SPDX-License-Identifier: MIT */
/* test_racecheck_scoped.c - racecheck and FIBERPAR_SCHEDULE for scoped and
 * hierarchical groups (issue 24).
 *
 * In a ThreadSanitizer build every logical item of an item loop with a
 * function per item (distribute_items, a hierarchical work-item loop) is
 * a racecheck identity of its own: two items writing one word in one loop
 * are reported, at the kernel's line and naming the items, and so is an
 * item reading what another wrote in the loop before with no group
 * barrier in between (the end of distribute_items does not synchronise);
 * correct kernels (item loops with _and_wait or a barrier between them,
 * sub-group functions whose items read their locals, private memory, row
 * runners, lanes, a flexible hierarchical range, items with locals whose
 * address they pass on) draw no report and give exact results.  Row
 * runners made by FPAR_DEFINE_ITEMS_ROW run each item as a call of its
 * own there, and lanes runners each block of W items: two items of one
 * runner, and two blocks of one fpar_distribute_lanes, writing one word
 * are reported.  The cases run in a child (this program with the case's
 * name) whose standard error is read; those tests skip outside a TSan
 * build.
 *
 * In any build, also in a child: an item that overflows its stack fails
 * the launch with FPAR_ESTACKOVERFLOW, naming the kernel, the work group
 * and (under racecheck, where each item has a stack of its own) the item,
 * and the runtime works on.
 *
 * In any build: FIBERPAR_SCHEDULE=reverse runs the items of scoped and
 * hierarchical function loops in reverse (an order-dependent result
 * changes), and correct kernels, row runners too, give the same bits
 * under every schedule. */
#include <fiberpar/scoped.h>
#include <fiberpar/simd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "racecheck_run.h"

#define GROUPS 4
#define LOCAL 32
#define N (GROUPS * LOCAL)

static int32_t input_at(size_t i) {
  return (int32_t)((i * 2654435761u) >> 22 & 0x3ff);
}

/* ---- Cases run in the child -----------------------------------------------
 */

typedef struct case_args {
  int32_t in[N];
  int32_t out[N];
  int32_t sums[GROUPS];
} case_args;

typedef struct item_ctx {
  case_args *a;
  int32_t *word; /* group-local */
  int32_t *tmp;  /* group-local, one per item */
  size_t step;
} item_ctx;

/* Racy: every logical item of one distribute_items writes one local
 * word. */
static void same_word_item(const fpar_s_item *si, void *p) {
  item_ctx *c = p;

  *c->word = (int32_t)fpar_s_item_get_global_id(si, 0); /* the race */
}

static void same_word_env(fpar_group *g, void *const *mem, void *p) {
  item_ctx c = {p, mem[0], NULL, 0};

  fpar_distribute_items_and_wait(g, same_word_item, &c);
}

static void scoped_same_word(fpar_group *g, void *p) {
  fpar_mem_request r = fpar_require_local_mem(sizeof(int32_t), 0, NULL, 0);

  fpar_memory_environment(g, &r, 1, same_word_env, p);
}

/* Racy, hierarchical: every work-item adds into one word of the group
 * function. */
static void hier_add_item(const fpar_h_item *hi, void *p) {
  item_ctx *c = p;

  *c->word += c->a->in[fpar_h_item_get_global_id(hi, 0)]; /* the race */
}

static void hier_same_word(fpar_group *g, void *p) {
  int32_t sum = 0;
  item_ctx c = {p, &sum, NULL, 0};

  fpar_parallel_for_work_item(g, hier_add_item, &c);
  ((case_args *)p)->sums[fpar_group_get_id(g, 0)] = sum;
}

/* Racy, through a row runner: every item of the runner's one call writes
 * one local word. */
static inline void rows_word_item(const fpar_s_item *si, void *p) {
  item_ctx *c = p;

  *c->word = (int32_t)fpar_s_item_get_global_id(si, 0); /* the race */
}
FPAR_DEFINE_ITEMS_ROW(rows_word_row, rows_word_item)

static void rows_word_env(fpar_group *g, void *const *mem, void *p) {
  item_ctx c = {p, mem[0], NULL, 0};

  fpar_distribute_items_rows(g, rows_word_row, &c);
}

static void scoped_rows_same_word(fpar_group *g, void *p) {
  fpar_mem_request r = fpar_require_local_mem(sizeof(int32_t), 0, NULL, 0);

  fpar_memory_environment(g, &r, 1, rows_word_env, p);
}

/* Racy, hierarchical, through a row runner: every work-item writes one
 * word of the group function. */
static void hier_rows_same_word(fpar_group *g, void *p) {
  int32_t word = 0;
  item_ctx c = {p, &word, NULL, 0};

  fpar_parallel_for_work_item_rows(g, rows_word_row, &c);
  ((case_args *)p)->sums[fpar_group_get_id(g, 0)] = word;
}

/* Racy, in lanes: every block of W items of one fpar_distribute_lanes
 * writes one word of the group function. */
static void lanes_word_block(const fpar_lane_block *b, void *p) {
  item_ctx *c = p;

  *c->word = (int32_t)b->global_first; /* the race */
}

static void scoped_lanes_same_word(fpar_group *g, void *p) {
  int32_t word = 0;
  item_ctx c = {p, &word, NULL, 0};

  fpar_distribute_lanes(g, lanes_word_block, &c);
  ((case_args *)p)->sums[fpar_group_get_id(g, 0)] = word;
}

/* Correct, scoped: a tree reduction in local memory, one item loop and
 * its wait per step. */
static void reduce_load(const fpar_s_item *si, void *p) {
  item_ctx *c = p;

  c->tmp[fpar_s_item_get_innermost_local_id(si, 0)] =
      c->a->in[fpar_s_item_get_global_id(si, 0)];
}

static void reduce_step(const fpar_s_item *si, void *p) {
  item_ctx *c = p;
  size_t lid = fpar_s_item_get_innermost_local_id(si, 0);

  if (lid < c->step)
    c->tmp[lid] += c->tmp[lid + c->step];
}

static void reduce_store(void *p) {
  item_ctx *c = p;

  c->word[0] = c->tmp[0];
}

static void reduce_env(fpar_group *g, void *const *mem, void *p) {
  case_args *a = p;
  item_ctx c = {a, &a->sums[fpar_group_get_id(g, 0)], mem[0], 0};

  fpar_distribute_items_and_wait(g, reduce_load, &c);
  for (c.step = LOCAL / 2; c.step > 0; c.step /= 2)
    fpar_distribute_items_and_wait(g, reduce_step, &c);
  fpar_single_item(g, reduce_store, &c);
}

static void scoped_reduce(fpar_group *g, void *p) {
  fpar_mem_request r =
      fpar_require_local_mem(LOCAL * sizeof(int32_t), 0, NULL, 0);

  fpar_memory_environment(g, &r, 1, reduce_env, p);
}

/* Two distribute_items loops: in the first each item stores its input in
 * local memory, in the second it reads the word of the item 5 further on
 * (item 0 reads what item 5 wrote).  The end of a loop does not
 * synchronise (AdaptiveCpp's distribute_items has no barrier): without
 * fpar_group_barrier() in between that is a race, with it the result is
 * exact.  A second memory environment then reuses the local memory, which
 * is the runtime's hand-off, not a race. */
static void neighbour_store(const fpar_s_item *si, void *p) {
  item_ctx *c = p;

  c->tmp[fpar_s_item_get_innermost_local_id(si, 0)] =
      c->a->in[fpar_s_item_get_global_id(si, 0)];
}

static void neighbour_load(const fpar_s_item *si, void *p) {
  item_ctx *c = p;
  size_t lid = fpar_s_item_get_innermost_local_id(si, 0);

  c->a->out[fpar_s_item_get_global_id(si, 0)] =
      c->tmp[(lid + 5) % LOCAL]; /* the race without a barrier */
}

static void neighbour_env(fpar_group *g, void *const *mem, void *p) {
  const item_ctx *o = p; /* step: 1 for the racy kernel */
  item_ctx c = {o->a, NULL, mem[0], o->step};

  fpar_distribute_items(g, neighbour_store, &c);
  if (c.step == 0)
    fpar_group_barrier(g);
  fpar_distribute_items(g, neighbour_load, &c);
}

/* The second environment's items write the word of the item one further
 * on and read their own after a barrier: item 0 writes the word item 27
 * read in the first. */
static void reuse_store(const fpar_s_item *si, void *p) {
  item_ctx *c = p;
  size_t lid = fpar_s_item_get_innermost_local_id(si, 0);

  c->tmp[(lid + 1) % LOCAL] = (int32_t)lid;
}

static void reuse_check(const fpar_s_item *si, void *p) {
  item_ctx *c = p;
  size_t lid = fpar_s_item_get_innermost_local_id(si, 0);

  if (c->tmp[lid] != (int32_t)((lid + LOCAL - 1) % LOCAL))
    c->a->out[fpar_s_item_get_global_id(si, 0)] = -1;
}

static void reuse_env(fpar_group *g, void *const *mem, void *p) {
  item_ctx c = {p, NULL, mem[0], 0};

  fpar_distribute_items_and_wait(g, reuse_store, &c);
  fpar_distribute_items(g, reuse_check, &c);
}

static void neighbour(fpar_group *g, void *p, size_t racy) {
  fpar_mem_request r =
      fpar_require_local_mem(LOCAL * sizeof(int32_t), 0, NULL, 0);
  item_ctx c = {p, NULL, NULL, racy};

  fpar_memory_environment(g, &r, 1, neighbour_env, &c);
  fpar_memory_environment(g, &r, 1, reuse_env, p);
}

static void scoped_loops_racy(fpar_group *g, void *p) {
  neighbour(g, p, 1);
}

static void scoped_loops_barrier(fpar_group *g, void *p) {
  neighbour(g, p, 0);
}

/* Correct: a sub-group function whose items read its local context; the
 * frame of each call reuses the last one's, with no barrier in between
 * (the group function's own memory, not the items'). */
static void sub_item(const fpar_s_item *si, void *p) {
  const item_ctx *c = p;
  size_t gid = fpar_s_item_get_global_id(si, 0);

  c->a->out[gid] = c->a->in[gid] + (int32_t)c->step;
}

static void sub_function(fpar_group *sub, void *p) {
  item_ctx c = {p, NULL, NULL, 1};

  fpar_distribute_items(sub, sub_item, &c);
}

static void scoped_subgroups(fpar_group *g, void *p) {
  fpar_distribute_groups(g, sub_function, p);
}

/* Correct: items whose locals are passed by address (each item's frames
 * are its own), through a function and through a row runner and lanes. */
static __attribute__((noinline)) void fill_locals(int32_t *v, size_t n,
                                                  int32_t x) {
  for (size_t k = 0; k < n; k++)
    v[k] = x + (int32_t)k;
}

static void locals_item(const fpar_s_item *si, void *p) {
  item_ctx *c = p;
  size_t gid = fpar_s_item_get_global_id(si, 0);
  int32_t v[16], s = 0;

  fill_locals(v, 16, c->a->in[gid]);
  for (size_t k = 0; k < 16; k++)
    s += v[k];
  c->a->out[gid] = s;
}

FPAR_DEFINE_ITEMS_ROW(locals_row, locals_item)

static void lanes_block(const fpar_lane_block *b, void *p) {
  item_ctx *c = p;

  /* The mask's lanes are the first ones: the block's items. */
  for (unsigned k = 0; k < fpar_vmask_count(b->mask); k++)
    c->a->out[b->global_first + k] += c->a->in[b->global_first + k];
}

static void scoped_locals(fpar_group *g, void *p) {
  item_ctx c = {p, NULL, NULL, 0};

  fpar_distribute_items_and_wait(g, locals_item, &c);
  fpar_distribute_items_rows(g, locals_row, &c);
  fpar_group_barrier(g);
  fpar_distribute_lanes(g, lanes_block, &c);
}

/* Correct, hierarchical: private memory carried across work-item loops,
 * and a flexible range of twice the group whose logical items l and
 * l + LOCAL run on one physical work-item, in order. */
typedef struct hier_ctx {
  case_args *a;
  fpar_private_memory *pm;
} hier_ctx;

static void hier_load(const fpar_h_item *hi, void *p) {
  hier_ctx *c = p;

  *(int32_t *)fpar_private_at(c->pm, hi) =
      c->a->in[fpar_h_item_get_global_id(hi, 0)];
}

static void hier_twice(const fpar_h_item *hi, void *p) {
  hier_ctx *c = p;

  *(int32_t *)fpar_private_at(c->pm, hi) += 1; /* twice per work-item */
}

static void hier_store(const fpar_h_item *hi, void *p) {
  hier_ctx *c = p;

  c->a->out[fpar_h_item_get_global_id(hi, 0)] =
      *(const int32_t *)fpar_private_at(c->pm, hi);
}

static void hier_correct(fpar_group *g, void *p) {
  hier_ctx c = {p, fpar_private_memory_create(g, sizeof(int32_t))};
  fpar_range twice = fpar_range1(2 * LOCAL);

  fpar_parallel_for_work_item(g, hier_load, &c);
  fpar_parallel_for_work_item_range(g, twice, hier_twice, &c);
  fpar_parallel_for_work_item(g, hier_store, &c);
}

typedef struct child_case {
  const char *name;
  int hierarchical;
  fpar_group_fn fn;
  int (*check)(const case_args *a); /* NULL: a racy case, any result */
} child_case;

static int check_sums(const case_args *a) {
  for (size_t g = 0; g < GROUPS; g++) {
    int32_t want = 0;
    for (size_t i = 0; i < LOCAL; i++)
      want += a->in[g * LOCAL + i];
    if (a->sums[g] != want)
      return 0;
  }
  return 1;
}

static int check_locals(const case_args *a) {
  for (size_t i = 0; i < N; i++)
    if (a->out[i] != 16 * a->in[i] + 120 + a->in[i])
      return 0;
  return 1;
}

static int check_neighbour(const case_args *a) {
  for (size_t i = 0; i < N; i++)
    if (a->out[i] != a->in[i - i % LOCAL + (i % LOCAL + 5) % LOCAL])
      return 0;
  return 1;
}

static int check_plus_one(const case_args *a) {
  for (size_t i = 0; i < N; i++)
    if (a->out[i] != a->in[i] + 1)
      return 0;
  return 1;
}

static int check_hier(const case_args *a) {
  for (size_t i = 0; i < N; i++)
    if (a->out[i] != a->in[i] + 2)
      return 0;
  return 1;
}

static const child_case child_cases[] = {
    {"scoped_same_word", 0, scoped_same_word, NULL},
    {"hier_same_word", 1, hier_same_word, NULL},
    {"scoped_rows_same_word", 0, scoped_rows_same_word, NULL},
    {"hier_rows_same_word", 1, hier_rows_same_word, NULL},
    {"scoped_lanes_same_word", 0, scoped_lanes_same_word, NULL},
    {"scoped_reduce", 0, scoped_reduce, check_sums},
    {"scoped_locals", 0, scoped_locals, check_locals},
    {"hier_correct", 1, hier_correct, check_hier},
    {"scoped_loops_racy", 0, scoped_loops_racy, NULL},
    {"scoped_loops_barrier", 0, scoped_loops_barrier, check_neighbour},
    {"scoped_subgroups", 0, scoped_subgroups, check_plus_one},
};
#define CHILD_CASES (sizeof child_cases / sizeof *child_cases)

/* Stack overflow: logical item 5 of group 1 recurses far past its stack
 * (depth: frames of 1 KiB). */
typedef struct overflow_args {
  size_t depth;
  int32_t out[N];
} overflow_args;

static void overflow_item(const fpar_s_item *si, void *p) {
  overflow_args *a = p;
  size_t gid = fpar_s_item_get_global_id(si, 0);
  volatile unsigned char seed = 1;

  if (fpar_group_get_id(si->group, 0) == 1 &&
      fpar_s_item_get_innermost_local_id(si, 0) == 5)
    a->out[gid] = fpar_test_recurse_deep(&seed, a->depth);
  else
    a->out[gid] = (int32_t)gid;
}

static void scoped_overflow(fpar_group *g, void *p) {
  fpar_distribute_items(g, overflow_item, p);
}

static void hier_overflow(fpar_group *g, void *p) {
  fpar_parallel_for_work_item(g, overflow_item, p);
}

static const struct {
  const char *name;
  int hierarchical;
  fpar_group_fn fn;
  const char *item; /* what the message names under racecheck */
} overflow_cases[] = {
    {"scoped_overflow", 0, scoped_overflow, "logical item 5 overflowed"},
    {"hier_overflow", 1, hier_overflow, "work-item 5 overflowed"},
};
#define OVERFLOW_CASES (sizeof overflow_cases / sizeof *overflow_cases)

static void scoped_reduce(fpar_group *g, void *p);
static int check_sums(const case_args *a);

/* Run overflow case k twice on two workers, then the scoped reduction on
 * the same queue; exit status 0 when the launches failed as they should
 * and the reduction is exact, 1 otherwise (with the reason on standard
 * error), 2 when a call failed. */
static int run_overflow_case(size_t k) {
  static overflow_args a;
  static case_args ra;
  const char *item =
      FPAR_TEST_TSAN ? overflow_cases[k].item : "the group function";
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  fpar_launch_desc d;
  fpar_runtime_opts o;
  int round, ok;

  fpar_runtime_opts_init(&o);
  o.num_threads = 2;
  if (fpar_runtime_create(&rt, &o) != 0 || fpar_queue_create(rt, 0, &q) != 0)
    return 2;
  a.depth = 2 * fpar_runtime_stack_size(rt) / 1024 + 16;
  fpar_launch_desc_init(&d);
  d.name = overflow_cases[k].name;
  if (overflow_cases[k].hierarchical)
    d.hierarchical = overflow_cases[k].fn;
  else
    d.scoped = overflow_cases[k].fn;
  d.args = &a;
  d.global = fpar_range1(GROUPS);
  d.local = fpar_range1(LOCAL);
  for (round = 0; round < 2; round++) {
    int err;
    const char *msg;
    if (fpar_launch(q, &d, &ev) != 0)
      return 2;
    err = fpar_event_wait(ev);
    msg = fpar_event_error(ev);
    if (err != FPAR_ESTACKOVERFLOW || msg == NULL ||
        strstr(msg, overflow_cases[k].name) == NULL ||
        strstr(msg, "work-group (1,0,0)") == NULL ||
        strstr(msg, item) == NULL ||
        strstr(msg, "FIBERPAR_STACK_SIZE") == NULL) {
      fprintf(stderr, "%s: returned %s, message \"%s\" (expected %s, %s)\n",
              overflow_cases[k].name, fpar_err_name(err),
              msg != NULL ? msg : "(none)", fpar_err_name(FPAR_ESTACKOVERFLOW),
              item);
      return 1;
    }
    fpar_event_release(ev);
  }
  /* The runtime works on, on the same workers (and, under racecheck, on
   * the same identities: item 5's starts afresh). */
  for (size_t i = 0; i < N; i++)
    ra.in[i] = input_at(i);
  if (fpar_parallel(q, fpar_range1(GROUPS), fpar_range1(LOCAL), scoped_reduce,
                    &ra, &ev) != 0)
    return 2;
  if (fpar_event_wait(ev) != 0) {
    fprintf(stderr, "after %s: %s\n", overflow_cases[k].name,
            fpar_event_error(ev));
    return 1;
  }
  fpar_event_release(ev);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
  ok = check_sums(&ra);
  if (!ok)
    fprintf(stderr, "after %s: wrong sums\n", overflow_cases[k].name);
  return ok ? 0 : 1;
}

/* Run case c on two workers; exit status 0 when its result is exact (or
 * it has none to check), 1 when it is not, 2 when a call failed. */
static int run_child_case(const child_case *c) {
  static case_args a;
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  fpar_runtime_opts o;
  int err;

  for (size_t i = 0; i < N; i++)
    a.in[i] = input_at(i);
  fpar_runtime_opts_init(&o);
  o.num_threads = 2;
  if (fpar_runtime_create(&rt, &o) != 0 || fpar_queue_create(rt, 0, &q) != 0)
    return 2;
  err = c->hierarchical
            ? fpar_parallel_for_work_group(q, fpar_range1(GROUPS),
                                           fpar_range1(LOCAL), c->fn, &a, &ev)
            : fpar_parallel(q, fpar_range1(GROUPS), fpar_range1(LOCAL), c->fn,
                            &a, &ev);
  if (err == 0)
    err = fpar_event_wait(ev);
  if (err != 0) {
    fprintf(stderr, "%s: %s\n", c->name, fpar_last_error());
    return 2;
  }
  fpar_event_release(ev);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
  return c->check == NULL || c->check(&a) ? 0 : 1;
}

/* ---- Racecheck: the suite's side ------------------------------------------
 */

static char *run_case(const char *name, int *status) {
  return fpar_racecheck_run("/proc/self/exe", name, status);
}

static void expect_race(const char *name, const char *items) {
  int status;
  char *out = run_case(name, &status), bad[512];

  ck_assert_msg(strstr(out, "WARNING: ThreadSanitizer: data race") != NULL,
                "%s: no race reported (status %d):\n%s", name, status, out);
  ck_assert_msg(fpar_racecheck_top_frames_in(out, "test_racecheck_scoped.c",
                                             bad, sizeof bad),
                "%s: a report's top frame is not in the kernel: %s\n%s", name,
                bad, out);
  ck_assert_msg(fpar_test_count(out, items) >= 2,
                "%s: the report does not name two %ss:\n%s", name, items, out);
  ck_assert_int_eq(status, 66);
  free(out);
}

static void expect_clean(const char *name) {
  int status;
  char *out = run_case(name, &status);

  ck_assert_msg(strstr(out, "ThreadSanitizer") == NULL,
                "%s: reported (status %d):\n%s", name, status, out);
  ck_assert_msg(status == 0, "%s: exit status %d:\n%s", name, status, out);
  free(out);
}

START_TEST(test_scoped_same_word) {
  expect_race("scoped_same_word", "logical item");
}
END_TEST

START_TEST(test_hier_same_word) {
  expect_race("hier_same_word", "work-item");
}
END_TEST

/* Two items of one call of a row runner (each item its own identity),
 * and two blocks of one fpar_distribute_lanes. */
START_TEST(test_rows_same_word) {
  static const char *const racy[][2] = {
      {"scoped_rows_same_word", "logical item"},
      {"hier_rows_same_word", "work-item"},
      {"scoped_lanes_same_word", "logical items"}};
  expect_race(racy[_i][0], racy[_i][1]);
}
END_TEST

/* The end of a distribute_items loop does not synchronise: item 0 of the
 * next loop reads item 5's word. */
START_TEST(test_scoped_loops_racy) {
  expect_race("scoped_loops_racy", "logical item");
}
END_TEST

static const char *const clean_cases[] = {
    "scoped_reduce", "scoped_locals", "hier_correct", "scoped_loops_barrier",
    "scoped_subgroups"};
#define CLEAN_CASES (sizeof clean_cases / sizeof *clean_cases)

START_TEST(test_correct) {
  expect_clean(clean_cases[_i]);
}
END_TEST

/* The correct cases give exact results in any build, in this process. */
START_TEST(test_correct_results) {
  const char *const *clean = clean_cases;
  for (size_t k = 0; k < CHILD_CASES; k++)
    if (strcmp(child_cases[k].name, clean[_i]) == 0)
      ck_assert_int_eq(run_child_case(&child_cases[k]), 0);
}
END_TEST

/* An item that overflows its stack fails the launch with
 * FPAR_ESTACKOVERFLOW naming it, and the runtime works on (in a child: in
 * any build, and under racecheck with no report). */
START_TEST(test_item_overflow) {
  int status;
  char *out = run_case(overflow_cases[_i].name, &status);

  ck_assert_msg(strstr(out, "ThreadSanitizer") == NULL,
                "%s: reported (status %d):\n%s", overflow_cases[_i].name,
                status, out);
  ck_assert_msg(status == 0, "%s: exit status %d:\n%s", overflow_cases[_i].name,
                status, out);
  free(out);
}
END_TEST

/* ---- FIBERPAR_SCHEDULE ------------------------------------------------------
 */

static const char *const schedules[] = {"forward", "reverse", "shuffle:7"};
#define SCHEDULES (sizeof schedules / sizeof *schedules)

typedef struct order_args {
  uint32_t last[GROUPS]; /* the item that ran last in each group */
  uint32_t out[N];
} order_args;

/* Order-dependent (but free of data races: the word is atomic): the last
 * item to run leaves its id. */
static inline void last_item(const fpar_s_item *si, void *p) {
  order_args *a = p;

  __atomic_store_n(&a->last[fpar_group_get_id(si->group, 0)],
                   (uint32_t)fpar_s_item_get_innermost_local_id(si, 0),
                   __ATOMIC_RELAXED);
}

static void scoped_last(fpar_group *g, void *p) {
  fpar_distribute_items(g, last_item, p);
}

static void hier_fn_last(fpar_group *g, void *p) {
  fpar_parallel_for_work_item(g, last_item, p);
}

/* Correct: each item writes its own word. */
static inline void own_word(const fpar_s_item *si, void *p) {
  order_args *a = p;
  size_t gid = fpar_s_item_get_global_id(si, 0);

  a->out[gid] = (uint32_t)input_at(gid) * 3u + 1u;
}

FPAR_DEFINE_ITEMS_ROW(own_row, own_word)

static void scoped_own(fpar_group *g, void *p) {
  fpar_distribute_items_rows(g, own_row, p);
  fpar_distribute_items(g, own_word, p);
}

static void hier_own(fpar_group *g, void *p) {
  fpar_parallel_for_work_item_rows(g, own_row, p);
  fpar_parallel_for_work_item(g, own_word, p);
}

/* Run fn on one worker under FIBERPAR_SCHEDULE=schedule into *a. */
static void run_under(const char *schedule, int hierarchical, fpar_group_fn fn,
                      order_args *a) {
  fpar_test_env e;
  fpar_event *ev;

  ck_assert_int_eq(setenv("FIBERPAR_SCHEDULE", schedule, 1), 0);
  fpar_test_env_init(&e, 1);
  memset(a, 0, sizeof *a);
  if (hierarchical)
    ck_assert_fpar_ok(fpar_parallel_for_work_group(
        e.q, fpar_range1(GROUPS), fpar_range1(LOCAL), fn, a, &ev));
  else
    ck_assert_fpar_ok(fpar_parallel(e.q, fpar_range1(GROUPS),
                                    fpar_range1(LOCAL), fn, a, &ev));
  fpar_test_wait_ok(ev);
  fpar_test_env_fini(&e);
}

static const struct {
  int hierarchical;
  fpar_group_fn fn;
} last_kernels[] = {{0, scoped_last}, {1, hier_fn_last}};

/* Under reverse the last item to run is item 0. */
START_TEST(test_reverse_moves_items) {
  order_args a;
  unsigned g;

  run_under("forward", last_kernels[_i].hierarchical, last_kernels[_i].fn, &a);
  for (g = 0; g < GROUPS; g++)
    ck_assert_uint_eq(a.last[g], LOCAL - 1);
  run_under("reverse", last_kernels[_i].hierarchical, last_kernels[_i].fn, &a);
  for (g = 0; g < GROUPS; g++)
    ck_assert_uint_eq(a.last[g], 0);
}
END_TEST

START_TEST(test_correct_same_bits) {
  static order_args ref, a;
  const int hier = _i;
  unsigned s;

  run_under("forward", hier, hier ? hier_own : scoped_own, &ref);
  for (size_t i = 0; i < N; i++)
    ck_assert_uint_eq(ref.out[i], (uint32_t)input_at(i) * 3u + 1u);
  for (s = 1; s < SCHEDULES; s++) {
    run_under(schedules[s], hier, hier ? hier_own : scoped_own, &a);
    ck_assert_msg(memcmp(a.out, ref.out, sizeof a.out) == 0,
                  "%s: other results", schedules[s]);
  }
}
END_TEST

static Suite *racecheck_scoped_suite(void) {
  Suite *s = suite_create("racecheck_scoped");
  TCase *tc = fpar_test_case("schedule");

  tcase_add_loop_test(tc, test_reverse_moves_items, 0,
                      (int)(sizeof last_kernels / sizeof *last_kernels));
  tcase_add_loop_test(tc, test_correct_same_bits, 0, 2);
  tcase_add_loop_test(tc, test_correct_results, 0, (int)CLEAN_CASES);
  suite_add_tcase(s, tc);
  tc = fpar_test_case("overflow");
  tcase_add_loop_test(tc, test_item_overflow, 0, (int)OVERFLOW_CASES);
  suite_add_tcase(s, tc);
  if (FPAR_TEST_TSAN) {
    tc = fpar_test_case("racecheck");
    tcase_add_test(tc, test_scoped_same_word);
    tcase_add_test(tc, test_hier_same_word);
    tcase_add_loop_test(tc, test_rows_same_word, 0, 3);
    tcase_add_test(tc, test_scoped_loops_racy);
    tcase_add_loop_test(tc, test_correct, 0, (int)CLEAN_CASES);
    suite_add_tcase(s, tc);
  } else
    printf("SKIP: the racecheck cases need a ThreadSanitizer build\n");
  return s;
}

int main(int argc, char **argv) {
  if (argc == 2) {
    for (size_t k = 0; k < CHILD_CASES; k++)
      if (strcmp(argv[1], child_cases[k].name) == 0)
        return run_child_case(&child_cases[k]);
    for (size_t k = 0; k < OVERFLOW_CASES; k++)
      if (strcmp(argv[1], overflow_cases[k].name) == 0)
        return run_overflow_case(k);
    fprintf(stderr, "unknown case %s\n", argv[1]);
    return 2;
  }
  return fpar_test_run(racecheck_scoped_suite());
}
