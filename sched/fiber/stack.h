/* SPDX-License-Identifier: MIT */
/* stack.h - a worker's pool of fiber stacks ("slots").
 *
 * Slot i is [guard | stack | colour slack].  The guard (FPAR__STACK_GUARD
 * bytes of address space, no memory) faults on any access, so a frame of up
 * to that size that does not fit stops there instead of writing into slot
 * i-1; bigger frames are stopped too when the kernel is compiled with
 * -fstack-clash-protection, which touches every page a frame allocates, in
 * order (fiberpar.pc asks for it).
 *
 * Slot i serves fiber i (the work-item with local linear id i, or the i-th
 * sub-group of a lane kernel), so a group's fibers find their stacks warm
 * from the previous group; slot 0 is the runner's.  The first frame of
 * slot i starts (i * 64) mod 2 KiB below the slot's top ("colouring"), so
 * the hot top-of-stack lines of different fibers fall into different cache
 * sets; the slack page above the stack pays for the colour, so every fiber
 * has the whole configured stack size below its first frame.
 *
 * Slots are mapped in slabs on demand, bound to the worker's NUMA node,
 * registered with Valgrind, and never zeroed after the kernel hands out the
 * pages.  A pool holds at most `limit` slots (fpar__stack_budget()); a
 * group with more fibers runs them on one shared slot (copystack.h).
 */
#ifndef FPAR_SCHED_FIBER_STACK_H
#define FPAR_SCHED_FIBER_STACK_H

#include <stddef.h>

struct fpar__topo;

/* Bytes of the guard below each stack. */
#define FPAR__STACK_GUARD ((size_t)1 << 20)

/* Fewest slots a worker needs: the runner, and in copy mode the shared
 * stack and the copier. */
#define FPAR__STACK_SLOTS_MIN ((size_t)3)

typedef struct fpar__stack_slab {
  char *base;   /* the guard of its first slot */
  size_t first; /* index of its first slot */
  size_t count; /* its slots */
  unsigned *valgrind_id;
} fpar__stack_slab;

typedef struct fpar__stack_pool {
  struct fpar__topo *topo;
  unsigned worker;   /* whose NUMA node the stacks live on */
  size_t stack_size; /* usable bytes below the first frame, page multiple */
  size_t span;       /* stack and colour slack: lo(i) .. lo(i) + span */
  size_t stride;     /* guard and span */
  int marks;         /* guards are page-table marks (see guard.h) */
  size_t count;      /* slots that exist */
  size_t limit;      /* most slots the pool may hold */
  char **lo;         /* lo[i]: lowest usable byte of slot i */
  size_t num_slabs, cap_slabs;
  fpar__stack_slab *slabs;
} fpar__stack_pool;

/* The most slots each of `workers` workers should hold: `want` (the
 * fibers of the largest group, and the runner), but where every guard
 * costs mappings at most an equal share of half the mappings the process
 * may still create, and never more than an address-space cap.  At least
 * FPAR__STACK_SLOTS_MIN. */
size_t fpar__stack_budget(unsigned workers, size_t want, int marks);

/* An empty pool of slots of stack_size usable bytes (rounded up to pages)
 * holding at most limit slots; marks: use page-table guard marks. */
void fpar__stack_pool_init(fpar__stack_pool *p, struct fpar__topo *topo,
                           unsigned worker, size_t stack_size, size_t limit,
                           int marks);
void fpar__stack_pool_destroy(fpar__stack_pool *p);

/* Make sure slots 0..n-1 exist.  Returns 0, or FPAR_ENOMEM when n is over
 * the pool's limit or the memory cannot be mapped (the pool is then as it
 * was). */
int fpar__stack_pool_reserve(fpar__stack_pool *p, size_t n);

/* Lowest usable byte of slot i. */
static inline char *fpar__stack_lo(const fpar__stack_pool *p, size_t i) {
  return p->lo[i];
}

/* Where the first frame of slot i starts: below the top by the colour,
 * (i * 64) mod 2 KiB, so frames of up to 2 KiB stay in the top page. */
static inline char *fpar__stack_hi(const fpar__stack_pool *p, size_t i) {
  return p->lo[i] + p->span - ((i * 64) & 2047);
}

/* Copy len bytes of saved frames to dst, on a slot of the pool, where a
 * fiber is to resume them.  Valgrind's memcheck holds the part of a stack
 * below the last stack pointer it saw there unaddressable, so the frames
 * of a deeper fiber put back on a shared slot (copystack.h) would be
 * written and read where it expects none: dst is made addressable first,
 * its definedness then copied with the bytes.  A plain memcpy outside
 * Valgrind. */
void fpar__stack_copy_in(char *dst, const char *src, size_t len);

/* If addr lies in slot i (its guard or its stack), store i in *slot and
 * whether addr is in the guard in *in_guard, and return 1; else return 0.
 * Async-signal-safe. */
int fpar__stack_pool_find(const fpar__stack_pool *p, const void *addr,
                          size_t *slot, int *in_guard);

#endif
