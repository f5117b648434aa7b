/* SPDX-License-Identifier: MIT */
/* group_claim.h - which work-groups of the active launch are still to be taken.
 *
 * A launch's groups are split into one contiguous chunk per worker, the
 * same split for every launch of the same size, so that a worker keeps
 * touching the same data; a worker takes groups from the front of its own
 * chunk, then from the others'.  Each chunk's progress is one word on a
 * cache line of its own that belongs to the scheduler, not to the launch:
 * the low half counts the positions taken from the chunk's front, the high
 * half names the launch they were taken in (the low half of its sequence
 * number).  A word that names an earlier launch counts 0 for the active
 * one, so starting a launch writes none of them, and a worker that takes
 * from its own chunk finds the line in its own cache; a word that names a
 * later launch says that the taker's launch is over.  Whoever takes a
 * group holds its launch open until it reports the group done: what the
 * taker reads of the launch's record after a successful take is that
 * launch's.
 *
 * Launch numbers are compared modulo 2^32: the scheduler restamps every
 * word once in FPAR__CLAIM_RESTAMP launches (fpar__claims_restamp), so that
 * no word falls 2^31 launches behind, and a taker is misled only if 2^31
 * launches start between its reading of the launch's number and its
 * compare-and-swap (the bound the launch pool's tag sets too).
 */
#ifndef FPAR_SCHED_BASE_GROUP_CLAIM_H
#define FPAR_SCHED_BASE_GROUP_CLAIM_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* One chunk's progress (see above). */
typedef struct fpar__claim {
  alignas(64) atomic_uint_fast64_t word;
} fpar__claim;

/* How often (in launches) fpar__claims_restamp must run. */
#define FPAR__CLAIM_RESTAMP ((uint64_t)1 << 20)

/* n chunk words that name no launch yet; NULL without memory. */
fpar__claim *fpar__claims_create(unsigned n);
void fpar__claims_destroy(fpar__claim *c);

/* Mark every chunk of launch `seq`, which has completed, as fully taken:
 * called before launch seq + 1 starts, once in FPAR__CLAIM_RESTAMP. */
void fpar__claims_restamp(fpar__claim *c, unsigned n, uint64_t seq);

/* A launch as its takers see it: its number and the split of its groups
 * into chunks, worked out once per taker (fpar__claim_launch_init) so that
 * a take divides nothing. */
typedef struct fpar__claim_launch {
  uint64_t seq;
  size_t per_chunk; /* chunk k has per_chunk + (k < extra) groups */
  size_t extra;
} fpar__claim_launch;

/* The split of launch `seq`, of `groups` groups, into n chunks. */
void fpar__claim_launch_init(fpar__claim_launch *cl, uint64_t seq,
                             size_t groups, unsigned n);

/* Take up to `most` groups from the front of chunk k of launch cl: a share
 * of what is left (all of a short chunk one group at a time).  Returns how
 * many, the first in *first; 0 when the chunk has none left or the launch
 * is over. */
size_t fpar__claim_take(fpar__claim *c, const fpar__claim_launch *cl,
                        unsigned k, size_t most, size_t *first);

#endif
