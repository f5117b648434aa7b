/* SPDX-License-Identifier: MIT */
/* async_copy.c - copies made by a whole work-group
 * (<fiberpar/async_copy.h>).
 *
 * The work-items of a group run one at a time on one worker, so the group
 * needs no helpers to copy: the first work-item to make its k-th copy call
 * makes copy k of the group, whole, before it returns, and records its
 * arguments; every later k-th call compares its own with them.  A wait
 * finds its copies complete and only checks its events.  No call is a
 * rendezvous, so copies work alike in fibers, in barrier-free loops, in
 * lane kernels and in phase loops.  Each work-item's count of calls made
 * lives here, reset when the group makes its first call.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fiberpar.h"
#include "sched/base/error.h"
#include "sched/group/abort.h"
#include "sched/group/race.h"
#include "sched/group/worker.h"

/* The group's copy k, as its first caller made it. */
typedef struct fpar__async_copy {
  void *dst;
  const void *src;
  size_t num, elem_size, dst_stride, src_stride;
  fpar_copy_event event; /* the call's argument */
  fpar_copy_event got;   /* what the call returned */
  size_t owner;          /* local linear id of the first caller */
} fpar__async_copy;

/* The group's wait k: its events are events[first .. first + num - 1]. */
typedef struct fpar__async_wait {
  size_t first, owner;
  uint32_t copies; /* copy calls the first caller had made */
  int num;
} fpar__async_wait;

/* The records of the running group, the worker's FPAR__SLOT_ASYNC, reused
 * by every group (they only grow).  calls[2 i] and calls[2 i + 1] count
 * the copies and waits work-item i has made; they are valid while
 * `group` is the running group's serial (fpar__group_run.serial). */
typedef struct fpar__async_run {
  size_t group;
  fpar__async_copy *copies;
  size_t num_copies, cap_copies;
  fpar__async_wait *waits;
  size_t num_waits, cap_waits;
  fpar_copy_event *events;
  size_t num_events, cap_events;
  uint32_t *calls;
  size_t cap_calls;
} fpar__async_run;
_Static_assert(sizeof(fpar__async_run) <= FPAR__SLOT_BYTES,
               "the group copies' state fits its slot");

/* The group copies' state of worker w. */
static fpar__async_run *fpar__async_of(fpar__worker *w) {
  return fpar__worker_slot(w, FPAR__SLOT_ASYNC);
}

/* Free the records (the worker's end). */
static void fpar__async_free(void *state) {
  fpar__async_run *a = state;

  free(a->copies);
  free(a->waits);
  free(a->events);
  free(a->calls);
}

/* Make room for n records of `size` bytes at *p (capacity *cap). */
static void fpar__async_grow(fpar__worker *w, void **p, size_t *cap, size_t n,
                             size_t size) {
  size_t c = *cap ? *cap : 8;
  void *q;

  if (n <= *cap)
    return;
  while (c < n)
    c *= 2;
  fpar__worker_slot_owns(w, FPAR__SLOT_ASYNC, fpar__async_free);
  if ((q = realloc(*p, c * size)) == NULL)
    fpar__group_abort(w, FPAR_ENOMEM,
                      "no memory to record %zu group copies or waits", n);
  *p = q;
  *cap = c;
}

/* The running group's first copy or wait call: its counts of calls made
 * start at 0. */
static __attribute__((noinline, cold)) void
fpar__async_group_start(fpar__worker *w, fpar__async_run *a) {
  size_t n = 2 * w->launch->spec.group_size;

  fpar__async_grow(w, (void **)&a->calls, &a->cap_calls, n, sizeof *a->calls);
  memset(a->calls, 0, n * sizeof *a->calls);
  a->num_copies = a->num_waits = a->num_events = 0;
  a->group = w->run.serial;
}

/* A call of fn on a thread that runs no kernel, or in a scoped or
 * hierarchical group: NULL with FPAR_ENOTKERNEL set, or the group fails. */
static __attribute__((noinline, cold)) fpar__worker *
fpar__async_refused(fpar__worker *w, const char *fn) {
  if (w == NULL) {
    fpar__set_error(FPAR_ENOTKERNEL,
                    "%s called on a thread that runs no kernel", fn);
    return NULL;
  }
  fpar__group_abort(w, FPAR_ENOTKERNEL,
                    "%s called in a scoped or hierarchical group function; "
                    "group copies are for nd_range kernels",
                    fn);
}

/* Whether worker w (fpar__self) runs a kernel whose groups may copy: an
 * nd_range one, not a scoped or hierarchical group function. */
static inline int fpar__async_in_kernel(const fpar__worker *w) {
  return w != NULL && w->launch != NULL &&
         w->launch->spec.model != FPAR__SCOPED &&
         w->launch->spec.model != FPAR__HIERARCHICAL;
}

/* The worker of a call of fn, or NULL (FPAR_ENOTKERNEL set) on a thread
 * that runs no kernel; scoped and hierarchical groups fail. */
static inline __attribute__((always_inline)) fpar__worker *
fpar__async_worker(const char *fn) {
  fpar__worker *w = fpar__self;
  fpar__async_run *a;

  if (__builtin_expect(!fpar__async_in_kernel(w), 0))
    return fpar__async_refused(w, fn);
  a = fpar__async_of(w);
  if (__builtin_expect(a->group != w->run.serial, 0))
    fpar__async_group_start(w, a);
  return w;
}

/* Element i of a strided copy: elem_size bytes. */
static void fpar__async_strided(const fpar__async_copy *c) {
  char *d = c->dst;
  const char *s = c->src;
  size_t i, e = c->elem_size, ds = c->dst_stride * e, ss = c->src_stride * e;

  if (e == 4)
    for (i = 0; i < c->num; i++)
      memcpy(d + i * ds, s + i * ss, 4);
  else if (e == 8)
    for (i = 0; i < c->num; i++)
      memcpy(d + i * ds, s + i * ss, 8);
  else
    for (i = 0; i < c->num; i++)
      memcpy(d + i * ds, s + i * ss, e);
}

/* A difference between work-item i's call and the group's copy k. */
static _Noreturn void fpar__async_differs(fpar__worker *w, size_t i,
                                          const char *fn, size_t k,
                                          const char *arg, uint64_t mine,
                                          uint64_t first, size_t owner) {
  fpar__group_abort(w, FPAR_EINVAL,
                    "work-item %zu called %s (copy %zu of the group) with %s "
                    "%#" PRIx64 " but work-item %zu made it with %#" PRIx64
                    "; every work-item must pass the same arguments",
                    i, fn, k, arg, mine, owner, first);
}

/* Whether call c has the arguments of the group's copy o.  One compare
 * and branch per field, each taking o's field from memory: no register
 * beyond the arguments', so the steady state saves none. */
static inline int fpar__async_same(const fpar__async_copy *c,
                                   const fpar__async_copy *o) {
  return c->dst == o->dst && c->src == o->src && c->num == o->num &&
         c->elem_size == o->elem_size && c->dst_stride == o->dst_stride &&
         c->src_stride == o->src_stride && c->event == o->event;
}

/* A copy call c of fn, in any state: the group's first call (or the
 * first of a fiber's new group), a first k-th call, which checks, copies
 * and records, a later one that differs from the group's copy k (a
 * fault), or a call outside any kernel. */
static __attribute__((noinline)) fpar_copy_event
fpar__async_call(fpar_item *it, fpar__async_copy *c, const char *fn) {
  FPAR__RACE_SCOPE(fpar__self);
  fpar__worker *w = fpar__async_worker(fn);
  fpar__async_run *a;
  const fpar__async_copy *o;
  size_t i, k, bytes;

  if (w == NULL)
    return 0;
  a = fpar__async_of(w);
  i = fpar_local_linear_id(it);
  k = a->calls[2 * i]++;
  if (k < a->num_copies) {
    o = &a->copies[k];
#define FPAR__ASYNC_SAME(field, name)                                          \
  if ((uint64_t)(uintptr_t)c->field != (uint64_t)(uintptr_t)o->field)          \
  fpar__async_differs(w, i, fn, k, name, (uint64_t)(uintptr_t)c->field,        \
                      (uint64_t)(uintptr_t)o->field, o->owner)
    FPAR__ASYNC_SAME(dst, "dst");
    FPAR__ASYNC_SAME(src, "src");
    FPAR__ASYNC_SAME(num, "num");
    FPAR__ASYNC_SAME(elem_size, "elem_size");
    FPAR__ASYNC_SAME(dst_stride, "dst_stride");
    FPAR__ASYNC_SAME(src_stride, "src_stride");
    FPAR__ASYNC_SAME(event, "event");
#undef FPAR__ASYNC_SAME
    return o->got;
  }
  /* The first k-th call: check, copy, record. */
  if (c->event > a->num_copies)
    fpar__group_abort(w, FPAR_EINVAL,
                      "work-item %zu passed event %" PRIu32 " to %s but the "
                      "group has made %zu copies",
                      i, c->event, fn, a->num_copies);
  if (c->dst_stride == 0 || c->src_stride == 0)
    fpar__group_abort(w, FPAR_EINVAL,
                      "work-item %zu passed %s 0 to %s; strides are at least "
                      "1",
                      i, c->dst_stride == 0 ? "dst_stride" : "src_stride", fn);
  if (c->num != 0 &&
      (__builtin_mul_overflow(c->num - 1,
                              c->dst_stride > c->src_stride ? c->dst_stride
                                                            : c->src_stride,
                              &bytes) ||
       __builtin_add_overflow(bytes, 1, &bytes) ||
       __builtin_mul_overflow(bytes, c->elem_size, &bytes)))
    fpar__group_abort(w, FPAR_EINVAL,
                      "work-item %zu: %s of %zu elements of %zu bytes with "
                      "strides %zu/%zu spans more than SIZE_MAX bytes",
                      i, fn, c->num, c->elem_size, c->dst_stride,
                      c->src_stride);
  if (c->num != 0 && c->elem_size != 0) {
    if (c->dst_stride == 1 && c->src_stride == 1)
      memcpy(c->dst, c->src, c->num * c->elem_size);
    else
      fpar__async_strided(c);
  }
  fpar__async_grow(w, (void **)&a->copies, &a->cap_copies, k + 1,
                   sizeof *a->copies);
  c->got = c->event ? c->event : (fpar_copy_event)(k + 1);
  c->owner = i;
  a->copies[a->num_copies++] = *c;
  return c->got;
}

/* The running group's records, and in *i the caller's local linear id,
 * when a copy or wait call of work-item it may be the steady state (in a
 * kernel's group that has made its first call: the records carry its
 * serial, which no other group, scoped ones included, has; not under
 * racecheck, where every call takes the full path, which tells TSan);
 * else NULL. */
static inline __attribute__((always_inline)) fpar__async_run *
fpar__async_steady_run(const fpar_item *it, size_t *i) {
  fpar__worker *w = fpar__self;
  fpar__async_run *a;

  if (fpar__tsan_enabled() || w == NULL)
    return NULL;
  a = fpar__async_of(w);
  if (a->group != w->run.serial)
    return NULL;
  *i = fpar_local_linear_id(it);
  return a;
}

/* The steady state of a copy call c: work-item i's k-th call, made after
 * the group's copy k with the same arguments (its count advanced), is
 * that copy; anything else NULL, for fpar__async_call.  Inlined into the
 * copy functions: loads and compares, without a frame (c is built only
 * on the way to fpar__async_call).  Under racecheck every call takes
 * fpar__async_call, which tells TSan. */
static inline __attribute__((always_inline)) const fpar__async_copy *
fpar__async_steady(const fpar_item *it, fpar__async_copy c) {
  size_t i, k;
  fpar__async_run *a = fpar__async_steady_run(it, &i);
  const fpar__async_copy *o;

  if (a == NULL || (k = a->calls[2 * i]) >= a->num_copies ||
      !fpar__async_same(&c, o = &a->copies[k]))
    return NULL;
  a->calls[2 * i] = (uint32_t)(k + 1);
  return o;
}

/* A contiguous copy call, by fpar__async_call (out of the steady state's
 * way).  It takes the public function's six arguments, all in
 * registers, so that the public function reaches it by a tail call. */
static __attribute__((noinline)) fpar_copy_event
fpar__async_call_contiguous(fpar_item *it, void *dst, const void *src,
                            size_t num, size_t elem_size,
                            fpar_copy_event event) {
  fpar__async_copy c = {dst, src, num, elem_size, 1, 1, event, 0, 0};

  return fpar__async_call(it, &c, "fpar_async_work_group_copy");
}

/* A strided copy call, by fpar__async_call. */
static __attribute__((noinline)) fpar_copy_event
fpar__async_call_strided(fpar_item *it, void *dst, const void *src, size_t num,
                         size_t elem_size, size_t dst_stride, size_t src_stride,
                         fpar_copy_event event) {
  fpar__async_copy c = {dst,        src,   num, elem_size, dst_stride,
                        src_stride, event, 0,   0};

  return fpar__async_call(it, &c, "fpar_async_work_group_strided_copy");
}

fpar_copy_event fpar_async_work_group_copy(fpar_item *it, void *dst,
                                           const void *src, size_t num,
                                           size_t elem_size,
                                           fpar_copy_event event) {
  const fpar__async_copy *o = fpar__async_steady(
      it, (fpar__async_copy){dst, src, num, elem_size, 1, 1, event, 0, 0});

  return __builtin_expect(o != NULL, 1)
             ? o->got
             : fpar__async_call_contiguous(it, dst, src, num, elem_size, event);
}

fpar_copy_event fpar_async_work_group_strided_copy(
    fpar_item *it, void *dst, const void *src, size_t num, size_t elem_size,
    size_t dst_stride, size_t src_stride, fpar_copy_event event) {
  const fpar__async_copy *o = fpar__async_steady(
      it, (fpar__async_copy){dst, src, num, elem_size, dst_stride, src_stride,
                             event, 0, 0});

  return __builtin_expect(o != NULL, 1)
             ? o->got
             : fpar__async_call_strided(it, dst, src, num, elem_size,
                                        dst_stride, src_stride, event);
}

static const char fpar__wait_name[] = "fpar_wait_group_events";

/* A wait for events[0 .. num_events - 1], in any state: the group's
 * first call, the first k-th wait, which checks and records it, a later
 * one that differs from it (a fault), or a call outside any kernel. */
static __attribute__((noinline)) int
fpar__async_wait_call(fpar_item *it, int num_events,
                      const fpar_copy_event *events) {
  const char *fn = fpar__wait_name;
  FPAR__RACE_SCOPE(fpar__self);
  fpar__worker *w = fpar__async_worker(fn);
  fpar__async_run *a;
  const fpar__async_wait *o;
  size_t i, k;
  int e;

  if (w == NULL)
    return FPAR_ENOTKERNEL;
  a = fpar__async_of(w);
  i = fpar_local_linear_id(it);
  if (num_events < 1 || events == NULL)
    fpar__group_abort(w, FPAR_EINVAL,
                      "work-item %zu called %s with num_events %d and events "
                      "%s; it waits for at least one event",
                      i, fn, num_events, events == NULL ? "NULL" : "given");
  k = a->calls[2 * i + 1]++;
  if (k < a->num_waits) {
    /* The first caller's events were checked against its copies: the
     * same events after as many copies are valid here too. */
    o = &a->waits[k];
    if (o->num != num_events)
      fpar__group_abort(w, FPAR_EINVAL,
                        "work-item %zu called %s (wait %zu of the group) with "
                        "num_events %d but work-item %zu made it with %d",
                        i, fn, k, num_events, o->owner, o->num);
    if (a->calls[2 * i] != o->copies)
      fpar__group_abort(
          w, FPAR_EINVAL,
          "work-item %zu made wait %zu of the group after %" PRIu32
          " copy calls but work-item %zu after %" PRIu32,
          i, k, a->calls[2 * i], o->owner, o->copies);
    for (e = 0; e < num_events; e++)
      if (events[e] != a->events[o->first + (size_t)e])
        fpar__group_abort(w, FPAR_EINVAL,
                          "work-item %zu called %s (wait %zu of the group) "
                          "with events[%d] = %" PRIu32 " but work-item %zu "
                          "made it with %" PRIu32,
                          i, fn, k, e, events[e], o->owner,
                          a->events[o->first + (size_t)e]);
    return 0;
  }
  for (e = 0; e < num_events; e++)
    if (events[e] == 0 || events[e] > a->calls[2 * i])
      fpar__group_abort(w, FPAR_EINVAL,
                        "work-item %zu waits for events[%d] = %" PRIu32
                        ", which none of its %" PRIu32 " copy calls returned",
                        i, e, events[e], a->calls[2 * i]);
  fpar__async_grow(w, (void **)&a->waits, &a->cap_waits, k + 1,
                   sizeof *a->waits);
  fpar__async_grow(w, (void **)&a->events, &a->cap_events,
                   a->num_events + (size_t)num_events, sizeof *a->events);
  memcpy(a->events + a->num_events, events,
         (size_t)num_events * sizeof *events);
  a->waits[k].first = a->num_events;
  a->waits[k].num = num_events;
  a->waits[k].owner = i;
  a->waits[k].copies = a->calls[2 * i];
  a->num_events += (size_t)num_events;
  a->num_waits = k + 1;
  return 0;
}

/* Whether work-item i's wait for events[0 .. num_events - 1] is the
 * group's wait k as its first caller made it, after as many copy calls. */
static inline int fpar__async_same_wait(const fpar__async_run *a, size_t i,
                                        size_t k, int num_events,
                                        const fpar_copy_event *events) {
  const fpar__async_wait *o = &a->waits[k];
  int e;

  if (o->num != num_events || events == NULL || a->calls[2 * i] != o->copies)
    return 0;
  for (e = 0; e < num_events; e++)
    if (events[e] != a->events[o->first + (size_t)e])
      return 0;
  return 1;
}

/* The steady state, a later k-th wait the same as the group's wait k, is
 * loads and compares, without a frame (as a copy call's); the rest is
 * fpar__async_wait_call's. */
int fpar_wait_group_events(fpar_item *it, int num_events,
                           const fpar_copy_event *events) {
  size_t i, k;
  fpar__async_run *a = fpar__async_steady_run(it, &i);

  if (__builtin_expect(a == NULL || (k = a->calls[2 * i + 1]) >= a->num_waits ||
                           !fpar__async_same_wait(a, i, k, num_events, events),
                       0))
    return fpar__async_wait_call(it, num_events, events);
  a->calls[2 * i + 1] = (uint32_t)(k + 1);
  return 0;
}
