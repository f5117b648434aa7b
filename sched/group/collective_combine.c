/* SPDX-License-Identifier: MIT */
/* collective_combine.c - what the work-group collectives compute: their
 * names and the combining of the values deposited in the worker's slots,
 * in local linear id order (collective.c has the rest). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/group/abort.h"
#include "sched/group/collective_combine.h"
#include "sched/group/message.h"
#include "sched/group/value.h"

/* ---- The slots ----------------------------------------------------------- */

/* Free the slots (the worker's end). */
static void fpar__collective_free(void *state) {
  fpar__collective *c = state;

  free(c->slots);
}

void fpar__collective_grow(fpar__worker *w, size_t n) {
  fpar__collective *c = fpar__collective_of(w);

  free(c->slots);
  c->slots = NULL;
  c->slot_bytes = 0;
  fpar__worker_slot_owns(w, FPAR__SLOT_COLLECTIVE, fpar__collective_free);
  if ((c->slots = aligned_alloc(64, (n * 8 + 63) / 64 * 64)) == NULL)
    fpar__group_abort(w, FPAR_ENOMEM,
                      "no memory for the collective slots of %zu work-items",
                      n);
  c->slot_bytes = n * 8;
}

/* The rendezvous sites: the function each collective is, for scalar and
 * lane kernels.  A site is a collective's when it points into this
 * table. */
#define FPAR__NAMES(p, k)                                                      \
  {                                                                            \
    "fpar_group_" k "_" p "i32", "fpar_group_" k "_" p "u32",                  \
        "fpar_group_" k "_" p "i64", "fpar_group_" k "_" p "u64",              \
        "fpar_group_" k "_" p "f32", "fpar_group_" k "_" p "f64"               \
  }
#define FPAR__PREDICATE_NAMES(k)                                               \
  { k, k, k, k, k, k }
#define FPAR__ALL_NAMES(p, mask)                                               \
  {                                                                            \
    {""}, FPAR__NAMES(p, "broadcast"), FPAR__NAMES(p, "reduce_add"),           \
        FPAR__NAMES(p, "reduce_min"), FPAR__NAMES(p, "reduce_max"),            \
        FPAR__NAMES(p, "scan_inclusive_add"),                                  \
        FPAR__NAMES(p, "scan_inclusive_min"),                                  \
        FPAR__NAMES(p, "scan_inclusive_max"),                                  \
        FPAR__NAMES(p, "scan_exclusive_add"),                                  \
        FPAR__NAMES(p, "scan_exclusive_min"),                                  \
        FPAR__NAMES(p, "scan_exclusive_max"),                                  \
        FPAR__PREDICATE_NAMES("fpar_group_any" mask),                          \
        FPAR__PREDICATE_NAMES("fpar_group_all" mask)                           \
  }
static const char fpar__names[2][FPAR__COLLECTIVE_KINDS][FPAR__COLLECTIVE_TYPES]
                             [40] = {FPAR__ALL_NAMES("", ""),
                                     FPAR__ALL_NAMES("v", "_vmask")};

int fpar__site_is_collective(const char *site) {
  return (uintptr_t)site - (uintptr_t)fpar__names < sizeof fpar__names;
}

const char *fpar__site_what(char *buf, size_t len, const char *site) {
  if (site != NULL && fpar__site_is_collective(site))
    snprintf(buf, len, "the collective %s", site);
  else
    snprintf(buf, len, "the barrier at %s", fpar__site_name(site));
  return buf;
}

const char *fpar__collective_name(unsigned op) {
  return fpar__names[(op & FPAR_GROUP_LANE_FORM) != 0]
                    [fpar__collective_kind(op)][fpar__collective_type(op)];
}

/* ---- Combining, in local linear id order -------------------------------- */

/* The values' arithmetic is value.h's, shared with sub-group
 * operations. */
#define FPAR__COMBINE(T, t, LOWEST, HIGHEST)                                   \
  static T fpar__combine_##t(unsigned kind, T *s, size_t n, size_t src) {      \
    T acc = 0, x;                                                              \
    size_t i;                                                                  \
    switch (kind) {                                                            \
    case FPAR_GROUP_BROADCAST:                                                 \
      return s[src];                                                           \
    case FPAR_GROUP_REDUCE_ADD:                                                \
      for (acc = s[0], i = 1; i < n; i++)                                      \
        acc = fpar__add_##t(acc, s[i]);                                        \
      return acc;                                                              \
    case FPAR_GROUP_REDUCE_MIN:                                                \
      for (acc = s[0], i = 1; i < n; i++)                                      \
        acc = fpar__min_##t(acc, s[i]);                                        \
      return acc;                                                              \
    case FPAR_GROUP_REDUCE_MAX:                                                \
      for (acc = s[0], i = 1; i < n; i++)                                      \
        acc = fpar__max_##t(acc, s[i]);                                        \
      return acc;                                                              \
    case FPAR_GROUP_SCAN_INCLUSIVE_ADD:                                        \
      for (i = 1; i < n; i++)                                                  \
        s[i] = fpar__add_##t(s[i - 1], s[i]);                                  \
      return 0;                                                                \
    case FPAR_GROUP_SCAN_INCLUSIVE_MIN:                                        \
      for (i = 1; i < n; i++)                                                  \
        s[i] = fpar__min_##t(s[i - 1], s[i]);                                  \
      return 0;                                                                \
    case FPAR_GROUP_SCAN_INCLUSIVE_MAX:                                        \
      for (i = 1; i < n; i++)                                                  \
        s[i] = fpar__max_##t(s[i - 1], s[i]);                                  \
      return 0;                                                                \
    case FPAR_GROUP_SCAN_EXCLUSIVE_ADD:                                        \
      for (i = 0; i < n; i++)                                                  \
        x = s[i], s[i] = acc, acc = fpar__add_##t(acc, x);                     \
      return 0;                                                                \
    case FPAR_GROUP_SCAN_EXCLUSIVE_MIN:                                        \
      for (acc = HIGHEST, i = 0; i < n; i++)                                   \
        x = s[i], s[i] = acc, acc = fpar__min_##t(acc, x);                     \
      return 0;                                                                \
    case FPAR_GROUP_SCAN_EXCLUSIVE_MAX:                                        \
      for (acc = LOWEST, i = 0; i < n; i++)                                    \
        x = s[i], s[i] = acc, acc = fpar__max_##t(acc, x);                     \
      return 0;                                                                \
    case FPAR_GROUP_ANY:                                                       \
      for (i = 0; i < n; i++)                                                  \
        acc = acc != 0 || s[i] != 0;                                           \
      return acc;                                                              \
    case FPAR_GROUP_ALL:                                                       \
      for (acc = 1, i = 0; i < n; i++)                                         \
        acc = acc != 0 && s[i] != 0;                                           \
      return acc;                                                              \
    }                                                                          \
    return 0;                                                                  \
  }

FPAR__COMBINE(int32_t, i32, INT32_MIN, INT32_MAX)
FPAR__COMBINE(uint32_t, u32, 0, UINT32_MAX)
FPAR__COMBINE(int64_t, i64, INT64_MIN, INT64_MAX)
FPAR__COMBINE(uint64_t, u64, 0, UINT64_MAX)
FPAR__COMBINE(float, f32, -__builtin_inff(), __builtin_inff())
FPAR__COMBINE(double, f64, -__builtin_inf(), __builtin_inf())

#define FPAR__COMBINE_CASE(TYPE, T, t)                                         \
  case TYPE: {                                                                 \
    T r = fpar__combine_##t(kind, (T *)c->slots, n, c->src);                   \
    memcpy(&c->result, &r, sizeof r);                                          \
    break;                                                                     \
  }

void fpar__collective_run(fpar__worker *w, const fpar_item *it) {
  fpar__collective *c = fpar__collective_of(w);
  unsigned kind = fpar__collective_kind(c->op);
  size_t n = fpar__group_items(it);

  switch (fpar__collective_type(c->op)) {
    FPAR__COMBINE_CASE(FPAR_GROUP_I32, int32_t, i32)
    FPAR__COMBINE_CASE(FPAR_GROUP_U32, uint32_t, u32)
    FPAR__COMBINE_CASE(FPAR_GROUP_I64, int64_t, i64)
    FPAR__COMBINE_CASE(FPAR_GROUP_U64, uint64_t, u64)
    FPAR__COMBINE_CASE(FPAR_GROUP_F32, float, f32)
    FPAR__COMBINE_CASE(FPAR_GROUP_F64, double, f64)
  }
  c->op = 0;
}
