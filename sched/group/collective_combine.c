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
  size_t wide_at = (n * 4 + 63) / 64 * 64; /* wraps only for n refused below */

  free(c->slots);
  c->slots = NULL;
  c->slot_items = 0;
  fpar__worker_slot_owns(w, FPAR__SLOT_COLLECTIVE, fpar__collective_free);
  if (n > SIZE_MAX / 16 ||
      (c->slots = aligned_alloc(64, wide_at + (n * 8 + 63) / 64 * 64)) == NULL)
    fpar__group_abort(w, FPAR_ENOMEM,
                      "no memory for the collective slots of %zu work-items",
                      n);
  c->wide_at = wide_at;
  c->slot_items = n;
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

/* Fold the slots s[from..to) into the running value, whose bits are in
 * *bits (a reduction's, any's or all's result so far, a scan's prefix):
 * the loop over the slots in local-id order, from slot `from` on; a scan
 * puts each work-item's result in its slot.  from 0 starts the running
 * value; a broadcast has none.  The values' arithmetic is value.h's,
 * shared with sub-group operations. */
#define FPAR__FOLD(T, t, LOWEST, HIGHEST)                                      \
  static void fpar__fold_##t(unsigned kind, T *s, size_t from, size_t to,      \
                             uint64_t *bits) {                                 \
    T acc = 0, x; /* 0: an exclusive sum's start, and any's */                 \
    size_t i = from;                                                           \
                                                                               \
    if (kind == FPAR_GROUP_BROADCAST)                                          \
      return;                                                                  \
    if (from != 0)                                                             \
      memcpy(&acc, bits, sizeof acc);                                          \
    else if (kind < FPAR_GROUP_SCAN_EXCLUSIVE_ADD)                             \
      acc = s[i++]; /* the reductions and the inclusive scans */               \
    else if (kind == FPAR_GROUP_SCAN_EXCLUSIVE_MIN)                            \
      acc = HIGHEST;                                                           \
    else if (kind == FPAR_GROUP_SCAN_EXCLUSIVE_MAX)                            \
      acc = LOWEST;                                                            \
    else if (kind == FPAR_GROUP_ALL)                                           \
      acc = 1;                                                                 \
    switch (kind) {                                                            \
    case FPAR_GROUP_REDUCE_ADD:                                                \
      for (; i < to; i++)                                                      \
        acc = fpar__add_##t(acc, s[i]);                                        \
      break;                                                                   \
    case FPAR_GROUP_REDUCE_MIN:                                                \
      for (; i < to; i++)                                                      \
        acc = fpar__min_##t(acc, s[i]);                                        \
      break;                                                                   \
    case FPAR_GROUP_REDUCE_MAX:                                                \
      for (; i < to; i++)                                                      \
        acc = fpar__max_##t(acc, s[i]);                                        \
      break;                                                                   \
    case FPAR_GROUP_SCAN_INCLUSIVE_ADD:                                        \
      for (; i < to; i++)                                                      \
        s[i] = acc = fpar__add_##t(acc, s[i]);                                 \
      break;                                                                   \
    case FPAR_GROUP_SCAN_INCLUSIVE_MIN:                                        \
      for (; i < to; i++)                                                      \
        s[i] = acc = fpar__min_##t(acc, s[i]);                                 \
      break;                                                                   \
    case FPAR_GROUP_SCAN_INCLUSIVE_MAX:                                        \
      for (; i < to; i++)                                                      \
        s[i] = acc = fpar__max_##t(acc, s[i]);                                 \
      break;                                                                   \
    case FPAR_GROUP_SCAN_EXCLUSIVE_ADD:                                        \
      for (; i < to; i++)                                                      \
        x = s[i], s[i] = acc, acc = fpar__add_##t(acc, x);                     \
      break;                                                                   \
    case FPAR_GROUP_SCAN_EXCLUSIVE_MIN:                                        \
      for (; i < to; i++)                                                      \
        x = s[i], s[i] = acc, acc = fpar__min_##t(acc, x);                     \
      break;                                                                   \
    case FPAR_GROUP_SCAN_EXCLUSIVE_MAX:                                        \
      for (; i < to; i++)                                                      \
        x = s[i], s[i] = acc, acc = fpar__max_##t(acc, x);                     \
      break;                                                                   \
    case FPAR_GROUP_ANY:                                                       \
      for (; i < to; i++)                                                      \
        acc = acc != 0 || s[i] != 0;                                           \
      break;                                                                   \
    case FPAR_GROUP_ALL:                                                       \
      for (; i < to; i++)                                                      \
        acc = acc != 0 && s[i] != 0;                                           \
      break;                                                                   \
    }                                                                          \
    memcpy(bits, &acc, sizeof acc);                                            \
  }

FPAR__FOLD(int32_t, i32, INT32_MIN, INT32_MAX)
FPAR__FOLD(uint32_t, u32, 0, UINT32_MAX)
FPAR__FOLD(int64_t, i64, INT64_MIN, INT64_MAX)
FPAR__FOLD(uint64_t, u64, 0, UINT64_MAX)
FPAR__FOLD(float, f32, -__builtin_inff(), __builtin_inff())
FPAR__FOLD(double, f64, -__builtin_inf(), __builtin_inf())

#define FPAR__FOLD_CASE(TYPE, T, t)                                            \
  case TYPE:                                                                   \
    fpar__fold_##t(kind, (T *)(void *)fpar__collective_slots(c, TYPE),         \
                   c->folded, to, &c->running);                                \
    break;

void fpar__collective_fold(fpar__worker *w, size_t to) {
  fpar__collective *c = fpar__collective_of(w);
  unsigned kind = fpar__collective_kind(c->op);

  switch (fpar__collective_type(c->op)) {
    FPAR__FOLD_CASE(FPAR_GROUP_I32, int32_t, i32)
    FPAR__FOLD_CASE(FPAR_GROUP_U32, uint32_t, u32)
    FPAR__FOLD_CASE(FPAR_GROUP_I64, int64_t, i64)
    FPAR__FOLD_CASE(FPAR_GROUP_U64, uint64_t, u64)
    FPAR__FOLD_CASE(FPAR_GROUP_F32, float, f32)
    FPAR__FOLD_CASE(FPAR_GROUP_F64, double, f64)
  }
  c->folded = to;
}

void fpar__collective_run(fpar__worker *w, const fpar_item *it) {
  fpar__collective *c = fpar__collective_of(w);
  size_t size = fpar__collective_type_size(fpar__collective_type(c->op));

  fpar__collective_fold(w, fpar__group_items(it));
  if (fpar__collective_kind(c->op) == FPAR_GROUP_BROADCAST)
    memcpy(&c->result,
           fpar__collective_slots(c, fpar__collective_type(c->op)) +
               c->src * size,
           size);
  else
    c->result = c->running;
  c->op = 0;
  c->folded = 0;
}
