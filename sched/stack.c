/* stack.c - fiber stack slabs with guard pages (see stack.h). */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "fiberpar.h"
#include "sched/stack.h"
#include "sched/topo.h"

#ifdef HAVE_VALGRIND_VALGRIND_H
#include <valgrind/valgrind.h>
#define FPAR__STACK_REGISTER(lo, hi) VALGRIND_STACK_REGISTER(lo, hi)
#define FPAR__STACK_DEREGISTER(id) VALGRIND_STACK_DEREGISTER(id)
#else
#define FPAR__STACK_REGISTER(lo, hi) 0u
#define FPAR__STACK_DEREGISTER(id) ((void)(id))
#endif

static size_t fpar__page_size(void) {
  return (size_t)sysconf(_SC_PAGESIZE);
}

void fpar__stack_pool_init(fpar__stack_pool *p, struct fpar__topo *topo,
                           unsigned worker, size_t stack_size) {
  size_t page = fpar__page_size();

  p->topo = topo;
  p->worker = worker;
  p->stack_size = (stack_size + page - 1) / page * page;
  p->stride = p->stack_size + page;
  p->count = 0;
  p->num_slabs = 0;
  p->cap_slabs = 0;
  p->slabs = NULL;
}

static int fpar__stack_pool_add_slab(fpar__stack_pool *p) {
  size_t len = p->stride * FPAR__STACKS_PER_SLAB;
  size_t guard = p->stride - p->stack_size;
  fpar__stack_slab *s;
  char *base;
  unsigned j;

  if (p->num_slabs == p->cap_slabs) {
    size_t cap = p->cap_slabs ? 2 * p->cap_slabs : 4;
    fpar__stack_slab *n = realloc(p->slabs, cap * sizeof *n);
    if (n == NULL)
      return FPAR_ENOMEM;
    p->slabs = n;
    p->cap_slabs = cap;
  }
  base = mmap(NULL, len, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (base == MAP_FAILED)
    return FPAR_ENOMEM;
  fpar__topo_bind_area(p->topo, p->worker, base, len);
  s = &p->slabs[p->num_slabs];
  s->base = base;
  for (j = 0; j < FPAR__STACKS_PER_SLAB; j++) {
    char *g = base + j * p->stride;
    if (mprotect(g, guard, PROT_NONE) != 0) {
      munmap(base, len);
      return FPAR_ENOMEM;
    }
    s->valgrind_id[j] = FPAR__STACK_REGISTER(g + guard, g + p->stride);
  }
  p->num_slabs++;
  p->count += FPAR__STACKS_PER_SLAB;
  return 0;
}

int fpar__stack_pool_reserve(fpar__stack_pool *p, size_t n) {
  while (p->count < n) {
    int err = fpar__stack_pool_add_slab(p);
    if (err)
      return err;
  }
  return 0;
}

void fpar__stack_pool_destroy(fpar__stack_pool *p) {
  size_t i;
  unsigned j;

  for (i = 0; i < p->num_slabs; i++) {
    for (j = 0; j < FPAR__STACKS_PER_SLAB; j++)
      FPAR__STACK_DEREGISTER(p->slabs[i].valgrind_id[j]);
    munmap(p->slabs[i].base, p->stride * FPAR__STACKS_PER_SLAB);
  }
  free(p->slabs);
  p->slabs = NULL;
  p->num_slabs = p->cap_slabs = p->count = 0;
}

int fpar__stack_pool_guard_hit(const fpar__stack_pool *p, const void *addr,
                               size_t *index) {
  size_t guard = p->stride - p->stack_size;
  size_t i;

  for (i = 0; i < p->num_slabs; i++) {
    const char *base = p->slabs[i].base;
    const char *a = addr;
    if (a >= base && a < base + p->stride * FPAR__STACKS_PER_SLAB) {
      size_t off = (size_t)(a - base);
      if (off % p->stride >= guard)
        return 0;
      *index = i * FPAR__STACKS_PER_SLAB + off / p->stride;
      return 1;
    }
  }
  return 0;
}
