/* SPDX-License-Identifier: MIT */
/* racecheck_kernels.c - the kernels tests/test_racecheck.c runs under
 * racecheck (a ThreadSanitizer build), one case per run:
 *
 *   racecheck_kernels CASE
 *
 * Racy cases (a forgotten barrier in a tree reduction, as a fiber kernel
 * and as a phase kernel; two work-items writing one local word; a
 * neighbour's local word read before any barrier; groups adding into one
 * global word without atomics; two work-items of a barrier-free
 * FPAR_KERNEL, and two calls of a lane kernel, writing one word) are to
 * draw a report.  Two lanes of one call writing one word
 * (lanes_of_one_call_same_word) draw one only where a call is one lane:
 * in racecheck_kernels_scalar, this program built with
 * -DFPAR_SIMD_FORCE_SCALAR (W = 1), as docs/racecheck.md tells users to
 * build a lane kernel to check its lanes.
 * Correct cases (barriers, collectives, sub-group operations, group
 * copies, atomics, ping-pong local buffers, a barrier-free FPAR_KERNEL
 * and a lane kernel) are to draw none and give
 * exact results: the program exits 0 when they do, 1 when a result is
 * wrong, 2 on a usage or launch error.  Without a case it runs every
 * correct case (so in make check of any build). */
#include <fiberpar.h>
#include <fiberpar/simd.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REDUCE_T int32_t
#include "reduce_kernels.h"

#define GROUPS 8
#define LOCAL REDUCE_LOCAL
#define N (GROUPS * LOCAL)

typedef struct args {
  const int32_t *in;
  int32_t *out;
  atomic_int *counter;
} args;

/* ---- Racy kernels ------------------------------------------------------- */

/* The tree reduction whose barrier inside the loop is forgotten
 * (reduce_kernels.h has it right: reduce_fixed). */
static void reduce_forgotten_barrier(fpar_item *it, void *p) {
  const reduce_args *a = p;
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0);
  int32_t *tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);

  tmp[lid] = a->in[fpar_global_id(it, 0)];
  fpar_barrier(it);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (lid < s)
      tmp[lid] += tmp[lid + s];
    /* forgotten: fpar_barrier(it); */
  }
  if (lid == 0)
    a->out[fpar_group_id(it, 0)] = tmp[0];
}

/* The same reduction as a phase kernel (right: phase_fixed). */
FPAR_PHASE_KERNEL_LOCAL(phase_forgotten_barrier, it, p, reduce_state, st,
                        reduce_local, lm) {
  const reduce_args *a = p;
  size_t lid = fpar_local_id(it, 0);
  FPAR_PHASE_BEGIN();
  lm->tmp[lid] = a->in[fpar_global_id(it, 0)];
  FPAR_PHASE_BARRIER();
  for (st->s = LOCAL / 2; st->s > 0; st->s >>= 1) {
    if (lid < st->s)
      lm->tmp[lid] += lm->tmp[lid + st->s];
    /* forgotten: FPAR_PHASE_BARRIER(); */
  }
  if (lid == 0)
    a->out[fpar_group_id(it, 0)] = lm->tmp[0];
  FPAR_PHASE_END();
}

/* Work-items 0 and 1 write the same local word. */
static void same_local_word(fpar_item *it, void *p) {
  args *a = p;
  size_t lid = fpar_local_id(it, 0);
  int32_t *word = fpar_group_local_memory(it, sizeof *word, 0);

  if (lid < 2)
    *word = (int32_t)lid;
  fpar_barrier(it);
  if (lid == 0)
    a->out[fpar_group_id(it, 0)] = *word;
}

/* Each work-item reads its neighbour's local word before any barrier. */
static void neighbour_before_barrier(fpar_item *it, void *p) {
  args *a = p;
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0);
  int32_t *tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);

  tmp[lid] = a->in[fpar_global_id(it, 0)];
  a->out[fpar_global_id(it, 0)] = tmp[(lid + 1) % n];
}

/* Work-items 0 and 1 write one global word, in a barrier-free
 * FPAR_KERNEL: the form whose groups run through the kernel's row runner
 * in a normal build (a loop over the group's rows with the body
 * inlined); under racecheck each work-item is its own identity all the
 * same. */
FPAR_KERNEL(row_kernel_same_word, it, p) {
  args *a = p;
  size_t lid = fpar_local_id(it, 0);

  if (lid < 2)
    a->out[fpar_group_id(it, 0)] = (int32_t)lid; /* the race */
}

/* The first two calls (sub-groups) of a lane kernel write one global
 * word: two identities of one group. */
FPAR_LANE_KERNEL(lane_kernel_same_word, lk, p) {
  args *a = p;
  size_t x = fpar_local_id(lk->it, 0);

  if (x < 2 * FPAR_SIMD_WIDTH)
    a->out[fpar_group_id(lk->it, 0)] = (int32_t)x; /* the race */
}

/* Lanes 0 and 1 of a group write one global word: in one call of W
 * lanes where W > 1 (not seen there: a call is one identity), in two
 * calls where W is 1. */
FPAR_LANE_KERNEL(lanes_of_one_call_same_word, lk, p) {
  args *a = p;
  size_t x = fpar_local_id(lk->it, 0);

  for (size_t lane = x; lane < x + FPAR_SIMD_WIDTH && lane < 2; lane++)
    a->out[fpar_group_id(lk->it, 0)] = (int32_t)lane; /* the race */
}

/* Every work-item of every group adds its value into one global word
 * without an atomic.  Groups on different workers are different threads
 * for TSan, but whether two groups of this launch overlap on the 2
 * workers, rather than all run on one worker one after another (which
 * orders them), depends on the machine's load; the work-items of one
 * group, each its own fiber whose switches order nothing, race on the
 * word whatever the placement.  So every work-item adds, not only one
 * per group, and the race is reported on every run. */
static void global_word_plain_add(fpar_item *it, void *p) {
  args *a = p;

  a->out[0] += a->in[fpar_global_id(it, 0)];
}

/* ---- Correct kernels ---------------------------------------------------- */

/* A barrier-free FPAR_KERNEL and a lane kernel, each work-item writing
 * its own word. */
FPAR_KERNEL(row_kernel_doubled, it, p) {
  args *a = p;
  size_t gid = fpar_global_id(it, 0);

  a->out[gid] = 2 * a->in[gid];
}

FPAR_LANE_KERNEL(lane_kernel_doubled, lk, p) {
  args *a = p;
  fpar_vi32 v = fpar_vi32_load_mask(&a->in[lk->global_first], lk->mask);

  fpar_vi32_store_mask(&a->out[lk->global_first], v + v, lk->mask);
}

/* The tree reduction with its barriers, as a fiber kernel and as a phase
 * kernel: reduce_fixed and phase_fixed of reduce_kernels.h. */

/* Work-group collectives: a reduction, a scan and a broadcast. */
static void collectives(fpar_item *it, void *p) {
  args *a = p;
  size_t gid = fpar_global_id(it, 0);
  int32_t x = a->in[gid];
  int32_t sum = fpar_group_reduce_add_i32(it, x);
  int32_t before = fpar_group_scan_exclusive_add_i32(it, x);
  int32_t first = fpar_group_broadcast_i32(it, x, 0);

  a->out[gid] = sum + before + first;
}

/* Sub-group operations: a reduction and a butterfly exchange. */
static void subgroups(fpar_item *it, void *p) {
  args *a = p;
  size_t gid = fpar_global_id(it, 0);
  int32_t x = a->in[gid];
  int32_t sum = fpar_sub_group_reduce_add_i32(it, x);
  int32_t other = fpar_sub_group_shuffle_xor_i32(it, x, 1);

  a->out[gid] = sum + other;
}

/* A group copy into local memory, each work-item's element doubled in
 * place, and a copy back after a barrier. */
static void group_copies(fpar_item *it, void *p) {
  args *a = p;
  size_t n = fpar_local_range(it, 0), lid = fpar_local_id(it, 0);
  size_t base = fpar_group_id(it, 0) * n;
  int32_t *tile = fpar_group_local_memory_for_overwrite(it, n * 4, 64);
  fpar_copy_event e;

  e = fpar_async_work_group_copy(it, tile, a->in + base, n, 4, 0);
  fpar_wait_group_events(it, 1, &e);
  tile[lid] *= 2;
  fpar_barrier(it);
  e = fpar_async_work_group_copy(it, a->out + base, tile, n, 4, 0);
  fpar_wait_group_events(it, 1, &e);
}

/* Every work-item of every group adds into one global counter. */
static void atomics(fpar_item *it, void *p) {
  args *a = p;

  atomic_fetch_add_explicit(a->counter, a->in[fpar_global_id(it, 0)],
                            memory_order_relaxed);
}

/* A 1-D smoothing of the group's block, four steps, between two local
 * buffers that swap roles at each barrier. */
static void ping_pong(fpar_item *it, void *p) {
  args *a = p;
  size_t n = fpar_local_range(it, 0), lid = fpar_local_id(it, 0);
  int32_t *buf[2];
  unsigned k;

  buf[0] = fpar_group_local_memory(it, n * sizeof(int32_t), 0);
  buf[1] = fpar_group_local_memory(it, n * sizeof(int32_t), 0);
  buf[0][lid] = a->in[fpar_global_id(it, 0)];
  for (k = 0; k < 4; k++) {
    const int32_t *from = buf[k & 1];
    fpar_barrier(it);
    buf[~k & 1][lid] = from[lid] + (lid > 0 ? from[lid - 1] : 0) +
                       (lid + 1 < n ? from[lid + 1] : 0);
  }
  fpar_barrier(it);
  a->out[fpar_global_id(it, 0)] = buf[0][lid];
}

/* ---- Running a case ----------------------------------------------------- */

typedef struct race_case {
  const char *name;
  fpar_kernel_fn kernel;
  const fpar_kernel *def;
  int reduction; /* takes reduce_args, not args */
  int (*check)(const int32_t *in, const int32_t *out, int counter);
} race_case;

/* Results of the correct kernels, computed plainly. */
static int check_sums(const int32_t *in, const int32_t *out, int counter) {
  int32_t want[GROUPS];

  (void)counter;
  reduce_reference(in, want, GROUPS);
  for (size_t g = 0; g < GROUPS; g++)
    if (out[g] != want[g]) {
      fprintf(stderr, "group %zu: %d, expected %d\n", g, (int)out[g],
              (int)want[g]);
      return 1;
    }
  return 0;
}

static int check_collectives(const int32_t *in, const int32_t *out,
                             int counter) {
  (void)counter;
  for (size_t g = 0; g < GROUPS; g++) {
    int32_t sum = 0, before = 0;
    for (size_t i = 0; i < LOCAL; i++)
      sum += in[g * LOCAL + i];
    for (size_t i = 0; i < LOCAL; i++) {
      int32_t want = sum + before + in[g * LOCAL];
      if (out[g * LOCAL + i] != want) {
        fprintf(stderr, "item %zu: %d, expected %d\n", g * LOCAL + i,
                (int)out[g * LOCAL + i], (int)want);
        return 1;
      }
      before += in[g * LOCAL + i];
    }
  }
  return 0;
}

static int check_subgroups(const int32_t *in, const int32_t *out, int counter) {
  size_t s = (size_t)counter; /* the sub-group size */

  for (size_t i = 0; i < N; i++) {
    size_t first = i / s * s;
    int32_t sum = 0;
    for (size_t k = first; k < first + s; k++)
      sum += in[k];
    if (out[i] != sum + in[(i ^ 1) < first + s ? i ^ 1 : i]) {
      fprintf(stderr, "item %zu: %d, expected %d\n", i, (int)out[i],
              (int)(sum + in[i ^ 1]));
      return 1;
    }
  }
  return 0;
}

static int check_doubled(const int32_t *in, const int32_t *out, int counter) {
  (void)counter;
  for (size_t i = 0; i < N; i++)
    if (out[i] != 2 * in[i]) {
      fprintf(stderr, "item %zu: %d, expected %d\n", i, (int)out[i],
              (int)(2 * in[i]));
      return 1;
    }
  return 0;
}

static int check_counter(const int32_t *in, const int32_t *out, int counter) {
  int32_t sum = 0;

  (void)out;
  for (size_t i = 0; i < N; i++)
    sum += in[i];
  if (counter != sum) {
    fprintf(stderr, "counter %d, expected %d\n", counter, (int)sum);
    return 1;
  }
  return 0;
}

static int check_ping_pong(const int32_t *in, const int32_t *out, int counter) {
  int32_t a[LOCAL], b[LOCAL];

  (void)counter;
  for (size_t g = 0; g < GROUPS; g++) {
    memcpy(a, in + g * LOCAL, sizeof a);
    for (unsigned k = 0; k < 4; k++) {
      for (size_t i = 0; i < LOCAL; i++)
        b[i] = a[i] + (i > 0 ? a[i - 1] : 0) + (i + 1 < LOCAL ? a[i + 1] : 0);
      memcpy(a, b, sizeof a);
    }
    for (size_t i = 0; i < LOCAL; i++)
      if (out[g * LOCAL + i] != a[i]) {
        fprintf(stderr, "item %zu: %d, expected %d\n", g * LOCAL + i,
                (int)out[g * LOCAL + i], (int)a[i]);
        return 1;
      }
  }
  return 0;
}

static const race_case cases[] = {
    {"reduce_forgotten_barrier", reduce_forgotten_barrier, NULL, 1, NULL},
    {"phase_forgotten_barrier", NULL, &phase_forgotten_barrier, 1, NULL},
    {"same_local_word", same_local_word, NULL, 0, NULL},
    {"neighbour_before_barrier", neighbour_before_barrier, NULL, 0, NULL},
    {"global_word_plain_add", global_word_plain_add, NULL, 0, NULL},
    {"row_kernel_same_word", NULL, &row_kernel_same_word, 0, NULL},
    {"lane_kernel_same_word", NULL, &lane_kernel_same_word, 0, NULL},
    {"lanes_of_one_call_same_word", NULL, &lanes_of_one_call_same_word, 0,
     NULL},
    {"reduce_fixed", reduce_fixed, NULL, 1, check_sums},
    {"phase_fixed", NULL, &phase_fixed, 1, check_sums},
    {"collectives", collectives, NULL, 0, check_collectives},
    {"subgroups", subgroups, NULL, 0, check_subgroups},
    {"group_copies", group_copies, NULL, 0, check_doubled},
    {"atomics", atomics, NULL, 0, check_counter},
    {"ping_pong", ping_pong, NULL, 0, check_ping_pong},
    {"row_kernel_doubled", NULL, &row_kernel_doubled, 0, check_doubled},
    {"lane_kernel_doubled", NULL, &lane_kernel_doubled, 0, check_doubled},
};

/* Run case c; returns the exit status of a run of c alone. */
static int run_case(const race_case *c) {
  int32_t *in = malloc(N * sizeof *in), *out = calloc(N, sizeof *out);
  atomic_int counter;
  args a;
  reduce_args r;
  fpar_runtime_opts o;
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_launch_desc d;
  fpar_event *ev;
  size_t k;
  int rc;

  for (k = 0; k < N; k++)
    in[k] = (int32_t)(k * 7 % 23) - 11;
  atomic_init(&counter, 0);
  a.in = in;
  a.out = out;
  a.counter = &counter;
  r.in = in;
  r.out = out;
  fpar_runtime_opts_init(&o);
  o.num_threads = 2;
  o.subgroup_size = 8;
  if (fpar_runtime_create(&rt, &o) != 0 || fpar_queue_create(rt, 0, &q) != 0) {
    fprintf(stderr, "racecheck_kernels: %s\n", fpar_last_error());
    return 2;
  }
  fpar_launch_desc_init(&d);
  d.name = c->name;
  d.kernel = c->kernel;
  d.def = c->def;
  d.args = c->reduction ? (void *)&r : (void *)&a;
  d.global = fpar_range1(N);
  d.local = fpar_range1(LOCAL);
  if (fpar_launch(q, &d, &ev) != 0 || fpar_event_wait(ev) != 0) {
    fprintf(stderr, "racecheck_kernels %s: %s\n", c->name, fpar_last_error());
    return 2;
  }
  fpar_event_release(ev);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
  rc = c->check == NULL
           ? 0
           : c->check(in, out,
                      c->check == check_subgroups ? 8 : atomic_load(&counter));
  free(in);
  free(out);
  return rc;
}

/* With a case's name: that case.  Without arguments (make check runs it
 * so): every correct case, whose results must be exact in any build. */
int main(int argc, char **argv) {
  size_t k;
  int rc = 0;

  if (argc == 1) {
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++)
      if (cases[k].check != NULL && run_case(&cases[k]) != 0) {
        fprintf(stderr, "racecheck_kernels: %s failed\n", cases[k].name);
        rc = 1;
      }
    return rc;
  }
  for (k = 0; argc == 2 && k < sizeof cases / sizeof cases[0]; k++)
    if (strcmp(argv[1], cases[k].name) == 0)
      return run_case(&cases[k]);
  fprintf(stderr, "usage: racecheck_kernels [CASE]\n");
  return 2;
}
