/* SPDX-License-Identifier: MIT */
/* arena.h - a worker's local memory: a bump allocator over one NUMA-local
 * mapping (page-aligned, so offsets and addresses align alike).  A group
 * allocates on top of the launch's mark and the whole group's memory is
 * released at once by going back to the mark. */
#ifndef FPAR_SCHED_GROUP_ARENA_H
#define FPAR_SCHED_GROUP_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct fpar__topo;

typedef struct fpar__arena {
  char *base;
  size_t size;
  size_t used;
} fpar__arena;

/* Map size bytes on worker w's NUMA node.  Returns 0 or FPAR_ENOMEM. */
int fpar__arena_init(fpar__arena *a, struct fpar__topo *topo, unsigned w,
                     size_t size);
void fpar__arena_destroy(fpar__arena *a);

/* Offsets of an object of size bytes aligned to align (a power of two up
 * to the page size, so that offset alignment is address alignment) placed
 * at level used: *start and *end.  Returns 0, or -1 when they overflow. */
static inline int fpar__arena_place(size_t used, size_t size, size_t align,
                                    size_t *start, size_t *end) {
  size_t s;

  if (__builtin_add_overflow(used, align - 1, &s))
    return -1;
  s &= ~(align - 1);
  if (__builtin_add_overflow(s, size, end))
    return -1;
  *start = s;
  return 0;
}

/* size bytes aligned to align (as for fpar__arena_place), or NULL if they
 * do not fit. */
static inline void *fpar__arena_alloc(fpar__arena *a, size_t size,
                                      size_t align) {
  size_t start, end;

  if (fpar__arena_place(a->used, size, align, &start, &end) != 0 ||
      end > a->size)
    return NULL;
  a->used = end;
  return a->base + start;
}

static inline size_t fpar__arena_mark(const fpar__arena *a) {
  return a->used;
}

static inline void fpar__arena_release(fpar__arena *a, size_t mark) {
  a->used = mark;
}

static inline size_t fpar__arena_free_bytes(const fpar__arena *a) {
  return a->size - a->used;
}

#endif
