/* SPDX-License-Identifier: MIT */
/* test_phase.c - phase kernels (FPAR_PHASE_KERNEL) and kernels defined
 * with their runners (FPAR_KERNEL).
 *
 * Every phase kernel runs three ways, as loops, as debug loops and on
 * fibers, and each result is checked against a plain C reference; the
 * three must also agree bit for bit.  Shapes include odd group sizes and
 * 3-D ranges.  Divergence must be reported by loops and fibers alike.
 * This file is also built against the ucontext switch
 * (tests/test_phase_ucontext) for the fiber runs, and there with one form
 * of the loops (FPAR_PHASE_ONE_FORM).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil_phase.h"

/* A deterministic pseudo-random value for index i (splitmix64). */
static uint64_t test_value(uint64_t i) {
  uint64_t z = i + 0x9e3779b97f4a7c15u;

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* Run k to completion in the given mode. */
static void run_ok(fpar_test_env *e, const fpar_kernel *k, fpar_range global,
                   fpar_range local, void *args, fpar_phase_mode mode,
                   const fpar_local_buffer_desc *bufs, unsigned nbufs) {
  fpar_event *ev;

  ck_assert_fpar_ok(submit(e, k, global, local, args, mode, bufs, nbufs, &ev));
  fpar_test_wait_ok(ev);
}

/* ---- Tree reduction with odd sizes ------------------------------------- */

typedef struct reduce_args {
  const uint64_t *in;
  uint64_t *partial; /* one sum per work-group */
} reduce_args;

typedef struct reduce_state {
  uint64_t *tmp;
  size_t n; /* live values; the loop around the barrier counts with it */
} reduce_state;

/* Each step folds the upper half of the n live values onto the lower
 * half; for odd n the middle one waits for the next step. */
FPAR_PHASE_KERNEL(phase_reduce, it, p, reduce_state, st) {
  reduce_args *a = p;
  size_t lid = fpar_local_id(it, 0);

  FPAR_PHASE_BEGIN();
  st->n = fpar_local_range(it, 0);
  st->tmp = fpar_group_local_memory_for_overwrite(it, st->n * 8, 64);
  st->tmp[lid] = a->in[fpar_global_id(it, 0)];
  FPAR_PHASE_BARRIER();
  while (st->n > 1) {
    {
      size_t half = (st->n + 1) / 2;
      if (lid + half < st->n)
        st->tmp[lid] += st->tmp[lid + half];
      st->n = half;
    }
    FPAR_PHASE_BARRIER();
  }
  if (lid == 0)
    a->partial[fpar_group_id(it, 0)] = st->tmp[0];
  FPAR_PHASE_END();
}

static const size_t reduce_sizes[] = {1, 2, 3, 7, 64, 255, 256, 1000, 4096};

START_TEST(test_reduce_odd_sizes) {
  fpar_test_env e;
  size_t L = reduce_sizes[_i], groups = 5, n = L * groups;
  uint64_t *in = malloc(n * 8), *out[NUM_MODES], want[5] = {0};
  reduce_args a;

  fpar_test_env_init(&e, 0);
  for (size_t i = 0; i < n; i++) {
    in[i] = test_value(i);
    want[i / L] += in[i];
  }
  for (int m = 0; m < NUM_MODES; m++) {
    out[m] = calloc(groups, 8);
    a.in = in;
    a.partial = out[m];
    run_ok(&e, &phase_reduce, fpar_range1(n), fpar_range1(L), &a, modes[m],
           NULL, 0);
    for (size_t g = 0; g < groups; g++)
      ck_assert_msg(out[m][g] == want[g], "%s, L=%zu: group %zu sum wrong",
                    mode_names[m], L, g);
  }
  for (int m = 0; m < NUM_MODES; m++)
    free(out[m]);
  free(in);
  fpar_test_env_fini(&e);
}
END_TEST

/* As loops, each worker runs its first groups of a kernel on one form of
 * the loops and then the other, until it has timed both on each phase,
 * and the rest on the faster: launch after launch, with rows whose last
 * chunk is short (60 = 3 x 16 + 12), every group's sum must stay exact. */
START_TEST(test_forms_many_groups) {
  fpar_test_env e;
  const size_t L = 60, groups = 400, n = L * groups;
  uint64_t *in = malloc(n * 8), *out = malloc(groups * 8), *want;
  reduce_args a = {in, out};

  /* test_phase_ucontext compiles one form (FPAR_PHASE_ONE_FORM); GCC's
   * optimizing builds add a scalar one. */
#ifdef FPAR_PHASE_ONE_FORM
  ck_assert_ptr_null(phase_reduce.phase_split_rows);
  ck_assert_ptr_null(phase_reduce.phase_scalar_rows);
#else
  ck_assert_ptr_nonnull(phase_reduce.phase_split_rows);
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) &&       \
    !defined(__OPTIMIZE_SIZE__)
  ck_assert_ptr_nonnull(phase_reduce.phase_scalar_rows);
#endif
#endif
  want = calloc(groups, 8);
  fpar_test_env_init(&e, 2);
  for (size_t i = 0; i < n; i++) {
    in[i] = test_value(i);
    want[i / L] += in[i];
  }
  for (int launch = 0; launch < 8; launch++) {
    memset(out, 0xa5, groups * 8);
    run_ok(&e, &phase_reduce, fpar_range1(n), fpar_range1(L), &a,
           FPAR_PHASE_LOOPS, NULL, 0);
    for (size_t g = 0; g < groups; g++)
      ck_assert_msg(out[g] == want[g], "launch %d: group %zu sum wrong", launch,
                    g);
  }
  fpar_test_env_fini(&e);
  free(in), free(out), free(want);
}
END_TEST

/* ---- Every id query in 3-D, with a mirrored exchange -------------------- */

typedef struct id_record {
  size_t global[3], local[3], group[3];
  size_t global_range[3], local_range[3], group_range[3];
  size_t global_linear, local_linear, group_linear;
  unsigned dims;
  uint64_t mirrored; /* the value of the group's mirror work-item */
} id_record;

/* The group-local array is requested in the prologue, so in every phase:
 * the first request of each phase is object 0. */
FPAR_PHASE_KERNEL(phase_ids, it, p, char, st) {
  id_record *r = (id_record *)p + fpar_global_linear_id(it);
  size_t n = fpar_local_range(it, 0) * fpar_local_range(it, 1) *
             fpar_local_range(it, 2);
  uint64_t *lm = fpar_group_local_memory(it, n * 8, 0);

  FPAR_PHASE_BEGIN();
  for (unsigned d = 0; d < 3; d++) {
    r->global[d] = fpar_global_id(it, d);
    r->local[d] = fpar_local_id(it, d);
    r->group[d] = fpar_group_id(it, d);
    r->global_range[d] = fpar_global_range(it, d);
    r->local_range[d] = fpar_local_range(it, d);
    r->group_range[d] = fpar_group_range(it, d);
  }
  r->global_linear = fpar_global_linear_id(it);
  r->local_linear = fpar_local_linear_id(it);
  r->group_linear = fpar_group_linear_id(it);
  r->dims = fpar_work_dim(it);
  lm[fpar_local_linear_id(it)] = test_value(fpar_global_linear_id(it));
  FPAR_PHASE_BARRIER();
  r->mirrored = lm[n - 1 - fpar_local_linear_id(it)];
  FPAR_PHASE_END();
}

/* A launch's global and local ranges. */
typedef struct launch_shape {
  fpar_range global, local;
} launch_shape;

static const launch_shape id_shapes[] = {
    {{1, {12, 1, 1}}, {1, {3, 1, 1}}},
    {{2, {10, 6, 1}}, {2, {5, 3, 1}}},
    {{3, {6, 4, 6}}, {3, {3, 2, 3}}},
    {{3, {7, 3, 5}}, {3, {7, 1, 5}}},
};

/* The record work-item g must hold, computed from the shape alone. */
static void check_ids(const id_record *r, const fpar_range *gr,
                      const fpar_range *lr, const char *mode) {
  size_t n = fpar_test_volume(lr->size), total = fpar_test_volume(gr->size);

  for (size_t g = 0; g < total; g++) {
    size_t gid[3], lid[3], grp[3], nr[3], mirror[3], ml;
    fpar_test_id_of(g, gr->size, gid);
    for (unsigned d = 0; d < 3; d++) {
      lid[d] = gid[d] % lr->size[d];
      grp[d] = gid[d] / lr->size[d];
      nr[d] = gr->size[d] / lr->size[d];
      ck_assert_msg(r[g].global[d] == gid[d] && r[g].local[d] == lid[d] &&
                        r[g].group[d] == grp[d] &&
                        r[g].global_range[d] == gr->size[d] &&
                        r[g].local_range[d] == lr->size[d] &&
                        r[g].group_range[d] == nr[d],
                    "%s: ids of work-item %zu, dimension %u", mode, g, d);
    }
    ck_assert_uint_eq(r[g].global_linear, g);
    ck_assert_uint_eq(r[g].local_linear, fpar_test_linear(lid, lr->size));
    ck_assert_uint_eq(r[g].group_linear, fpar_test_linear(grp, nr));
    ck_assert_uint_eq(r[g].dims, gr->dims);
    ml = n - 1 - fpar_test_linear(lid, lr->size);
    fpar_test_id_of(ml, lr->size, mirror);
    for (unsigned d = 0; d < 3; d++)
      mirror[d] += grp[d] * lr->size[d];
    ck_assert_msg(r[g].mirrored ==
                      test_value(fpar_test_linear(mirror, gr->size)),
                  "%s: work-item %zu read the wrong mirror value", mode, g);
  }
}

START_TEST(test_ids_3d) {
  fpar_test_env e;
  fpar_range gr = id_shapes[_i].global, lr = id_shapes[_i].local;
  size_t total = fpar_test_volume(gr.size);
  id_record *r = malloc(total * sizeof *r);

  fpar_test_env_init(&e, 0);
  for (int m = 0; m < NUM_MODES; m++) {
    memset(r, 0xee, total * sizeof *r);
    run_ok(&e, &phase_ids, gr, lr, r, modes[m], NULL, 0);
    check_ids(r, &gr, &lr, mode_names[m]);
  }
  free(r);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Scan: a launch-time local buffer, a zeroed group-local object ----- */

typedef struct scan_args {
  const uint64_t *in;
  uint64_t *out;   /* inclusive prefix sums within each group */
  uint64_t *total; /* one per group, read back by every work-item */
} scan_args;

typedef struct scan_state {
  size_t off;
  unsigned src; /* which half of the buffer holds the current sums */
} scan_state;

/* Hillis-Steele inclusive scan, double-buffered in local buffer 0 (two
 * values per work-item).  The group total goes through a zeroed
 * group-local object that the last work-item fills one phase before all
 * read it. */
FPAR_PHASE_KERNEL(phase_scan, it, p, scan_state, st) {
  scan_args *a = p;
  size_t n = fpar_local_range(it, 0), lid = fpar_local_id(it, 0);
  uint64_t *buf = fpar_local_buffer(it, 0);
  uint64_t *total = fpar_group_local_memory(it, sizeof *total, 0);

  FPAR_PHASE_BEGIN();
  buf[lid] = a->in[fpar_global_id(it, 0)];
  st->src = 0;
  for (st->off = 1; st->off < n; st->off *= 2) {
    FPAR_PHASE_BARRIER();
    {
      const uint64_t *from = buf + st->src * n;
      uint64_t *to = buf + (1 - st->src) * n;
      to[lid] = from[lid] + (lid >= st->off ? from[lid - st->off] : 0);
      st->src ^= 1;
    }
  }
  if (lid == n - 1)
    *total = buf[st->src * n + lid];
  FPAR_PHASE_BARRIER();
  a->out[fpar_global_id(it, 0)] = buf[st->src * n + lid];
  a->total[fpar_global_id(it, 0)] = *total;
  FPAR_PHASE_END();
}

static const size_t scan_sizes[] = {1, 5, 33, 128, 257};

START_TEST(test_scan_local_buffer) {
  fpar_test_env e;
  size_t L = scan_sizes[_i], groups = 3, n = L * groups;
  uint64_t *in = malloc(n * 8), *out = malloc(n * 8), *tot = malloc(n * 8);
  uint64_t *want = malloc(n * 8), *first = malloc(n * 8);
  fpar_local_buffer_desc buf = {0, 2 * sizeof(uint64_t), 0};
  scan_args a = {in, out, tot};

  fpar_test_env_init(&e, 0);
  for (size_t i = 0; i < n; i++) {
    in[i] = test_value(i) >> 8;
    want[i] = in[i] + (i % L ? want[i - 1] : 0);
  }
  for (int m = 0; m < NUM_MODES; m++) {
    memset(out, 0, n * 8);
    run_ok(&e, &phase_scan, fpar_range1(n), fpar_range1(L), &a, modes[m], &buf,
           1);
    for (size_t i = 0; i < n; i++) {
      ck_assert_msg(out[i] == want[i], "%s, L=%zu: scan[%zu] wrong",
                    mode_names[m], L, i);
      ck_assert_msg(tot[i] == want[i / L * L + L - 1],
                    "%s, L=%zu: total seen by %zu wrong", mode_names[m], L, i);
    }
    if (m == 0)
      memcpy(first, out, n * 8);
    ck_assert_msg(memcmp(first, out, n * 8) == 0, "%s differs from loops",
                  mode_names[m]);
  }
  free(in), free(out), free(tot), free(want), free(first);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- The local struct beside other group-local memory ------------------ */

typedef struct hist_args {
  const uint32_t *in;
  uint32_t *bins; /* 16 per group */
  uint32_t *echo; /* the group's inputs, reversed */
} hist_args;

typedef struct hist_local {
  uint32_t bins[16];
} hist_local;

/* A histogram in the local struct (zero-filled per group: stale counts of
 * the previous group on the worker would show), beside an array requested
 * in the prologue (object 1 in every mode) and a launch-time buffer. */
FPAR_PHASE_KERNEL_LOCAL(phase_histogram, it, p, char, st, hist_local, lm) {
  hist_args *a = p;
  size_t n = fpar_local_range(it, 0), lid = fpar_local_id(it, 0);
  size_t g = fpar_global_id(it, 0);
  uint32_t *copy = fpar_group_local_memory(it, n * 4, 0);
  uint32_t *scratch = fpar_local_buffer(it, 0);

  FPAR_PHASE_BEGIN();
  lm->bins[a->in[g] % 16]++;
  copy[lid] = a->in[g];
  FPAR_PHASE_BARRIER();
  scratch[lid] = copy[n - 1 - lid];
  FPAR_PHASE_BARRIER();
  if (lid < 16)
    a->bins[fpar_group_id(it, 0) * 16 + lid] = lm->bins[lid];
  a->echo[g] = scratch[lid];
  FPAR_PHASE_END();
}

static const size_t hist_sizes[] = {16, 33, 100};

START_TEST(test_local_struct) {
  fpar_test_env e;
  size_t L = hist_sizes[_i], groups = 7, n = L * groups;
  uint32_t *in = malloc(n * 4), *echo = malloc(n * 4);
  uint32_t *bins = malloc(groups * 64), *want = calloc(groups, 64);
  fpar_local_buffer_desc buf = {0, 4, 0};
  hist_args a = {in, bins, echo};

  fpar_test_env_init(&e, 1);
  for (size_t i = 0; i < n; i++) {
    in[i] = (uint32_t)test_value(i);
    want[i / L * 16 + in[i] % 16]++;
  }
  for (int m = 0; m < NUM_MODES; m++) {
    memset(bins, 0xee, groups * 64);
    run_ok(&e, &phase_histogram, fpar_range1(n), fpar_range1(L), &a, modes[m],
           &buf, 1);
    ck_assert_msg(memcmp(bins, want, groups * 64) == 0, "%s, L=%zu: bins",
                  mode_names[m], L);
    for (size_t i = 0; i < n; i++)
      ck_assert_uint_eq(echo[i], in[i / L * L + L - 1 - i % L]);
  }
  free(in), free(echo), free(bins), free(want);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Floating point: the same source gives the same bits ---------------- */

typedef struct smooth_state {
  float v;
  int step;
} smooth_state;

/* Four smoothing steps of a periodic row in group-local memory; float
 * results must be identical in every mode (same operations, same order per
 * work-item). */
FPAR_PHASE_KERNEL(phase_smooth, it, p, smooth_state, st) {
  float *data = p;
  size_t n = fpar_local_range(it, 0), lid = fpar_local_id(it, 0);
  float *row = fpar_group_local_memory(it, n * sizeof(float), 0);

  FPAR_PHASE_BEGIN();
  st->v = data[fpar_global_id(it, 0)];
  for (st->step = 0; st->step < 4; st->step++) {
    row[lid] = st->v;
    FPAR_PHASE_BARRIER();
    st->v = 0.25f * row[(lid + n - 1) % n] + 0.5f * st->v +
            0.25f * sinf(row[(lid + 1) % n]);
    FPAR_PHASE_BARRIER();
  }
  data[fpar_global_id(it, 0)] = st->v;
  FPAR_PHASE_END();
}

START_TEST(test_float_bits_agree) {
  fpar_test_env e;
  const size_t L = 96, n = L * 4;
  float *d[NUM_MODES], *ref = malloc(n * sizeof(float)), *row = malloc(L * 4);

  fpar_test_env_init(&e, 0);
  for (size_t i = 0; i < n; i++)
    ref[i] = (float)(test_value(i) % 1000) / 7.0f;
  for (int m = 0; m < NUM_MODES; m++) {
    d[m] = malloc(n * sizeof(float));
    memcpy(d[m], ref, n * sizeof(float));
    run_ok(&e, &phase_smooth, fpar_range1(n), fpar_range1(L), d[m], modes[m],
           NULL, 0);
  }
  for (size_t g = 0; g < n / L; g++) /* the serial reference */
    for (int s = 0; s < 4; s++) {
      float *v = ref + g * L;
      memcpy(row, v, L * 4);
      for (size_t i = 0; i < L; i++)
        v[i] = 0.25f * row[(i + L - 1) % L] + 0.5f * row[i] +
               0.25f * sinf(row[(i + 1) % L]);
    }
  for (int m = 0; m < NUM_MODES; m++) {
    ck_assert_msg(memcmp(d[m], ref, n * sizeof(float)) == 0,
                  "%s differs from the serial reference", mode_names[m]);
    free(d[m]);
  }
  free(ref), free(row);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- A state that parts from the others --------------------------------
 *
 * The loops run a phase from copies of state 0 only while every state
 * holds the same bytes.  One work-item (`odd`) changes one word of a
 * four-word state in the second phase: if the states were taken for
 * equal, the third phase would start that work-item from state 0 and lose
 * its change.  The float word differs only in its sign bit (-0.0 == 0.0
 * as floats, not as bytes). */
typedef struct part_args {
  uint32_t *out; /* four words per work-item */
  size_t odd;    /* the work-item that changes a word */
  int word;      /* which: 0-2 the ints, 3 the float */
} part_args;

typedef struct part_state {
  uint32_t w[3];
  float f;
} part_state;

FPAR_PHASE_KERNEL(phase_part, it, p, part_state, st) {
  const part_args *a = p;
  size_t lid = fpar_local_linear_id(it), g = fpar_global_linear_id(it);

  FPAR_PHASE_BEGIN();
  st->w[0] = st->w[1] = st->w[2] = 5;
  st->f = 0.0f;
  FPAR_PHASE_BARRIER();
  if (lid == a->odd) {
    if (a->word < 3)
      st->w[a->word] += 1000;
    else
      st->f = -0.0f;
  }
  FPAR_PHASE_BARRIER();
  st->w[0] += 1;
  FPAR_PHASE_BARRIER();
  memcpy(&a->out[4 * g], st, sizeof *st);
  FPAR_PHASE_END();
}

START_TEST(test_states_part) {
  /* Groups of 19: a chunk of 16 work-items and 3 after it; the odd one
   * first, inside the chunk and after it. */
  static const size_t odds[] = {0, 5, 17};
  const size_t L = 19, n = 2 * L;
  fpar_test_env e;
  uint32_t out[4 * 2 * 19];

  fpar_test_env_init(&e, 0);
  for (int m = 0; m < NUM_MODES; m++)
    for (size_t o = 0; o < sizeof odds / sizeof *odds; o++)
      for (int word = 0; word < 4; word++) {
        part_args a = {out, odds[o], word};
        run_ok(&e, &phase_part, fpar_range1(n), fpar_range1(L), &a, modes[m],
               NULL, 0);
        for (size_t i = 0; i < n; i++) {
          int odd = i % L == odds[o];
          uint32_t want[4] = {6, 5, 5, 0};
          if (odd && word < 3)
            want[word] += 1000;
          if (odd && word == 3)
            want[3] = 0x80000000u;
          ck_assert_msg(memcmp(&out[4 * i], want, sizeof want) == 0,
                        "%s, odd work-item %zu, word %d: work-item %zu has "
                        "%u %u %u %08x",
                        mode_names[m], odds[o], word, i, out[4 * i],
                        out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]);
        }
      }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Word-sized states that part ----------------------------------------
 *
 * The runners note themselves whether states of 4 or 8 bytes ended a
 * phase equal (after the stops), instead of the library comparing them.
 * The same parting as above with such states: one work-item changes its
 * state in the second phase (a low word and, for the 8-byte state, the
 * top bit of the high one); taken for equal, the third phase would start
 * it from state 0.  In groups of 19 (one chunk of 16 and 3 after it), in
 * 2-D groups whose odd work-item is in the last row, and where the last
 * group is 14 work-items wide. */
typedef struct word_part_args {
  uint64_t *out;
  size_t odd;    /* the local linear id that changes its state */
  uint64_t bump; /* what it adds */
} word_part_args;

typedef struct word32_state {
  uint32_t v;
} word32_state;

typedef struct word64_state {
  uint64_t v;
} word64_state;

#define WORD_PART_KERNEL(name, state_type)                                     \
  FPAR_PHASE_KERNEL(name, it, p, state_type, st) {                             \
    const word_part_args *a = p;                                               \
    size_t lid = fpar_local_linear_id(it);                                     \
                                                                               \
    FPAR_PHASE_BEGIN();                                                        \
    st->v = 5;                                                                 \
    FPAR_PHASE_BARRIER();                                                      \
    if (lid == a->odd)                                                         \
      st->v += a->bump;                                                        \
    FPAR_PHASE_BARRIER();                                                      \
    st->v += 1;                                                                \
    FPAR_PHASE_BARRIER();                                                      \
    a->out[fpar_global_linear_id(it)] = st->v;                                 \
    FPAR_PHASE_END();                                                          \
  }
WORD_PART_KERNEL(phase_part32, word32_state)
WORD_PART_KERNEL(phase_part64, word64_state)

START_TEST(test_word_states_part) {
  static const size_t odds[] = {0, 5, 13, 17, 40};
  static const launch_shape shapes[] = {
      {{1, {38, 1, 1}}, {1, {19, 1, 1}}},
      {{2, {38, 3, 1}}, {2, {19, 3, 1}}},
      {{1, {33, 1, 1}}, {1, {19, 1, 1}}},
  };
  const fpar_kernel *kernels[2] = {&phase_part32, &phase_part64};
  const uint64_t bumps[2] = {1000, 1000 + (1ull << 63)};
  uint64_t out[38 * 3];
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  for (int m = 0; m < NUM_MODES; m++)
    for (int k = 0; k < 2; k++)
      for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (size_t o = 0; o < sizeof odds / sizeof *odds; o++) {
          const fpar_range *g = &shapes[sh].global, *l = &shapes[sh].local;
          size_t gx = g->size[0], lx = l->size[0], n = gx * g->size[1];
          word_part_args a = {out, odds[o], k ? bumps[1] : bumps[0]};

          if (odds[o] >= lx * l->size[1])
            continue;
          run_ok(&e, kernels[k], *g, *l, &a, modes[m], NULL, 0);
          for (size_t i = 0; i < n; i++) {
            /* Work-item i: column x of row y, in the group starting at
             * column x - x % lx (the last may be narrower). */
            size_t x = i % gx, y = i / gx;
            size_t width = gx - x / lx * lx < lx ? gx - x / lx * lx : lx;
            size_t lid = x % lx + y % l->size[1] * width;
            uint64_t want = lid == odds[o] ? 6 + a.bump : 6;
            if (!k)
              want = (uint32_t)want;
            ck_assert_msg(out[i] == want,
                          "%s, %s, shape %zu, odd work-item %zu: work-item "
                          "%zu has %llu, not %llu",
                          mode_names[m], kernels[k]->name, sh, odds[o], i,
                          (unsigned long long)out[i], (unsigned long long)want);
          }
        }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Divergence --------------------------------------------------------- */

typedef struct count_state {
  size_t i;
} count_state;

/* Work-item 1 returns before the barrier the others wait at. */
FPAR_PHASE_KERNEL(phase_returns_early, it, p, count_state, st) {
  (void)p;
  FPAR_PHASE_BEGIN();
  if (fpar_local_id(it, 0) == 1)
    FPAR_PHASE_RETURN();
  FPAR_PHASE_BARRIER();
  FPAR_PHASE_END();
}

/* Odd work-items wait at one barrier, even ones at another. */
FPAR_PHASE_KERNEL(phase_two_barriers, it, p, count_state, st) {
  (void)p;
  FPAR_PHASE_BEGIN();
  if (fpar_local_id(it, 0) % 2) {
    FPAR_PHASE_BARRIER();
  } else {
    FPAR_PHASE_BARRIER();
  }
  FPAR_PHASE_END();
}

/* A barrier in a loop whose trip count is the local id. */
FPAR_PHASE_KERNEL(phase_uneven_loop, it, p, count_state, st) {
  (void)p;
  FPAR_PHASE_BEGIN();
  for (st->i = 0; st->i < fpar_local_id(it, 0); st->i++)
    FPAR_PHASE_BARRIER();
  FPAR_PHASE_END();
}

/* A barrier-free kernel to show the runtime is still usable. */
FPAR_KERNEL(write_ids, it, p) {
  ((size_t *)p)[fpar_global_linear_id(it)] = fpar_global_linear_id(it);
}

static void check_usable(fpar_test_env *e) {
  size_t ids[64];
  fpar_event *ev;

  ck_assert_fpar_ok(fpar_parallel_for_kernel(
      e->q, fpar_range1(64), fpar_range1(16), &write_ids, ids, &ev));
  fpar_test_wait_ok(ev);
  for (size_t i = 0; i < 64; i++)
    ck_assert_uint_eq(ids[i], i);
}

static const struct {
  const fpar_kernel *k;
  int code;
  const char *what;
} divergent[] = {
    {&phase_returns_early, FPAR_EDIVERGENCE, "work-item 1 returned"},
    {&phase_two_barriers, FPAR_EBARRIER, "work-item 1 waits at the barrier"},
    {&phase_uneven_loop, FPAR_EDIVERGENCE, "work-item 1 "},
};

START_TEST(test_divergence_reported) {
  fpar_test_env e;

  fpar_test_env_init(&e, 1);
  for (int m = 0; m < NUM_MODES; m++) {
    const fpar_kernel *k = divergent[_i].k;
    char name[96];
    fpar_event *ev;
    ck_assert_fpar_ok(submit(&e, k, fpar_range1(32), fpar_range1(8), NULL,
                             modes[m], NULL, 0, &ev));
    snprintf(name, sizeof name, "kernel '%s', work-group (0,0,0)", k->name);
    /* Loops name the barrier by the kernel's file, fibers by the macro's
     * site string: both "test_phase.c:<line>". */
    fpar_test_wait_fault(ev, divergent[_i].code, divergent[_i].what,
                         "test_phase.c:");
    ck_assert_fpar_ok(submit(&e, k, fpar_range1(32), fpar_range1(8), NULL,
                             modes[m], NULL, 0, &ev));
    fpar_test_wait_fault(ev, divergent[_i].code, name, NULL);
    check_usable(&e);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* The loop runner's message is the fibers' message, word for word, when
 * fibers meet at a rendezvous (here: different barriers). */
START_TEST(test_divergence_same_words) {
  fpar_test_env e;
  char msg[2][512];

  fpar_test_env_init(&e, 1);
  for (int m = 0; m < 3; m += 2) {
    fpar_event *ev;
    ck_assert_fpar_ok(submit(&e, &phase_two_barriers, fpar_range1(8),
                             fpar_range1(8), NULL, modes[m], NULL, 0, &ev));
    ck_assert_int_eq(fpar_event_wait(ev), FPAR_EBARRIER);
    snprintf(msg[m / 2], sizeof msg[0], "%s", fpar_event_error(ev));
    fpar_event_release(ev);
  }
  ck_assert_str_eq(msg[0], msg[1]);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Misuse ------------------------------------------------------------- */

/* fpar_barrier() instead of FPAR_PHASE_BARRIER(). */
FPAR_PHASE_KERNEL(phase_real_barrier, it, p, char, st) {
  int *ran = p;
  FPAR_PHASE_BEGIN();
  fpar_barrier(it);
  ran[fpar_global_linear_id(it)] = 1;
  FPAR_PHASE_END();
}

START_TEST(test_fpar_barrier_in_phase_kernel) {
  fpar_test_env e;
  int ran[16] = {0};
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(submit(&e, &phase_real_barrier, fpar_range1(16),
                           fpar_range1(8), ran, FPAR_PHASE_LOOPS, NULL, 0,
                           &ev));
  fpar_test_wait_fault(ev, FPAR_EINVAL, "called fpar_barrier() at",
                       "FPAR_PHASE_BARRIER()");
  /* On fibers fpar_barrier() is a real barrier. */
  run_ok(&e, &phase_real_barrier, fpar_range1(16), fpar_range1(8), ran,
         FPAR_PHASE_FIBERS, NULL, 0);
  for (int i = 0; i < 16; i++)
    ck_assert_int_eq(ran[i], 1);
  check_usable(&e);
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_bad_descriptions) {
  fpar_test_env e;
  fpar_launch_desc d;
  size_t ids[8];

  fpar_test_env_init(&e, 1);
  fpar_launch_desc_init(&d);
  d.def = &phase_reduce;
  d.global = fpar_range1(8);
  d.phase_mode = (fpar_phase_mode)7;
  ck_assert_fpar_err(fpar_launch(e.q, &d, NULL), FPAR_EINVAL);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), "phase_mode 7"));

  d.phase_mode = FPAR_PHASE_LOOPS;
  d.def = &write_ids;
  d.name = "plain";
  ck_assert_fpar_err(fpar_launch(e.q, &d, NULL), FPAR_EINVAL);
  ck_assert_str_eq(fpar_last_error(), "launch 'plain' sets phase_mode but its "
                                      "kernel is not a phase kernel "
                                      "(FPAR_PHASE_KERNEL)");

  d.phase_mode = FPAR_PHASE_DEFAULT;
  d.kernel = write_ids.fn;
  ck_assert_fpar_err(fpar_launch(e.q, &d, NULL), FPAR_EINVAL);
  ck_assert_str_eq(fpar_last_error(), "launch 'plain' sets def and also "
                                      "kernel, row, lanes, scoped or "
                                      "hierarchical");

  ck_assert_fpar_err(fpar_parallel_for_kernel(e.q, fpar_range1(8),
                                              FPAR_LOCAL_AUTO, NULL, ids, NULL),
                     FPAR_ENULLKERNEL);
  fpar_test_env_fini(&e);
}
END_TEST

/* FIBERPAR_PHASE picks the mode of launches that leave phase_mode at its
 * default: fpar_barrier() inside a phase kernel tells which ran. */
START_TEST(test_environment_mode) {
  fpar_test_env e;
  int ran[8];
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  setenv("FIBERPAR_PHASE", "fibers", 1);
  run_ok(&e, &phase_real_barrier, fpar_range1(8), fpar_range1(8), ran,
         FPAR_PHASE_DEFAULT, NULL, 0);
  setenv("FIBERPAR_PHASE", "Loops", 1);
  ck_assert_fpar_ok(submit(&e, &phase_real_barrier, fpar_range1(8),
                           fpar_range1(8), ran, FPAR_PHASE_DEFAULT, NULL, 0,
                           &ev));
  fpar_test_wait_fault(ev, FPAR_EINVAL, "FPAR_PHASE_BARRIER()", NULL);
  /* An explicit mode wins over the environment. */
  run_ok(&e, &phase_real_barrier, fpar_range1(8), fpar_range1(8), ran,
         FPAR_PHASE_FIBERS, NULL, 0);
  setenv("FIBERPAR_PHASE", "sideways", 1);
  ck_assert_fpar_err(submit(&e, &phase_real_barrier, fpar_range1(8),
                            fpar_range1(8), ran, FPAR_PHASE_DEFAULT, NULL, 0,
                            &ev),
                     FPAR_EENV);
  ck_assert_str_eq(fpar_last_error(),
                   "FIBERPAR_PHASE=\"sideways\": expected loops, fibers, "
                   "debug, loops-fused, loops-split or loops-scalar");
  /* Each form of the loops runs as loops. */
  for (int f = 0; f < 3; f++) {
    static const char *const form[] = {"LOOPS-FUSED", "loops-split",
                                       "loops-scalar"};

    setenv("FIBERPAR_PHASE", form[f], 1);
    ck_assert_fpar_ok(submit(&e, &phase_real_barrier, fpar_range1(8),
                             fpar_range1(8), ran, FPAR_PHASE_DEFAULT, NULL, 0,
                             &ev));
    fpar_test_wait_fault(ev, FPAR_EINVAL, "FPAR_PHASE_BARRIER()", NULL);
  }
  unsetenv("FIBERPAR_PHASE");
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- What debug mode exposes -------------------------------------------- */

/* A race: each work-item reads its right neighbour's slot in the phase
 * that writes it.  Loops and fibers both run work-items in order, so the
 * neighbour has not written yet; debug runs them in reverse. */
FPAR_PHASE_KERNEL(phase_race, it, p, char, st) {
  uint32_t *out = p;
  size_t n = fpar_local_range(it, 0), lid = fpar_local_id(it, 0);
  uint32_t *lm = fpar_group_local_memory(it, n * 4, 0);

  FPAR_PHASE_BEGIN();
  lm[lid] = (uint32_t)lid + 1;
  out[fpar_global_id(it, 0)] = lm[(lid + 1) % n];
  FPAR_PHASE_END();
}

/* A state field read before any phase wrote it. */
typedef struct unset_state {
  uint32_t never_written;
} unset_state;

FPAR_PHASE_KERNEL(phase_unset_state, it, p, unset_state, st) {
  uint32_t *out = p;

  FPAR_PHASE_BEGIN();
  FPAR_PHASE_BARRIER();
  out[fpar_global_id(it, 0)] = st->never_written;
  FPAR_PHASE_END();
}

START_TEST(test_debug_exposes_mistakes) {
  fpar_test_env e;
  const size_t L = 16;
  uint32_t out[NUM_MODES][16];

  fpar_test_env_init(&e, 1);
  for (int m = 0; m < NUM_MODES; m++)
    run_ok(&e, &phase_race, fpar_range1(L), fpar_range1(L), out[m], modes[m],
           NULL, 0);
  ck_assert_int_eq(memcmp(out[0], out[2], sizeof out[0]), 0);
  ck_assert_uint_eq(out[0][0], 0);     /* not written yet */
  ck_assert_uint_eq(out[1][0], 2);     /* written first in reverse */
  ck_assert_uint_eq(out[1][L - 1], 0); /* item 0 runs last in reverse */
  for (int m = 3; m < NUM_MODES; m++)  /* the forms of the loops */
    ck_assert_int_eq(memcmp(out[0], out[m], sizeof out[0]), 0);

  for (int m = 1; m < 3; m++) {
    run_ok(&e, &phase_unset_state, fpar_range1(L), fpar_range1(L), out[m],
           modes[m], NULL, 0);
    for (size_t i = 0; i < L; i++)
      ck_assert_uint_eq(out[m][i], 0xffffffffu);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Kernels with their runners (FPAR_KERNEL) --------------------------- */

typedef struct scale_args {
  const double *x;
  double *y;
  double a;
} scale_args;

FPAR_KERNEL(scale_kernel, it, p) {
  scale_args *s = p;
  size_t i = fpar_global_linear_id(it);

  s->y[i] = s->a * s->x[i] + (double)fpar_local_linear_id(it);
}

/* A kernel with an ordinary barrier through the same spelling. */
FPAR_KERNEL(rotate_kernel, it, p) {
  uint64_t *v = p;
  size_t n = fpar_local_range(it, 0), lid = fpar_local_id(it, 0);
  uint64_t *lm = fpar_group_local_memory(it, n * 8, 0);

  lm[lid] = v[fpar_global_id(it, 0)];
  fpar_barrier(it);
  v[fpar_global_id(it, 0)] = lm[(lid + 1) % n];
}

FPAR_KERNEL(bad_buffer_kernel, it, p) {
  (void)p;
  (void)fpar_local_buffer(it, 3);
}

START_TEST(test_kernel_spelling) {
  fpar_test_env e;
  static const fpar_range shapes[][2] = {
      {{1, {1000, 1, 1}}, {1, {40, 1, 1}}},
      {{2, {33, 7, 1}}, {2, {11, 7, 1}}},
      {{3, {10, 3, 6}}, {3, {5, 3, 2}}},
  };
  double x[1000], y[1000];
  uint64_t v[96], w[96];
  scale_args s = {x, y, 1.5};
  fpar_event *ev;

  fpar_test_env_init(&e, 0);
  for (size_t i = 0; i < 1000; i++)
    x[i] = (double)(test_value(i) % 4096);
  for (int k = 0; k < 3; k++) {
    const fpar_range *gr = &shapes[k][0], *lr = &shapes[k][1];
    size_t total = fpar_test_volume(gr->size);
    memset(y, 0, sizeof y);
    ck_assert_fpar_ok(
        fpar_parallel_for_kernel(e.q, *gr, *lr, &scale_kernel, &s, &ev));
    fpar_test_wait_ok(ev);
    for (size_t i = 0; i < total; i++) {
      size_t id[3], local[3];
      fpar_test_id_of(i, gr->size, id);
      for (unsigned d = 0; d < 3; d++)
        local[d] = id[d] % lr->size[d];
      ck_assert_msg(y[i] ==
                        1.5 * x[i] + (double)fpar_test_linear(local, lr->size),
                    "shape %d: y[%zu] wrong", k, i);
    }
  }
  for (size_t i = 0; i < 96; i++)
    v[i] = w[i] = test_value(i);
  ck_assert_fpar_ok(fpar_parallel_for_kernel(
      e.q, fpar_range1(96), fpar_range1(24), &rotate_kernel, v, &ev));
  fpar_test_wait_ok(ev);
  for (size_t i = 0; i < 96; i++)
    ck_assert_uint_eq(v[i], w[i / 24 * 24 + (i + 1) % 24]);
  ck_assert_fpar_ok(fpar_parallel_for_kernel(
      e.q, fpar_range1(8), fpar_range1(8), &bad_buffer_kernel, NULL, &ev));
  fpar_test_wait_fault(ev, FPAR_ELOCALBUF, "kernel 'bad_buffer_kernel'",
                       "work-item 0 asked for local buffer 3 but the launch "
                       "has 0");
  fpar_test_env_fini(&e);
}
END_TEST

/* The automatic group size of a barrier-free FPAR_KERNEL: every work-item
 * still runs exactly once. */
START_TEST(test_kernel_spelling_auto_size) {
  fpar_test_env e;
  size_t n = 100003, *ids = malloc(n * sizeof *ids);
  fpar_event *ev;

  fpar_test_env_init(&e, 0);
  ck_assert_fpar_ok(fpar_parallel_for_kernel(
      e.q, fpar_range1(n), FPAR_LOCAL_AUTO, &write_ids, ids, &ev));
  fpar_test_wait_ok(ev);
  for (size_t i = 0; i < n; i++)
    ck_assert_uint_eq(ids[i], i);
  free(ids);
  fpar_test_env_fini(&e);
}
END_TEST

/* Kernels with no state: a rotation of each group's values through the
 * local struct (the values cross the barrier in local memory, the ids are
 * recomputed by the prologue), and a copy with no local memory at all. */
typedef struct rotate_local {
  uint64_t v[64];
} rotate_local;

FPAR_PHASE_KERNEL_LOCAL_STATELESS(phase_rotate_stateless, it, p, rotate_local,
                                  lm) {
  uint64_t *v = p;
  const size_t lid = fpar_local_linear_id(it);
  const size_t n = fpar_local_range(it, 0) * fpar_local_range(it, 1);
  const size_t g = fpar_global_linear_id(it);

  FPAR_PHASE_BEGIN();
  lm->v[lid] = v[g];
  FPAR_PHASE_BARRIER();
  v[g] = lm->v[(lid + 1) % n];
  FPAR_PHASE_END();
}

FPAR_PHASE_KERNEL_STATELESS(phase_copy_stateless, it, p) {
  uint64_t *v = p;
  const size_t g = fpar_global_linear_id(it);

  FPAR_PHASE_BEGIN();
  v[g + 96] = v[g] ^ 1;
  FPAR_PHASE_BARRIER();
  v[g] = v[g + 96] + 1;
  FPAR_PHASE_END();
}

START_TEST(test_stateless) {
  fpar_test_env e;
  uint64_t v[192], want[96];

  fpar_test_env_init(&e, 0);
  for (int m = 0; m < NUM_MODES; m++) {
    for (size_t i = 0; i < 96; i++)
      v[i] = test_value(i);
    /* Groups of 8 x 3 on a 16 x 6 range: rows of the group are rows of
     * the range, so the group's linear id is not the global one. */
    run_ok(&e, &phase_rotate_stateless, fpar_range2(16, 6), fpar_range2(8, 3),
           v, modes[m], NULL, 0);
    for (size_t y = 0; y < 6; y++)
      for (size_t x = 0; x < 16; x++) {
        size_t gx = x / 8 * 8, gy = y / 3 * 3;
        size_t lid = (y - gy) * 8 + (x - gx), next = (lid + 1) % 24;
        size_t from = (gy + next / 8) * 16 + gx + next % 8;
        want[y * 16 + x] = test_value(from);
      }
    for (size_t i = 0; i < 96; i++)
      ck_assert_msg(v[i] == want[i], "mode %d: rotated value %zu wrong", m, i);
    run_ok(&e, &phase_copy_stateless, fpar_range1(96), fpar_range1(32), v,
           modes[m], NULL, 0);
    for (size_t i = 0; i < 96; i++)
      ck_assert_uint_eq(v[i], (want[i] ^ 1) + 1);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* The worker's state memory grows: a small state and group, then a large
 * one, then small again, on one worker. */
typedef struct big_state {
  uint64_t words[64];
} big_state;

FPAR_PHASE_KERNEL(phase_big_state, it, p, big_state, st) {
  uint64_t *out = p;
  size_t g = fpar_global_id(it, 0);

  FPAR_PHASE_BEGIN();
  for (int k = 0; k < 64; k++)
    st->words[k] = test_value(g * 64 + (size_t)k);
  FPAR_PHASE_BARRIER();
  out[g] = 0;
  for (int k = 0; k < 64; k++)
    out[g] ^= st->words[k];
  FPAR_PHASE_END();
}

START_TEST(test_state_memory_grows) {
  fpar_test_env e;
  static const size_t sizes[] = {4, 2048, 16};
  uint64_t *out = malloc(4096 * 8);

  fpar_test_env_init(&e, 1);
  for (int k = 0; k < 3; k++) {
    size_t n = 2 * sizes[k];
    run_ok(&e, &phase_big_state, fpar_range1(n), fpar_range1(sizes[k]), out,
           FPAR_PHASE_LOOPS, NULL, 0);
    for (size_t g = 0; g < n; g++) {
      uint64_t want = 0;
      for (size_t w = 0; w < 64; w++)
        want ^= test_value(g * 64 + w);
      ck_assert_uint_eq(out[g], want);
    }
  }
  free(out);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Arguments by value --------------------------------------------- */

/* Phase loops run on a private copy of arguments by value.  The kernel
 * reads its sizes from them in every phase, keeps a per-item value and a
 * uniform counter across nine barriers (resume indices above 7 take the
 * runner's generic path), and must give the same bits by value as by
 * pointer, in every mode. */
typedef struct byval_args {
  const uint64_t *in;
  uint64_t *out;
  uint32_t rounds, shift;
  uint64_t mul;
} byval_args;

typedef struct byval_state {
  uint64_t acc;
  uint32_t round;
} byval_state;

#define BYVAL_STEP()                                                           \
  FPAR_PHASE_BARRIER();                                                        \
  st->acc = st->acc * a->mul + (st->acc >> a->shift) + lid

FPAR_PHASE_KERNEL(phase_byval, it, p, byval_state, st) {
  const byval_args *a = p;
  const uint64_t lid = fpar_local_id(it, 0);

  FPAR_PHASE_BEGIN();
  st->acc = a->in[fpar_global_id(it, 0)];
  for (st->round = 0; st->round < a->rounds; st->round++) {
    BYVAL_STEP();
  }
  BYVAL_STEP();
  BYVAL_STEP();
  BYVAL_STEP();
  BYVAL_STEP();
  BYVAL_STEP();
  BYVAL_STEP();
  BYVAL_STEP();
  BYVAL_STEP();
  a->out[fpar_global_id(it, 0)] = st->acc;
  FPAR_PHASE_END();
}

#undef BYVAL_STEP

/* Submit phase_byval with its arguments built in this frame, which the
 * caller then overwrites: by value, the launch must not need them. */
static __attribute__((noinline)) void
byval_submit(fpar_test_env *e, const uint64_t *in, uint64_t *out, size_t n,
             fpar_phase_mode mode, fpar_event **ev) {
  byval_args a = {in, out, 3, 7, 0x9e3779b97f4a7c15u};
  fpar_launch_desc d;

  fpar_launch_desc_init(&d);
  d.def = &phase_byval;
  d.phase_mode = mode;
  d.args = &a;
  d.args_size = sizeof a;
  d.global = fpar_range1(n);
  d.local = fpar_range1(48);
  ck_assert_fpar_ok(fpar_launch(e->q, &d, ev));
  memset(&a, 0xa5, sizeof a);
  __asm__ volatile("" : : "r"(&a) : "memory");
}

START_TEST(test_by_value_args) {
  enum { n = 480 };
  uint64_t in[n], want[n], out[n];
  byval_args a = {in, want, 3, 7, 0x9e3779b97f4a7c15u};
  fpar_test_env e;

  fpar_test_env_init(&e, 0);
  for (size_t i = 0; i < n; i++)
    in[i] = test_value(i);
  /* The reference: the same arithmetic in plain C. */
  for (size_t i = 0; i < n; i++) {
    uint64_t acc = in[i], lid = i % 48;

    for (int k = 0; k < 3 + 8; k++)
      acc = acc * a.mul + (acc >> a.shift) + lid;
    want[i] = acc;
  }
  for (int m = 0; m < NUM_MODES; m++) {
    fpar_event *ev;

    memset(out, 0, sizeof out);
    byval_submit(&e, in, out, n, modes[m], &ev);
    fpar_test_wait_ok(ev);
    for (size_t i = 0; i < n; i++)
      ck_assert_msg(out[i] == want[i], "mode %d: work-item %zu by value", m, i);
    /* By pointer, the same bits. */
    memset(out, 0, sizeof out);
    a.out = out;
    run_ok(&e, &phase_byval, fpar_range1(n), fpar_range1(48), &a, modes[m],
           NULL, 0);
    a.out = want;
    for (size_t i = 0; i < n; i++)
      ck_assert_msg(out[i] == want[i], "mode %d: work-item %zu by pointer", m,
                    i);
  }
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *phase_suite(void) {
  Suite *s = suite_create("phase");
  TCase *tc = fpar_test_case("results");

  tcase_add_loop_test(tc, test_reduce_odd_sizes, 0,
                      sizeof reduce_sizes / sizeof *reduce_sizes);
  tcase_add_loop_test(tc, test_ids_3d, 0, sizeof id_shapes / sizeof *id_shapes);
  tcase_add_loop_test(tc, test_scan_local_buffer, 0,
                      sizeof scan_sizes / sizeof *scan_sizes);
  tcase_add_loop_test(tc, test_local_struct, 0,
                      sizeof hist_sizes / sizeof *hist_sizes);
  tcase_add_test(tc, test_forms_many_groups);
  tcase_add_test(tc, test_float_bits_agree);
  tcase_add_test(tc, test_states_part);
  tcase_add_test(tc, test_word_states_part);
  tcase_add_test(tc, test_state_memory_grows);
  tcase_add_test(tc, test_stateless);
  tcase_add_test(tc, test_by_value_args);
  suite_add_tcase(s, tc);
  tc = fpar_test_case("faults");
  tcase_add_loop_test(tc, test_divergence_reported, 0,
                      sizeof divergent / sizeof *divergent);
  tcase_add_test(tc, test_divergence_same_words);
  tcase_add_test(tc, test_fpar_barrier_in_phase_kernel);
  tcase_add_test(tc, test_bad_descriptions);
  tcase_add_test(tc, test_environment_mode);
  tcase_add_test(tc, test_debug_exposes_mistakes);
  suite_add_tcase(s, tc);
  tc = fpar_test_case("kernel spelling");
  tcase_add_test(tc, test_kernel_spelling);
  tcase_add_test(tc, test_kernel_spelling_auto_size);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(phase_suite());
}
