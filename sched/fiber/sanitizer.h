/* SPDX-License-Identifier: MIT */
/* sanitizer.h - telling AddressSanitizer and ThreadSanitizer about fiber
 * switches.
 *
 * ASan tracks one stack per thread; a fiber switch must announce the stack
 * it goes to (start) and confirm arrival on it (finish), or ASan misreads
 * frames on fiber stacks and corrupts its fake-stack bookkeeping.  Stacks
 * of abandoned fibers keep their frames' poison and are cleaned before
 * reuse.
 *
 * TSan keeps a shadow call stack and a clock per thread; every context a
 * thread switches to needs a TSan fiber of its own, switched to just
 * before the switch.  Switches between the scheduler and a runner
 * synchronise; switches between the fibers of a group do not (racecheck,
 * sched/group/race.h: the group's rendezvous say where work-items are
 * ordered).
 *
 * Everything here compiles to nothing in builds without the sanitizer.
 */
#ifndef FPAR_SCHED_FIBER_SANITIZER_H
#define FPAR_SCHED_FIBER_SANITIZER_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define FPAR__ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FPAR__ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define FPAR__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FPAR__TSAN 1
#endif
#endif

#ifdef FPAR__TSAN
/* libtsan's dynamic annotations (no header declares them). */
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#endif

#ifdef FPAR__ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef FPAR__TSAN
#include <sanitizer/tsan_interface.h>
#endif

/* About to switch to the stack [lo, lo + size).  fake receives the current
 * context's fake stack; NULL when the current context never resumes. */
static inline void fpar__san_switch_out(void **fake, const void *lo,
                                        size_t size) {
#ifdef FPAR__ASAN
  __sanitizer_start_switch_fiber(fake, lo, size);
#else
  (void)fake, (void)lo, (void)size;
#endif
}

/* Arrived on a stack: fake is what fpar__san_switch_out stored for this
 * context (NULL for a fresh one); *from_lo and *from_size, when not NULL,
 * receive the stack we came from. */
static inline void fpar__san_switch_in(void *fake, const void **from_lo,
                                       size_t *from_size) {
#ifdef FPAR__ASAN
  __sanitizer_finish_switch_fiber(fake, from_lo, from_size);
#else
  (void)fake, (void)from_lo, (void)from_size;
#endif
}

/* Clear the poison that frames of an abandoned fiber left on a stack. */
static inline void fpar__san_clean_stack(void *lo, size_t size) {
#ifdef FPAR__ASAN
  ASAN_UNPOISON_MEMORY_REGION(lo, size);
#else
  (void)lo, (void)size;
#endif
}

/* Whether contexts need TSan fibers (fpar__tsan_fiber_*). */
static inline int fpar__tsan_enabled(void) {
#ifdef FPAR__TSAN
  return 1;
#else
  return 0;
#endif
}

/* The TSan fiber of the calling thread's own context. */
static inline void *fpar__tsan_fiber_current(void) {
#ifdef FPAR__TSAN
  return __tsan_get_current_fiber();
#else
  return NULL;
#endif
}

/* A TSan fiber for a context made on a stack of ours. */
static inline void *fpar__tsan_fiber_create(void) {
#ifdef FPAR__TSAN
  return __tsan_create_fiber(0);
#else
  return NULL;
#endif
}

static inline void fpar__tsan_fiber_destroy(void *fiber) {
#ifdef FPAR__TSAN
  if (fiber != NULL)
    __tsan_destroy_fiber(fiber);
#else
  (void)fiber;
#endif
}

/* About to switch to the context whose TSan fiber is fiber: a switch
 * that orders what ran before it before what runs after it. */
static inline void fpar__tsan_fiber_switch(void *fiber) {
#ifdef FPAR__TSAN
  __tsan_switch_to_fiber(fiber, 0);
#else
  (void)fiber;
#endif
}

/* The same for a switch that orders nothing: between work-items of a
 * group, which are ordered by the group's rendezvous alone. */
static inline void fpar__tsan_fiber_switch_no_sync(void *fiber) {
#ifdef FPAR__TSAN
  __tsan_switch_to_fiber(fiber, __tsan_switch_to_fiber_no_sync);
#else
  (void)fiber;
#endif
}

#endif
