/* SPDX-License-Identifier: MIT */
/* collectives_ref.h - what the collective suites share: the launch
 * shapes, the inputs, a plain C reference of every collective, and the
 * bit-for-bit comparison.
 *
 * The reference folds each group's values in local linear id order, one
 * after the other, as the library documents; integers wrap (the sums of
 * the inputs overflow), so the reference adds them as unsigned. */
#ifndef FPAR_COLLECTIVES_REF_H
#define FPAR_COLLECTIVES_REF_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* A launch: global and local range (3-D; unused dimensions 1). */
typedef struct coll_shape {
  unsigned dims;
  size_t g[3], l[3];
} coll_shape;

/* Group sizes 1, 7, 64, 100, 256, 1024, 3-D groups, several groups. */
static const coll_shape coll_shapes[] = {
    {1, {3, 1, 1}, {1, 1, 1}},     {1, {21, 1, 1}, {7, 1, 1}},
    {1, {192, 1, 1}, {64, 1, 1}},  {1, {300, 1, 1}, {100, 1, 1}},
    {1, {768, 1, 1}, {256, 1, 1}}, {1, {2048, 1, 1}, {1024, 1, 1}},
    {3, {10, 6, 4}, {5, 3, 2}},    {3, {16, 8, 4}, {8, 4, 2}},
    {2, {26, 6, 1}, {13, 3, 1}},
};
#define COLL_NSHAPES (sizeof coll_shapes / sizeof *coll_shapes)

/* The ten kinds a typed kernel computes, in output order. */
#define COLL_KINDS 10

static inline size_t coll_items(const coll_shape *s) {
  return s->g[0] * s->g[1] * s->g[2];
}
static inline size_t coll_group_items(const coll_shape *s) {
  return s->l[0] * s->l[1] * s->l[2];
}
/* The broadcast source of a shape: not 0, not the last. */
static inline size_t coll_src(const coll_shape *s) {
  return coll_group_items(s) * 3 / 5;
}
static inline fpar_range coll_range(unsigned dims, const size_t r[3]) {
  return dims == 1   ? fpar_range1(r[0])
         : dims == 2 ? fpar_range2(r[0], r[1])
                     : fpar_range3(r[0], r[1], r[2]);
}

/* Global linear ids of group `grp`'s work-items in local linear order. */
static inline void coll_group_members(const coll_shape *s, size_t grp,
                                      size_t *ids) {
  size_t nr[3], gid[3], lid[3], k, n = coll_group_items(s);

  for (k = 0; k < 3; k++)
    nr[k] = s->g[k] / s->l[k];
  fpar_test_id_of(grp, nr, gid);
  for (k = 0; k < n; k++) {
    size_t glob[3];
    fpar_test_id_of(k, s->l, lid);
    for (unsigned d = 0; d < 3; d++)
      glob[d] = gid[d] * s->l[d] + lid[d];
    ids[k] = fpar_test_linear(glob, s->g);
  }
}

static inline uint64_t coll_hash(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Inputs: integers over their whole range (sums overflow); floats of
 * mixed magnitudes and signs (so the order of additions shows). */
static inline void coll_fill_i32(int32_t *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = (int32_t)(uint32_t)coll_hash(i);
}
static inline void coll_fill_u32(uint32_t *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = (uint32_t)coll_hash(i + 7);
}
static inline void coll_fill_i64(int64_t *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = (int64_t)coll_hash(i + 11);
}
static inline void coll_fill_u64(uint64_t *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = coll_hash(i + 13);
}
static inline double coll_float_value(size_t i) {
  uint64_t h = coll_hash(i + 17);
  return ((double)(h % 20001) - 10000.0) / 7.0 * pow(10.0, (double)(h % 9) - 4);
}
static inline void coll_fill_f32(float *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = (float)coll_float_value(i);
}
static inline void coll_fill_f64(double *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = coll_float_value(i);
}

#define COLL_ADD_I(T, U, a, b) ((T)((U)(a) + (U)(b)))
#define COLL_ADD_F(T, U, a, b) ((a) + (b))
#define COLL_MIN_I(a, b) ((a) < (b) ? (a) : (b))
#define COLL_MAX_I(a, b) ((a) > (b) ? (a) : (b))

/* out[k * n + i]: the result of kind k + 1 for work-item i (global linear
 * id), over the n items of the launch. */
#define COLL_REFERENCE(T, U, t, ADD, MIN, MAX, LOWEST, HIGHEST)                \
  static inline void coll_ref_##t(const coll_shape *s, const T *in, T *out) {  \
    size_t n = coll_items(s), gn = coll_group_items(s), src = coll_src(s);     \
    size_t *ids = malloc(gn * sizeof *ids);                                    \
    for (size_t grp = 0; grp < n / gn; grp++) {                                \
      T sum, mn, mx, es = 0, emn = HIGHEST, emx = LOWEST;                      \
      coll_group_members(s, grp, ids);                                         \
      sum = mn = mx = in[ids[0]];                                              \
      for (size_t k = 1; k < gn; k++) {                                        \
        sum = ADD(T, U, sum, in[ids[k]]);                                      \
        mn = MIN(mn, in[ids[k]]);                                              \
        mx = MAX(mx, in[ids[k]]);                                              \
      }                                                                        \
      for (size_t k = 0; k < gn; k++) {                                        \
        size_t i = ids[k];                                                     \
        T x = in[i];                                                           \
        out[0 * n + i] = in[ids[src]];                                         \
        out[1 * n + i] = sum;                                                  \
        out[2 * n + i] = mn;                                                   \
        out[3 * n + i] = mx;                                                   \
        out[7 * n + i] = es;                                                   \
        out[8 * n + i] = emn;                                                  \
        out[9 * n + i] = emx;                                                  \
        es = ADD(T, U, es, x);                                                 \
        emn = k == 0 ? x : MIN(emn, x);                                        \
        emx = k == 0 ? x : MAX(emx, x);                                        \
        out[4 * n + i] = es;                                                   \
        out[5 * n + i] = emn;                                                  \
        out[6 * n + i] = emx;                                                  \
      }                                                                        \
    }                                                                          \
    free(ids);                                                                 \
  }

COLL_REFERENCE(int32_t, uint32_t, i32, COLL_ADD_I, COLL_MIN_I, COLL_MAX_I,
               INT32_MIN, INT32_MAX)
COLL_REFERENCE(uint32_t, uint32_t, u32, COLL_ADD_I, COLL_MIN_I, COLL_MAX_I, 0,
               UINT32_MAX)
COLL_REFERENCE(int64_t, uint64_t, i64, COLL_ADD_I, COLL_MIN_I, COLL_MAX_I,
               INT64_MIN, INT64_MAX)
COLL_REFERENCE(uint64_t, uint64_t, u64, COLL_ADD_I, COLL_MIN_I, COLL_MAX_I, 0,
               UINT64_MAX)
COLL_REFERENCE(float, float, f32, COLL_ADD_F, fminf, fmaxf, -INFINITY, INFINITY)
COLL_REFERENCE(double, double, f64, COLL_ADD_F, fmin, fmax, -INFINITY, INFINITY)

static const char *const coll_kind_names[COLL_KINDS] = {
    "broadcast",          "reduce_add",         "reduce_min",
    "reduce_max",         "scan_inclusive_add", "scan_inclusive_min",
    "scan_inclusive_max", "scan_exclusive_add", "scan_exclusive_min",
    "scan_exclusive_max"};

/* Results must equal the reference bit for bit. */
static inline void coll_compare(const void *got, const void *want, size_t size,
                                size_t n, const char *what) {
  for (size_t k = 0; k < COLL_KINDS; k++)
    for (size_t i = 0; i < n; i++) {
      const char *a = (const char *)got + (k * n + i) * size;
      const char *b = (const char *)want + (k * n + i) * size;
      ck_assert_msg(memcmp(a, b, size) == 0,
                    "%s: %s of work-item %zu differs from the reference", what,
                    coll_kind_names[k], i);
    }
}

/* The arguments of the typed kernels. */
typedef struct coll_args {
  const void *in;
  void *out; /* COLL_KINDS * n values */
  size_t n;  /* work-items of the launch */
  size_t src;
} coll_args;

#endif
