/* SPDX-License-Identifier: MIT */
/* stack.c - fiber stack slots with guards (see stack.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "fiberpar.h"
#include "sched/fiber/guard.h"
#include "sched/fiber/sanitizer.h"
#include "sched/fiber/stack.h"
#include "sched/machine/topo.h"

#ifdef HAVE_VALGRIND_VALGRIND_H
#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>
#define FPAR__STACK_REGISTER(lo, hi) VALGRIND_STACK_REGISTER(lo, hi)
#define FPAR__STACK_DEREGISTER(id) VALGRIND_STACK_DEREGISTER(id)
#define FPAR__STACK_ADDRESSABLE(lo, len) VALGRIND_MAKE_MEM_UNDEFINED(lo, len)
#else
#define FPAR__STACK_REGISTER(lo, hi) 0u
#define FPAR__STACK_DEREGISTER(id) ((void)(id))
#define FPAR__STACK_ADDRESSABLE(lo, len) ((void)(lo), (void)(len))
#endif

/* Slots a worker may hold at most, whatever the mapping budget: 8192
 * slots of a 64 KiB stack span about 9 GiB of address space. */
#define FPAR__STACK_SLOTS_MAX ((size_t)8192)

static size_t fpar__page_size(void) {
  return (size_t)sysconf(_SC_PAGESIZE);
}

size_t fpar__stack_budget(unsigned workers, size_t want, int marks) {
  size_t n = want < FPAR__STACK_SLOTS_MAX ? want : FPAR__STACK_SLOTS_MAX;

  if (!marks) {
    /* Two mappings per slot; leave the other half to the application. */
    size_t free_maps = fpar__guard_free_mappings();
    size_t share = free_maps / 2 / 2 / (workers ? workers : 1);
    if (share < n)
      n = share;
  }
  return n < FPAR__STACK_SLOTS_MIN ? FPAR__STACK_SLOTS_MIN : n;
}

void fpar__stack_pool_init(fpar__stack_pool *p, struct fpar__topo *topo,
                           unsigned worker, size_t stack_size, size_t limit,
                           int marks) {
  size_t page = fpar__page_size();

  p->topo = topo;
  p->worker = worker;
  p->stack_size = (stack_size + page - 1) / page * page;
  /* One page of slack pays for colours of up to 2 KiB. */
  p->span = p->stack_size + (page >= 2048 ? page : 2048);
  p->stride = FPAR__STACK_GUARD + p->span;
  p->marks = marks;
  p->count = 0;
  /* Racecheck (a TSan build) needs a stack per work-item: no limit
   * sends fibers to a shared stack there (sched/group/race.h). */
  p->limit = fpar__tsan_enabled() ? SIZE_MAX : limit;
  p->lo = NULL;
  p->num_slabs = p->cap_slabs = 0;
  p->slabs = NULL;
}

/* Room in the tables for a slab of n more slots. */
static int fpar__stack_pool_grow_tables(fpar__stack_pool *p, size_t n) {
  if (p->num_slabs == p->cap_slabs) {
    size_t cap = p->cap_slabs ? 2 * p->cap_slabs : 4;
    fpar__stack_slab *s = realloc(p->slabs, cap * sizeof *s);
    if (s == NULL)
      return FPAR_ENOMEM;
    p->slabs = s;
    p->cap_slabs = cap;
  }
  {
    char **lo = realloc(p->lo, (p->count + n) * sizeof *lo);
    if (lo == NULL)
      return FPAR_ENOMEM;
    p->lo = lo;
  }
  return 0;
}

/* Map a slab of n slots after the existing ones. */
static int fpar__stack_pool_add_slab(fpar__stack_pool *p, size_t n) {
  size_t len = p->stride * n, j;
  unsigned *ids;
  char *base;

  if (fpar__stack_pool_grow_tables(p, n) != 0)
    return FPAR_ENOMEM;
  ids = malloc(n * sizeof *ids);
  if (ids == NULL)
    return FPAR_ENOMEM;
  base = mmap(NULL, len, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) {
    free(ids);
    return FPAR_ENOMEM;
  }
  fpar__topo_bind_area(p->topo, p->worker, base, len);
  for (j = 0; j < n; j++)
    if (fpar__guard_install(base + j * p->stride, FPAR__STACK_GUARD,
                            p->marks) != 0) {
      munmap(base, len);
      free(ids);
      return FPAR_ENOMEM;
    }
  for (j = 0; j < n; j++) {
    char *lo = base + j * p->stride + FPAR__STACK_GUARD;
    p->lo[p->count + j] = lo;
    ids[j] = FPAR__STACK_REGISTER(lo, lo + p->span);
  }
  p->slabs[p->num_slabs].base = base;
  p->slabs[p->num_slabs].first = p->count;
  p->slabs[p->num_slabs].count = n;
  p->slabs[p->num_slabs].valgrind_id = ids;
  p->num_slabs++;
  p->count += n;
  return 0;
}

int fpar__stack_pool_reserve(fpar__stack_pool *p, size_t n) {
  size_t more;

  if (n <= p->count)
    return 0;
  if (n > p->limit)
    return FPAR_ENOMEM;
  /* Grow at least geometrically, so that a worker whose groups grow maps
   * few slabs; but never past the limit. */
  more = n - p->count;
  if (more < p->count)
    more = p->count;
  if (more > p->limit - p->count)
    more = p->limit - p->count;
  if (fpar__stack_pool_add_slab(p, more) == 0)
    return 0;
  /* Without room for the growth, try for what was asked. */
  if (more > n - p->count && fpar__stack_pool_add_slab(p, n - p->count) == 0)
    return 0;
  return FPAR_ENOMEM;
}

void fpar__stack_pool_destroy(fpar__stack_pool *p) {
  size_t i, j;

  for (i = 0; i < p->num_slabs; i++) {
    fpar__stack_slab *s = &p->slabs[i];
    /* Abandoned frames leave AddressSanitizer's poison behind, which would
     * stay on whatever is mapped here next. */
    for (j = 0; j < s->count; j++) {
      FPAR__STACK_DEREGISTER(s->valgrind_id[j]);
      fpar__san_clean_stack(p->lo[s->first + j], p->span);
    }
    free(s->valgrind_id);
    munmap(s->base, p->stride * s->count);
  }
  free(p->slabs);
  free(p->lo);
  p->slabs = NULL;
  p->lo = NULL;
  p->num_slabs = p->cap_slabs = p->count = 0;
}

int fpar__stack_pool_find(const fpar__stack_pool *p, const void *addr,
                          size_t *slot, int *in_guard) {
  const char *a = addr;
  size_t i;

  for (i = 0; i < p->num_slabs; i++) {
    const fpar__stack_slab *s = &p->slabs[i];
    if (a >= s->base && a < s->base + p->stride * s->count) {
      size_t off = (size_t)(a - s->base);
      *slot = s->first + off / p->stride;
      *in_guard = off % p->stride < FPAR__STACK_GUARD;
      return 1;
    }
  }
  return 0;
}

void fpar__stack_copy_in(char *dst, const char *src, size_t len) {
  FPAR__STACK_ADDRESSABLE(dst, len);
  memcpy(dst, src, len);
}
