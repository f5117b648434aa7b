/* SPDX-License-Identifier: MIT */
/* group_claim.c - the chunk words of the active launch (see
 * group_claim.h). */
#include <stdlib.h>

#include "sched/base/group_claim.h"

/* A take gets 1/FPAR__CLAIM_SHARE of what is left of a chunk, so that a
 * launch of many short groups costs one contended atomic per few groups,
 * not per group, while a chunk of fewer than 2 * FPAR__CLAIM_SHARE groups
 * is still taken one group at a time. */
#define FPAR__CLAIM_SHARE 8u

/* A word's count of positions taken once the chunk is used up, whatever
 * its length. */
#define FPAR__CLAIM_ALL UINT32_MAX

fpar__claim *fpar__claims_create(unsigned n) {
  fpar__claim *c = aligned_alloc(alignof(fpar__claim), n * sizeof *c);
  unsigned k;

  if (c == NULL)
    return NULL;
  for (k = 0; k < n; k++)
    atomic_init(&c[k].word, 0);
  return c;
}

void fpar__claims_destroy(fpar__claim *c) {
  free(c);
}

void fpar__claims_restamp(fpar__claim *c, unsigned n, uint64_t seq) {
  unsigned k;

  for (k = 0; k < n; k++)
    atomic_store_explicit(&c[k].word,
                          (uint64_t)(uint32_t)seq << 32 | FPAR__CLAIM_ALL,
                          memory_order_relaxed);
}

void fpar__claim_launch_init(fpar__claim_launch *cl, uint64_t seq,
                             size_t groups, unsigned n) {
  cl->seq = seq;
  cl->per_chunk = groups / n;
  cl->extra = groups % n;
}

size_t fpar__claim_take(fpar__claim *c, const fpar__claim_launch *cl,
                        unsigned k, size_t most, size_t *first) {
  uint64_t len = cl->per_chunk + (k < cl->extra);
  uint64_t start = cl->per_chunk * k + (k < cl->extra ? k : cl->extra);
  /* A position is `unit` groups, so that a chunk has fewer than 2^32. */
  uint64_t unit = (len >> 32) + 1;
  uint64_t units = unit == 1 ? len : (len + unit - 1) / unit;
  uint32_t tag = (uint32_t)cl->seq;
  atomic_uint_fast64_t *word = &c[k].word;
  uint64_t v, taken, t, end;

  if (len == 0)
    return 0;
  v = atomic_load_explicit(word, memory_order_relaxed);
  for (;;) {
    int32_t age = (int32_t)((uint32_t)(v >> 32) - tag);
    if (age > 0)
      return 0; /* a later launch took from it: seq is over */
    taken = age == 0 ? (uint32_t)v : 0;
    if (taken >= units)
      return 0;
    t = (units - taken) / FPAR__CLAIM_SHARE;
    t = t < 1 ? 1 : t > most ? most : t;
    if (atomic_compare_exchange_weak_explicit(
            word, &v, (uint64_t)tag << 32 | (taken + t), memory_order_relaxed,
            memory_order_relaxed))
      break;
  }
  end = (taken + t) * unit;
  *first = (size_t)(start + taken * unit);
  return (size_t)((end < len ? end : len) - taken * unit);
}
