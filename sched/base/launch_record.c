/* SPDX-License-Identifier: MIT */
/* launch_record.c - lifetime and failure record of a launch, and the pool
 * of launch records (see launch_record.h).
 *
 * The pool is a stack of free records that takes no lock: its head packs
 * the first free record's index with a tag that every change increments,
 * so that a record taken and given back between another thread's read of
 * the head and its compare-and-swap does not fool the swap (the ABA
 * problem).  Records live in slabs that double in size and are freed only
 * with the pool; a lock guards making a slab, when the stack is empty. */
#include <stdlib.h>
#include <string.h>

#include "sched/base/launch_record.h"
#include "sched/base/sync.h"

/* Slab k holds FPAR__POOL_FIRST << k records: up to 2^31 in all. */
#define FPAR__POOL_FIRST 16u
#define FPAR__POOL_SLABS 27

const char fpar__launch_done_mark;

struct fpar__launch_pool {
  /* tag << 32 | (index + 1) of the first free record; 0 in the low half:
   * none is free. */
  atomic_uint_fast64_t head;
  uv_mutex_t grow_lock;
  unsigned num_slabs;   /* guarded by grow_lock */
  uv_mutex_t fail_lock; /* orders the faults reported to its launches */
  _Atomic(fpar__launch *) slabs[FPAR__POOL_SLABS];
};

static fpar__launch *fpar__pool_record(fpar__launch_pool *p, unsigned index) {
  unsigned k = 31 - (unsigned)__builtin_clz(index / FPAR__POOL_FIRST + 1);
  size_t first = (size_t)FPAR__POOL_FIRST * ((1u << k) - 1);
  fpar__launch *slab = atomic_load_explicit(&p->slabs[k], memory_order_relaxed);

  return slab + (index - first);
}

/* Push the chain of free records first..last (linked by pool_next). */
static void fpar__pool_push(fpar__launch_pool *p, fpar__launch *first,
                            fpar__launch *last) {
  uint_fast64_t h = atomic_load_explicit(&p->head, memory_order_relaxed), n;

  do {
    atomic_store_explicit(&last->pool_next, (unsigned)h, memory_order_relaxed);
    n = ((h >> 32) + 1) << 32 | (first->pool_index + 1);
  } while (!atomic_compare_exchange_weak_explicit(
      &p->head, &h, n, memory_order_release, memory_order_relaxed));
}

/* Make the next slab of free records, unless another thread just did.
 * Returns 0 or FPAR_ENOMEM. */
static int fpar__pool_grow(fpar__launch_pool *p) {
  unsigned k, n, i, base;
  fpar__launch *slab;
  int err = 0;

  uv_mutex_lock(&p->grow_lock);
  if ((unsigned)atomic_load_explicit(&p->head, memory_order_relaxed) != 0)
    goto out;
  k = p->num_slabs;
  n = FPAR__POOL_FIRST << k;
  base = FPAR__POOL_FIRST * ((1u << k) - 1);
  if (k == FPAR__POOL_SLABS ||
      (slab = aligned_alloc(alignof(fpar__launch), n * sizeof *slab)) == NULL) {
    err = FPAR_ENOMEM;
    goto out;
  }
  /* Zero: fpar__launch_create() compares a spec with what a record held. */
  memset(slab, 0, n * sizeof *slab);
  for (i = 0; i < n; i++) {
    fpar__launch *l = slab + i;
    l->pool = p;
    l->pool_index = base + i;
    atomic_init(&l->refs, 0);
    atomic_init(&l->seq, 0);
    atomic_init(&l->failed_group, FPAR__NO_FAULT);
    atomic_init(&l->pool_next, i + 1 < n ? base + i + 2 : 0);
  }
  atomic_store_explicit(&p->slabs[k], slab, memory_order_relaxed);
  p->num_slabs = k + 1;
  fpar__pool_push(p, slab, slab + (n - 1));
out:
  uv_mutex_unlock(&p->grow_lock);
  return err;
}

static fpar__launch *fpar__pool_pop(fpar__launch_pool *p) {
  uint_fast64_t h = atomic_load_explicit(&p->head, memory_order_acquire), n;
  fpar__launch *l;

  for (;;) {
    unsigned top = (unsigned)h;
    if (top == 0) {
      if (fpar__pool_grow(p) != 0)
        return NULL;
      h = atomic_load_explicit(&p->head, memory_order_acquire);
      continue;
    }
    /* l may be taken, used and given back meanwhile: its pool_next is then
     * stale, and the tag makes the swap fail. */
    l = fpar__pool_record(p, top - 1);
    n = ((h >> 32) + 1) << 32 |
        atomic_load_explicit(&l->pool_next, memory_order_relaxed);
    if (atomic_compare_exchange_weak_explicit(
            &p->head, &h, n, memory_order_acquire, memory_order_acquire))
      return l;
  }
}

int fpar__launch_pool_init(fpar__launch_pool **out) {
  fpar__launch_pool *p = calloc(1, sizeof *p);
  unsigned k;

  if (p == NULL || uv_mutex_init(&p->grow_lock) != 0) {
    free(p);
    return FPAR_ENOMEM;
  }
  if (uv_mutex_init(&p->fail_lock) != 0) {
    uv_mutex_destroy(&p->grow_lock);
    free(p);
    return FPAR_ENOMEM;
  }
  atomic_init(&p->head, 0);
  for (k = 0; k < FPAR__POOL_SLABS; k++)
    atomic_init(&p->slabs[k], NULL);
  *out = p;
  return 0;
}

void fpar__launch_pool_destroy(fpar__launch_pool *p) {
  unsigned k;

  if (p == NULL)
    return;
  for (k = 0; k < p->num_slabs; k++)
    free(atomic_load_explicit(&p->slabs[k], memory_order_relaxed));
  uv_mutex_destroy(&p->grow_lock);
  uv_mutex_destroy(&p->fail_lock);
  free(p);
}

/* Copy n bytes from src to dst (a record's, aligned to a cache line) a
 * line at a time, leaving the lines that hold them already unwritten. */
static void fpar__copy_changed(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  size_t k, len;

  for (k = 0; k < n; k += len) {
    len = n - k < 64 ? n - k : 64;
    if (memcmp(d + k, s + k, len) != 0)
      memcpy(d + k, s + k, len);
  }
}

fpar__launch *fpar__launch_create(fpar__launch_pool *pool,
                                  const fpar__launch_spec *spec,
                                  size_t args_size) {
  fpar__launch *l = fpar__pool_pop(pool);
  fpar__launch_spec own;

  if (l == NULL)
    return NULL;
  if (args_size != 0) {
    fpar__copy_changed(l->arg_copy, spec->args, args_size);
    memcpy(&own, spec, sizeof own);
    own.args = l->arg_copy;
    spec = &own;
  }
  fpar__copy_changed(&l->spec, spec, sizeof *spec);
  /* Left as they are unless the record's last launch failed. */
  if (atomic_load_explicit(&l->failed_group, memory_order_relaxed) !=
      FPAR__NO_FAULT) {
    atomic_store_explicit(&l->failed_group, FPAR__NO_FAULT,
                          memory_order_relaxed);
    l->fault_code = 0;
    l->error[0] = '\0';
  }
  l->hooks.complete = NULL;
  l->hooks.queue = NULL;
  atomic_store_explicit(&l->hooks.uv_async, NULL, memory_order_relaxed);
  l->sched = NULL;
  atomic_store_explicit(&l->next, NULL, memory_order_relaxed);
  atomic_store_explicit(&l->status, FPAR__LAUNCH_QUEUED, memory_order_relaxed);
  atomic_store_explicit(&l->groups_done, 0, memory_order_relaxed);
  l->submit_ns = l->start_ns = l->end_ns = 0;
  atomic_store_explicit(&l->seq, 0, memory_order_relaxed);
  atomic_store_explicit(&l->refs, 1, memory_order_relaxed);
  return l;
}

void fpar__launch_ref(fpar__launch *l) {
  atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
}

void fpar__launch_unref(fpar__launch *l) {
  if (atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) != 1)
    return;
  fpar__pool_push(l->pool, l, l);
}

void fpar__launch_fail(fpar__launch *l, size_t group, int code,
                       const char *message) {
  size_t n;

  uv_mutex_lock(&l->pool->fail_lock);
  if (group < atomic_load_explicit(&l->failed_group, memory_order_relaxed)) {
    l->fault_code = code;
    n = strnlen(message, sizeof l->error - 1);
    memcpy(l->error, message, n);
    l->error[n] = '\0';
    atomic_store_explicit(&l->failed_group, group, memory_order_release);
  }
  uv_mutex_unlock(&l->pool->fail_lock);
}
