/* SPDX-License-Identifier: MIT */
/* arena.c - mapping a worker's local-memory arena (see arena.h). */
#include <sys/mman.h>

#include "fiberpar.h"
#include "sched/group/arena.h"
#include "sched/machine/topo.h"

int fpar__arena_init(fpar__arena *a, struct fpar__topo *topo, unsigned w,
                     size_t size) {
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

  if (p == MAP_FAILED)
    return FPAR_ENOMEM;
  fpar__topo_bind_area(topo, w, p, size);
  a->base = p;
  a->size = size;
  a->used = 0;
  return 0;
}

void fpar__arena_destroy(fpar__arena *a) {
  if (a->base != NULL)
    munmap(a->base, a->size);
  a->base = NULL;
  a->size = a->used = 0;
}
