/* SPDX-License-Identifier: MIT */
/* order.c - the permutations of FIBERPAR_SCHEDULE (see order.h).
 *
 * A shuffle must be a bijection of [0, n) for any n, cheap to evaluate at
 * one position, and different for every key and seed.  A four-round
 * Feistel network over 2h bits (2^2h >= n) is a bijection of [0, 4^h);
 * applying it again to a value that falls at or past n ("cycle walking")
 * keeps it one of [0, n), in fewer than four rounds on average since
 * 4^h < 4n. */
#include "sched/base/order.h"

/* splitmix64's finaliser: a good 64-bit mix. */
static uint64_t fpar__order_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static uint64_t fpar__order_feistel(uint64_t x, unsigned h, uint64_t k) {
  const uint64_t mask = (UINT64_C(1) << h) - 1;
  uint64_t l = x >> h, r = x & mask;
  unsigned round;

  for (round = 0; round < 4; round++) {
    uint64_t t =
        l ^ (fpar__order_mix(r ^ k ^ (round * 0x9e3779b97f4a7c15u)) & mask);
    l = r;
    r = t;
  }
  return l << h | r;
}

size_t fpar__order_at(const fpar__order *o, uint64_t key, size_t n,
                      size_t pos) {
  unsigned bits, h;
  uint64_t k, x = pos;

  if (n < 2 || o->kind == FPAR__ORDER_FORWARD)
    return pos;
  if (o->kind == FPAR__ORDER_REVERSE)
    return n - 1 - pos;
  bits = 64 - (unsigned)__builtin_clzll((unsigned long long)(n - 1));
  h = (bits + 1) / 2;
  k = fpar__order_mix(o->seed ^ fpar__order_mix(key));
  do
    x = fpar__order_feistel(x, h, k);
  while (x >= n);
  return (size_t)x;
}
