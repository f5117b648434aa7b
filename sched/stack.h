/* stack.h - a worker's pool of fiber stacks.
 *
 * Stacks are mmap'ed in slabs, each stack with a PROT_NONE guard page below
 * it, bound to the worker's NUMA node, registered with Valgrind, and never
 * zeroed after the kernel hands out the pages.  Stack i always serves the
 * work-item with local linear id i, so a group's fibers find their stacks
 * warm in the cache from the previous group.  The first frame of stack i
 * starts fpar__stack_colour(i) bytes below its top ("colouring"), so the hot
 * top-of-stack lines of different fibers fall into different cache sets
 * while every fiber still touches a single page.
 */
#ifndef FPAR_SCHED_STACK_H
#define FPAR_SCHED_STACK_H

#include <stddef.h>

struct fpar__topo;

#define FPAR__STACKS_PER_SLAB 64

typedef struct fpar__stack_slab {
  char *base; /* first guard page */
  unsigned valgrind_id[FPAR__STACKS_PER_SLAB];
} fpar__stack_slab;

typedef struct fpar__stack_pool {
  struct fpar__topo *topo;
  unsigned worker;   /* whose NUMA node the stacks live on */
  size_t stack_size; /* usable bytes, page multiple */
  size_t stride;     /* guard + stack */
  size_t count;      /* stacks that exist */
  size_t num_slabs, cap_slabs;
  fpar__stack_slab *slabs;
} fpar__stack_pool;

void fpar__stack_pool_init(fpar__stack_pool *p, struct fpar__topo *topo,
                           unsigned worker, size_t stack_size);
void fpar__stack_pool_destroy(fpar__stack_pool *p);

/* Make sure stacks 0..n-1 exist.  Returns 0 or FPAR_ENOMEM. */
int fpar__stack_pool_reserve(fpar__stack_pool *p, size_t n);

/* Lowest usable byte of stack i. */
static inline char *fpar__stack_lo(const fpar__stack_pool *p, size_t i) {
  const fpar__stack_slab *s = &p->slabs[i / FPAR__STACKS_PER_SLAB];
  size_t j = i % FPAR__STACKS_PER_SLAB;
  return s->base + j * p->stride + (p->stride - p->stack_size);
}

/* Where the first frame of stack i starts: below the top by the colour,
 * (i * 64) mod 2 KiB, so frames of up to 2 KiB stay in the top page. */
static inline char *fpar__stack_hi(const fpar__stack_pool *p, size_t i) {
  return fpar__stack_lo(p, i) + p->stack_size - ((i * 64) & 2047);
}

/* If addr lies in the guard page of one of the pool's stacks, store that
 * stack's index in *index and return 1; else return 0.  Async-signal-safe. */
int fpar__stack_pool_guard_hit(const fpar__stack_pool *p, const void *addr,
                               size_t *index);

#endif
