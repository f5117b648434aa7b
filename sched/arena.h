/* arena.h - a worker's local memory: a bump allocator over one NUMA-local
 * mapping.  A group allocates on top of the launch's mark and the whole
 * group's memory is released at once by going back to the mark. */
#ifndef FPAR_SCHED_ARENA_H
#define FPAR_SCHED_ARENA_H

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

/* size bytes aligned to align (a power of two), or NULL if they do not
 * fit. */
static inline void *fpar__arena_alloc(fpar__arena *a, size_t size,
                                      size_t align) {
  uintptr_t p = ((uintptr_t)a->base + a->used + align - 1) & ~(align - 1);
  size_t end = (size_t)(p - (uintptr_t)a->base);

  if (end > a->size || size > a->size - end)
    return NULL;
  a->used = end + size;
  return (void *)p;
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
