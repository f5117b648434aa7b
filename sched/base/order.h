/* SPDX-License-Identifier: MIT */
/* order.h - the order in which the work-items of a barrier interval, and
 * the groups of a launch, run (FIBERPAR_SCHEDULE): forward (as numbered,
 * the default), reverse, or shuffled by a seed.  A race-free kernel gives
 * the same bits in every order; a kernel whose result depends on the order
 * of its work-items (a forgotten barrier) gives another answer. */
#ifndef FPAR_SCHED_BASE_ORDER_H
#define FPAR_SCHED_BASE_ORDER_H

#include <stddef.h>
#include <stdint.h>

typedef enum fpar__order_kind {
  FPAR__ORDER_FORWARD = 0,
  FPAR__ORDER_REVERSE,
  FPAR__ORDER_SHUFFLE
} fpar__order_kind;

typedef struct fpar__order {
  fpar__order_kind kind;
  uint64_t seed; /* FPAR__ORDER_SHUFFLE */
} fpar__order;

/* The key of the order of a launch's groups; the work-items of a group
 * are ordered with the group's linear id as key, so each group has an
 * order of its own. */
#define FPAR__ORDER_GROUPS UINT64_MAX

/* Which of n things runs at position pos (0 <= pos < n) in order o, for
 * the set named by key: a bijection of [0, n), computed without a table. */
size_t fpar__order_at(const fpar__order *o, uint64_t key, size_t n, size_t pos);

static inline int fpar__order_is_forward(const fpar__order *o) {
  return o->kind == FPAR__ORDER_FORWARD;
}

#endif
