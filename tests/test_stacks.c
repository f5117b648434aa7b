/* SPDX-License-Identifier: MIT */
/* test_stacks.c - fiber stacks under pressure: frames bigger than the
 * stack (bigger than the guard too), fibers that share one stack when a
 * worker may not hold one per fiber, groups that need more stacks than the
 * process's mapping limit allows, and many workers.
 *
 * Built with -fstack-clash-protection, as fiberpar.pc asks of kernels: a
 * frame bigger than the guard then touches the guard before anything
 * below it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* Against the ucontext switch (tests/test_stacks_ucontext), where every
 * switch is a system call and a shared stack is copied whole, the biggest
 * group is left out. */
#if FPAR_TEST_UCONTEXT
#define HUGE_GROUP 0
#else
#define HUGE_GROUP 65536
#endif

/* ---- Helpers ---------------------------------------------------------------
 */

typedef struct stack_env {
  fpar_runtime *rt;
  fpar_queue *q;
} stack_env;

static stack_env stack_env_create(unsigned threads, size_t stack_size,
                                  size_t max_stacks, size_t max_group) {
  fpar_runtime_opts o;
  stack_env e;

  fpar_runtime_opts_init(&o);
  o.num_threads = threads;
  o.stack_size = stack_size;
  o.max_stacks = max_stacks;
  o.max_group_size = max_group;
  ck_assert_fpar_ok(fpar_runtime_create(&e.rt, &o));
  ck_assert_fpar_ok(fpar_queue_create(e.rt, 0, &e.q));
  return e;
}

static void stack_env_destroy(stack_env *e) {
  ck_assert_fpar_ok(fpar_queue_destroy(e->q));
  ck_assert_fpar_ok(fpar_runtime_destroy(e->rt));
}

/* Mappings of this process. */
static size_t count_mappings(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  size_t n = 0;
  int c;

  ck_assert_ptr_nonnull(f);
  while ((c = fgetc(f)) != EOF)
    n += c == '\n';
  fclose(f);
  return n;
}

/* Resident set size of this process, in KiB. */
static size_t rss_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0, resident = 0;

  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fscanf(f, "%lu %lu", &pages, &resident), 2);
  fclose(f);
  return resident * (size_t)sysconf(_SC_PAGESIZE) / 1024;
}

/* ---- A group reduction that checks its own stack ------------------------- */

/* Each work-item keeps a value and a pointer to it on its own stack across
 * every barrier of a tree reduction: if fibers shared or lost stack
 * memory, the pointer or the value would be wrong. */
typedef struct reduce_args {
  const uint32_t *in;
  uint64_t *sums; /* one per group */
  unsigned *bad;  /* work-items whose stack value changed */
} reduce_args;

static void stack_reduce_kernel(fpar_item *it, void *p) {
  reduce_args *a = p;
  size_t n = fpar_local_range(it, 0), lid = fpar_local_id(it, 0), s;
  uint64_t *tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);
  volatile uint64_t mine = a->in[fpar_global_id(it, 0)];
  volatile uint64_t *self = &mine;

  tmp[lid] = mine;
  for (s = 1; s < n; s *= 2) {
    fpar_barrier(it);
    if (lid % (2 * s) == 0 && lid + s < n)
      tmp[lid] += tmp[lid + s];
    if (*self != a->in[fpar_global_id(it, 0)])
      __atomic_add_fetch(a->bad, 1, __ATOMIC_RELAXED);
  }
  if (lid == 0)
    a->sums[fpar_group_id(it, 0)] = tmp[0];
}

/* Run the reduction over groups of `group` work-items and compare with a
 * plain C sum per group. */
static void check_stack_reduce(stack_env *e, size_t groups, size_t group) {
  size_t n = groups * group, i, g;
  uint32_t *in = malloc(n * sizeof *in);
  uint64_t *sums = calloc(groups, sizeof *sums);
  unsigned bad = 0;
  reduce_args a = {in, sums, &bad};
  fpar_event *ev;

  ck_assert_ptr_nonnull(in);
  ck_assert_ptr_nonnull(sums);
  for (i = 0; i < n; i++)
    in[i] = (uint32_t)(i * 2654435761u >> 7);
  ck_assert_fpar_ok(fpar_parallel_for(e->q, fpar_range1(n), fpar_range1(group),
                                      stack_reduce_kernel, &a, &ev));
  fpar_test_wait_ok(ev);
  ck_assert_uint_eq(bad, 0);
  for (g = 0; g < groups; g++) {
    uint64_t want = 0;
    for (i = 0; i < group; i++)
      want += in[g * group + i];
    ck_assert_msg(sums[g] == want, "group %zu: sum %llu, expected %llu", g,
                  (unsigned long long)sums[g], (unsigned long long)want);
  }
  free(in);
  free(sums);
}

/* ---- Frames bigger than the stack ---------------------------------------- */

typedef struct frame_args {
  size_t bytes;      /* frame size of the big function */
  size_t item;       /* the work-item that calls it */
  int barrier_first; /* promote the group to fibers before */
  uint64_t *out;
} frame_args;

/* A frame of `bytes` (a VLA), written at both ends. */
static __attribute__((noinline)) uint64_t big_frame(size_t bytes) {
  volatile unsigned char frame[bytes];

  frame[0] = 1;
  frame[bytes - 1] = 2;
  return frame[0] + frame[bytes - 1];
}

static void big_frame_kernel(fpar_item *it, void *p) {
  frame_args *a = p;
  size_t lid = fpar_local_linear_id(it);

  if (a->barrier_first)
    fpar_barrier(it);
  if (lid == a->item)
    a->out[lid] = big_frame(a->bytes);
  else
    a->out[lid] = lid;
  if (a->barrier_first)
    fpar_barrier(it);
}

/* A launch where work-item `item` calls a frame of `bytes` must fail with
 * FPAR_ESTACKOVERFLOW naming that work-item, and the queue must work on. */
static void expect_big_frame_overflow(size_t stack, size_t bytes, size_t item,
                                      int barrier_first) {
  uint64_t out[64];
  frame_args a = {bytes, item, barrier_first, out};
  stack_env e = stack_env_create(2, stack, 0, 0);
  char name[32];
  fpar_event *ev;

  snprintf(name, sizeof name, "work-item %zu ", item);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(64), fpar_range1(64),
                                      big_frame_kernel, &a, &ev));
  fpar_test_wait_fault(ev, FPAR_ESTACKOVERFLOW, name, "FIBERPAR_STACK_SIZE");
  check_stack_reduce(&e, 8, 64);
  stack_env_destroy(&e);
}

/* Issue shape: default 64 KiB stacks, an 80 KB frame in work-item 4; it
 * used to overwrite work-item 3's stack and return 0. */
START_TEST(test_frame_over_stack_after_barrier) {
  expect_big_frame_overflow(0, 80000, 4, 1);
}
END_TEST

/* PoCL's for_bug shape: a 60000-byte private array on 16 KiB stacks. */
START_TEST(test_for_bug_frame_on_small_stacks) {
  expect_big_frame_overflow(16 * 1024, 60000, 7, 1);
  expect_big_frame_overflow(16 * 1024, 60000, 7, 0);
}
END_TEST

/* Frames bigger than stack and guard together, with and without
 * barriers: the process must not die. */
START_TEST(test_frame_over_stack_and_guard) {
  expect_big_frame_overflow(0, 4u << 20, 3, 0);
  expect_big_frame_overflow(0, 4u << 20, 5, 1);
  expect_big_frame_overflow(16 * 1024, 64u << 20, 0, 0);
}
END_TEST

/* Every fiber has the whole stack size below its first frame, whatever its
 * colour: a frame of almost the stack size fits in all of them. */
static void near_full_frame_kernel(fpar_item *it, void *p) {
  uint64_t *out = p;
  size_t lid = fpar_local_linear_id(it);

  fpar_barrier(it);
  out[lid] = big_frame(12 * 1024);
  fpar_barrier(it);
}

START_TEST(test_colour_keeps_full_stack) {
  uint64_t out[64];
  stack_env e = stack_env_create(1, 16 * 1024, 0, 0);
  fpar_event *ev;
  size_t i;

  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(64), fpar_range1(64),
                                      near_full_frame_kernel, out, &ev));
  fpar_test_wait_ok(ev);
  for (i = 0; i < 64; i++)
    ck_assert_uint_eq(out[i], 3);
  stack_env_destroy(&e);
}
END_TEST

/* A lane kernel's overflow names the work-items of the sub-group. */
static void lane_overflow_kernel(fpar_item *it, void *p) {
  frame_args *a = p;

  fpar_barrier(it);
  if (fpar_local_id(it, 0) == a->item)
    a->out[0] = big_frame(a->bytes);
}

START_TEST(test_lane_overflow_names_work_items) {
  uint64_t out[1];
  frame_args a = {200000, 32, 1, out};
  stack_env e = stack_env_create(1, 0, 0, 0);
  fpar_launch_desc d;
  fpar_event *ev;

  fpar_launch_desc_init(&d);
  d.name = "lanes";
  d.kernel = lane_overflow_kernel;
  d.args = &a;
  d.lanes = 16;
  d.global = fpar_range1(64);
  d.local = fpar_range1(64);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, &ev));
  fpar_test_wait_fault(ev, FPAR_ESTACKOVERFLOW, "work-items 32-47",
                       "sub-group 2");
  stack_env_destroy(&e);
}
END_TEST

/* ---- Fibers sharing one stack ----------------------------------------------
 */

/* With room for 3 stacks per worker, groups of 256 run their fibers on one
 * shared stack, copied at each switch: same results, pointers into fiber
 * stacks stay valid, overflows are still caught. */
START_TEST(test_shared_stack_results) {
  stack_env e = stack_env_create(2, 0, 3, 0);

  check_stack_reduce(&e, 16, 256);
  check_stack_reduce(&e, 5, 1024);
  check_stack_reduce(&e, 64, 2); /* two fibers: fiber 1 alone on it */
  stack_env_destroy(&e);
}
END_TEST

START_TEST(test_shared_stack_overflow) {
  uint64_t out[64];
  frame_args a = {200000, 9, 1, out};
  stack_env e = stack_env_create(1, 0, 3, 0);
  fpar_event *ev;

  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(64), fpar_range1(64),
                                      big_frame_kernel, &a, &ev));
  fpar_test_wait_fault(ev, FPAR_ESTACKOVERFLOW, "work-item 9 ", NULL);
  check_stack_reduce(&e, 4, 64);
  stack_env_destroy(&e);
}
END_TEST

/* ---- The mapping budget
 * ------------------------------------------------------ */

/* Guards that cost mappings (FIBERPAR_STACK_GUARD=mprotect, as on kernels
 * before Linux 6.13): 8 workers running 4096-item groups with barriers
 * need 32768 stacks, more than vm.max_map_count (65530 mappings, two per
 * guarded stack) allows.  The launch must run, a 65536-item group too,
 * and meanwhile another runtime must start. */
static void beyond_mapping_limit(size_t base) {
  stack_env e = stack_env_create(8, 0, 0, 65536), other;

  check_stack_reduce(&e, 16, 4096);
  if (HUGE_GROUP != 0)
    check_stack_reduce(&e, 2, HUGE_GROUP);
  ck_assert_uint_lt(count_mappings(), base + 65530 / 2);
  other = stack_env_create(8, 0, 0, 0);
  check_stack_reduce(&other, 16, 256);
  stack_env_destroy(&other);
  stack_env_destroy(&e);
}

/* Run it twice: the first round leaves what the C library keeps of
 * threads (cached thread stacks, malloc arenas); the second must leave
 * nothing more. */
START_TEST(test_groups_beyond_mapping_limit) {
  size_t base = count_mappings(), before, after;

  setenv("FIBERPAR_STACK_GUARD", "mprotect", 1);
  beyond_mapping_limit(base);
  before = count_mappings();
  beyond_mapping_limit(base);
  after = count_mappings();
  ck_assert_msg(after <= before + 2 || FPAR_TEST_SANITIZED,
                "%zu mappings before, %zu after", before, after);
}
END_TEST

/* The same with page-table guard marks where the kernel has them. */
START_TEST(test_large_groups_many_workers) {
  stack_env e = stack_env_create(8, 0, 0, 65536);

  check_stack_reduce(&e, 16, 4096);
  if (HUGE_GROUP != 0)
    check_stack_reduce(&e, 2, HUGE_GROUP);
  stack_env_destroy(&e);
}
END_TEST

/* ---- Many workers ----------------------------------------------------------
 */

/* A 2x128-core SMT node pinned per hardware thread has 512 workers: they
 * must start (idle workers cost little memory) and run a launch. */
START_TEST(test_512_workers) {
  size_t rss0 = rss_kib(), rss1;
  stack_env e = stack_env_create(512, 0, 0, 0);

  ck_assert_uint_eq(fpar_runtime_num_threads(e.rt), 512);
  rss1 = rss_kib();
  printf("512 idle workers: %zu KiB resident, %zu KiB per worker\n",
         rss1 - rss0, (rss1 - rss0) / 512);
  ck_assert_msg((rss1 - rss0) / 512 <= 64 || FPAR_TEST_SANITIZED,
                "idle workers take %zu KiB each", (rss1 - rss0) / 512);
  check_stack_reduce(&e, 1024, 256);
  stack_env_destroy(&e);
}
END_TEST

static Suite *stacks_suite(void) {
  Suite *s = suite_create("stacks");
  TCase *tc;

  tc = fpar_test_case("big_frames");
  tcase_add_test(tc, test_frame_over_stack_after_barrier);
  tcase_add_test(tc, test_for_bug_frame_on_small_stacks);
  tcase_add_test(tc, test_frame_over_stack_and_guard);
  tcase_add_test(tc, test_colour_keeps_full_stack);
  tcase_add_test(tc, test_lane_overflow_names_work_items);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("shared_stack");
  tcase_add_test(tc, test_shared_stack_results);
  tcase_add_test(tc, test_shared_stack_overflow);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("budgets");
  tcase_add_test(tc, test_groups_beyond_mapping_limit);
  tcase_add_test(tc, test_large_groups_many_workers);
  tcase_add_test(tc, test_512_workers);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(stacks_suite());
}
